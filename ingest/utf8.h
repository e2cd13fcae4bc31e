// UTF-8 decoding shared by the tokenizer, snippets and the JSON writer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace osearch {

// Length of the well-formed UTF-8 sequence at s[pos], or 0 if there is none (overlong, surrogate,
// above U+10FFFF, truncated, stray continuation byte). `cp` receives the code point when not null.
inline size_t utf8_sequence(std::string_view s, size_t pos, uint32_t* cp = nullptr) {
  const auto b0 = static_cast<unsigned char>(s[pos]);
  if (b0 < 0x80) {
    if (cp) *cp = b0;
    return 1;
  }
  size_t len;
  if ((b0 & 0xE0) == 0xC0)
    len = 2;
  else if ((b0 & 0xF0) == 0xE0)
    len = 3;
  else if ((b0 & 0xF8) == 0xF0)
    len = 4;
  else
    return 0;
  if (len > s.size() - pos) return 0;
  uint32_t v = b0 & (0x7Fu >> len);
  for (size_t i = 1; i < len; ++i) {
    const auto b = static_cast<unsigned char>(s[pos + i]);
    if ((b & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b & 0x3Fu);
  }
  constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < kMin[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  if (cp) *cp = v;
  return len;
}

}  // namespace osearch
