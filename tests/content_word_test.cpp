// `content -w` over ASCII literals: the bytes around each occurrence decide a whole word without
// PCRE2 where they are ASCII (engine/query/content_scan.h, whole_word_literal). Every decision is
// held against PCRE2's Unicode \b on generated texts, and the results end to end.
#include <random>

#include "tests/cli_fixture.h"
#include "tests/synthetic_index.h"

#include "engine/query/content_scan.h"

using namespace osearch;

namespace {

ContentOptions word_options(std::vector<std::string> patterns, bool ignore_case, bool fixed) {
  ContentOptions o;
  o.patterns = std::move(patterns);
  o.ignore_case = ignore_case;
  o.fixed = fixed;
  o.word = true;
  return o;
}

// Pieces a text is built from: the pattern in several cases, word and non-word ASCII, letters and
// punctuation beyond ASCII (é, the Kelvin sign and long s that fold to k and s, an em dash, CJK),
// and a byte that is not UTF-8.
std::string random_text(std::mt19937& rng, const std::string& pattern) {
  std::string upper = pattern;
  for (char& c : upper)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  const std::vector<std::string> pieces = {pattern, pattern, upper, "x", "_", "7", " ", " ", "-", ".", "\n", "é", "\xE2\x84\xAA",
                                           "\xC5\xBF", "\xE2\x80\x94", "東", "\xFF", "k", "s", "ss"};
  std::uniform_int_distribution<size_t> pick(0, pieces.size() - 1), count(0, 7);
  std::string out;
  for (size_t n = count(rng); n > 0; --n) out += pieces[pick(rng)];
  return out;
}

}  // namespace

TEST_CASE("content -w: every whole-word decision from ASCII bytes is PCRE2's", "[search][content][word]") {
  std::mt19937 rng(13);
  size_t decided = 0, total = 0;
  for (const std::string& p : {std::string("error"), std::string("foo_bar"), std::string("a-b"), std::string("x"),
                               std::string("-dash"), std::string("end."), std::string("s"), std::string("k k"),
                               std::string("-"), std::string("__init__"), std::string("(x)"), std::string("a b!")})
    for (bool ignore_case : {false, true})
      for (bool fixed : {true, false}) {
        if (!fixed && p.find_first_of(".()") != std::string::npos) continue;  // regex metacharacters
        INFO("pattern " << p << " -i " << ignore_case << " -F " << fixed);
        const ContentPatterns c = ContentPatterns::compile(word_options({p}, ignore_case, fixed));
        REQUIRE(c.word_literals);
        REQUIRE(c.confirm);
        for (int i = 0; i < 400; ++i) {
          const std::string text = random_text(rng, p);
          INFO("text '" << text << "'");
          const std::optional<bool> fast = whole_word_literal(c, text, c.scratch.get());
          ++total;
          if (!fast) continue;
          ++decided;
          REQUIRE(*fast == c.confirm->first_match(text).has_value());
        }
      }
  // Most texts are decided without PCRE2 (the rest touch non-ASCII text).
  CHECK(decided * 3 > total);
}

TEST_CASE("content -w: ASCII neighbours decide, non-ASCII ones go to PCRE2", "[search][content][word]") {
  const ContentPatterns c = ContentPatterns::compile(word_options({"error"}, true, false));
  REQUIRE(c.word_literals);
  CHECK(whole_word_literal(c, "an error here", c.scratch.get()) == std::optional<bool>(true));
  CHECK(whole_word_literal(c, "Error", c.scratch.get()) == std::optional<bool>(true));
  CHECK(whole_word_literal(c, "errors and stderror", c.scratch.get()) == std::optional<bool>(false));
  CHECK(whole_word_literal(c, "errors, then (ERROR)", c.scratch.get()) == std::optional<bool>(true));
  CHECK(whole_word_literal(c, "error_code", c.scratch.get()) == std::optional<bool>(false));
  CHECK(whole_word_literal(c, "no match at all", c.scratch.get()) == std::optional<bool>(false));
  CHECK_FALSE(whole_word_literal(c, "éerror", c.scratch.get()).has_value());  // é is a letter to PCRE2's UCP \b
  CHECK_FALSE(whole_word_literal(c, "\xE2\x80\x94" "error", c.scratch.get()).has_value());

  // Patterns that are not ASCII literals keep PCRE2 alone.
  CHECK_FALSE(ContentPatterns::compile(word_options({"err.r"}, false, false)).word_literals);
  CHECK_FALSE(ContentPatterns::compile(word_options({"café"}, false, true)).word_literals);
  CHECK(ContentPatterns::compile(word_options({"err.r"}, false, true)).word_literals);  // -F: a literal
  CHECK_FALSE(ContentPatterns::compile(word_options({"error", "e+"}, false, false)).word_literals);
}

TEST_CASE("content -w: hits beside ASCII and non-ASCII text end to end", "[search][content][word]") {
  SyntheticIndex ix({{"an error here", "errors only", "stderror too", "café error", "éerror glued", "—error— dashes",
                      "error_code", "東京error"}});
  IndexReader r(ix.idx);
  ContentOptions o = word_options({"error"}, false, false);
  o.by_message = true;
  const QueryResult res = run_content(r, limit_filters(1000), o);
  std::set<std::string> got;
  for (const auto& h : res.hits) got.insert(h.snippet);
  CHECK(got == std::set<std::string>{"an error here", "café error", "—error— dashes"});
}
