#include "engine/index/shard_compaction.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "engine/index/index_parts.h"
#include "engine/store/trace.h"
#include "ingest/worker_thread.h"

namespace osearch {
namespace {

// Past this many fresh shards beside a big main database, they are merged into one: a query opens
// every listed database.
constexpr size_t kMaxShards = 6;

}  // namespace

ShardCompaction::~ShardCompaction() {
  if (worker_.joinable()) worker_.join();
}

void ShardCompaction::start(Store& store, TextIndexWriter& xapian, const XapianLayout& layout) {
  finish();
  store_ = &store;
  before_ = layout;
  if (layout.shards.empty()) return;
  uint64_t shard_bytes = 0, main_bytes = TextIndexWriter::dir_bytes(layout.main_dir(store.dir()));
  size_t fresh = 0;
  for (const auto& s : layout.shards) {
    uint64_t b = TextIndexWriter::dir_bytes(store.dir() + "/" + s);
    if (XapianLayout::is_part(s)) {
      main_bytes += b;
    } else {
      shard_bytes += b;
      ++fresh;
    }
  }
  if (fresh == 0) return;
  if (shard_bytes * 4 >= main_bytes) {
    // Everything into a new main database and part, beside the rest of the run's end.
    worker_ = start_worker([this, dir = store.dir()] {
      try {
        PhaseTimer timer("compact");
        next_ = TextIndexWriter::compact_databases(dir, before_);
        timer.mark("xapian compact");
      } catch (...) {
        error_ = std::current_exception();
      }
    });
  } else if (fresh > kMaxShards) {
    name(xapian.merge_shards(layout));
  }
  // else a few small shards: cheaper to search than to merge every run
}

void ShardCompaction::finish() {
  if (!worker_.joinable()) return;
  worker_.join();
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  name(next_);
}

void ShardCompaction::name(const XapianLayout& next) {
  Store& store = *store_;
  {
    LmdbTxn txn(store.env(), false);
    write_layout(txn, store.db(), next);
    txn.commit();
  }
  // Only the databases compacted away: during a rebuild the old generation's are still live.
  // (Removing them costs ~2 ms a shard here, the page cache freeing their pages; two threads
  // measured no faster.)
  std::error_code ec;
  if (before_.generation != next.generation) std::filesystem::remove_all(before_.main_dir(store.dir()), ec);
  for (const auto& s : before_.shards)
    if (std::find(next.shards.begin(), next.shards.end(), s) == next.shards.end())
      std::filesystem::remove_all(store.dir() + "/" + s, ec);
  before_ = next;
}

}  // namespace osearch
