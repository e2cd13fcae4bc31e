#include "engine/index/rebuild.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <vector>

#include "engine/store/index_damage.h"
#include "engine/store/lmdb_check.h"
#include "engine/store/records_store.h"
#include "engine/store/session_numbers.h"
#include "engine/index/salvage.h"
#include "engine/store/text_log.h"

namespace osearch {
namespace fs = std::filesystem;
namespace {

// Messages per shard when the salvaged archive is indexed (bounds the documents held at once).
constexpr size_t kSalvagedDocsPerShard = 5000;

// n of a name "<prefix><n>…" (digits up to the first non-digit), nullopt when there is none.
std::optional<uint64_t> number_after(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix)) return std::nullopt;
  uint64_t n = 0;
  size_t digits = 0;
  for (size_t i = prefix.size(); i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])) && digits < 18;
       ++i, ++digits)
    n = n * 10 + static_cast<uint64_t>(name[i] - '0');
  if (digits == 0) return std::nullopt;
  return n;
}

// The highest numbers in use: of LMDB dirs, text logs and title databases (`part`), and of Xapian
// generations (`gen`), so the new generation's names collide with nothing.
struct Numbers {
  uint64_t part = 0, gen = 0;
};
Numbers highest_numbers(const std::string& dir) {
  Numbers n;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    for (const char* p : {"records-", "text-", "titles-"})
      if (auto v = number_after(name, p)) n.part = std::max(n.part, *v);
    for (const char* p : {"xapian-", "part-", "shard-"})
      if (auto v = number_after(name, p)) n.gen = std::max(n.gen, *v);
  }
  return n;
}

// The env to salvage from: the one records.current names, or when the pointer is unreadable, the
// newest LMDB dir there is ("" when there is none).
std::string old_env_dir(const std::string& dir, IndexSummary& summary) {
  try {
    return dir + "/" + current_records_name(dir);
  } catch (const std::exception& e) {
    std::optional<uint64_t> newest;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      auto v = number_after(name, "records-");
      if (v && name == "records-" + std::to_string(*v) && fs::exists(entry.path() / "data.mdb", ec) &&
          (!newest || *v > *newest))
        newest = v;
    }
    std::string env = newest ? dir + "/records-" + std::to_string(*newest) : dir + "/records";
    summary.problems.push_back(std::string(e.what()) + "; salvaging from " + fs::path(env).filename().string());
    return env;
  }
}

void fsync_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// The names of the tool calls a stored message makes or answers (what ingest gave its document).
std::vector<std::string> stored_tool_names(const LmdbTxn& txn, const Dbis& db, const MessageRec& m) {
  std::vector<std::string> names;
  for (const auto& id : m.tool_call_ids)
    if (auto v = txn.get(db.tool_calls, pair_key(m.session_id, id)))
      if (auto tc = ToolCallRec::decode(*v)) names.push_back(tc->name);
  return names;
}

}  // namespace

Rebuild new_generation(const std::string& index_dir) {
  make_private_dir(index_dir);
  const Numbers n = highest_numbers(index_dir);
  Rebuild rb;
  const std::string k = std::to_string(n.part + 1);
  rb.env_name = "records-" + k;
  rb.parts.text_log = "text-" + k;
  rb.parts.layout.titles = "titles-" + k;
  rb.parts.layout.generation = n.gen + 1;

  // Readers require a named titles-<k> (its absence means a newer generation removed it), so it
  // exists from the start even when no session will ever have a title.
  const std::string titles = rb.parts.layout.titles_dir(index_dir);
  {
    Xapian::WritableDatabase db(titles, Xapian::DB_CREATE_OR_OPEN);
    db.commit();
  }
  restrict_permissions(titles);
  return rb;
}

Rebuild begin_rebuild(const std::string& index_dir, const std::vector<SourceRoot>& roots, uint64_t schema,
                      IndexSummary& summary, const std::function<void(std::string_view)>& at_point) {
  Rebuild rb = new_generation(index_dir);
  const std::string old = old_env_dir(index_dir, summary);
  std::vector<std::string> lost;
  // A damaged file is still read as far as it goes (in the child), but anything only it held may
  // be gone without a read error to show for it: say so.
  if (const std::string problem = lmdb_data_problem(old); !problem.empty())
    lost.push_back("the LMDB store was damaged (" + problem + "): whatever it held that could not be read");
  SalvageTarget target{index_dir, old, rb.env_name, rb.parts.text_log, schema, {}, at_point};
  for (const auto& r : roots) target.source_dirs.push_back(r.dir);
  if (auto l = salvage_old_env(target).lost; !l.empty())
    lost.push_back(std::move(l));
  for (const auto& l : lost) summary.lost += (summary.lost.empty() ? "" : "; ") + l;
  if (!summary.lost.empty()) summary.problems.push_back("not carried over: " + summary.lost);
  return rb;
}

