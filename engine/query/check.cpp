#include "engine/query/check.h"

#include "engine/store/codec.h"
#include "engine/store/crc32c.h"
#include "engine/store/session_numbers.h"
#include "engine/index/source_watch.h"
#include "engine/store/memory_store.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xapian.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "engine/store/child_run.h"
#include "engine/store/index_damage.h"
#include "engine/store/lmdb_check.h"
#include "engine/store/store.h"
#include "engine/index/text_index.h"
#include "engine/index/index_parts.h"
#include "engine/store/text_log.h"
#include "engine/store/text_reads.h"

namespace osearch {
namespace fs = std::filesystem;
namespace {

// The walk writes a newline every kAliveEvery entries; silent for kWalkSilence, it is taken to be
// stuck. Thousands of entries take milliseconds, even under a sanitizer on a loaded machine.
constexpr uint64_t kAliveEvery = 4096;
constexpr std::chrono::milliseconds kWalkSilence{30000};

// What the LMDB walk learns, for the checks of the parts LMDB describes.
struct RecordsFacts {
  bool read = false;  // the walk finished
  std::map<std::string, uint64_t> n;  // text_bytes, text_entries, messages, in_flight_messages, …
  std::vector<std::string> shards;
  std::string text_log = "text", titles = "titles";  // part names the env gives (engine/index/index_parts.h)
  std::vector<std::string> problems;
  std::vector<std::string> text_problems;  // the text log's, found through the records (deep)
  uint64_t get(const std::string& k) const {
    auto it = n.find(k);
    return it == n.end() ? 0 : it->second;
  }
};

// --- the child: walks every named database and writes what it found, one line each ------------
//   F <name> <value>   a fact     S <name>   a listed shard     P <text>   a problem
//   T <name>           the text log's name     L <name>   the titles database's name
//   X <text>           a problem of the text log (deep: each message's text against its checksum)

struct NamedDb {
  const char* name;
  MDB_dbi dbi;
};

// `alive` is called every few thousand entries (the parent's sign that the walk is not stuck).
std::string walk_records(const std::string& dir, bool deep, const std::function<void()>& alive) {
  std::string out;
  Store store(dir, Store::Mode::Read);
  const Dbis& db = store.db();
  LmdbTxn txn(store.env(), true);
  const uint64_t text_bytes = Store::meta_u64(txn, db, meta_key::kTextBytes);
  auto fact = [&](const char* k, uint64_t v) { out += "F " + std::string(k) + " " + std::to_string(v) + "\n"; };
  fact("text_bytes", text_bytes);
  fact("text_entries", Store::meta_u64(txn, db, meta_key::kTextEntries));
  fact("generation", Store::meta_u64(txn, db, meta_key::kXapianGeneration));
  if (auto v = txn.get(db.meta, meta_key::kXapianShards))
    for (const auto& s : XapianLayout::decode_shards(*v)) out += "S " + s + "\n";
  // Deep: the text log too, to compare each message's text with its record's checksum (a log
  // that does not open is the parent's finding: check_text_log opens it again).
  TextLogReader text_log;
  bool text_open = false;
  try {
    const IndexParts parts = read_parts(txn, db);
    out += "T " + parts.text_log + "\n";
    out += "L " + parts.layout.titles + "\n";
    if (deep) try {
        text_log.open(dir, text_bytes, Store::meta_u64(txn, db, meta_key::kTextEntries), parts.text_log);
        text_open = true;
      } catch (const std::exception&) {
      }
  } catch (const std::exception& e) {
    out += std::string("P ") + e.what() + "\n";
  }
  std::set<std::string, std::less<>> in_flight;  // newline-separated session ids, like the shard list
  if (auto v = txn.get(db.meta, meta_key::kInFlight))
    for (auto& s : XapianLayout::decode_shards(*v)) in_flight.insert(std::move(s));

  const NamedDb all[] = {{"meta", db.meta}, {"files", db.files}, {"sessions", db.sessions}, {"messages", db.messages},
                         {"msg_uuid", db.msg_uuid}, {"tool_calls", db.tool_calls}, {"tool_results", db.tool_results},
                         {"tc_by_path", db.tc_by_path}, {"sess_by_time", db.sess_by_time},
                         {"sess_by_project", db.sess_by_project}, {"usage_seen", db.usage_seen},
                         {"leaf_summary", db.leaf_summary}, {"subagents", db.subagents},
                         {"session_files", db.session_files}, {"workflows", db.workflows},
                         {"workflow_agents", db.workflow_agents}, {"epochs", db.epochs}, {"memories", db.memories},
                         {"failed_results", db.failed_results}, {"usage_agg", db.usage_agg}, {"tool_agg", db.tool_agg},
                         {"file_agg", db.file_agg}, {"file_links", db.file_links},
                         {"session_numbers", db.session_numbers}, {"sessions_by_number", db.sessions_by_number}};
  uint64_t titled = 0, in_flight_messages = 0, text_outside = 0, unnumbered = 0, text_unread = 0, text_changed = 0,
           untimed = 0;
  TextReads text_reads(text_log);
  std::string uuid_session;  // msg_uuid's entries come a session at a time: its number looked up once
  std::optional<uint32_t> uuid_number;
  constexpr size_t kRecordsSlack = 32u << 20;
  for (const auto& [name, dbi] : all) {
    uint64_t entries = 0, bad = 0;
    const std::string_view n(name);
    LmdbCursor cur(txn, dbi);
    for (bool ok = cur.first(); ok; ok = cur.next()) {
      if (++entries % kAliveEvery == 0) {
        alive();
        // Every page of data.mdb is read once: keep the child's RSS to what it read lately.
        store.env().trim_resident_pages(kRecordsSlack);
      }
      const std::string_view k = cur.key(), v = cur.value();
      if (n == "meta" && k == meta_key::kSourceWatch) {
        if (!source_watch_decodes(v)) ++bad;  // the refresh would only take the full plan, but it is damage
      } else if (n == "sessions") {
        auto s = SessionRec::decode(v);
        if (!s) ++bad;
        else if (!s->title().empty()) ++titled;
        if (s && !find_session_number(txn, db, k)) ++unnumbered;  // its documents' value says nothing
        // `list` and a --since find sessions through the time order (keyword_scope, content's ranges).
        if (s && !txn.get(db.sess_by_time, session_time_key(s->ended_at, k))) ++untimed;
      } else if (n == "messages") {
        auto m = MessageRec::decode(k, v);
        if (!m) {
          ++bad;
          continue;
        }
        // An entry is at least 9 header bytes around its text, all inside the committed log.
        if (m->text_offset + 9 + m->text_len > text_bytes) {
          ++text_outside;
        } else if (text_open) {
          TextEntry e;
          if (!text_log.entry_at(m->text_offset, e) || e.key != k || e.text.size() != m->text_len)
            ++text_unread;
          else if (m->text_crc && crc32c(e.text) != *m->text_crc)
            ++text_changed;
          text_reads.read(e.text.size());  // keep the child's RSS to what it read lately
        }
        if (!in_flight.empty() && in_flight.count(k.substr(0, k.find('\0')))) ++in_flight_messages;
      } else if (n == "msg_uuid") {
        // be32(session number) uuid -> a message key of that session (records_store.h): a key or
        // value that says otherwise would send `context` and `thread --around` astray.
        const std::optional<std::string_view> sid = session_in_message_key(v);
        const std::optional<uint32_t> number = session_number_of_uuid_key(k);
        if (!number || !sid) {
          ++bad;
          continue;
        }
        if (*sid != uuid_session) {
          uuid_session.assign(*sid);
          uuid_number = find_session_number(txn, db, *sid);
        }
        bad += uuid_number != number;
      } else if (n == "files") {
        bad += !FileState::decode(k, v);
      } else if (n == "tool_calls") {
        bad += !ToolCallRec::decode(v);
      } else if (n == "tool_results") {
        bad += !ToolResultRec::decode(v);
      } else if (n == "subagents") {
        bad += !SubagentRec::decode(v);
      } else if (n == "epochs") {
        bad += v.size() != 4;
      } else if (n == "session_numbers") {
        // Both directions name the same pair (engine/store/session_numbers.h).
        bad += v.size() != 4 || session_of_number(txn, db, get_be32(v)) != std::optional<std::string>(std::string(k));
      } else if (n == "sessions_by_number") {
        bad += k.size() != 4 || find_session_number(txn, db, v) != std::optional<uint32_t>(get_be32(k));
      }
    }
    if (entries != Store::entries(txn, dbi))
      out += "P `" + std::string(n) + "` walked " + std::to_string(entries) + " entries, its header says " +
             std::to_string(Store::entries(txn, dbi)) + "\n";
    if (bad) out += "P " + std::to_string(bad) + " of " + std::to_string(entries) + " records of `" + std::string(n) + "` do not decode\n";
    if (n == "messages") fact("messages", entries);
    if (n == "sessions") fact("sessions", entries);
  }
  if (std::string free = freelist_problem(store.env()); !free.empty()) out += "P " + free + "\n";
  if (text_outside)
    out += "P " + std::to_string(text_outside) + " messages point past the committed text log (" +
           std::to_string(text_bytes) + " bytes)\n";
  if (unnumbered) out += "P " + std::to_string(unnumbered) + " sessions have no number (`session_numbers`)\n";
  if (untimed) out += "P " + std::to_string(untimed) + " sessions are missing from the time order (`sess_by_time`)\n";
  if (const uint64_t timed = Store::entries(txn, db.sess_by_time), sessions = Store::entries(txn, db.sessions);
      timed + untimed != sessions)  // each session has one entry there: any more name no session's time
    out += "P `sess_by_time` holds " + std::to_string(timed) + " entries for " + std::to_string(sessions) +
           " sessions\n";
  if (text_unread)
    out += "X " + std::to_string(text_unread) + " messages' entries are not where their records say (overwritten)\n";
  if (text_changed)
    out += "X " + std::to_string(text_changed) + " messages' texts differ from their records' checksums (zeroed or overwritten)\n";
  fact("titled_sessions", titled);
  fact("in_flight_messages", in_flight_messages);
  return out;
}

// Runs walk_records in a child: a page of random bytes may crash LMDB, and that is a finding. The
// walk is read-only, so a child that stops responding (a lock held at fork: engine/store/child_run.h)
// is simply forked again.
RecordsFacts read_records(const std::string& dir, bool deep) {
  RecordsFacts f;
  ChildLimits limits;
  limits.silence = kWalkSilence;
  limits.attempts = 3;
  limits.retry_after_output = true;
  const ChildResult child = run_in_child(
      [&](int fd, int) {
        set_damage_reporter(nullptr);  // an LMDB assertion aborts: a signal the parent reports
        remove_index_fault_guard();    // and so does a SIGBUS
        int rc = 0;
        std::string out;
        try {
          out = walk_records(dir, deep, [fd] { write_all(fd, "\n"); });
        } catch (const IndexDamaged& e) {
          out = "P " + e.problem() + "\n";
          rc = 1;
        } catch (const std::exception& e) {
          out = std::string("P ") + e.what() + "\n";
          rc = 1;
        }
        std::replace(out.begin(), out.end(), '\r', ' ');
        write_all(fd, out);
        return rc;
      },
      limits);
  const std::string& text = child.output;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.size() < 2) continue;
    const std::string rest = line.substr(2);
    if (line[0] == 'F') {
      const size_t sp = rest.find(' ');
      f.n[rest.substr(0, sp)] = std::stoull(rest.substr(sp + 1));
    } else if (line[0] == 'S') {
      f.shards.push_back(rest);
    } else if (line[0] == 'T') {
      f.text_log = rest;
    } else if (line[0] == 'L') {
      f.titles = rest;
    } else if (line[0] == 'P') {
      f.problems.push_back(rest);
    } else if (line[0] == 'X') {
      f.text_problems.push_back(rest);
    }
  }
  if (WIFSIGNALED(child.status) && !child.silent && !child.timed_out) {
    f.problems.push_back("data.mdb is corrupt (reading it " + child.ending() + ")");
  } else if (child.silent) {
    f.problems.push_back("reading data.mdb " + child.ending());
  } else {
    f.read = child.exited_ok();
    if (!f.read && f.problems.empty()) f.problems.push_back("reading it failed");
  }
  return f;
}

