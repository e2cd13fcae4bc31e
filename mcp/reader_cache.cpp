#include "mcp/reader_cache.h"

#include "cli/commands.h"
#include "engine/query/memories.h"

namespace osearch::mcp {

IndexReader& ReaderCache::open(const Context& ctx, uint64_t& refreshed_files, bool& stale) {
  refreshed_files = 0;
  stale = false;
  if (reader_) {
    // Memory files edited since they were read (their own env, which the reader does not hold).
    if (!ctx.no_refresh) refresh_memories(ctx.index_dir, true);
    if (reader_->still_current(ctx.no_refresh ? nullptr : &ctx.roots)) return *reader_;
  }
  reader_.reset();  // closes the env before run_index opens its own
  refreshed_files = refresh_before_query(ctx, stale);
  reader_ = std::make_unique<IndexReader>(ctx.index_dir);
  ++opens_;
  return *reader_;
}

}  // namespace osearch::mcp
