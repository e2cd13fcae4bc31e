// Output sinks: JSON, JSON Lines and text are peers that receive the same QueryResult.
#pragma once

#include <string>

#include "cli/json_writer.h"
#include "cli/options.h"
#include "engine/query/query.h"
#include "engine/query/resume_hint.h"
#include "ingest/timeutil.h"

namespace osearch {

void print_json(const Context& ctx, const QueryResult& r);  // JSON or JSON Lines, by ctx.format
void print_text(const QueryResult& r, bool color);

inline void print_result(const Context& ctx, const QueryResult& r) {
  if (ctx.format == Format::Text)
    print_text(r, ctx.stdout_tty);
  else
    print_json(ctx, r);
}

// A session object as `list` prints it (resume_hint included): for results that carry one session.
void write_session_json(JsonWriter& w, const SessionRec& s);

// A time as ISO 8601, or null when unknown (0).
inline void time_or_null(JsonWriter& w, int64_t ms) {
  if (ms > 0)
    w.value(format_iso8601_ms(ms));
  else
    w.null();
}

// Fields shared by every printer (resume_hint is in engine/query/resume_hint.h).
std::string hit_cwd(const Hit& h);
std::string session_summary(const SessionRec& s);

}  // namespace osearch
