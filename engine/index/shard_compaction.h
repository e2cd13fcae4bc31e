// The fold of a run's fresh shards into the message databases, at the end of a complete run.
//
// A cold build ends with two steps that touch different files: this compaction (Xapian: main and
// shards into a new main and part) and, in finish_run, the LMDB repack. The compaction runs in the
// background while the repack runs, and the result becomes part of the index only in finish():
// one LMDB commit names it (in the repacked env, when there was a repack), then the databases
// compacted away are removed. Until that commit LMDB names the old databases, which are still
// there: `kill -9` anywhere leaves the old layout whole, and the next writer removes the unnamed
// result (remove_unnamed_parts).
#pragma once

#include <exception>
#include <string>
#include <thread>

#include "engine/index/text_index.h"
#include "engine/store/store.h"

namespace osearch {

class ShardCompaction {
 public:
  ShardCompaction() = default;
  ShardCompaction(const ShardCompaction&) = delete;
  ShardCompaction& operator=(const ShardCompaction&) = delete;
  // Joins a compaction still running (an exception left finish() uncalled); its result stays
  // unnamed.
  ~ShardCompaction();

  // Decides what the run's shards need: nothing (none, or a few small ones), a merge of the fresh
  // shards into one (done here, and named at once), or a compaction of everything, which is
  // started in the background. `layout` is the run's layout as LMDB names it.
  void start(Store& store, TextIndexWriter& xapian, const XapianLayout& layout);
  // Waits for a started compaction, names its result in LMDB and removes what it replaced. Does
  // nothing when nothing was started or it is done already. Rethrows the compaction's error (the
  // index is then as before: the old layout is still named).
  void finish();

 private:
  void name(const XapianLayout& next);
  Store* store_ = nullptr;
  XapianLayout before_, next_;
  std::thread worker_;
  std::exception_ptr error_;
};

}  // namespace osearch
