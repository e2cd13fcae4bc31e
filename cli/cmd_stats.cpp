// `stats KIND`: refresh (unless --no-refresh), open the index, aggregate, print.
#include <chrono>

#include "cli/commands.h"
#include "cli/print_stats.h"
#include "cli/verbatim_args.h"
#include "engine/query/stats.h"
#include "ingest/timeutil.h"

namespace osearch {

int cmd_stats(const Context& ctx, const StatsArgs& args) {
  const auto t0 = std::chrono::steady_clock::now();
  constexpr size_t kDefaultLimit = 100;
  StatsOptions o;
  o.kind = parse_stats_kind(args.kind);
  o.by = args.by;
  o.utc = args.utc;
  if (!o.by.empty()) check_stats_by(o.kind, o.by);  // bad input fails before any work
  FilterArgs fa = args.search.filters;
  if (!args.search.numbers.limit.empty()) fa.limit = parse_count("--limit", args.search.numbers.limit, 1, 100000);
  if (!args.search.numbers.offset.empty())
    fa.offset = parse_count("--offset", args.search.numbers.offset, 0, 1000000000);
  const Filters filters = parse_filters(fa, current_time_ms(), kDefaultLimit);
  QueryIndex index(ctx);
  StatsResult r = index.run([&](IndexReader& reader) { return run_stats(reader, filters, o); });
  r.counts = index.reader().counts();
  r.refreshed_files = index.refreshed_files;
  r.stale = index.stale;
  r.took_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  print_stats(ctx, r);
  return 0;
}

}  // namespace osearch
