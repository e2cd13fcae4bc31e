#include "engine/query/archive_ops.h"

#include <map>
#include <memory>
#include <set>
#include <unordered_map>

#include "engine/index/archive_io.h"
#include "engine/index/archive_json.h"
#include "engine/index/drop_sessions.h"
#include "engine/index/index_parts.h"
#include "engine/index/schema.h"
#include "engine/index/shard_compaction.h"
#include "engine/index/text_index.h"
#include "engine/store/codec.h"
#include "engine/store/errors.h"
#include "engine/store/index_damage.h"
#include "engine/store/session_numbers.h"
#include "engine/store/store.h"
#include "engine/store/text_log.h"
#include "engine/store/text_reads.h"

namespace osearch {
namespace {

ArchivedSessionInfo info_of(const SessionRec& s, uint64_t messages) {
  return {s.shown_id(), s.agent, s.project, messages, s.started_at, s.ended_at};
}

// The writer lock and an up-to-date index (see archive_ops.h).
std::unique_ptr<WriterLock> lock_and_refresh(const std::string& index_dir, const std::vector<SourceRoot>& roots,
                                             bool refresh) {
  std::string why;
  if (!index_writable(index_dir, why))
    throw ReadOnlyIndex("the index at " + index_dir + " is read-only (" + why + "): it cannot be changed");
  auto lock = std::make_unique<WriterLock>(index_dir, true);
  if (refresh) {
    IndexOptions io;
    io.repack = Repack::Never;  // a repack now would only be redone after the change
    detail::index_under_lock(index_dir, roots, io);
  }
  return lock;
}

void load_epochs(const LmdbTxn& r, const Dbis& db, TextIndexWriter& xapian) {
  LmdbCursor ep(r, db.epochs);
  for (bool ok = ep.first(); ok; ok = ep.next()) xapian.epochs().emplace(ep.key(), get_be32(ep.value()));
}

}  // namespace

bool SessionSelection::selects(const SessionRec& s) const {
  if (!filters.session_matches(s)) return false;
  if (filters.since_ms && s.ended_at < *filters.since_ms) return false;
  if (filters.until_ms && s.ended_at >= *filters.until_ms) return false;
  return true;
}

PruneResult run_prune(const std::string& index_dir, const std::vector<SourceRoot>& roots, const PruneOptions& o) {
  // A dry run only reads (no lock, no refresh: it changes nothing).
  std::unique_ptr<WriterLock> lock;
  if (!o.dry_run) lock = lock_and_refresh(index_dir, roots, o.refresh);
  PruneResult result;
  result.dry_run = o.dry_run;
  Store store(index_dir, o.dry_run ? Store::Mode::Read : Store::Mode::Write);
  const Dbis& db = store.db();
  std::set<std::string> ids;
  IndexParts parts;
  {
    LmdbTxn r(store.env(), true);
    parts = read_parts(r, db);
    LmdbCursor cur(r, db.sessions);
    for (bool ok = cur.first(); ok; ok = cur.next()) {
      auto s = SessionRec::decode(cur.value());
      if (!s) throw IndexDamaged("records", "a session record does not decode (a damaged page)");
      const std::string sid(cur.key());
      if (!o.selection.selects(*s) || !sources_gone(r, db, sid)) continue;
      ids.insert(sid);
      result.sessions.push_back(info_of(*s, s->message_count));
    }
  }
  if (o.dry_run || ids.empty()) return result;
  if (o.at_point) o.at_point("chosen");
  TextIndexWriter xapian(index_dir, parts.layout);
  {
    LmdbTxn r(store.env(), true);
    load_epochs(r, db, xapian);
  }
  drop_sessions(store, xapian, ids, DropMode::Prune, o.at_point);
  return result;
}

ExportResult run_export(const std::string& index_dir, const ExportOptions& o,
                        const std::function<void(std::string_view line)>& line) {
  ExportResult result;
  Store store(index_dir, Store::Mode::Read);
  const Dbis& db = store.db();
  LmdbTxn r(store.env(), true);
  const IndexParts parts = read_parts(r, db);
  TextLogReader text;
  text.open(index_dir, parts.text_bytes, parts.text_entries, parts.text_log);
  // Records are written out as this env stores them, with its schema: an import redoes the steps.
  const uint64_t schema = Store::meta_u64(r, db, meta_key::kSchema);
  const ArchiveTables tables = ArchiveTables::of(db);
  // Every record and text is read once through the maps: keep the RSS to what was read lately, not
  // the whole index (a 2 GB corpus's export held 600 MB of mapped pages), as `check` does.
  TextReads text_reads(text);
  LmdbCursor cur(r, db.sessions);
  for (bool ok = cur.first(); ok; ok = cur.next()) {
    auto rec = SessionRec::decode(cur.value());
    const std::string sid(cur.key());
    if (!rec || !o.selection.selects(*rec) || (!o.all && !sources_gone(r, db, sid))) {
      if (!rec) ++result.unreadable;
      continue;
    }
    std::optional<ArchivedSession> s = read_session(r, tables, text, sid, SchemaSteps{});
    if (!s) {
      ++result.unreadable;
      continue;
    }
    line(encode_archive_line(*s, schema));
    result.sessions.push_back(info_of(s->rec, s->messages.size()));
    uint64_t read = 0;
    for (const auto& m : s->messages) read += m.second.size();
    if (text_reads.read(read)) store.env().trim_resident_pages(TextReads::kEvery);
  }
  return result;
}

namespace {

// Imported sessions, written together: texts, then their Xapian documents (a fresh shard and the
// titles), then one LMDB commit naming the shard. A crash before the commit leaves an unnamed
// shard (removed by the next writer) and an uncommitted text log tail (cut by the next writer).
class ImportBatch {
 public:
  ImportBatch(Store& store, const IndexParts& parts, const ImportOptions& o)
      : store_(store), layout_(parts.layout), xapian_(store.dir(), parts.layout), o_(o) {
    log_.open(store.dir(), parts.text_bytes, parts.text_entries, parts.text_log);
    LmdbTxn r(store.env(), true);
    load_epochs(r, store.db(), xapian_);
  }

