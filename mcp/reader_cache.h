// The open index `osearch mcp` keeps across tool calls (a ReaderSource, cli/options.h). Each call
// refreshes lazily as the CLI does; the reader is reopened only when the index moved
// (IndexReader::still_current: a refresh would read something, another process committed,
// `index --full` or a repack switched records.current, or a memory changed).
//
// LMDB forbids opening one env twice in a process at once: the cached reader is closed before any
// refresh that may write (run_index opens the env itself).
#pragma once

#include <cstdint>
#include <memory>

#include "cli/options.h"
#include "engine/query/reader.h"

namespace osearch::mcp {

class ReaderCache : public ReaderSource {
 public:
  IndexReader& open(const Context& ctx, uint64_t& refreshed_files, bool& stale) override;
  // Closes the reader (its read transaction pins LMDB pages a writer could reuse): when idle, or
  // after an error that may mean damage.
  void drop() { reader_.reset(); }
  bool is_open() const { return reader_ != nullptr; }
  uint64_t opens() const { return opens_; }  // readers opened so far (tests)

 private:
  std::unique_ptr<IndexReader> reader_;
  uint64_t opens_ = 0;
};

}  // namespace osearch::mcp
