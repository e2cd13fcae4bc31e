// Printers of `thread`, `context` and `trace`: JSON, JSON Lines and text over the engine's results
// (engine/query/thread.h), like cli/printers.h for the search results.
#pragma once

#include "cli/options.h"
#include "engine/query/thread.h"

namespace osearch {

// What every printed result says about the run besides its answer.
struct RunInfo {
  IndexCounts counts;
  uint64_t refreshed_files = 0;
  bool stale = false;
  double took_ms = 0;
};

void print_thread(const Context& ctx, const ThreadResult& r, const RunInfo& info);
void print_context(const Context& ctx, const ContextResult& r, const RunInfo& info);
void print_trace(const Context& ctx, const TraceResult& r, const RunInfo& info);

}  // namespace osearch
