#include "engine/query/reader.h"

#include <unistd.h>

#include "engine/store/codec.h"
#include "engine/store/index_damage.h"
#include "engine/index/index_parts.h"
#include "engine/index/schema.h"
#include "engine/index/source_watch.h"
#include "engine/index/watch_beat.h"
#include "engine/index/memory_index.h"
#include "engine/query/memories.h"
#include "engine/store/memory_store.h"
#include "engine/store/session_numbers.h"

#include <algorithm>
#include <filesystem>

namespace osearch {
namespace {

// Messages of the sessions a writer committed (step A) before listing their shards (step B): their
// documents are in no listed database yet, by design, for a fraction of a second.
uint64_t in_flight_messages(const LmdbTxn& txn, const Dbis& db) {
  auto v = txn.get(db.meta, meta_key::kInFlight);
  if (!v) return 0;
  uint64_t n = 0;
  LmdbCursor cur(txn, db.messages);
  for (size_t pos = 0; pos < v->size();) {
    size_t nl = v->find('\n', pos);
    if (nl == std::string_view::npos) nl = v->size();
    if (nl > pos) {
      const std::string pfx = std::string(v->substr(pos, nl - pos)) + '\0';
      for (bool ok = cur.seek(pfx); ok && cur.key().starts_with(pfx); ok = cur.next()) ++n;
    }
    pos = nl + 1;
  }
  return n;
}

bool any_session_titled(const LmdbTxn& txn, const Dbis& db) {
  LmdbCursor cur(txn, db.sessions);
  for (bool ok = cur.first(); ok; ok = cur.next())
    if (auto s = SessionRec::decode(cur.value()); s && !s->title().empty()) return true;
  return false;
}

}  // namespace

IndexReader::IndexReader(const std::string& dir) : store_(dir, Store::Mode::Read) {
  // LMDB is committed last, so everything it points at (Xapian databases, text log bytes) exists.
  // What is missing was either removed by a writer after our snapshot — a compaction (a newer
  // snapshot names the new databases) or the switch of `index --full` to a new generation
  // (records.current names a new env, whose parts we resolve again) — or it is damage: the
  // snapshot did not move, and we say so instead of answering from what is left.
  for (int attempt = 0;; ++attempt) {
    txn_ = std::make_unique<LmdbTxn>(store_.env(), true);
    const size_t txnid = mdb_txn_id(txn_->get());
    const std::string env = store_.env_dir();
    try {
      open_parts(dir);
      return;
    } catch (const IndexDamaged&) {
      txn_.reset();
      // A repack or a rebuild may have switched records.current: the old env's snapshot never moves again.
      if (current_records_name(dir) != fs_name(env)) store_.reopen();
      LmdbTxn probe(store_.env(), true);
      const bool moved = store_.env_dir() != env || mdb_txn_id(probe.get()) != txnid;
      if (!moved || attempt >= 20) throw;
    }
  }
}

void IndexReader::open_parts(const std::string& dir) {
  IndexParts parts;
  try {
    parts = read_parts(*txn_, db());
  } catch (const std::runtime_error& e) {
    throw IndexDamaged("records", e.what());
  }
  const XapianLayout& layout = parts.layout;
  IndexDatabases dbs = open_index_databases(dir, layout);
  // Every message has its document (older epochs add more), so fewer documents than messages is a
  // deleted database: keyword would silently answer from part of the index.
  const uint64_t messages = Store::entries(*txn_, db().messages);
  if (dbs.message_docs < messages && dbs.message_docs < messages - in_flight_messages(*txn_, db()))
    throw IndexDamaged(fs_name(layout.main_dir(dir)), "missing or incomplete: the message databases hold " +
                                                          std::to_string(dbs.message_docs) + " documents for " +
                                                          std::to_string(messages) + " messages");
  if (!dbs.titles && any_session_titled(*txn_, db()))
    throw IndexDamaged(fs_name(layout.titles_dir(dir)), "missing (sessions have titles)");
  xapian_ = std::move(dbs.all);
  message_docs_ = dbs.message_docs;
  runs_.clear();
  runs_cover_messages_ = !dbs.parts.empty();
  titles_at_.reset();
  memories_at_.reset();
  if (dbs.titles) titles_at_ = dbs.parts.size() - 1;  // added last (open_index_databases)
  databases_.clear();
  for (const auto& [name, one] : dbs.parts) {
    databases_.push_back(one);
    std::optional<SessionRuns> runs;
    if (auto kept = txn_->get(db().meta, std::string(kSessionRunsPrefix) + name)) runs = SessionRuns::for_database(*kept, one);
    if (!runs && name != layout.titles) runs_cover_messages_ = false;
    runs_.push_back(std::move(runs));
  }
  epochs_.clear();
  LmdbCursor ep(*txn_, db().epochs);
  for (bool ok = ep.first(); ok; ok = ep.next())
    // A session without a number has no document to hide (`check` names a session record without one).
    if (auto v = session_value(ep.key())) epochs_.add(std::move(*v), get_be32(ep.value()));
  text_.emplace();
  text_->open(dir, parts.text_bytes, parts.text_entries, parts.text_log);
  open_memories(dir);
}

void IndexReader::open_memories(const std::string& dir) {
  // One env handle at a time: LMDB's locks are per process, so a second open of the same env
  // (the writer a rebuild needs) must not overlap this read-only one.
  bool behind = false;
  {
    MemoryStore store(dir, MemoryStore::Mode::Read);
    if (!store.exists()) return;
    std::optional<Xapian::Database> db = open_memory_text(dir);
    behind = !db || !memory_text_current(*db, MemoryStore::Snapshot(store).generation());
  }
  // A text index behind the memory env (a crash between the two writes, a deleted memories-text)
  // is brought up to date before answering, --no-refresh or not: the check costs one metadata read.
  if (behind) refresh_memories(dir, false);
  MemoryStore store(dir, MemoryStore::Mode::Read);
  MemoryStore::Snapshot snapshot(store);
  memories_ = snapshot.all();
  memory_generation_ = snapshot.generation();
  if (std::optional<Xapian::Database> db = open_memory_text(dir)) {
    xapian_.add_database(*db);
    memories_at_ = databases_.size();
    databases_.push_back(*db);
    runs_.emplace_back();  // memories have no session: their documents read their own value
  }
}

void IndexReader::reopen_xapian() {
  xapian_.reopen();
  for (auto& r : runs_) r.reset();
  runs_cover_messages_ = false;
}

bool IndexReader::is_title_document(Xapian::docid did) const {
  return titles_at_ && !runs_.empty() && did != 0 && (did - 1) % runs_.size() == *titles_at_;
}

bool IndexReader::session_value_of_document(Xapian::docid did, std::string& out) const {
  // Xapian interleaves the ids of a combination: database i's document d is (d - 1) * n + i + 1.
  const size_t n = runs_.size();
  if (n == 0 || did == 0) return false;
  return session_value_by_runs((did - 1) % n, static_cast<Xapian::docid>((did - 1) / n + 1), out);
}

void IndexReader::session_value_in_database(size_t i, const Xapian::Document& doc, std::string& out) const {
  if (!session_value_by_runs(i, doc.get_docid(), out)) out = doc.get_value(kSlotSession);
}

bool IndexReader::session_value_by_runs(size_t i, Xapian::docid did, std::string& out) const {
  if (i >= runs_.size() || !runs_[i] || did == 0) return false;
  const std::optional<uint32_t> number = runs_[i]->number_of(did);
  if (!number) return false;
  out = session_number_value(*number);
  return true;
}

uint64_t IndexReader::old_epoch_documents() const {
  if (epochs_.empty()) return 0;
  // A message of an in-flight session may have no document yet: count it as having one.
  const uint64_t messages = Store::entries(*txn_, db().messages);
  const uint64_t with_document = messages - std::min(messages, in_flight_messages(*txn_, db()));
  return message_docs_ > with_document ? message_docs_ - with_document : 0;
}

const memory::Record* IndexReader::memory(std::string_view id) const {
  auto it = std::lower_bound(memories_.begin(), memories_.end(), id, [](const memory::Record& r, std::string_view k) { return r.id < k; });
  return it != memories_.end() && it->id == id ? &*it : nullptr;
}

bool IndexReader::still_current(const std::vector<SourceRoot>* roots) const {
  try {
    MDB_envinfo info{};
    if (mdb_env_info(mdb_txn_env(txn_->get()), &info) != 0) return false;
    if (info.me_last_txnid != mdb_txn_id(txn_->get())) return false;  // another process committed
    if (current_records_name(dir()) != fs_name(store_.env_dir())) return false;  // --full or a repack switched
    std::optional<uint64_t> memories;
    {
      MemoryStore store(dir(), MemoryStore::Mode::Read);
      if (store.exists()) memories = MemoryStore::Snapshot(store).generation();
    }
    if (memories != memory_generation_) return false;
    if (!roots) return true;
    if (watcher_keeps_current(dir(), *roots)) return true;  // a live `index --watch` vouches for it
    // The quick check of a refresh (engine/index/index_run.cpp), on this reader's snapshot.
    if (Store::meta_u64(*txn_, db(), meta_key::kSchema) != kSchemaVersion) return false;
    if (txn_->get(db().meta, meta_key::kInFlight)) return false;
    auto record = txn_->get(db().meta, meta_key::kSourceWatch);
    return record && check_source_watch(*record, *roots).unchanged();
  } catch (const std::exception&) {
    return false;  // whatever failed is the full path's to find and report
  }
}

std::string IndexReader::fs_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// A record that is there but does not decode is a damaged page, not an absent record: answering
// without it would be a silently smaller answer.
namespace {
[[noreturn]] void throw_undecodable_session() {
  throw IndexDamaged("records", "a session record does not decode (a damaged page)");
}
}  // namespace

std::optional<SessionRec> IndexReader::session(std::string_view id) const {
  auto v = txn_->get(db().sessions, id);
  if (!v) return std::nullopt;
  auto rec = SessionRec::decode(*v);
  if (!rec) throw_undecodable_session();
  return rec;
}

void IndexReader::view_session(std::string_view bytes, SessionFacets& out) {
  if (!out.decode(bytes)) throw_undecodable_session();
}

std::optional<std::string> IndexReader::session_value(std::string_view id) const {
  auto n = find_session_number(*txn_, db(), id);
  if (!n) return std::nullopt;
  return session_number_value(*n);
}

std::optional<std::string> IndexReader::session_of_value(std::string_view value) const {
  auto n = number_of_session_value(value);
  if (!n) return std::nullopt;
  return session_of_number(*txn_, db(), *n);
}

std::optional<MessageRec> IndexReader::message(std::string_view key) const {
  auto v = txn_->get(db().messages, key);
  if (!v) return std::nullopt;
  auto rec = MessageRec::decode(key, *v);
  if (!rec) throw IndexDamaged("records", "a message record does not decode (a damaged page)");
  return rec;
}

void IndexReader::hit_built() {
  if (++hits_built_ % hit_check_every_) return;
  static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t slack = hit_pages_slack_ / page;
  const size_t resident = resident_shared_pages();
  if (!pages_after_release_) {  // the first check: what the process held before (its binary, libraries)
    pages_after_release_ = pages_after_text_release_ = resident;
    return;
  }
  if (resident < pages_after_text_release_ + slack) return;
  ++page_releases_;
  // The texts first: each is read once, so nothing pages back in. The records' B-tree pages are
  // read again by the next lookups (each page back costs a fault: failures --limit 100000 took a
  // quarter longer when both maps went every time), so they go only once they grew too.
  if (text_) text_->release_resident_pages();
  size_t now = resident_shared_pages();
  if (now >= pages_after_release_ + slack) {
    store_.env().release_resident_pages();
    now = pages_after_release_ = resident_shared_pages();
  }
  pages_after_text_release_ = now;
}

IndexCounts IndexReader::counts() const {
  IndexCounts c;
  c.sessions = Store::entries(*txn_, db().sessions);
  c.messages = Store::entries(*txn_, db().messages);
  c.tool_calls = Store::entries(*txn_, db().tool_calls);
  // The memory env's records, plus the records env's reserved `memories` db (empty in every index
  // osearch writes; counted so that nothing stored there is hidden).
  c.memories = memories_.size() + Store::entries(*txn_, db().memories);
  c.last_indexed_at = static_cast<int64_t>(Store::meta_u64(*txn_, db(), meta_key::kLastIndexedAt));
  return c;
}

}  // namespace osearch
