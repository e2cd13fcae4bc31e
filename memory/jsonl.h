// The exchange format of `memory export` / `memory import`: one JSON object per memory and line,
// archived memories included, with its audit trail:
//   {"id":…,"path":…,"summary":…,"project":…,"session_id":…,"message_start":…,"message_end":…,
//    "anchors":[{"kind":…,"path":…,"line":N}],"created_at_ms":N,"deleted_at_ms":N,"deleted_reason":…,
//    "events":[{"seq":N,"action":"remember","time_ms":N,"reason":…}]}
// Times are integer milliseconds so that a round trip is exact (the printers show ISO 8601).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "memory/memory.h"

namespace osearch::memory {

struct Exported {
  Record record;
  std::vector<Event> events;
};

std::string to_jsonl_line(const Record& r, const std::vector<Event>& events);  // no newline
// Throws InvalidMemory("bad-import") naming what is wrong with the line.
Exported from_jsonl_line(std::string_view line);

std::string json_quote(std::string_view s);  // s must be valid UTF-8

}  // namespace osearch::memory
