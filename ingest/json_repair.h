// One repair pass for a JSONL line simdjson rejected (SPEC §7, issue 7). Only defects that can be
// fixed without guessing are repaired, so the rest of the line (its message, its tool calls) survives:
//   (a) every invalid UTF-8 sequence -> U+FFFD, one per maximal subpart (as WHATWG / Python 'replace');
//   (b) every \uD800-\uDFFF escape that is not half of a valid high+low pair -> \uFFFD;
//   (c) NUL bytes outside strings are removed (trailing padding of preallocated files);
//   (d) a number simdjson cannot represent (1e999, an integer beyond 64 bits) -> the same digits
//       as a JSON string.
// Anything else (a missing brace, a truncated line) is left alone: the line stays bad.
#pragma once

#include <string>
#include <string_view>

#include <simdjson.h>

namespace osearch {

class JsonLineRepair {
 public:
  // Writes the repaired line to `out` (without padding). Returns false when nothing needed repair,
  // so the caller knows re-parsing cannot help.
  bool repair(std::string_view line, std::string& out);

 private:
  bool number_is_representable(std::string_view number);

  simdjson::dom::parser number_parser_;  // tiny documents: one number each
  std::string number_buf_;
};

// Appends `in` with every invalid UTF-8 sequence replaced by U+FFFD (rule a). Returns true when
// something was replaced. Exposed for tests.
bool append_utf8_replacing(std::string_view in, std::string& out);

}  // namespace osearch
