// Unicode case and diacritics folding (ingest/unicode_fold.h, issue 9): every script the tokenizer
// will fold, the scripts it must leave alone, NFD input, invalid bytes, and idempotence over every
// code point.
#include <catch2/catch.hpp>

#include <string>

#include "ingest/unicode_fold.h"

using osearch::fold_word;

namespace {

std::string utf8_of(uint32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (cp >> 18));
    s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

std::string folded_cp(uint32_t cp) {
  std::string out;
  osearch::append_folded(cp, out);
  return out;
}

bool unchanged(std::string_view word) { return fold_word(word) == word && osearch::is_folded(word); }

}  // namespace

TEST_CASE("fold: ASCII is lower-cased and nothing else", "[fold]") {
  CHECK(fold_word("Hello_World-42.Foo/BAR") == "hello_world-42.foo/bar");
  CHECK(fold_word("") == "");
  CHECK(unchanged("already lower 0123 !@#$%^&*()[]{}~"));
  CHECK_FALSE(osearch::is_folded("Upper"));
  for (uint32_t cp = 0; cp < 0x80; ++cp) {
    const bool upper = cp >= 'A' && cp <= 'Z';
    CHECK(osearch::folds_to_itself(cp) == !upper);
    CHECK(folded_cp(cp) == std::string(1, static_cast<char>(upper ? cp + 32 : cp)));
  }
  std::string reused = "old contents";
  fold_word("NEW", reused);
  CHECK(reused == "new");
  osearch::append_folded_word("ÉTÉ", reused);
  CHECK(reused == "newete");
}

TEST_CASE("fold: Latin diacritics, stroked letters and Vietnamese", "[fold]") {
  CHECK(fold_word("ÉCOLE") == "ecole");
  CHECK(fold_word("école") == "ecole");
  CHECK(fold_word("naïve") == "naive");
  CHECK(fold_word("Résumé") == "resume");
  CHECK(fold_word("É é è ê ë à ç ñ Å å ő ů ž Ș ț") == "e e e e e a c n a a o u z s t");
  // No decomposition, mapped to the base letter as ICU's Latin-ASCII does (FTS5 keeps them).
  CHECK(fold_word("Bjørn Łódź Đà ħ ŧ Ø") == "bjorn lodz da h t o");
  // Letters of their own stay.
  CHECK(unchanged("æ œ ð þ"));
  CHECK(fold_word("Æ Œ Ð Þ") == "æ œ ð þ");
  // Vietnamese stacks two marks on one letter.
  CHECK(fold_word("Tiếng Việt") == "tieng viet");
  CHECK(fold_word("Đà Nẵng") == "da nang");
  CHECK(fold_word("TIẾNG VIỆT") == "tieng viet");
}

TEST_CASE("fold: German sharp s and Turkish dotted and dotless i", "[fold]") {
  CHECK(fold_word("Straße") == "strasse");
  CHECK(fold_word("STRASSE") == fold_word("Straße"));
  CHECK(fold_word("ẞ") == "ss");
  CHECK(fold_word("İstanbul") == "istanbul");
  CHECK(fold_word("ISTANBUL") == fold_word("İstanbul"));
  CHECK(fold_word("kapı") == "kapi");  // dotless ı folds like its capital I
  CHECK(fold_word("KAPI") == fold_word("kapı"));
}

TEST_CASE("fold: Cyrillic case, ё and й", "[fold]") {
  CHECK(fold_word("Привет") == "привет");
  CHECK(fold_word("ПРИВЕТ") == "привет");
  CHECK(fold_word("Ёлка") == "елка");
  CHECK(fold_word("ёлка") == "елка");
  CHECK(fold_word("Йод") == "иод");
  CHECK(fold_word("Ўзбек Їжак Ґанок") == "узбек іжак ґанок");  // ґ is a letter, not г with a mark
}

TEST_CASE("fold: Greek tonos, dialytika and final sigma", "[fold]") {
  CHECK(fold_word("ΚΑΛΗΜΈΡΑ") == fold_word("καλημέρα"));
  CHECK(fold_word("καλημέρα") == "καλημερα");
  CHECK(fold_word("ΟΔΥΣΣΕΥΣ") == fold_word("Οδυσσεύς"));
  CHECK(fold_word("ς") == "σ");
  CHECK(fold_word("ΐ ΰ Ϊ") == "ι υ ι");
  CHECK(fold_word("ᾳ") == "α");  // ypogegrammeni is a mark of U+0300–036F
  CHECK(fold_word("ᾼ") == fold_word("ᾳ"));
}

TEST_CASE("fold: Hebrew niqqud and Arabic harakat are dropped", "[fold]") {
  CHECK(fold_word("שָׁלוֹם") == "שלום");
  CHECK(unchanged("שלום"));
  CHECK(unchanged("\u05BE"));  // maqaf is punctuation, not a point
  CHECK(fold_word("مُحَمَّد") == "محمد");
  CHECK(unchanged("محمد"));
  CHECK(fold_word("\u0627\u0670") == "\u0627");  // superscript alef
  CHECK(fold_word("أحمد") == "احمد");            // hamza above is in the harakat block
  CHECK(fold_word("\uFEFB") == "\u0644\u0627");  // lam-alef presentation form
}

