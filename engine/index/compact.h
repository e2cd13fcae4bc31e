// `osearch index --compact`, and the compaction an `osearch index` run starts by itself when garbage
// passes the rule of engine/index/garbage.h: a new generation built from the live index itself, not
// from the sources, so nothing only the index holds (archived sessions, the messages of deleted
// transcripts of sessions that still have other files) can be lost.
//
//   1. new_generation (engine/index/rebuild.h) names records-<k>, text-<k>, titles-<k>, xapian-<g>;
//   2. every named LMDB database is copied in key order (MDB_APPEND: full pages), committing in
//      steps: every session, file state (so the next run reads nothing), aggregate, and the legacy
//      memories table as they are; each message with its text appended to the new text log, which
//      then holds live messages only; `epochs` empty; meta without the old generation's names and
//      with the garbage counters at 0. Counts are checked table by table;
//   3. index_salvaged re-creates every message document and title with ingest's DocBuilder at
//      epoch 0, and the shards are merged into the new generation's main database;
//   4. switch_to_rebuilt: the env is synced, records.current renamed, the old generation removed.
// Until the rename readers answer from the old generation and `kill -9` leaves it whole (the next
// writer removes the unnamed new parts); after it, the new one is whole. Memories live in their own
// env and are not touched. It needs room for both generations until the switch.
#pragma once

#include <functional>
#include <string_view>

#include "engine/index/garbage.h"
#include "engine/index/indexer.h"
#include "engine/store/store.h"

namespace osearch {

struct CompactResult {
  uint64_t bytes_before = 0, bytes_after = 0;  // the index dir
  GarbageCounts reclaimed;                     // the garbage counters before
  double seconds = 0;
  std::string problem;  // a cleanup after the switch that failed ("" = none)
};

// `store`: the live env, open for writing under the writer lock, no transaction alive, and no
// writer of this process open on its Xapian databases or text log. Afterwards it is open on the
// live generation: the new one, or the old one when this throws (the new parts are removed then).
// `should_stop` is polled between commits: true abandons the compaction (CompactionStopped).
CompactResult compact_index(Store& store, const std::function<void(std::string_view)>& at_point,
                            const std::function<bool()>& should_stop);

struct CompactionStopped : std::runtime_error {
  CompactionStopped() : std::runtime_error("the compaction was stopped before its switch") {}
};

// The end of a complete `index` run: the compaction IndexOptions::compact asks for (Always, or
// Auto when the garbage passes the rule), else the LMDB repack when it is worth it
// (engine/store/store_repack.h). A stopped run leaves both for the next run. `settle_layout` waits
// for the run's own shard compaction (engine/index/shard_compaction.h) and names its result: it is
// called before anything that needs the final layout; a repack does not, and runs beside it.
// A rebuild (summary.rebuilt) made a generation without garbage: nothing is left for it here, its
// repack ran before its switch (repack_before_switch).
void finish_run(Store& store, const IndexOptions& options, IndexSummary& summary,
                const std::function<void()>& settle_layout = [] {});

struct Rebuild;
// A rebuild's LMDB repack, by finish_run's rule, while its shards' compaction runs and before its
// switch (engine/index/indexer.cpp): `rebuild.env_name` becomes the copy the switch will name. A
// failed repack is reported, and the switch names the env as it was.
void repack_before_switch(Store& store, const IndexOptions& options, IndexSummary& summary, Rebuild& rebuild);

}  // namespace osearch
