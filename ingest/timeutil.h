// Timestamp parsing/formatting shared by ingest (per-line, hot) and the CLI
// (--since/--until). All arithmetic is in UTC epoch milliseconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace osearch {

// Parses "YYYY-MM-DD[T ]hh:mm[:ss[.f{1,9}]][Z|±hh[:]mm|±hh]" (RFC 3339 and
// the common ISO 8601 variants). A missing offset is taken as UTC. Extra
// fraction digits beyond milliseconds are truncated. No allocation.
std::optional<int64_t> parse_iso8601_ms(std::string_view s);

// "2026-01-21T01:09:01.581Z": always 3 fraction digits and Z. Years outside
// 0000..9999 get an explicit sign (ISO 8601 expanded form).
std::string format_iso8601_ms(int64_t ms);
// The wall clock now, in ms since the epoch.
int64_t current_time_ms();

struct TimeArgError {
    std::string message;
};

// The CLI --since/--until forms:
//   YYYY-MM-DD                    local midnight
//   YYYY-MM-DDThh:mm[:ss[.fff]]   local time
//   ...with Z or ±hh:mm           that instant
//   N{s,m,h,d,w}                  now_ms minus N seconds/minutes/hours/days/weeks
// Local times use local_utc_offset_seconds (seconds east of UTC).
std::variant<int64_t, TimeArgError> parse_time_arg(std::string_view arg, int64_t now_ms,
                                                   long local_utc_offset_seconds);

// Offset of local time from UTC at the given instant (tm_gmtoff). The only
// function here that consults TZ.
long local_utc_offset_seconds(int64_t at_ms);

}  // namespace osearch
