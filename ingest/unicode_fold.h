// Unicode case and diacritics folding: the search form of a word, the same at index and at query
// time, so `привет` finds `Привет`, `ecole` finds `ÉCOLE` and `resume` finds `Résumé` (issue 9).
//
// What folds (the generator, scripts/gen_unicode_fold.py, is the precise definition):
//  - case, by Unicode full case folding: ß -> ss, ς -> σ, ﬁ -> fi, İ -> i, Kelvin sign -> k;
//  - diacritics, for every script: canonical decomposition, then the marks of the generic diacritic
//    blocks (U+0300–036F, 1AB0–1AFF, 1DC0–1DFF, 20D0–20FF, FE20–FE2F), Hebrew points and Arabic
//    harakat are dropped: é -> e, ё -> е, й -> и, ά -> α, ế -> e, שָׁ -> ש, أ -> ا. Such a mark on
//    its own (text already in NFD) folds to nothing, so NFD and NFC text fold alike;
//  - Latin letters with a stroke or bar, which have no decomposition, as ICU's Latin-ASCII does:
//    ø -> o, ł -> l, đ -> d, ħ -> h; dotless ı -> i (Turkish KAPI and kapı fold alike). FTS5's
//    unicode61 keeps these; æ, œ, ð, þ are letters of their own and stay here too;
//  - compatibility forms of letters and digits: fullwidth ASCII (Ａ -> a, ！ -> !), super- and
//    subscripts (² -> 2, H₂O -> h2o), mathematical font letters (𝐀 -> a), Arabic presentation
//    forms, Latin ligature letters (ĳ -> ij, ǆ -> dz). Circled and parenthesised forms (①, ⑴),
//    fractions and other symbols stay as written.
// What does not: kana (a voiced mark changes the letter), Hangul syllables and CJK, symbols and
// emoji, punctuation, Indic vowel signs and other marks outside the dropped set (they are letters
// of their words), digits of other scripts.
//
// Folding is idempotent: the folded form of a folded form is itself.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace osearch {

// The Unicode version the folding table was generated from. A change of table changes index terms,
// so an index built under another version must be rebuilt.
std::string_view unicode_fold_version();

namespace detail {
bool non_ascii_folds_to_itself(uint32_t cp);
}

// True when cp folds to itself, so a caller can copy runs of bytes. ASCII inline, else two table loads.
inline bool folds_to_itself(uint32_t cp) {
  if (cp < 0x80) return cp < 'A' || cp > 'Z';
  return detail::non_ascii_folds_to_itself(cp);
}

// Appends the search form of one code point to `out` as UTF-8 (nothing for a dropped mark). A code
// point that is not a Unicode scalar value (a surrogate, above U+10FFFF) is appended as U+FFFD.
void append_folded(uint32_t cp, std::string& out);

// Appends the search form of a UTF-8 word to `out`. Bytes that are not well-formed UTF-8 are copied
// as they are. ASCII is lower-cased on a fast path; no allocation beyond growing `out`.
void append_folded_word(std::string_view utf8, std::string& out);

// `out` becomes the search form of `utf8` (its capacity is reused).
inline void fold_word(std::string_view utf8, std::string& out) {
  out.clear();
  append_folded_word(utf8, out);
}

inline std::string fold_word(std::string_view utf8) {
  std::string out;
  append_folded_word(utf8, out);
  return out;
}

// True when fold_word(utf8) == utf8: lets a caller keep the original bytes without copying.
bool is_folded(std::string_view utf8);

}  // namespace osearch