  void add(ArchivedSession s) { pending_.push_back(std::move(s)); }
  size_t size() const { return pending_.size(); }

  void commit() {
    if (pending_.empty()) return;
    const Dbis& db = store_.db();
    LmdbTxn w(store_.env(), false);
    std::vector<uint32_t> numbers;  // of pending_'s sessions (engine/store/session_numbers.h)
    for (auto& s : pending_) {
      s.rec.source_deleted = true;  // an imported session's files are on another machine, or gone
      s.rec_bytes = s.rec.encode();
      numbers.push_back(write_session(w, db, log_, s));
    }
    std::unordered_map<std::string, std::string> tool_names;  // "<sid>\0<tool id>" key -> name
    for (const auto& s : pending_)
      for (const auto& kv : s.tool_calls)
        if (auto tc = ToolCallRec::decode(kv.value)) tool_names.emplace(kv.key, tc->name);
    std::vector<std::vector<std::string>> names;
    std::vector<MessageDoc> docs;
    for (const auto& s : pending_)
      for (const auto& [m, text] : s.messages) {
        std::vector<std::string> n;
        for (const auto& id : m.tool_call_ids)
          if (auto it = tool_names.find(pair_key(s.id, id)); it != tool_names.end()) n.push_back(it->second);
        names.push_back(std::move(n));
      }
    size_t i = 0;
    for (size_t k = 0; k < pending_.size(); ++k)
      for (const auto& [m, text] : pending_[k].messages)
        docs.push_back({&m, text, &pending_[k].rec, &names[i++], xapian_.epoch_of(pending_[k].id), numbers[k]});
    if (!docs.empty()) {
      auto shards = xapian_.start_shards(docs, 1);
      shards->wait();
      for (const auto& name : shards->names()) layout_.shards.push_back(name);
    }
    for (size_t k = 0; k < pending_.size(); ++k)
      if (pending_[k].rec.message_count || pending_[k].rec.has_main) xapian_.set_session_title(pending_[k].rec, numbers[k]);
    xapian_.commit();
    log_.sync();
    if (o_.at_point) o_.at_point("shards");
    write_layout(w, db, layout_);
    Store::put_meta_u64(w, db, meta_key::kTextBytes, log_.bytes());
    Store::put_meta_u64(w, db, meta_key::kTextEntries, log_.entries());
    w.commit();
    // The commit's pages stay mapped: without this the RSS grows with the archive (438 MB for a
    // 2 GB corpus's), as a build's would (engine/index/ingest_batch_flush.cpp).
    store_.env().release_resident_pages();
    if (o_.at_point) o_.at_point("committed");
    pending_.clear();
  }

  // Each commit wrote a shard of its own (58 for a 2 GB corpus's archive, and keyword 2.5x slower
  // until `index --compact`): they are folded as a build's are, in the same kill-safe steps
  // (engine/index/shard_compaction.h). An import stopped before this leaves them for the next one.
  void fold_shards() {
    ShardCompaction shards;
    shards.start(store_, xapian_, layout_);
    if (o_.at_point) o_.at_point("folding");
    shards.finish();
  }

 private:
  Store& store_;
  XapianLayout layout_;
  TextIndexWriter xapian_;
  TextLogWriter log_;
  const ImportOptions& o_;
  std::vector<ArchivedSession> pending_;
};

}  // namespace

ImportResult run_import(const std::string& index_dir, const std::vector<SourceRoot>& roots, std::istream& in,
                        const ImportOptions& o) {
  auto lock = lock_and_refresh(index_dir, roots, o.refresh);
  ImportResult result;
  Store store(index_dir, Store::Mode::Write);
  IndexParts parts;
  {
    LmdbTxn w(store.env(), false);
    if (!w.get(store.db().meta, meta_key::kSchema))  // a new index (--no-refresh on an empty dir)
      Store::put_meta_u64(w, store.db(), meta_key::kSchema, kSchemaVersion);
    if (Store::meta_u64(w, store.db(), meta_key::kSchema) != kSchemaVersion)
      throw BadInput("usage", "the index was written by another schema: run `osearch index` first");
    parts = read_parts(w, store.db());
    w.commit();
  }
  remove_unnamed_parts(index_dir, parts);  // an interrupted import's shard, say
  ImportBatch batch(store, parts, o);
  std::set<std::string> in_batch;
  std::string line, why;
  for (uint64_t n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::optional<ArchivedSession> s = decode_archive_line(line, why);
    if (!s) {
      ++result.rejected;
      result.problems.push_back("line " + std::to_string(n) + ": " + why);
      continue;
    }
    if (in_batch.count(s->id)) {  // the same session twice in one file: the first is kept
      ++result.already_present;
      continue;
    }
    {
      LmdbTxn r(store.env(), true);
      if (r.get(store.db().sessions, s->id)) {
        ++(sources_gone(r, store.db(), s->id) ? result.already_present : result.skipped_live);
        continue;
      }
    }
    in_batch.insert(s->id);
    result.sessions.push_back(info_of(s->rec, s->messages.size()));
    batch.add(std::move(*s));
    if (batch.size() >= o.sessions_per_commit) batch.commit();
  }
  batch.commit();
  batch.fold_shards();
  result.imported = result.sessions.size();
  return result;
}

}  // namespace osearch
