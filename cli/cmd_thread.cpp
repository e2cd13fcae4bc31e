// `thread`, `context` and `trace`: check the numbers, refresh (unless --no-refresh), open the
// index, run the engine (engine/query/thread.h), print (cli/print_thread.cpp).
#include <chrono>

#include "cli/commands.h"
#include "cli/print_thread.h"
#include "cli/verbatim_args.h"
#include "engine/query/thread.h"

namespace osearch {
namespace {

constexpr size_t kMaxCount = 1000000000;
// The text format cuts long texts unless --max-chars says otherwise; JSON and JSONL never do.
constexpr size_t kTextDefaultMaxChars = 2000;
constexpr size_t kDefaultWindow = 10;
constexpr size_t kContextDefaultDepth = 100;
constexpr size_t kTraceDefaultDepth = 1000;

size_t count_or(const char* option, const std::string& typed, size_t min, size_t fallback) {
  return typed.empty() ? fallback : parse_count(option, typed, min, kMaxCount);
}

size_t max_chars_of(const Context& ctx, const ThreadArgs& a) {
  return count_or("--max-chars", a.numbers.max_chars, 0, ctx.format == Format::Text ? kTextDefaultMaxChars : 0);
}

template <typename Run, typename Print>
int run_and_print(const Context& ctx, Run&& run, Print&& print) {
  const auto t0 = std::chrono::steady_clock::now();
  RunInfo info;
  QueryIndex index(ctx);
  auto result = index.run(run);
  info.refreshed_files = index.refreshed_files;
  info.stale = index.stale;
  info.counts = index.reader().counts();
  info.took_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  print(result, info);
  return 0;
}

ContextOptions context_options(const Context& ctx, const ThreadArgs& a, size_t default_depth) {
  ContextOptions o;
  o.session = a.session;
  o.max_chars = max_chars_of(ctx, a);
  o.depth = count_or("--depth", a.numbers.depth, 0, default_depth);
  return o;
}

}  // namespace

int cmd_thread(const Context& ctx, const ThreadArgs& a) {
  ThreadOptions o;  // every number checked before any work
  o.include_meta = a.include_meta;
  o.max_chars = max_chars_of(ctx, a);
  o.offset = count_or("--offset", a.numbers.offset, 0, 0);
  o.limit = count_or("--limit", a.numbers.limit, 1, 0);
  o.around = a.around;
  o.window = count_or("--window", a.numbers.window, 0, kDefaultWindow);
  if (o.around.empty() && !a.numbers.window.empty()) throw UsageError("usage", "--window needs --around UUID");
  if (!o.around.empty() && (!a.numbers.offset.empty() || !a.numbers.limit.empty()))
    throw UsageError("usage", "--around pages by --window; it does not take --offset or --limit");
  return run_and_print(
      ctx, [&](IndexReader& r) { return run_thread(r, a.target, o); },
      [&](const ThreadResult& res, const RunInfo& info) { print_thread(ctx, res, info); });
}

int cmd_context(const Context& ctx, const ThreadArgs& a) {
  const ContextOptions o = context_options(ctx, a, kContextDefaultDepth);
  return run_and_print(
      ctx, [&](IndexReader& r) { return run_context(r, a.target, o); },
      [&](const ContextResult& res, const RunInfo& info) { print_context(ctx, res, info); });
}

int cmd_trace(const Context& ctx, const ThreadArgs& a) {
  const ContextOptions o = context_options(ctx, a, kTraceDefaultDepth);
  return run_and_print(
      ctx, [&](IndexReader& r) { return run_trace(r, a.target, o); },
      [&](const TraceResult& res, const RunInfo& info) { print_trace(ctx, res, info); });
}

}  // namespace osearch
