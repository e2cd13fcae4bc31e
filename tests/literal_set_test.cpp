// Sets of literals for `content`'s prefilter (engine/query/literal_filter.h): a pattern with
// alternatives, or several -e patterns, skips to the next occurrence of any of their literals. A
// literal the set lacks, or a place its search skips, is a message silently lost; so each set is
// checked against what PCRE2 matches, and the scan with the set against the scan without it.
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

TEST_CASE("literal set: the literals one of which every match holds", "[content][literal]") {
  using Ls = std::optional<std::vector<std::string>>;
  CHECK(required_literals("stateStore\\w*", false) == Ls({"stateStore"}));
  CHECK(required_literals("foo|bar", false) == Ls({"foo", "bar"}));
  CHECK(required_literals("^import |\\bfrom\\b", false) == Ls({"import ", "from"}));
  CHECK(required_literals("errors?|warn(ing)?", false) == Ls({"error", "warn"}));
  CHECK(required_literals("foo(bar|baz)|qux", false) == Ls({"foo", "qux"}));
  CHECK(required_literals("a[|]b|cde", false) == Ls({"a", "cde"}));
  CHECK(required_literals("a\\|b|cde", false) == Ls({"a|b", "cde"}));
  CHECK(required_literals("a|b", true) == Ls({"a|b"}));  // -F: the pattern itself
  // An alternative's literal need not lead it; one without a literal, an empty one, or what this
  // reading does not follow: none.
  CHECK(required_literals("foo|\\w+bar", false) == Ls({"foo", "bar"}));
  CHECK(required_literals("foo|\\w+", false) == std::nullopt);
  CHECK(required_literals("foo|", false) == std::nullopt);
  CHECK(required_literals("|foo", false) == std::nullopt);
  // A group an alternative starts with: its own alternatives' literals, unless it may be absent or
  // a later literal is longer than one of them.
  CHECK(required_literals("(TODO|FIXME):", false) == Ls({"TODO", "FIXME"}));
  CHECK(required_literals("\\b(?:error|warn)ing", false) == Ls({"error", "warn"}));
  CHECK(required_literals("(?:x|y)z|abc", false) == Ls({"x", "y", "abc"}));
  CHECK(required_literals("(foo|bar)+x", false) == Ls({"foo", "bar"}));
  CHECK(required_literals("((ab|cd)e|fgh)", false) == Ls({"ab", "cd", "fgh"}));
  CHECK(required_literals("(foo)", false) == Ls({"foo"}));
  CHECK(required_literals("(foo|bar)?baz", false) == Ls({"baz"}));
  CHECK(required_literals("(a|b)\\w+Exception", false) == Ls({"Exception"}));
  CHECK(required_literals("(foo|bar)*", false) == std::nullopt);
  CHECK(required_literals("(foo|bar){0,2}x", false) == Ls({"x"}));
  CHECK(required_literals("(foo|)x", false) == Ls({"x"}));
  CHECK(required_literals("(foo|)", false) == std::nullopt);
  CHECK(required_literals("(?=foo)bar", false) == Ls({"foo"}));  // (its message holds foo: never, here)
  CHECK(required_literals("(?<n>foo)", false) == std::nullopt);
  CHECK(required_literals("(foo", false) == std::nullopt);
  CHECK(required_literals("([)]|x)y", false) == Ls({"y"}));
  CHECK(required_literals("(a\\)b|cde)", false) == Ls({"a)b", "cde"}));
  CHECK(required_literals("(?i)foo|bar", false) == std::nullopt);
  CHECK(required_literals("foo|b(?x) #|\nar", false) == std::nullopt);
  CHECK(required_literals("foo|\\Qa|b\\E", false) == std::nullopt);
}

