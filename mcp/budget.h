// The result budget of a tool call (the `max_result_chars` argument): a result longer than the budget is
// rebuilt, never cut mid-JSON. First trailing elements of its largest top-level array are dropped
// (the results, rows or messages past the budget); when even one element does not fit, long
// strings anywhere are cut to a common length (marked with a trailing "…") with that one element
// kept. The result then says `"truncated": true` and `"truncation": {max_result_chars, dropped, from,
// strings_cut, string_cap}`. Sizes are counted in bytes of the JSON text (never fewer than its
// characters), so the result always fits when it can.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace osearch::mcp {

inline constexpr size_t kDefaultMaxChars = 20000;

// `json` (one JSON object) if it fits in `max_chars` (0: no bound), else its bounded rebuild.
std::string fit_result(std::string_view json, size_t max_chars);

}  // namespace osearch::mcp
