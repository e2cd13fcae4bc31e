#include "engine/index/salvage.h"
#include "engine/store/usage_agg.h"

#include <poll.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "engine/store/codec.h"
#include "engine/index/index_parts.h"
#include "engine/store/records_store.h"
#include "engine/store/store.h"
#include "engine/store/text_log.h"
#include "ingest/claude.h"
#include "ingest/tool_paths.h"

#include <simdjson.h>

namespace osearch {
namespace {

// A salvage reads one env: minutes at most. Past this the child is taken to be looping on a
// damaged page.
constexpr int kSalvageSeconds = 600;
constexpr size_t kSessionsPerCommit = 64;

void report_line(int fd, const std::string& line) {
  std::string out = line + "\n";
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::write(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

uint64_t file_size_or_zero(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

// The old env's databases, opened by name in its read transaction (a missing one is nullopt).
struct OldDbs {
  const LmdbTxn& txn;
  std::optional<MDB_dbi> open(const char* name) const {
    MDB_dbi dbi;
    int rc = mdb_dbi_open(txn.get(), name, 0, &dbi);
    if (rc == MDB_NOTFOUND) return std::nullopt;
    if (rc != MDB_SUCCESS) throw LmdbError(std::string("mdb_dbi_open ") + name, rc);
    return dbi;
  }
};

template <typename Fn>
void for_prefix(const LmdbTxn& txn, std::optional<MDB_dbi> dbi, const std::string& pfx, Fn&& fn) {
  if (!dbi) return;
  LmdbCursor cur(txn, *dbi);
  for (bool ok = cur.seek(pfx); ok && cur.key().substr(0, pfx.size()) == pfx; ok = cur.next()) fn(cur.key(), cur.value());
}

struct KeyValue {
  std::string key, value;
};

// One archived session as read from the old env, checked before anything is written.
struct ArchivedSession {
  std::string id;
  SessionRec rec;
  std::string rec_bytes;
  std::vector<std::pair<MessageRec, std::string>> messages;  // record, text
  std::vector<KeyValue> tool_calls, tool_results, usage_seen, subagents, session_files, files, workflows,
      workflow_agents;
};

// Schema 13 stored a tool call's path as the tool wrote it; 14 stores it absolute against the
// cwd of its message and adds the files an apply_patch text names (ingest/tool_paths.h).
void migrate_tool_call_13(ToolCallRec& tc, std::string_view cwd) {
  std::vector<std::string> paths;
  if (!tc.file_path.empty()) paths.push_back(tc.file_path);
  if (tc.input_json.find("*** Begin Patch") != std::string::npos) {
    simdjson::dom::parser parser;
    simdjson::dom::element input;
    if (!parser.parse(tc.input_json).get(input)) {
      std::vector<simdjson::dom::element> todo{input};
      while (!todo.empty()) {  // every string of the input, wherever the patch sits
        simdjson::dom::element e = todo.back();
        todo.pop_back();
        std::string_view text;
        simdjson::dom::array arr;
        simdjson::dom::object obj;
        if (!e.get(text)) {
          if (text.find("*** Begin Patch") != std::string_view::npos)
            for (auto& p : patch_file_paths(text)) paths.push_back(std::move(p));
        } else if (!e.get(arr)) {
          for (simdjson::dom::element child : arr) todo.push_back(child);
        } else if (!e.get(obj)) {
          for (simdjson::dom::key_value_pair field : obj) todo.push_back(field.value);
        }
      }
    }
  }
  tc.file_path.clear();
  tc.extra_paths.clear();
  for (const auto& p : paths) {
    std::string abs = resolve_tool_path(p, cwd);
    if (tc.file_path.empty()) tc.file_path = std::move(abs);
    else if (abs != tc.file_path && std::find(tc.extra_paths.begin(), tc.extra_paths.end(), abs) == tc.extra_paths.end())
      tc.extra_paths.push_back(std::move(abs));
  }
}

class ChildSalvage {
 public:
  ChildSalvage(const SalvageTarget& t, int report_fd) : t_(t), fd_(report_fd) {}

  void run() {
    LmdbEnv old;
    // Read-only and without the lock file: the old env may be garbage, and only we use it.
    old.open(t_.old_env_dir, true, Store::kMaxDbs, MDB_NOLOCK);
    LmdbTxn r(old, true);
    OldDbs dbs{r};
    Store fresh(t_.index_dir, t_.new_env_name);
    // Every index has these tables from its first run: an env without them is damaged, and what it
    // held (archived sessions, memories) cannot be known, so the loss is said, not assumed empty.
    if (!dbs.open("meta") || !dbs.open("sessions")) {
      report_line(fd_, "lost whatever archived sessions and memories the old store held: its tables cannot be found");
      return;
    }
    copy_memories(r, dbs, fresh);
    copy_archive(r, dbs, fresh);
  }

 private:
  void copy_memories(const LmdbTxn& r, const OldDbs& dbs, Store& fresh) {
    auto mem = dbs.open("memories");
    if (!mem) return;
    LmdbTxn w(fresh.env(), false);
    LmdbCursor cur(r, *mem);
    for (bool ok = cur.first(); ok; ok = cur.next()) w.put(fresh.db().memories, cur.key(), cur.value());
    w.commit();
  }

  // Sessions none of whose files exists now under a source root.
  std::vector<std::string> archived_ids(const LmdbTxn& r, const OldDbs& dbs) {
    std::vector<std::string> out;
    auto sessions = dbs.open("sessions");
    auto files = dbs.open("session_files");
    if (!sessions) return out;
    LmdbCursor cur(r, *sessions);
    for (bool ok = cur.first(); ok; ok = cur.next()) {
      const std::string sid(cur.key());
      bool any_present = false;
      for_prefix(r, files, sid + '\0', [&](std::string_view key, std::string_view value) {
        std::error_code ec;
        // The value holds the full path (the key a bounded form); schema 10 kept it in the key only.
        const std::string path(value.empty() ? key.substr(sid.size() + 1) : value);
        if (!any_present && under_any(path, t_.source_dirs) && std::filesystem::exists(path, ec)) any_present = true;
      });
      if (!any_present) out.push_back(sid);
    }
    return out;
  }

  void copy_archive(const LmdbTxn& r, const OldDbs& dbs, Store& fresh) {
    const std::vector<std::string> ids = archived_ids(r, dbs);
    if (ids.empty()) return;
    auto meta = dbs.open("meta");
    auto meta_u64 = [&](const char* key) -> uint64_t {
      if (!meta) return 0;
      auto v = r.get(*meta, key);
      return v && v->size() == 8 ? get_be64(*v) : 0;
    };
    // An archived session is carried over from schema 10 to 11, and from any schema 12 on: their
    // records decode as the current ones (fields are only ever appended), documents are rebuilt
    // from the records here anyway, and each step below redoes what its schema changed:
    // 10 -> 11 bounded over-long keys (ids up to 160 bytes are unchanged), kept full paths in
    //   session_files' values and grew FileState;
    // 12 -> 13 changed which messages are meta (migrate_message_12);
    // 13 -> 14 stores tool-call paths absolute, with apply_patch's files (migrate_tool_call_13);
    //   tc_by_path (reversed paths) and failed_results are derived in write_session;
    // 14 -> 15 appended its transcript's usage, model and workflow run to a subagent record, which
    //   an older record lacks (SubagentRec::usage_complete says so);
    // 15 -> 16 added the usage aggregates (rebuilt for each archived session by write_session) and
    //   a usage_seen value (an older empty one reads as "counted, amount unknown").
    const uint64_t old_schema = meta_u64(meta_key::kSchema);
    legacy_files_ = old_schema == 10 && t_.schema == 11;
    const bool chained = old_schema >= 12 && old_schema <= t_.schema;
    meta_rules_12_ = chained && old_schema <= 12;
    tool_paths_13_ = chained && old_schema <= 13;
    if (old_schema != t_.schema && !legacy_files_ && !chained) {
      report_line(fd_, "lost " + std::to_string(ids.size()) +
                           " archived sessions: the old index was written by another version of osearch");
      return;
    }
    std::string old_text = "text";
    if (meta)
      if (auto v = r.get(*meta, meta_key::kTextLogName); v && !v->empty()) old_text = std::string(*v);
    if (!is_part_name(old_text, "text")) throw std::runtime_error("the old index names an invalid text log");
    // Map no more than the files hold: past their end a read would be a SIGBUS.
    const std::string old_base = t_.index_dir + "/" + old_text;
    const uint64_t bytes = std::min(meta_u64(meta_key::kTextBytes), file_size_or_zero(old_base + ".log"));
    const uint64_t entries = std::min(meta_u64(meta_key::kTextEntries), file_size_or_zero(old_base + ".idx") / 8);
    TextLogReader text;
    bool text_ok = true;
    try {
      text.open(t_.index_dir, bytes, entries, old_text);
    } catch (const std::exception& e) {
      text_ok = false;
      report_line(fd_, std::string("the old text log cannot be read: ") + e.what());
    }

    Handles h{dbs.open("sessions"),  dbs.open("messages"),     dbs.open("tool_calls"), dbs.open("tool_results"),
              dbs.open("usage_seen"), dbs.open("subagents"),   dbs.open("session_files"), dbs.open("files"),
              dbs.open("workflows"),  dbs.open("workflow_agents")};
    TextLogWriter log;
    log.open(t_.index_dir, 0, 0, t_.text_log);
    std::optional<LmdbTxn> w;
    size_t pending = 0, unreadable = 0;
    for (const auto& sid : ids) {
      std::optional<ArchivedSession> s = text_ok ? read_session(r, h, text, sid) : std::nullopt;
      if (!s) {
        ++unreadable;
        continue;
      }
      if (!w) w.emplace(fresh.env(), false);
      write_session(*w, fresh.db(), log, *s);
      if (++pending >= kSessionsPerCommit) commit(*w, fresh, log, pending);
      if (pending == 0) w.reset();
    }
    if (w && pending) commit(*w, fresh, log, pending);
    if (unreadable)
      report_line(fd_, "lost " + std::to_string(unreadable) + " archived session" + (unreadable == 1 ? "" : "s") +
                           " whose records or text could not be read back whole");
  }

  struct Handles {
    std::optional<MDB_dbi> sessions, messages, tool_calls, tool_results, usage_seen, subagents, session_files, files,
        workflows, workflow_agents;
  };

  // Everything of one session, or nullopt when a record does not decode or a text is not there.
  std::optional<ArchivedSession> read_session(const LmdbTxn& r, const Handles& h, const TextLogReader& text,
                                              const std::string& sid) {
    ArchivedSession s;
    s.id = sid;
    auto v = r.get(*h.sessions, sid);
    if (!v) return std::nullopt;
    auto rec = SessionRec::decode(*v);
    if (!rec) return std::nullopt;
    s.rec = std::move(*rec);
    s.rec_bytes = std::string(*v);
    const std::string pfx = sid + '\0';
    bool ok = true;
    for_prefix(r, h.messages, pfx, [&](std::string_view key, std::string_view value) {
      auto m = MessageRec::decode(key, value);
      TextEntry e;
      if (!m || !text.entry_at(m->text_offset, e) || e.key != m->key || e.text.size() != m->text_len) {
        ok = false;
        return;
      }
      if (meta_rules_12_) migrate_message_12(*m, e.text);
      s.messages.emplace_back(std::move(*m), std::string(e.text));
    });
    if (!ok) return std::nullopt;
    auto keep = [](std::vector<KeyValue>& out) {
      return [&out](std::string_view k, std::string_view val) { out.push_back({std::string(k), std::string(val)}); };
    };
    for_prefix(r, h.tool_calls, pfx, keep(s.tool_calls));
    if (tool_paths_13_ && !migrate_tool_calls_13(s)) return std::nullopt;
    for_prefix(r, h.tool_results, pfx, keep(s.tool_results));
    for_prefix(r, h.usage_seen, pfx, keep(s.usage_seen));
    for_prefix(r, h.subagents, pfx, keep(s.subagents));
    for_prefix(r, h.session_files, pfx, keep(s.session_files));
    for_prefix(r, h.workflows, pfx, keep(s.workflows));
    for (auto& sf : s.session_files) {
      if (sf.value.empty()) sf.value = sf.key.substr(pfx.size());  // schema 10 kept the path in the key only
      // A schema-10 FileState does not decode any more: its file is gone, and dropping its state
      // only means the file is read as new should it come back (messages are stored once per uuid).
      if (h.files && !legacy_files_)
        if (auto fv = r.get(*h.files, file_key(sf.value))) s.files.push_back({file_key(sf.value), std::string(*fv)});
    }
    for (const auto& wf : s.workflows)
      for_prefix(r, h.workflow_agents, wf.key.substr(pfx.size()) + '\0', keep(s.workflow_agents));
    return s;
  }

  static void write_session(LmdbTxn& w, const Dbis& db, TextLogWriter& log, ArchivedSession& s) {
    w.put(db.sessions, s.id, s.rec_bytes);
    w.put(db.sess_by_time, session_time_key(s.rec.ended_at, s.id), "");
    w.put(db.sess_by_project, pair_key(s.rec.project, s.id), "");
    for (auto& [m, text] : s.messages) {
      const uint8_t flags = entry_flags(m.hidden_by_default(), static_cast<unsigned>(m.role),
                                        static_cast<unsigned>(m.content_type));
      m.text_offset = log.append(m.key, flags, text);
      m.text_len = text.size();
      w.put(db.messages, m.key, m.encode());
      w.put(db.msg_uuid, pair_key(m.uuid, s.id), m.key);
    }
    for (const auto& kv : s.tool_calls) {
      w.put(db.tool_calls, kv.key, kv.value);
      if (auto tc = ToolCallRec::decode(kv.value))
        for (const auto& path : tc->paths()) w.put(db.tc_by_path, tool_path_key(path, s.id, tc->id), "");
    }
    for (const auto& kv : s.tool_results) {
      w.put(db.tool_results, kv.key, kv.value);
      if (auto tr = ToolResultRec::decode(kv.value); tr && tr->is_error)
        w.put(db.failed_results, failed_result_key(timestamp_of_message_key(tr->message_key), s.id, tr->tool_use_id), "");
    }
    for (const auto& kv : s.usage_seen) w.put(db.usage_seen, kv.key, kv.value);
    for (const auto& kv : s.subagents) w.put(db.subagents, kv.key, kv.value);
    for (const auto& kv : s.session_files) w.put(db.session_files, kv.key, kv.value);
    for (const auto& kv : s.files) w.put(db.files, kv.key, kv.value);
    for (const auto& kv : s.workflows) w.put(db.workflows, kv.key, kv.value);
    for (const auto& kv : s.workflow_agents) w.put(db.workflow_agents, kv.key, kv.value);
    // An older schema kept no aggregates (or others): `stats` reads them, so they are made here.
    rebuild_session_aggregates(w, db, s.id);
  }

  // The text log first, then the records that point into it (the writer's crash-safety order).
  static void commit(LmdbTxn& w, Store& fresh, TextLogWriter& log, size_t& pending) {
    log.sync();
    Store::put_meta_u64(w, fresh.db(), meta_key::kTextBytes, log.bytes());
    Store::put_meta_u64(w, fresh.db(), meta_key::kTextEntries, log.entries());
    w.commit();
    pending = 0;
  }

  const SalvageTarget& t_;
  int fd_;
  bool legacy_files_ = false;  // the old env is schema 10 (see copy_archive)
  bool meta_rules_12_ = false;  // the old env is schema 12 (see copy_archive)
  bool tool_paths_13_ = false;  // the old env is schema 12 or 13

  // Every tool call of `s` as 14 stores it; false when one does not decode.
  static bool migrate_tool_calls_13(ArchivedSession& s) {
    std::unordered_map<std::string_view, std::string_view> cwd_of;  // message key -> its cwd
    for (const auto& [m, text] : s.messages) cwd_of.emplace(m.key, m.cwd);
    for (auto& kv : s.tool_calls) {
      auto tc = ToolCallRec::decode(kv.value);
      if (!tc) return false;
      auto it = cwd_of.find(tc->message_key);
      migrate_tool_call_13(*tc, it == cwd_of.end() ? std::string_view(s.rec.cwd) : it->second);
      kv.value = tc->encode();
    }
    return true;
  }

  // Schema 12 hid every command envelope by its content type and kept Claude's compaction
  // summaries meta; 13 hides by is_meta alone: an envelope is meta without <command-args>, a
  // summary never is (issue 9).
  static void migrate_message_12(MessageRec& m, std::string_view text) {
    if (m.content_type == ContentType::Command) m.is_meta = m.is_meta || command_args(text).empty();
    if (m.content_type == ContentType::Summary) m.is_meta = false;
  }
};

// Reads the child's report until it closes the pipe or the deadline passes.
std::string read_report(int fd, pid_t pid, bool& timed_out) {
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kSalvageSeconds);
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      ::kill(pid, SIGKILL);
      timed_out = true;
      return out;
    }
    pollfd p{fd, POLLIN, 0};
    int rc = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) continue;
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return out;
    out.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

bool under_any(const std::string& path, const std::vector<std::string>& dirs) {
  for (std::string d : dirs) {
    if (!d.empty() && d.back() != '/') d.push_back('/');
    if (path.compare(0, d.size(), d) == 0) return true;
  }
  return false;
}

SalvageReport salvage_old_env(const SalvageTarget& target) {
  SalvageReport report;
  if (target.old_env_dir.empty() || !std::filesystem::exists(target.old_env_dir + "/data.mdb")) return report;
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
#ifdef __linux__
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a killed rebuild takes its salvage down with it
    if (::getppid() != parent) ::_exit(1);  // died before the prctl
#endif
    int code = 0;
    try {
      ChildSalvage(target, fds[1]).run();
    } catch (const std::exception& e) {
      report_line(fds[1], std::string("error ") + e.what());
      code = 1;
    } catch (...) {
      report_line(fds[1], "error unknown");
      code = 1;
    }
    ::_exit(code);  // no atexit handlers, no flushing of the parent's buffers
  }
  ::close(fds[1]);
  bool timed_out = false;
  const std::string lines = read_report(fds[0], pid, timed_out);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::vector<std::string> lost;
  bool error_said = false;
  for (size_t pos = 0; pos < lines.size();) {
    size_t nl = lines.find('\n', pos);
    if (nl == std::string::npos) nl = lines.size();
    std::string_view line(lines.data() + pos, nl - pos);
    if (line.starts_with("lost ")) lost.emplace_back(line.substr(5));
    if (line.starts_with("error ")) error_said = true;
    if (line.starts_with("error ")) lost.push_back("the old store could not be read (" + std::string(line.substr(6)) +
                                                   "): what was read before the error was kept");
    pos = nl + 1;
  }
  if (timed_out)
    lost.push_back("reading the old store took over " + std::to_string(kSalvageSeconds) +
                   " s and was stopped: what was read before was kept");
  else if (WIFSIGNALED(status))
    lost.push_back(std::string("reading the old store crashed (") + strsignal(WTERMSIG(status)) +
                   "): what was read before the crash was kept");
  else if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && !error_said)
    // A fault handler that exits instead of dying (a sanitizer's, say) still ended the read early.
    lost.push_back("reading the old store failed (exit " + std::to_string(WEXITSTATUS(status)) +
                   "): what was read before the failure was kept");
  for (const auto& l : lost) report.lost += (report.lost.empty() ? "" : "; ") + l;
  return report;
}

}  // namespace osearch