// --- the parent: files and databases, checked against the facts --------------------------------

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// text.log and text.idx: sizes, then (deep) every entry: ascending, contiguous, parseable, inside.
void check_text_log(const std::string& dir, const RecordsFacts& f, bool deep, CheckPart& log, CheckPart& idx) {
  const uint64_t bytes = f.get("text_bytes"), entries = f.get("text_entries");
  TextLogReader reader;
  try {
    reader.open(dir, bytes, entries, f.text_log);
  } catch (const IndexDamaged& e) {
    CheckPart& p = e.part() == f.text_log + ".idx" ? idx : log;
    p.ok = false;
    p.problem = e.problem();
    return;
  }
  log.detail = std::to_string(bytes) + " committed bytes";
  idx.detail = std::to_string(entries) + " entries";
  if (!deep) return;
  const auto starts = reader.starts();
  // text.idx on its own: strictly ascending offsets inside the committed log.
  for (size_t i = 0; i < starts.size(); ++i) {
    if ((i > 0 && starts[i] <= starts[i - 1]) || starts[i] >= bytes) {
      idx.ok = false;
      idx.problem = "entry " + std::to_string(i) + " (byte " + std::to_string(starts[i]) + ") is out of order or past text.log's end";
      return;
    }
  }
  // Then each text.log entry must end where the next one starts (and the last at the committed size).
  // Each entry's header is read through the map, nearly every page of it: the pages behind are let go.
  constexpr uint64_t kReleaseEvery = 32u << 20;
  uint64_t released_at = 0;
  for (size_t i = 0; i < starts.size(); ++i) {
    if (starts[i] - released_at >= kReleaseEvery) {
      reader.release_resident_pages();
      released_at = starts[i];
    }
    TextEntry e;
    const uint64_t next = i + 1 < starts.size() ? starts[i + 1] : bytes;
    if (!reader.entry_at(starts[i], e) || e.text_offset + e.text.size() != next) {
      log.ok = false;
      log.problem = "entry " + std::to_string(i) + " (byte " + std::to_string(starts[i]) + ") does not end where the next begins (" +
                    std::to_string(next) + "): zeroed or overwritten";
      return;
    }
  }
  // Then what the records' walk found in the texts (their checksums).
  if (!f.text_problems.empty()) {
    log.ok = false;
    log.problem = f.text_problems.front();
    for (size_t i = 1; i < f.text_problems.size(); ++i) log.problem += "; " + f.text_problems[i];
  }
}