void index_salvaged(Store& store, TextIndexWriter& xapian, XapianLayout& layout, unsigned threads) {
  const Dbis& db = store.db();
  IndexParts parts;
  std::map<std::string, SessionRec> sessions;
  {
    LmdbTxn r(store.env(), true);
    if (Store::entries(r, db.sessions) == 0 && Store::entries(r, db.messages) == 0) return;  // (no text log either)
    parts = read_parts(r, db);
    LmdbCursor cur(r, db.sessions);
    for (bool ok = cur.first(); ok; ok = cur.next())
      if (auto s = SessionRec::decode(cur.value())) sessions.emplace(std::string(cur.key()), std::move(*s));
  }
  TextLogReader text;
  text.open(store.dir(), parts.text_bytes, parts.text_entries, parts.text_log);  // throws IndexDamaged
  // The sessions' numbers (engine/store/session_numbers.h), given here where their documents are
  // built: before the titles, and for a message without a session record before its shard.
  std::map<std::string, uint32_t, std::less<>> numbers;
  auto number_all = [&](const auto& ids) {
    LmdbTxn w(store.env(), false);
    for (const std::string& id : ids)
      if (!numbers.count(id)) numbers.emplace(id, ensure_session_number(w, db, id));
    w.commit();
  };
  {
    std::vector<std::string> ids;
    for (const auto& [id, s] : sessions) ids.push_back(id);
    number_all(ids);
  }
  for (const auto& [id, s] : sessions)
    if (s.message_count || s.has_main) xapian.set_session_title(s, numbers.at(id));
  xapian.commit();

  struct Pending {
    MessageRec rec;
    std::vector<std::string> tool_names;
  };
  std::vector<Pending> pending;
  const SessionRec no_session;
  auto write_shard = [&] {
    if (pending.empty()) return;
    std::vector<std::string> unnumbered;
    for (const auto& p : pending)
      if (!numbers.count(p.rec.session_id)) unnumbered.push_back(p.rec.session_id);
    if (!unnumbered.empty()) number_all(unnumbered);
    std::vector<MessageDoc> docs;
    docs.reserve(pending.size());
    for (const auto& p : pending) {
      auto s = sessions.find(p.rec.session_id);
      docs.push_back({&p.rec, text.text(p.rec.text_offset, p.rec.text_len), s == sessions.end() ? &no_session : &s->second,
                      &p.tool_names, 0, numbers.at(p.rec.session_id)});
    }
    auto shards = xapian.start_shards(docs, threads);
    shards->wait();
    for (const auto& name : shards->names()) layout.shards.push_back(name);
    pending.clear();
    // The texts and records of these documents were read once through the maps (a compaction or a
    // salvage reads them all): keep the RSS to one round's.
    text.release_resident_pages();
    store.env().release_resident_pages();
  };
  {
    LmdbTxn r(store.env(), true);
    LmdbCursor cur(r, db.messages);
    for (bool ok = cur.first(); ok; ok = cur.next()) {
      auto m = MessageRec::decode(cur.key(), cur.value());
      // Every message gets its document, one without a session record too (the reader counts them).
      if (!m) throw IndexDamaged("records", "a message record does not decode (a damaged page)");
      std::vector<std::string> names = stored_tool_names(r, db, *m);
      pending.push_back({std::move(*m), std::move(names)});
      if (pending.size() >= kSalvagedDocsPerShard * threads) write_shard();
    }
  }
  write_shard();
  LmdbTxn w(store.env(), false);
  write_layout(w, db, layout);
  w.commit();
}

void switch_to_rebuilt(Store& store, const Rebuild& rebuild, const std::function<void(std::string_view)>& at_point) {
  // The new env's last commits may be unsynced (MDB_NOMETASYNC): make it durable before a pointer
  // names it. The text log and the Xapian databases were synced as they were written.
  if (int rc = mdb_env_sync(store.env().get(), 1); rc != MDB_SUCCESS) throw LmdbError("mdb_env_sync", rc);
  fsync_dir(store.env_dir());
  fsync_dir(store.dir());
  if (at_point) at_point("built");
  set_current_records(store.dir(), rebuild.env_name);
  if (at_point) at_point("switched");
  // Reopening through the pointer removes the old env (renamed to .trash first: a reader that read
  // the old pointer follows the new one). Readers that opened the old env keep its mapped files;
  // when they then find an old Xapian database or text log gone, they see the pointer moved and
  // reopen (engine/query/reader.cpp).
  store.reopen();
  IndexParts live;
  {
    LmdbTxn r(store.env(), true);
    live = read_parts(r, store.db());
  }
  remove_unnamed_parts(store.dir(), live);
}

}  // namespace osearch
