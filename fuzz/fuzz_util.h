// Helpers shared by the libFuzzer targets: checks that abort (so libFuzzer records the input) and
// a strict UTF-8 validator for outputs that promise valid text.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <simdjson.h>

#include "ingest/records.h"

namespace osearch_fuzz {

// A broken invariant is a crash: libFuzzer saves the input as an artifact.
inline void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz invariant failed: %s\n", what);
    std::abort();
  }
}

// Every byte of `s` belongs to a well-formed UTF-8 sequence (no surrogates, no overlongs).
inline bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
    for (size_t k = 1; k < n; ++k) {
      auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += n;
  }
  return true;
}

// What every adapter's messages promise downstream: offsets inside the text, valid UTF-8, and
// tool inputs (re-serialized by the adapter) that parse as JSON again.
inline void check_message_text(const osearch::Message& m) {
  require(m.prompt_offset <= m.text.size(), "prompt_offset beyond the text");
  require(valid_utf8(m.text), "message text is not valid UTF-8");
  for (const auto& tc : m.tool_calls) {
    require(valid_utf8(tc.input_json), "tool input_json is not valid UTF-8");
    if (!tc.input_json.empty()) {
      simdjson::dom::parser p;
      simdjson::padded_string padded(tc.input_json);
      simdjson::dom::element e;
      require(p.parse(padded).get(e) == simdjson::SUCCESS, "tool input_json does not parse");
    }
  }
}

}  // namespace osearch_fuzz