CheckPart check_database(const std::string& dir, const std::string& name, bool deep, Xapian::Database* into,
                         Xapian::doccount* docs) {
  CheckPart p{name, true, "", ""};
  try {
    const std::string path = dir + "/" + name;
    refuse_symlink(path, name);
    if (!fs::exists(path + "/iamglass")) throw IndexDamaged(name, "missing (the index lists it)");
    Xapian::Database db(path);
    *docs = db.get_doccount();
    p.detail = std::to_string(*docs) + " documents";
    if (deep) {
      std::ostringstream sink;
      const size_t errors = Xapian::Database::check(path, Xapian::DBCHECK_SHORT_TREE, &sink);
      if (errors) throw IndexDamaged(name, std::to_string(errors) + " errors in Xapian's check");
    }
    into->add_database(db);
  } catch (const IndexDamaged& e) {
    p.ok = false;
    p.problem = e.problem();
  } catch (const Xapian::Error& e) {
    p.ok = false;
    p.problem = "cannot be opened: " + e.get_description();
  }
  return p;
}

void check_link(const std::string& path, const std::string& part, CheckReport& r) {
  if (std::string p = symlink_problem(path); !p.empty()) r.parts.push_back({part, false, p, ""});
}

}  // namespace

std::vector<const CheckPart*> CheckReport::damaged() const {
  std::vector<const CheckPart*> out;
  for (const auto& p : parts)
    if (!p.ok) out.push_back(&p);
  return out;
}

