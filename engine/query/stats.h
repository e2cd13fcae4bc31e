// `stats tokens|tools|files|models|daily`: aggregations answered from the index's aggregate dbs
// (engine/store/usage_agg.h) and tc_by_path, never from the messages themselves.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/query/query.h"
#include "engine/query/reader.h"

namespace osearch {

enum class StatsKind { Tokens, Tools, Files, Models, Daily };

struct StatsOptions {
  StatsKind kind = StatsKind::Tokens;
  std::string by;    // "" = the kind's default (stats_default_by)
  bool utc = false;  // days are local (TZ) days unless set
};

struct StatsRow {
  std::string key;                    // the day, session id, project, model, agent, tool or path
  std::shared_ptr<const SessionRec> session;  // rows keyed by session (for their resume_hint)
  TokenUsage tokens;
  int64_t api_messages = 0;  // API messages whose usage is counted (once each)
  int64_t messages = 0;      // stored messages
  int64_t sessions = 0;      // distinct sessions in the row
  int64_t tool_calls = 0, failures = 0;
};

struct StatsResult {
  std::string kind, by;
  std::vector<StatsRow> rows;  // the page asked for (--offset/--limit)
  uint64_t total_rows = 0;     // rows before paging
  StatsRow totals;             // over every row, paged out or not
  // The time the rows cover when --since/--until cut it: whole 15-minute buckets (bucket_minutes)
  // for the kinds read from the aggregates, so a bound inside a bucket moves up to its end.
  std::optional<int64_t> since_ms, until_ms;
  int bucket_minutes = 0;  // 0: the bounds are exact (stats files reads each call)
  IndexCounts counts;
  uint64_t refreshed_files = 0;
  bool stale = false;
  double took_ms = 0;
};

// Throws BadInput for an unknown kind, or a --by the kind does not take.
StatsKind parse_stats_kind(std::string_view word);
std::string stats_kind_name(StatsKind k);
std::string stats_default_by(StatsKind k);
void check_stats_by(StatsKind k, const std::string& by);

// Filters used: project, agent, session prefix, cwd (the session's); model (the row's model for
// token kinds, the session's for tools and files); tool; since/until (to the 15-minute bucket for
// tokens, tools and daily; exact for files); limit/offset on the rows.
StatsResult run_stats(IndexReader& reader, const Filters& filters, const StatsOptions& o);

}  // namespace osearch
