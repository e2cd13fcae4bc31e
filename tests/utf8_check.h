// An independent UTF-8 validity check for test assertions (deliberately not the product's decoder).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace osearch_test {

// U+FFFD, what invalid bytes become.
inline const std::string kFffd = "\xEF\xBF\xBD";

inline bool valid_utf8(std::string_view s) {
    for (size_t i = 0; i < s.size();) {
        const auto b = static_cast<unsigned char>(s[i]);
        size_t len = b < 0x80 ? 1 : b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
        if (len == 0 || i + len > s.size()) return false;
        for (size_t k = 1; k < len; ++k)
            if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
        const auto b1 = static_cast<unsigned char>(len > 1 ? s[i + 1] : 0);
        if ((b == 0xE0 && b1 < 0xA0) || (b == 0xED && b1 > 0x9F) || (b == 0xF0 && b1 < 0x90) ||
            (b == 0xF4 && b1 > 0x8F))
            return false;
        i += len;
    }
    return true;
}

// Code points in valid UTF-8 (every byte that is not a continuation byte starts one).
inline size_t code_points(std::string_view s) {
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}

}  // namespace osearch_test