TEST_CASE("literal set: made of the shortest literals, within its limits", "[content][literal]") {
  // A literal holding another is dropped (every occurrence of it holds the other).
  const std::optional<LiteralSet> a = LiteralSet::make({"error|errors|xerror"}, false, false);
  REQUIRE(a);
  CHECK(a->size() == 1);
  CHECK(a->find("an errors list") == 3);
  const std::optional<LiteralSet> b = LiteralSet::make({"Error|ERR"}, false, true);
  REQUIRE(b);
  CHECK(b->size() == 1);
  CHECK(b->find("no Err here") == 3);
  // Without case only where the filter can: "Error" holds "ERR" with case, not without.
  const std::optional<LiteralSet> c = LiteralSet::make({"Error|ERR"}, false, false);
  REQUIRE(c);
  CHECK(c->size() == 2);
  CHECK(c->find("an Err, an Error, an ERR") == 11);
  // Several patterns.
  const std::optional<LiteralSet> d = LiteralSet::make({"panic", "fatal\\w*"}, false, false);
  REQUIRE(d);
  CHECK(d->size() == 2);
  CHECK(d->find("fatal: then panic") == 0);
  CHECK(d->find("neither") == std::string_view::npos);
  // None: a literal too short, too many of them, a caseless one with k/s/i, one without a literal.
  CHECK_FALSE(LiteralSet::make({"ab|cde"}, false, false));
  CHECK_FALSE(LiteralSet::make({"one|two|three|four|five"}, false, false));
  CHECK(LiteralSet::make({"one|two|three|four"}, false, false));
  CHECK_FALSE(LiteralSet::make({"panic|fatals"}, false, true));
  CHECK_FALSE(LiteralSet::make({"panic", "\\w+"}, false, false));
}

TEST_CASE("literal set: every match of a random alternation holds one of its literals", "[content][literal]") {
  std::mt19937 rng(1205);
  const std::vector<std::string> pieces = {"abc", "cab", "bca", "a", "\\.", "\\|", "[a-c]", "(ab|c)", "(?:b|)", "*",
                                           "+",   "?",   "{0,2}", "|", "|",  "^",  "\\b",    "(?i)",   ".",      "b",
                                           // groups an alternative may start with
                                           "(abc|cab)", "(?:bca|abc)", "(abc|)", "(abc)", "((abc|bca)|cab)",
                                           // literals after classes, groups and class-like escapes
                                           "\\w+", "[a-c]+", "{1,}", "\\K", "(?=ab)", "\\s*"};
  const std::string alphabet = "abcABC. |";
  size_t with_set = 0, with_group = 0;
  for (int round = 0; round < 4000; ++round) {
    std::string pattern;
    for (size_t n = 1 + rng() % 7; n > 0; --n) pattern += pieces[rng() % pieces.size()];
    const bool caseless = round % 3 == 0;
    std::string error;
    const std::optional<PcreMatcher> pcre = PcreMatcher::compile({pattern}, {pattern}, caseless, error);
    if (!pcre) continue;
    const std::optional<LiteralSet> set = LiteralSet::make({pattern}, false, caseless);
    if (!set) continue;
    ++with_set;
    with_group += pattern.find('(') != std::string::npos;
    for (int t = 0; t < 60; ++t) {
      std::string text;
      for (size_t n = rng() % 14; n > 0; --n) text.push_back(alphabet[rng() % alphabet.size()]);
      if (!pcre->first_match(text)) continue;
      INFO("pattern " << pattern << (caseless ? " (caseless)" : "") << " text '" << text << "'");
      CHECK(set->find(text) != std::string_view::npos);
    }
  }
  CHECK(with_set > 300);
  CHECK(with_group > 100);
}

namespace {

std::vector<uint64_t> candidate_starts(const TextLogReader& log, const ContentPatterns& p) {
  const Candidates c = scan_log(log, p, std::chrono::steady_clock::now() + std::chrono::minutes(5));
  REQUIRE_FALSE(c.cut);
  std::vector<uint64_t> starts;
  for (const auto& chunk : c.chunks)
    for (const Candidate& cand : chunk) starts.push_back(cand.start);
  return starts;
}

}  // namespace

