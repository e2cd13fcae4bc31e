#include "mcp/reader_cache.h"

#include <optional>
#include <set>
#include <string>

#include "cli/commands.h"
#include "cli/query_index.h"
#include "engine/index/indexer.h"
#include "engine/index/source_watch.h"
#include "engine/index/watch_beat.h"
#include "engine/query/memories.h"

namespace osearch::mcp {

IndexReader& ReaderCache::open(const Context& ctx, uint64_t& refreshed_files, bool& stale) {
  refreshed_files = 0;
  stale = false;
  if (!gate_) gate_ = std::make_unique<SourceGate>(ctx.index_dir);
  // Memory files edited since they were read (their own env, which the reader does not hold).
  if (!ctx.no_refresh) refresh_memories(ctx.index_dir, true);
  // Another process committed, `index --full` or a repack switched records.current, or a memory
  // changed: a reader of the index as it is now (the gate still vouches for the sources when the
  // new snapshot holds the record it trusts).
  if (reader_ && !reader_->still_current(nullptr)) reader_.reset();
  if (!reader_) {
    try {
      reopen(ctx);
    } catch (const std::exception&) {
      reader_.reset();  // no index yet, or damage: the refresh below creates it, or names what is wrong
    }
  }
  if (reader_ && (ctx.no_refresh || refresh_kept(ctx, refreshed_files, stale))) return *reader_;
  // The full path: the refresh's own quick check (the full plan when the layout moved).
  gate_->distrust();
  reader_.reset();  // closes the env before run_index opens its own
  ++full_checks_;
  refreshed_files = refresh_before_query(ctx, stale);
  reopen(ctx);
  return *reader_;
}

bool ReaderCache::refresh_kept(const Context& ctx, uint64_t& refreshed_files, bool& stale) {
  if (watcher_keeps_current(ctx.index_dir, ctx.roots)) return true;  // a live `index --watch` vouches
  const std::optional<std::string_view> record = quick_check_record(reader_->txn(), reader_->db());
  if (!record) return false;
  const std::optional<std::set<std::string>> only = gate_->changes(*record);
  if (only && only->empty()) return true;  // nothing written since the record was checked
  if (!only) {  // the full check, with the watches in place before its first stat
    gate_->prepare(*record);
    ++full_checks_;
  }
  const WatchCheck check = check_source_watch(*record, ctx.roots, only ? &*only : nullptr);
  if (check.unchanged()) {
    gate_->trust(*record);
    return true;
  }
  if (!check.guides_run()) return false;
  // Transcripts grew (and directories' entries moved) and nothing else: a run reads just those,
  // relisting those directories, as a refresh would, without checking every path again.
  reader_.reset();  // (`record` pointed into its snapshot)
  refreshed_files = refresh_changed(ctx, check, stale);
  reopen(ctx);
  const std::optional<std::string_view> now = quick_check_record(reader_->txn(), reader_->db());
  if (now && *now == check.updated_record)
    gate_->trust(*now);
  else
    gate_->distrust();  // another run's record, or none: the next call checks in full
  return true;
}

void ReaderCache::reopen(const Context& ctx) {
  reader_ = std::make_unique<IndexReader>(ctx.index_dir);
  ++opens_;
}

}  // namespace osearch::mcp
