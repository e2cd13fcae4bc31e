// The literal prefilter of `content` (engine/query/literal_filter): the scan skips every byte before
// the literal's next occurrence, so a place it misses is a message silently lost. Its vector loops
// (64, 32 and 16 bytes a step, then a byte at a time) must find exactly what a plain search finds,
// wherever the occurrence falls against a vector's edge; and a pattern gets a literal only when
// every match holds it.
#include <algorithm>
#include <filesystem>
#include <random>

#include <catch2/catch.hpp>

#include "engine/query/content_scan.h"
#include "engine/query/literal_filter.h"
#include "engine/query/pcre_matcher.h"
#include "engine/store/text_log.h"
#include "tests/test_util.h"

using namespace osearch;
using osearch_test::TempDir;

namespace {

// The first place `literal` occurs in `hay`, ASCII letters compared without case when `caseless`.
size_t plain_find(std::string_view hay, std::string_view literal, bool caseless) {
  const auto fold = [&](char c) {
    return caseless && c >= 'A' && c <= 'Z' ? static_cast<char>(c | 0x20) : c;
  };
  for (size_t i = 0; i + literal.size() <= hay.size(); ++i) {
    size_t k = 0;
    while (k < literal.size() && fold(hay[i + k]) == fold(literal[k])) ++k;
    if (k == literal.size()) return i;
  }
  return std::string_view::npos;
}

}  // namespace

TEST_CASE("literal filter: finds what a plain search finds, at every place against a vector's edge", "[content][literal]") {
  std::mt19937 rng(20261205);
  // Bytes the literals are made of, and text with their neighbours: the other case, bytes that
  // differ from a letter only in bit 0x20 ('@' and '`', '[' and '{'), and UTF-8 bytes.
  const std::string alphabet = "abcdeABCDE@`[{01 \n";
  const std::string noise = "abcdeABCDE@`[{01 \n\xc3\xa9\xe2\x80\x94xyzXYZ";
  std::uniform_int_distribution<size_t> pick_alpha(0, alphabet.size() - 1), pick_noise(0, noise.size() - 1);
  // Every vector loop this CPU can run, not only the widest `find` picks, and none at all.
  std::vector<LiteralFilter::Vectors> vectors{LiteralFilter::Vectors::None};
  switch (LiteralFilter::best_vectors()) {
    case LiteralFilter::Vectors::Avx512: vectors.push_back(LiteralFilter::Vectors::Avx512); [[fallthrough]];
    case LiteralFilter::Vectors::Avx2: vectors.push_back(LiteralFilter::Vectors::Avx2); [[fallthrough]];
    case LiteralFilter::Vectors::Sse2: vectors.push_back(LiteralFilter::Vectors::Sse2); break;
    case LiteralFilter::Vectors::None: break;
  }
  for (int round = 0; round < 3000; ++round) {
    const bool caseless = round % 2 == 1;
    const size_t len = 3 + rng() % (round % 7 == 0 ? 70 : 8);
    std::string literal;
    for (size_t i = 0; i < len; ++i) literal.push_back(alphabet[pick_alpha(rng)]);
    const std::optional<LiteralFilter> f = LiteralFilter::make(literal, caseless);
    REQUIRE(f);
    std::string hay(rng() % 300, ' ');
    for (char& c : hay) c = noise[pick_noise(rng)];
    size_t view_end = hay.size();  // what the filter is given: the rest may complete an occurrence
    // Plant it (case flipped where caseless), now and then across the end or nowhere at all.
    if (round % 5 != 0 && hay.size() >= len) {
      std::string planted = literal;
      if (caseless)
        for (char& c : planted)
          if (std::isalpha(static_cast<unsigned char>(c)) && rng() % 2) c = static_cast<char>(c ^ 0x20);
      const size_t at = rng() % (hay.size() - len + 1);
      hay.replace(at, len, planted);
      if (round % 11 == 0) view_end = at + len - 1;  // the view ends a byte short of it
    }
    INFO("literal '" << literal << "' caseless " << caseless << " view " << view_end << " of " << hay.size());
    for (size_t from : {size_t{0}, size_t{1}, size_t{31}, size_t{63}}) {
      if (from > view_end) continue;
      const std::string_view h = std::string_view(hay).substr(from, view_end - from);
      const size_t expected = plain_find(h, literal, caseless);
      REQUIRE(f->find(h) == expected);
      for (const LiteralFilter::Vectors v : vectors) REQUIRE(f->find(h, v) == expected);
    }
  }
}

