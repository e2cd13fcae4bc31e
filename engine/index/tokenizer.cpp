#include "engine/index/tokenizer.h"

#include "ingest/unicode_fold.h"
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

bool is_symbol(uint32_t cp) {
  return (cp >= 0x1F000 && cp <= 0x1FAFF) ||  // pictographs, emoticons, transport, flags' regional indicators
         (cp >= 0x2600 && cp <= 0x27BF) ||    // Miscellaneous Symbols, Dingbats (☀ ✅ ❤ ✨)
         cp == 0x2B05 || cp == 0x2B06 || cp == 0x2B07 || cp == 0x2B1B || cp == 0x2B1C || cp == 0x2B50 ||
         cp == 0x2B55;  // the emoji of Miscellaneous Symbols and Arrows (⬆ ⬛ ⭐ ⭕)
}

namespace {

constexpr bool is_regional_indicator(uint32_t cp) { return cp >= 0x1F1E6 && cp <= 0x1F1FF; }
constexpr bool is_skin_tone(uint32_t cp) { return cp >= 0x1F3FB && cp <= 0x1F3FF; }
constexpr bool is_variation_selector(uint32_t cp) { return cp == 0xFE0E || cp == 0xFE0F; }
constexpr bool is_tag(uint32_t cp) { return cp >= 0xE0020 && cp <= 0xE007F; }  // subdivision flags
constexpr uint32_t kZwj = 0x200D;

// The code point at s[i] (0 past the end) and its length.
uint32_t peek(std::string_view s, size_t i, size_t& len) {
  if (i >= s.size()) {
    len = 0;
    return 0;
  }
  uint32_t cp;
  len = decode_utf8(s, i, cp);
  return cp;
}

}  // namespace

void scan_symbol_cluster(std::string_view text, size_t i, SymbolCluster& out) {
  out.sequence.clear();
  out.multi = false;
  out.n_parts = 0;
  size_t len;
  for (;;) {
    // One element: a symbol, or a flag (two regional indicators).
    uint32_t cp = peek(text, i, len);
    size_t elem = len;
    if (is_regional_indicator(cp)) {
      size_t len2;
      if (is_regional_indicator(peek(text, i + len, len2))) elem += len2;
    }
    out.sequence.append(text.substr(i, elem));
    if (out.n_parts < SymbolCluster::kMaxParts) out.parts[out.n_parts++] = {i, elem};
    i += elem;
    // Its trailers: a variation selector is presentation only and dropped, so "❤️" is "❤".
    for (;;) {
      cp = peek(text, i, len);
      if (is_variation_selector(cp)) {
        i += len;
      } else if (is_skin_tone(cp) || is_tag(cp)) {
        out.sequence.append(text.substr(i, len));
        out.multi = true;
        i += len;
      } else {
        break;
      }
    }
    // A ZWJ joins the next symbol into the same cluster; before anything else it is a separator.
    size_t next_len;
    if (peek(text, i, len) == kZwj && is_symbol(peek(text, i + len, next_len))) {
      out.sequence.append(text.substr(i, len));
      out.multi = true;
      i += len;
      continue;
    }
    break;
  }
  out.end = i;
}

namespace detail {

CharClass classify_multibyte(std::string_view s, size_t i, size_t& len) {
  uint32_t cp;
  len = decode_utf8(s, i, cp);
  if (cp == 0xFFFD) return CharClass::Separator;
  if (is_cjk(cp)) return CharClass::Cjk;
  if (is_symbol(cp)) return CharClass::Symbol;
  // Punctuation and symbol blocks separate words; other scripts are letters.
  if ((cp >= 0x2000 && cp <= 0x2BFF) || (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFF00 && cp <= 0xFF65) ||
      cp == 0xA0 || (cp >= 0x80 && cp <= 0xBF) || cp == 0xD7 || cp == 0xF7 || (cp >= 0x1F000 && cp <= 0x1FAFF) ||
      (cp >= 0xFE00 && cp <= 0xFE6F)) {
    // Except the letters and digits among them, which fold to plain ones (fullwidth Ａ and ７, ²,
    // ℝ, Ⅻ), and the combining half marks, which fold away: they are part of a word.
    if (cp >= 0xFF01 && cp <= 0xFF5E) {
      const uint32_t ascii = cp - 0xFEE0;
      const bool alnum = (ascii >= '0' && ascii <= '9') || (ascii >= 'A' && ascii <= 'Z') || (ascii >= 'a' && ascii <= 'z');
      return alnum ? CharClass::Word : CharClass::Separator;
    }
    return folds_to_itself(cp) ? CharClass::Separator : CharClass::Word;
  }
  return CharClass::Word;
}

}  // namespace detail

// fold_word copies and lower-cases ASCII runs on its own fast path: no separate ASCII branch here.
void search_form(std::string_view word, std::string& out) { fold_word(word, out); }

}  // namespace osearch
