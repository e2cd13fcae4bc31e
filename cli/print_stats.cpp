#include <cstdio>
#include <string>

#include "cli/json_writer.h"
#include "cli/print_stats.h"
#include "cli/terminal_text.h"
#include "engine/query/resume_hint.h"
#include "engine/store/usage_agg.h"

namespace osearch {
namespace {

bool has_tokens(const StatsResult& r) { return r.kind == "tokens" || r.kind == "models" || r.kind == "daily"; }
bool has_tools(const StatsResult& r) { return r.kind == "tools" || r.kind == "daily"; }

double failure_rate(const StatsRow& row) {
  return row.tool_calls > 0 ? static_cast<double>(row.failures) / static_cast<double>(row.tool_calls) : 0.0;
}

void write_row(JsonWriter& w, const StatsResult& r, const StatsRow& row) {
  w.begin_object();
  w.key(r.by); w.value(row.key);
  if (row.session) {
    w.key("agent"); w.value(row.session->agent);
    w.key("project"); w.value(row.session->project);
    w.key("title"); w.value(row.session->title());
    w.key("resume_hint"); w.value(resume_hint(*row.session));
  }
  if (has_tokens(r)) {
    w.key("input"); w.value(row.tokens.input);
    w.key("output"); w.value(row.tokens.output);
    w.key("cache_creation"); w.value(row.tokens.cache_creation);
    w.key("cache_read"); w.value(row.tokens.cache_read);
    w.key("total"); w.value(usage_total(row.tokens));
    w.key("api_messages"); w.value(row.api_messages);
    w.key("messages"); w.value(row.messages);
  }
  if (r.kind == "files") {
    w.key("touches"); w.value(row.tool_calls);
  } else if (has_tools(r)) {
    w.key("tool_calls"); w.value(row.tool_calls);
    w.key("failures"); w.value(row.failures);
    w.key("failure_rate"); w.value(failure_rate(row));
  }
  w.key("sessions"); w.value(row.sessions);
  w.end_object();
}

void write_envelope(JsonWriter& w, const StatsResult& r) {
  w.key("action"); w.value("stats");
  w.key("kind"); w.value(r.kind);
  w.key("by"); w.value(r.by);
  w.key("total"); w.value(r.total_rows);
  w.key("returned"); w.value(static_cast<uint64_t>(r.rows.size()));
  w.key("totals");
  StatsRow totals = r.totals;
  totals.session.reset();
  write_row(w, r, totals);
  if (r.since_ms || r.until_ms) {
    // What --since/--until covered: the aggregates count whole buckets (stats.h).
    w.key("window");
    w.begin_object();
    w.key("since");
    if (r.since_ms) w.value(format_iso8601_ms(*r.since_ms)); else w.null();
    w.key("until");
    if (r.until_ms) w.value(format_iso8601_ms(*r.until_ms)); else w.null();
    w.key("bucket_minutes"); w.value(static_cast<int64_t>(r.bucket_minutes));
    w.end_object();
  }
  w.key("took_ms"); w.value(r.took_ms);
  w.key("index");
  w.begin_object();
  w.key("sessions"); w.value(r.counts.sessions);
  w.key("messages"); w.value(r.counts.messages);
  w.key("refreshed_files"); w.value(r.refreshed_files);
  w.key("stale"); w.value(r.stale);
  w.end_object();
}

std::string text_row(const StatsResult& r, const StatsRow& row) {
  char buf[256];
  std::string out;
  if (has_tokens(r)) {
    std::snprintf(buf, sizeof buf, "  in %lld · out %lld · cache write %lld · cache read %lld · total %lld · %lld API msgs",
                  (long long)row.tokens.input, (long long)row.tokens.output, (long long)row.tokens.cache_creation,
                  (long long)row.tokens.cache_read, (long long)usage_total(row.tokens), (long long)row.api_messages);
    out += buf;
    if (r.kind == "daily") {
      std::snprintf(buf, sizeof buf, " · %lld messages", (long long)row.messages);
      out += buf;
    }
  }
  if (r.kind == "files") {
    std::snprintf(buf, sizeof buf, "  %lld touches", (long long)row.tool_calls);
    out += buf;
  } else if (has_tools(r)) {
    std::snprintf(buf, sizeof buf, "  %lld calls · %lld failed (%.1f%%)", (long long)row.tool_calls,
                  (long long)row.failures, 100.0 * failure_rate(row));
    out += buf;
  }
  std::snprintf(buf, sizeof buf, " · %lld session%s", (long long)row.sessions, row.sessions == 1 ? "" : "s");
  return out + buf;
}

}  // namespace

void print_stats_json(const Context& ctx, const StatsResult& r) {
  print_listing(
      ctx, "rows", r.rows, [&](JsonWriter& w) { write_envelope(w, r); },
      [&](JsonWriter& w, const StatsRow& row) { write_row(w, r, row); });
}

void print_stats_text(const StatsResult& r, bool color) {
  const char* bold = color ? "\033[1m" : "";
  const char* dim = color ? "\033[2m" : "";
  const char* reset = color ? "\033[0m" : "";
  for (const auto& row : r.rows) {
    // Keys come from transcripts (paths, projects, model names): made terminal-safe first.
    std::string key = row.key.empty() ? "(none)" : terminal_safe(row.key);
    std::printf("%s%s%s%s\n", bold, key.c_str(), reset, text_row(r, row).c_str());
    if (row.session)
      std::printf("  %s%s%s\n", dim, terminal_safe(resume_hint(*row.session), LineBreaks::Visible).c_str(), reset);
  }
  std::printf("%stotal%s\n", dim, text_row(r, r.totals).c_str());
  if (r.bucket_minutes > 0 && (r.since_ms || r.until_ms))
    std::printf("%scounted from %s to %s, in whole %d-minute buckets%s\n", dim,
                r.since_ms ? format_iso8601_ms(*r.since_ms).c_str() : "the start",
                r.until_ms ? format_iso8601_ms(*r.until_ms).c_str() : "now", r.bucket_minutes, reset);
  std::printf("%s%llu of %llu rows · stats %s by %s · %.1f ms%s%s\n", dim, (unsigned long long)r.rows.size(),
              (unsigned long long)r.total_rows, r.kind.c_str(), r.by.c_str(), r.took_ms,
              r.stale ? " · index busy, may be stale" : "", reset);
}

}  // namespace osearch