TEST_CASE("literal filter: refuses what it cannot stand for", "[content][literal]") {
  CHECK_FALSE(LiteralFilter::make("ab", false));                // too short to be worth it
  CHECK_FALSE(LiteralFilter::make(std::string(256, 'a'), false));
  CHECK(LiteralFilter::make("abc", false));
  // Caseless: letters whose case Unicode folds beyond ASCII (K and the Kelvin sign, s and the long
  // s, I and the dotless i) and any non-ASCII byte are for Hyperscan alone.
  CHECK(LiteralFilter::make("error", true));
  CHECK_FALSE(LiteralFilter::make("task", true));
  CHECK_FALSE(LiteralFilter::make("OKAY", true));
  CHECK_FALSE(LiteralFilter::make("print", true));
  CHECK_FALSE(LiteralFilter::make("caf\xc3\xa9", true));
  CHECK(LiteralFilter::make("caf\xc3\xa9", false));
  // Case-sensitive: the exact bytes, whatever they are.
  const std::optional<LiteralFilter> f = LiteralFilter::make("Task", false);
  REQUIRE(f);
  CHECK(f->find("a task, a TASK, a Task") == 18);
  const std::optional<LiteralFilter> g = LiteralFilter::make("tAsK", true);
  CHECK_FALSE(g);
  const std::optional<LiteralFilter> h = LiteralFilter::make("Error:", true);
  REQUIRE(h);
  CHECK(h->find("no error here, an ERROR: there") == 18);
  CHECK(h->find("ERRO") == std::string_view::npos);
}

TEST_CASE("literal filter: the literal every match of a pattern holds", "[content][literal]") {
  using Ls = std::optional<std::vector<std::string>>;
  // -F: the pattern itself, metacharacters and all.
  CHECK(required_literals("a.b|c", true) == Ls({"a.b|c"}));
  // A literal start, cut where a quantifier may drop or repeat its last character.
  CHECK(required_literals("stateStore\\w*", false) == Ls({"stateStore"}));
  CHECK(required_literals("error", false) == Ls({"error"}));
  CHECK(required_literals("errors?", false) == Ls({"error"}));
  CHECK(required_literals("errors*", false) == Ls({"error"}));
  CHECK(required_literals("errors{0,2}", false) == Ls({"error"}));
  CHECK(required_literals("errors+", false) == Ls({"errors"}));
  CHECK(required_literals("fn\\s+\\w+", false) == Ls({"fn"}));
  CHECK(required_literals("a\\.b\\(c", false) == Ls({"a.b(c"}));
  CHECK(required_literals("caf\xc3\xa9s?", false) == Ls({"caf\xc3\xa9"}));
  CHECK(required_literals("caf\xc3\xa9?", false) == Ls({"caf"}));
  CHECK(required_literals("foo(bar|baz)", false) == Ls({"foo"}));
  CHECK(required_literals("foo[|]", false) == Ls({"foo"}));
  // A group first gives its alternatives' literals; a class may hold '|' and an escaped ']'.
  CHECK(required_literals("(error)", false) == Ls({"error"}));
  CHECK(required_literals("a[\\]|]|b", false) == Ls({"a", "b"}));  // the class ends at the second ']'
  // A positive lookaround's text is in the message too; a negative one's is not, nor a quantified one's.
  CHECK(required_literals("(?<=import |from )\\w+", false) == Ls({"import ", "from "}));
  CHECK(required_literals("(?=ab)\\w", false) == Ls({"ab"}));
  CHECK(required_literals("\\b(?<=(?:TODO|FIXME): )\\w", false) == Ls({"TODO", "FIXME"}));
  CHECK(required_literals("(?<!x)ab", false) == std::nullopt);
  CHECK(required_literals("(?!x)ab", false) == std::nullopt);
  CHECK(required_literals("(?<=a)?b", false) == Ls({"b"}));
  // A POSIX name inside a class does not end it: its '|' is no alternative.
  CHECK(required_literals("x[[:alpha:]|]y", false) == Ls({"x"}));
  CHECK(required_literals("x[[:alpha:]\\Q|\\E]y", false) == Ls({"x"}));
  // Zero-width assertions first do not hide what follows.
  CHECK(required_literals("^import ", false) == Ls({"import "}));
  CHECK(required_literals("\\bmain\\b", false) == Ls({"main"}));
  CHECK(required_literals("\\Aab", false) == Ls({"ab"}));
  // The longest literal run anywhere in the pattern, cut at classes, groups, anchors and class-like
  // escapes, and where a quantifier may drop or repeat a character.
  CHECK(required_literals("[a-z]+error", false) == Ls({"error"}));
  CHECK(required_literals("\\w+Error\\b", false) == Ls({"Error"}));
  CHECK(required_literals("e?rror", false) == Ls({"rror"}));
  CHECK(required_literals("ab+cdef", false) == Ls({"cdef"}));
  CHECK(required_literals("abc+d", false) == Ls({"abc"}));
  CHECK(required_literals("x\\d{2,}yz\\s*(a|b)wxyz", false) == Ls({"wxyz"}));
  CHECK(required_literals("ab.cd\\Rcdef$", false) == Ls({"cdef"}));
  CHECK(required_literals("func (\\w+)\\(\\1\\)", false) == Ls({"func "}));
  CHECK(required_literals("import\\s+\\K\\w+", false) == Ls({"import"}));
  // Reading stops at what it does not follow; the runs before stand.
  CHECK(required_literals("ab\\x41BCDE", false) == Ls({"ab"}));
  CHECK(required_literals("ab\\p{L}cdef", false) == Ls({"ab"}));
  CHECK(required_literals("abc{,2}def", false) == Ls({"ab"}));  // (PCRE2 10.42 reads "{,2}" as text)
  CHECK(required_literals("ab{x}defgh", false) == Ls({"a"}));
  // A backtracking verb anywhere: none ((*ACCEPT) may end a match before the text after it).
  CHECK(required_literals("(a(*ACCEPT))bcdef", false) == std::nullopt);
  CHECK(required_literals("(*UTF)abc", false) == std::nullopt);
  // No literal: a class first, escapes that are classes,
  // inline options (extended mode's comments could hide a '|'), \Q…\E and \cX.
  CHECK(required_literals("foo(?#(|)|x", false) == std::nullopt);
  CHECK(required_literals("foo(?x)#(\n|x", false) == std::nullopt);
  CHECK(required_literals("(?i)error", false) == std::nullopt);
  CHECK(required_literals("foo\\Q(\\E|x", false) == std::nullopt);
  CHECK(required_literals("foo\\c(|x", false) == std::nullopt);
  CHECK(required_literals("[a-z]+\\w", false) == std::nullopt);
  CHECK(required_literals("\\x41BC", false) == std::nullopt);
  CHECK(required_literals(".*", false) == std::nullopt);
  CHECK(required_literals("", false) == std::nullopt);
}