TEST_CASE("fold: Devanagari, CJK, kana, Hangul and emoji are left as written", "[fold]") {
  CHECK(unchanged("हिन्दी"));
  CHECK(unchanged("नमस्ते दुनिया"));
  // Nukta: the precomposed letter and its canonical decomposition fold alike, nukta kept.
  CHECK(fold_word("\u0958") == "\u0915\u093C");
  CHECK(unchanged("\u0915\u093C"));
  CHECK(unchanged("日本語 中文 漢字"));
  CHECK(unchanged("がぎぐ ガギグ ぱ"));  // voiced kana keep their mark
  CHECK(unchanged("\u304B\u3099"));      // kana in NFD too
  CHECK(unchanged("ｶﾞｷﾞ"));              // halfwidth kana
  CHECK(unchanged("한국어 \u1100\u1161"));
  CHECK(unchanged("\uF900"));  // CJK compatibility ideograph
  CHECK(unchanged("\U0001F600 \U0001F44D\U0001F3FD \u2764\uFE0F \U0001F468\u200D\U0001F469"));
  CHECK(unchanged("1\uFE0F\u20E3"));  // keycap: an enclosing mark, not a diacritic
  CHECK(unchanged("\u2260 \u219A \u2122 \u2460 \u00BD"));  // ≠ ↚ ™ ① ½: symbols stay
}

TEST_CASE("fold: compatibility forms of letters and digits", "[fold]") {
  CHECK(fold_word("ＡＢＣ１２３ｘｙｚ") == "abc123xyz");
  CHECK(fold_word("！＃＿～") == "!#_~");
  CHECK(fold_word("ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ") == "ff fi fl ffi ffl st st");
  CHECK(fold_word("ĳ Ĳ ǆ ǅ") == "ij ij dz dz");
  CHECK(fold_word("x² H₂O ⁿ ª") == "x2 h2o n a");
  CHECK(fold_word("\U0001D400\U0001D41B\U0001D7CF") == "ab1");  // mathematical bold A, b, 1
  CHECK(fold_word("\u211D \u212A \u212B \u2126 \u00B5") == "r k a \u03C9 \u03BC");  // ℝ, Kelvin, Angstrom, ohm, micro
}

TEST_CASE("fold: NFD input folds like NFC input; lone marks fold to nothing", "[fold]") {
  CHECK(fold_word("e\u0301") == fold_word("é"));
  CHECK(fold_word("Re\u0301sume\u0301") == fold_word("Résumé"));
  CHECK(fold_word("\u0415\u0308\u043B\u043A\u0430") == fold_word("Ёлка"));
  CHECK(fold_word("Vie\u0302\u0323t") == "viet");
  CHECK(fold_word("\u0301") == "");
  CHECK(folded_cp(0x0301).empty());
  CHECK(folded_cp(0x1DC0).empty());
  CHECK(folded_cp(0xFE20).empty());
  CHECK(folded_cp(0x05B8).empty());
  CHECK(folded_cp(0x064E).empty());
  CHECK_FALSE(osearch::folds_to_itself(0x0301));
  CHECK(osearch::folds_to_itself(0x0E48));  // Thai tone mark: outside the dropped set
  CHECK(osearch::folds_to_itself(0x093F));  // Devanagari vowel sign
}

TEST_CASE("fold: bytes that are not UTF-8 pass through", "[fold]") {
  CHECK(fold_word("\xFF") == "\xFF");
  CHECK(fold_word("A\x80" "B") == "a\x80" "b");
  CHECK(fold_word("CAF\xC3") == "caf\xC3");                       // truncated sequence
  CHECK(fold_word("\xC3\xC9") == "\xC3\xC9");                     // lead byte without continuation
  CHECK(fold_word("\xED\xA0\x80X") == "\xED\xA0\x80x");           // encoded surrogate
  CHECK(fold_word("\xC0\xAF\xC3\x89") == "\xC0\xAF" "e");         // overlong, then É
  CHECK(osearch::is_folded("\xFF\xFE"));
  CHECK(folded_cp(0xD800) == "\xEF\xBF\xBD");
  CHECK(folded_cp(0x110000) == "\xEF\xBF\xBD");
}

TEST_CASE("fold: idempotent and consistent over every code point", "[fold]") {
  CHECK_FALSE(osearch::unicode_fold_version().empty());
  size_t folding = 0, not_idempotent = 0, inconsistent = 0;
  for (uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    const std::string original = utf8_of(cp);
    const std::string once = folded_cp(cp);
    if (once != original) ++folding;
    if (fold_word(once) != once || !osearch::is_folded(once)) {
      ++not_idempotent;
      UNSCOPED_INFO("U+" << std::hex << cp << " is not idempotent");
    }
    if (osearch::folds_to_itself(cp) != (once == original) || fold_word(original) != once ||
        osearch::is_folded(original) != (once == original)) {
      ++inconsistent;
      UNSCOPED_INFO("U+" << std::hex << cp << " folds inconsistently");
    }
    if (not_idempotent + inconsistent > 10) break;
  }
  CHECK(not_idempotent == 0);
  CHECK(inconsistent == 0);
  CHECK(folding > 4000);  // the generated table is in use: ~4500 code points fold (Unicode 14)
}
