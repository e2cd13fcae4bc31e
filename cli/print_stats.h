// Printers of `stats`: JSON, JSON Lines and text receive the same StatsResult.
#pragma once

#include "cli/options.h"
#include "engine/query/stats.h"

namespace osearch {

void print_stats_json(const Context& ctx, const StatsResult& r);
void print_stats_jsonl(const Context& ctx, const StatsResult& r);
void print_stats_text(const StatsResult& r, bool color);

inline void print_stats(const Context& ctx, const StatsResult& r) {
  switch (ctx.format) {
    case Format::Json: print_stats_json(ctx, r); break;
    case Format::Jsonl: print_stats_jsonl(ctx, r); break;
    case Format::Text: print_stats_text(r, ctx.stdout_tty); break;
  }
}

}  // namespace osearch