TEST_CASE("literal filter: the scan finds an occurrence across the edge of a block it reads", "[content][literal]") {
  // The scanning thread reads the log 1 MB at a time and searches each block for the literal; an
  // occurrence cut by a block's end must be found in the next block, or its message is lost. The
  // first message puts it at every place around the first block's end; a later one, megabytes on,
  // has it again (the search goes on past a find).
  const std::string needle = "needle-abcdefghjlmnop";
  const uint64_t block = 1u << 20;
  for (const uint64_t at : {block - needle.size() - 1, block - needle.size(), block - needle.size() + 1, block - 10,
                            block - 1, block, block + 1}) {
    TempDir tmp{"literal-edge"};
    const std::string dir = tmp / "idx";
    std::filesystem::create_directories(dir);
    std::vector<uint64_t> holding;  // the entries the needle is in
    uint64_t bytes = 0, entries = 0;
    {
      TextLogWriter w;
      w.open(dir, 0, 0, "text");
      // An entry's text follows its header: key length (4), key, flags (1), text length (4).
      const std::string key = "k0";
      std::string text(at - (9 + key.size()), 'o');
      text.back() = ' ';  // a word boundary before it, for \b
      holding.push_back(w.append(key, 0, text + needle + " tail"));
      w.append("k1", 0, "no match here");
      w.append("k2", 0, std::string(2500000, 'o'));
      holding.push_back(w.append("k3", 0, "then " + needle));
      w.append("k4", 0, "the end");
      w.sync();
      bytes = w.bytes();
      entries = w.entries();
    }
    TextLogReader log;
    log.open(dir, bytes, entries, "text");
    TextEntry first;
    REQUIRE(log.entry_at(0, first));
    REQUIRE(first.text_offset + first.text.find(needle) == at);
    for (const auto& [pattern, caseless] : std::vector<std::pair<std::string, bool>>{
             {needle, false}, {"NEEDLE-abcdefghjlmnop", true}, {"needle-abc\\w+", false}, {"\\bneedle-abcdefghjlmnop", false},
             // Sets (engine/query/literal_filter.h): the other literal occurs nowhere, or everywhere.
             {"qqqq-absent|" + needle, false}, {needle + "|qqqq-absent", false}, {"QQQQ-ABZENT|NEEDLE-abcdefghjlmnop", true},
             {"\\bqqqq|needle-abc\\w+", false}}) {
      for (const uint64_t timed_from : {uint64_t{0}, UINT64_MAX})  // a set timed against Hyperscan alone, or not
      for (const auto read : {ContentPatterns::Read::Copy, ContentPatterns::Read::Map}) {  // blocks copied, or viewed
        // (Views of the map are cut where the copies are: two places, across the edge and at it.)
        if (read == ContentPatterns::Read::Map && at != block - needle.size() + 1 && at != block) continue;
        INFO("needle at " << at << ", pattern " << pattern << ", sets timed from " << timed_from << ", in the map "
                          << (read == ContentPatterns::Read::Map));
        ContentOptions o;
        o.patterns = {pattern};
        o.ignore_case = caseless;
        ContentPatterns p = ContentPatterns::compile(o);
        REQUIRE(p.prefilter);
        p.time_literal_sets_from = timed_from;
        p.read = read;
        const Candidates c = scan_log(log, p, std::chrono::steady_clock::now() + std::chrono::minutes(1));
        std::vector<uint64_t> found;
        for (const auto& chunk : c.chunks)
          for (const Candidate& cand : chunk) found.push_back(cand.start);
        CHECK(found == holding);
      }
    }
  }
}

