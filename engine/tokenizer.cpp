#include "engine/tokenizer.h"

#include "ingest/utf8.h"

namespace osearch {

size_t decode_utf8(std::string_view s, size_t i, uint32_t& cp) {
  size_t n = utf8_sequence(s, i, &cp);
  if (n == 0) {
    cp = 0xFFFD;
    return 1;
  }
  return n;
}

bool is_cjk(uint32_t cp) {
  return (cp >= 0x3040 && cp <= 0x30FF) ||   // Hiragana, Katakana
         (cp >= 0x3100 && cp <= 0x312F) ||   // Bopomofo
         (cp >= 0x3400 && cp <= 0x4DBF) ||   // CJK Extension A
         (cp >= 0x4E00 && cp <= 0x9FFF) ||   // CJK Unified Ideographs
         (cp >= 0xAC00 && cp <= 0xD7AF) ||   // Hangul syllables
         (cp >= 0x1100 && cp <= 0x11FF) ||   // Hangul Jamo
         (cp >= 0xF900 && cp <= 0xFAFF) ||   // CJK Compatibility Ideographs
         (cp >= 0xFF66 && cp <= 0xFF9F) ||   // half-width Katakana
         (cp >= 0x20000 && cp <= 0x2FA1F);  // Extensions B+
}

namespace detail {

CharClass classify_multibyte(std::string_view s, size_t i, size_t& len) {
  uint32_t cp;
  len = decode_utf8(s, i, cp);
  if (cp == 0xFFFD) return CharClass::Separator;
  if (is_cjk(cp)) return CharClass::Cjk;
  // Punctuation and symbol blocks separate words; other scripts are letters.
  if ((cp >= 0x2000 && cp <= 0x2BFF) || (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFF00 && cp <= 0xFF65) ||
      cp == 0xA0 || (cp >= 0x80 && cp <= 0xBF) || cp == 0xD7 || cp == 0xF7 || (cp >= 0x1F000 && cp <= 0x1FAFF) ||
      (cp >= 0xFE00 && cp <= 0xFE6F))
    return CharClass::Separator;
  return CharClass::Word;
}

}  // namespace detail
}  // namespace osearch
