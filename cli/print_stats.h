// Printers of `stats`: JSON, JSON Lines and text receive the same StatsResult.
#pragma once

#include "cli/options.h"
#include "engine/query/stats.h"

namespace osearch {

void print_stats_json(const Context& ctx, const StatsResult& r);  // JSON or JSON Lines, by ctx.format
void print_stats_text(const StatsResult& r, bool color);

inline void print_stats(const Context& ctx, const StatsResult& r) {
  if (ctx.format == Format::Text)
    print_stats_text(r, ctx.stdout_tty);
  else
    print_stats_json(ctx, r);
}

}  // namespace osearch