TEST_CASE("literal filter: every match of a random pattern holds the literal it is given", "[content][literal]") {
  // Patterns put together from pieces (literals, escapes, classes, groups with alternatives,
  // quantifiers, anchors, inline options, a top-level '|'), each against random texts: wherever
  // PCRE2 finds a match, the text holds one of the pattern's literals; caseless too, when the
  // filter takes the literal without case.
  std::mt19937 rng(77);
  const std::vector<std::string> pieces = {"ab", "c", "ba", "\\.", "\\|", "[a-c]", "[|]", "(ab|c)", "(?:b|)", "*",
                                           "+", "?", "{0,2}", "{2}", "|", "^", "\\b", "(?i)", ".", "\\w", "a", "b",
                                           // runs after classes, groups and class-like escapes
                                           "\\w+", "\\s", "\\K", "(?<=a)", "{1,}", "++", "{x}", "abc"};
  const std::string alphabet = "abcABC. |";
  size_t with_literal = 0;
  for (int round = 0; round < 4000; ++round) {
    std::string pattern;
    for (size_t n = 1 + rng() % 6; n > 0; --n) pattern += pieces[rng() % pieces.size()];
    const bool caseless = round % 3 == 0;
    std::string error;
    const std::optional<PcreMatcher> pcre = PcreMatcher::compile({pattern}, {pattern}, caseless, error);
    if (!pcre) continue;
    const std::optional<std::vector<std::string>> literals = required_literals(pattern, false);
    if (!literals) continue;
    std::vector<std::optional<LiteralFilter>> filters;
    std::string named;
    for (const std::string& literal : *literals) {
      filters.push_back(LiteralFilter::make(literal, caseless));
      named += " '" + literal + "'";
    }
    ++with_literal;
    for (int t = 0; t < 60; ++t) {
      std::string text;
      for (size_t n = rng() % 12; n > 0; --n) text.push_back(alphabet[rng() % alphabet.size()]);
      if (!pcre->first_match(text)) continue;
      INFO("pattern " << pattern << (caseless ? " (caseless)" : "") << " literals" << named << " text '" << text << "'");
      CHECK(std::any_of(literals->begin(), literals->end(), [&](const std::string& literal) {
        return plain_find(text, literal, caseless) != std::string_view::npos;
      }));
      // A literal's filter finds it wherever the plain search does.
      for (size_t i = 0; i < literals->size(); ++i)
        if (filters[i]) CHECK((filters[i]->find(text) != std::string_view::npos) ==
                              (plain_find(text, (*literals)[i], caseless) != std::string_view::npos));
    }
  }
  CHECK(with_literal > 500);
}