TEST_CASE("literal set: the scan with a set finds what Hyperscan alone finds", "[content][literal]") {
  // Entries of words as common as `common`, as rare as `rare`, and a few that straddle the 1 MB
  // blocks a thread reads at a time; over 8 MB, so two threads scan. Each set is scanned without
  // the filter, with it, and with each thread timing both ways first (what a big log gets).
  TempDir tmp{"literal-set"};
  const std::string dir = tmp / "idx";
  std::filesystem::create_directories(dir);
  std::mt19937 rng(20261205);
  const std::vector<std::string> common = {"the", "error", "let", "const", "a", "to", "of", "and", "\n", "o"};
  const std::vector<std::string> rare = {"panic", "fatal", "Traceback", "kubectl", "FIXME", "useEffect", "Zephyr"};
  uint64_t bytes = 0, entries = 0;
  {
    TextLogWriter w;
    w.open(dir, 0, 0, "text");
    for (size_t n = 0; bytes < (9u << 20); ++n) {
      std::string text;
      const size_t words = n % 97 == 0 ? 40000 : 5 + rng() % 400;  // now and then one past a block
      for (size_t k = 0; k < words; ++k) {
        text += rng() % 500 == 0 ? rare[rng() % rare.size()] : common[rng() % common.size()];
        text += rng() % 7 == 0 ? "." : " ";
      }
      w.append("k" + std::to_string(n), 0, text);
      bytes = w.bytes();
    }
    w.sync();
    bytes = w.bytes();
    entries = w.entries();
  }
  TextLogReader log;
  log.open(dir, bytes, entries, "text");
  struct Case {
    std::vector<std::string> patterns;
    bool caseless = false, word = false;
  };
  for (const Case& k : std::vector<Case>{{{"panic|fatal"}},
                                         {{"Traceback|kubectl|FIXME"}},
                                         {{"panic"}, false, false},
                                         {{"useEffect", "fatal\\w*"}},
                                         {{"FATAL|zEPHYR"}, true},
                                         {{"error|zzzq"}},
                                         {{"const|let|the"}},
                                         {{"^panic|fatal\\.$"}},
                                         {{"\\bpanic|kubectl\\b"}},
                                         {{"panic|FIXME"}, false, true}}) {
    std::string all;
    for (const auto& s : k.patterns) all += s + " ";
    INFO("patterns " << all << (k.caseless ? "-i " : "") << (k.word ? "-w" : ""));
    ContentOptions o;
    o.patterns = k.patterns;
    o.ignore_case = k.caseless;
    o.word = k.word;
    ContentPatterns p = ContentPatterns::compile(o);
    REQUIRE(p.prefilter);
    p.read = ContentPatterns::Read::Copy;
    p.time_literal_sets_from = UINT64_MAX;  // the filter, always
    const std::vector<uint64_t> filtered = candidate_starts(log, p);
    p.time_literal_sets_from = 0;  // timed against Hyperscan alone, as on a big log
    const std::vector<uint64_t> timed = candidate_starts(log, p);
    p.read = ContentPatterns::Read::Map;  // the log read in the map instead of copied
    const std::vector<uint64_t> timed_in_map = candidate_starts(log, p);
    p.time_literal_sets_from = UINT64_MAX;
    const std::vector<uint64_t> filtered_in_map = candidate_starts(log, p);
    p.prefilter.reset();  // Hyperscan alone
    const std::vector<uint64_t> alone_in_map = candidate_starts(log, p);
    p.read = ContentPatterns::Read::Copy;
    const std::vector<uint64_t> alone = candidate_starts(log, p);
    CHECK(!alone.empty());
    CHECK(filtered == alone);
    CHECK(timed == alone);
    CHECK(filtered_in_map == alone);
    CHECK(timed_in_map == alone);
    CHECK(alone_in_map == alone);
  }
}
