// The open index `osearch mcp` and `osearch serve` keep across calls (a ReaderSource,
// cli/options.h). Each call refreshes lazily as the CLI does; the reader is reopened only when the
// index moved (IndexReader::still_current: another process committed, `index --full` or a repack
// switched records.current, or a memory changed) or a refresh read something.
//
// Freshness without a stat per transcript on every call: a SourceGate (engine/index/source_gate.h)
// watches the directories of the kept snapshot's source-watch record, so once a full check has
// found the sources as recorded, a call stats only the files inotify reported changed (none when
// nothing was written), and a refresh reads just those.
//
// LMDB forbids opening one env twice in a process at once: the cached reader is closed before any
// refresh that may write (run_index opens the env itself).
#pragma once

#include <cstdint>
#include <memory>

#include "cli/options.h"
#include "engine/index/source_gate.h"
#include "engine/query/reader.h"

namespace osearch::mcp {

class ReaderCache : public ReaderSource {
 public:
  IndexReader& open(const Context& ctx, uint64_t& refreshed_files, bool& stale) override;
  // Closes the reader (its read transaction pins LMDB pages a writer could reuse): when idle, or
  // after an error that may mean damage.
  void drop() { reader_.reset(); }
  // An idle server lets go of its inotify watches too (a user's watch budget is shared with their
  // editors and other tools); the gate's trust would have expired by the next call anyway.
  void idle() {
    reader_.reset();
    gate_.reset();
  }
  bool is_open() const { return reader_ != nullptr; }
  uint64_t opens() const { return opens_; }  // readers opened so far (tests)
  uint64_t full_checks() const { return full_checks_; }  // calls that stat'ed every source (tests)

 private:
  // The kept reader brought up to date through the gate: true when reader_ answers (kept, or
  // reopened after a refresh that read the changed files); false: the full refresh path decides.
  bool refresh_kept(const Context& ctx, uint64_t& refreshed_files, bool& stale);
  void reopen(const Context& ctx);
  std::unique_ptr<IndexReader> reader_;
  std::unique_ptr<SourceGate> gate_;
  uint64_t opens_ = 0, full_checks_ = 0;
};

}  // namespace osearch::mcp
