#include "mcp/reader_cache.h"

#include <lmdb.h>

#include "cli/commands.h"
#include "engine/index/schema.h"
#include "engine/index/source_watch.h"
#include "engine/query/memories.h"
#include "engine/store/memory_store.h"
#include "engine/store/store.h"

namespace osearch::mcp {

ReaderCache::Generation ReaderCache::generation_of(const std::string& index_dir) {
  Generation g;
  g.records_name = current_records_name(index_dir);
  MemoryStore memories(index_dir, MemoryStore::Mode::Read);
  if (memories.exists()) g.memory_generation = MemoryStore::Snapshot(memories).generation();
  return g;
}

// Would a refresh and a new reader see what the open one sees? Everything here reads through the
// reader's env (never a second open of it) or through envs the reader does not hold open.
bool ReaderCache::current(const Context& ctx) const {
  const LmdbTxn& txn = reader_->txn();
  MDB_envinfo info{};
  if (mdb_env_info(mdb_txn_env(txn.get()), &info) != 0) return false;
  if (info.me_last_txnid != mdb_txn_id(txn.get())) return false;  // another process committed
  if (!(generation_of(ctx.index_dir) == generation_)) return false;
  if (ctx.no_refresh) return true;
  // The quick check of run_index (engine/index/index_run.cpp) on the reader's snapshot, which is
  // the committed state: an unchanged corpus costs stat calls only.
  const Dbis& db = reader_->db();
  if (Store::meta_u64(txn, db, meta_key::kSchema) != kSchemaVersion) return false;
  if (txn.get(db.meta, meta_key::kInFlight)) return false;
  auto record = txn.get(db.meta, meta_key::kSourceWatch);
  return record && check_source_watch(*record, ctx.roots).unchanged();
}

IndexReader& ReaderCache::open(const Context& ctx, uint64_t& refreshed_files, bool& stale) {
  refreshed_files = 0;
  stale = false;
  if (reader_) {
    // Memory files edited since they were read (their own env, which the reader does not hold).
    if (!ctx.no_refresh) refresh_memories(ctx.index_dir, true);
    try {
      if (current(ctx)) return *reader_;
    } catch (const std::exception&) {
      // Whatever failed is the full path's to find and report.
    }
  }
  reader_.reset();  // closes the env before run_index opens its own
  refreshed_files = refresh_before_query(ctx, stale);
  Generation g = generation_of(ctx.index_dir);  // before the reader: a change in between reopens next time
  reader_ = std::make_unique<IndexReader>(ctx.index_dir);
  generation_ = std::move(g);
  ++opens_;
  return *reader_;
}

}  // namespace osearch::mcp