namespace {
// The memory env (engine/store/memory_store.h): every record and event decodes. Its text index is
// derived data, rebuilt by the next reader or writer that finds it behind, so it is not a part here.
void check_memories(const std::string& dir, CheckReport& r) {
  if (!fs::exists(MemoryStore::env_dir(dir))) return;
  CheckPart part{"memories", true, "", ""};
  try {
    MemoryStore store(dir, MemoryStore::Mode::Read);
    MemoryStore::Snapshot snap(store);
    uint64_t archived = 0, events = 0;
    const auto all = snap.all();
    for (const auto& m : all) {
      archived += !m.active();
      events += snap.events(m.id).size();
    }
    part.detail = std::to_string(all.size()) + " memories (" + std::to_string(archived) + " archived), " +
                  std::to_string(events) + " events";
  } catch (const IndexDamaged& e) {
    part.ok = false;
    part.problem = e.problem();
  } catch (const std::exception& e) {
    part.ok = false;
    part.problem = e.what();
  }
  r.parts.push_back(part);
}
}  // namespace

CheckReport check_index(const std::string& dir, const CheckOptions& options) {
  CheckReport r;
  // records.current, then the LMDB env it names.
  std::string env_name = "records";
  CheckPart pointer{"records.current", true, "", ""};
  try {
    env_name = current_records_name(dir);
    pointer.detail = env_name;
  } catch (const std::exception& e) {
    pointer.ok = false;
    pointer.problem = dynamic_cast<const IndexDamaged*>(&e) ? static_cast<const IndexDamaged&>(e).problem() : e.what();
  }
  r.parts.push_back(pointer);
  const std::string env_dir = dir + "/" + env_name;
  CheckPart records{"records", true, "", ""};
  RecordsFacts facts;
  if (!pointer.ok) {
    records.ok = false;
    records.problem = "not checked: records.current does not name it";
  } else if (std::string link = symlink_problem(env_dir) + symlink_problem(env_dir + "/data.mdb"); !link.empty()) {
    records.ok = false;
    records.problem = env_name + " or its data.mdb " + link;
  } else if (!fs::exists(env_dir + "/data.mdb")) {
    const bool other_parts = fs::exists(dir + "/text.log") || fs::exists(dir + "/titles");
    if (!other_parts) throw StoreMissing("no index at " + dir + " (run `osearch index`)");
    records.ok = false;
    records.problem = env_name + "/data.mdb is missing";
  } else if (std::string meta = lmdb_data_problem(env_dir); !meta.empty()) {
    records.ok = false;
    records.problem = meta;
  } else {
    facts = read_records(dir, options.deep);
    if (!facts.problems.empty()) {
      records.ok = false;
      records.problem = facts.problems.front();
      for (size_t i = 1; i < facts.problems.size(); ++i) records.problem += "; " + facts.problems[i];
    }
    records.detail = std::to_string(facts.get("sessions")) + " sessions, " + std::to_string(facts.get("messages")) + " messages";
  }
  r.parts.push_back(records);
  check_memories(dir, r);
  check_link(env_dir + "/lock.mdb", "lock.mdb", r);
  check_link(dir + "/writer.lock", "writer.lock", r);

  if (facts.read) {
    CheckPart log{facts.text_log + ".log", true, "", ""}, idx{facts.text_log + ".idx", true, "", ""};
    check_text_log(dir, facts, options.deep, log, idx);
    r.parts.push_back(log);
    r.parts.push_back(idx);

    // Xapian: the main database of the generation (when a compaction made one), the listed
    // shards and parts, titles.
    XapianLayout layout;
    layout.generation = facts.get("generation");
    layout.shards = facts.shards;
    layout.titles = facts.titles;
    const std::string titles_dir = layout.titles_dir(dir);
    const std::string main = fs::path(layout.main_dir(dir)).filename().string();
    const bool has_part = std::any_of(layout.shards.begin(), layout.shards.end(), [](const auto& s) { return XapianLayout::is_part(s); });
    std::vector<std::string> names;
    if (has_part || fs::exists(dir + "/" + main) || symlink_problem(dir + "/" + main) != "") names.push_back(main);
    names.insert(names.end(), layout.shards.begin(), layout.shards.end());
    Xapian::Database messages_db;
    Xapian::doccount docs = 0;
    bool all_open = true;
    for (const auto& name : names) {
      Xapian::doccount n = 0;
      r.parts.push_back(check_database(dir, name, options.deep, &messages_db, &n));
      all_open = all_open && r.parts.back().ok;
      docs += n;
    }
    const uint64_t messages = facts.get("messages"), in_flight = facts.get("in_flight_messages");
    if (all_open && docs + in_flight < messages)
      r.parts.push_back({main, false,
                         "the message databases hold " + std::to_string(docs) + " documents for " + std::to_string(messages) +
                             " messages (a database is missing)",
                         ""});
    const uint64_t titled = facts.get("titled_sessions");
    const bool titles_required = titled || layout.titles != XapianLayout::kLegacyTitles;
    if (fs::exists(titles_dir) || !symlink_problem(titles_dir).empty() || titles_required) {
      Xapian::Database titles_db;
      Xapian::doccount title_docs = 0;
      CheckPart t = check_database(dir, layout.titles, options.deep, &titles_db, &title_docs);
      if (!t.ok && !fs::exists(titles_dir) && symlink_problem(titles_dir).empty())
        t.problem = "missing (" + std::to_string(titled) + " sessions have titles)";
      if (t.ok && title_docs < titled) {
        t.ok = false;
        t.problem = std::to_string(title_docs) + " title documents for " + std::to_string(titled) + " titled sessions";
      }
      r.parts.push_back(t);
    }
  }
  r.ok = r.damaged().empty();
  return r;
}

}  // namespace osearch
