// Random patterns, put together from the pieces of PCRE2 syntax the content scan reads for itself
// (classes with POSIX names, escapes, \Q…\E, comments, anchors, lookaround, alternation), against
// the messages of a small index: `content` must find exactly the messages PCRE2 finds in each
// message alone (PCRE2 decides every message of a pattern Hyperscan refuses), or say out loud that a
// PCRE2 limit stopped it. Every shortcut the scan takes on a pattern's text
// (the literal prefilter, whether a match may look outside its message) is checked here by the
// answers it gives, not by its own reading.
#include <cctype>
#include <random>

#include "tests/synthetic_index.h"

#include "engine/query/pcre_matcher.h"
#include "engine/query/query.h"

using namespace osearch;
using namespace osearch_test;

namespace {

const char* const kPieces[] = {
    "ab", "bx", "c", "x9", ":", "]", "a", "b",                                 // literals
    "[a-c]", "[[:alpha:]]", "[[:digit:]x]", "[a[:b]", "[]a]", "[^]b]", "[\\]c]",  // classes
    "[\\Qa]\\E]", "[[:^space:]]", "[.]",
    "\\.", "\\b", "\\B", "\\w", "\\d", "\\s", "\\Qa.b\\E", "\\Q|\\E", "\\x41",     // escapes
    "(ab|c)", "(?:b|)", "(", ")", "(?i)", "(?#[)", "(?#|)", "(?=a)", "(?<=b)",     // groups
    "(?!x)", "^", "$", "\\A", "\\z", "\\Z",                                         // anchors
    "*", "+", "?", "{0,2}", "{2}", "|", ".",                                       // the rest
    // What Hyperscan refuses even as a prefilter, so that PCRE2 decides every message alone.
    "\\K", "\\R", "\\N", "\\G", "(?1)", "(?|a|bx)",
};

std::string random_pattern(std::mt19937& rng) {
  std::string p;
  for (size_t n = 1 + rng() % 6; n > 0; --n) p += kPieces[rng() % std::size(kPieces)];
  return p;
}

// Short messages over the pieces' own characters, some over several lines.
std::string random_text(std::mt19937& rng) {
  static const char* const kBits[] = {"ab", "bx", "c", "x9", ":", "]", "[", "a.b", "|", " ", "\n", "A", "B9", "é", "xb"};
  std::string t;
  for (size_t n = rng() % 9; n > 0; --n) t += kBits[rng() % std::size(kBits)];
  return t;
}

// What PCRE2 runs for `pattern` as `content` reads it: under -F every other character escaped,
// under -w wrapped in \b(?:…)\b.
std::string reference_expression(const std::string& pattern, bool word, bool fixed) {
  std::string expression;
  for (const char c : pattern) {
    if (fixed && !std::isalnum(static_cast<unsigned char>(c))) expression.push_back('\\');
    expression.push_back(c);
  }
  return word ? "\\b(?:" + expression + ")\\b" : expression;
}

}  // namespace

TEST_CASE("content: random patterns find exactly the messages PCRE2 finds in each alone", "[content][hardening]") {
  std::mt19937 rng(20261206);
  std::vector<std::vector<std::string>> sessions(4);
  std::vector<std::pair<std::string, std::string>> texts;  // (uuid, text)
  for (size_t s = 0; s < sessions.size(); ++s)
    for (size_t m = 0; m < 40; ++m) {
      sessions[s].push_back(random_text(rng));
      texts.emplace_back("u-" + std::to_string(s) + "-" + std::to_string(m), sessions[s].back());
    }
  SyntheticIndex ix(sessions);
  IndexReader reader(ix.idx);
  size_t compared = 0, refused = 0;
  for (int round = 0; round < 600; ++round) {
    const bool caseless = round % 4 == 0;
    // Every fifth pattern under -w, every fifth under -F; some other rounds give a second pattern
    // (-e A -e B), and a message matching either is found.
    const bool word = round % 5 == 1, fixed = round % 5 == 2;
    std::vector<std::string> patterns = {random_pattern(rng)};
    if (round % 7 == 3 && !word && !fixed) patterns.push_back(random_pattern(rng));
    std::vector<std::string> expressions;
    for (const std::string& p : patterns) expressions.push_back(reference_expression(p, word, fixed));
    std::string error;
    const std::optional<PcreMatcher> pcre = PcreMatcher::compile(expressions, patterns, caseless, error);
    if (!pcre) continue;
    std::set<std::string> expected;
    for (const auto& [uuid, text] : texts)
      if (pcre->first_match(text)) expected.insert(uuid);
    ContentOptions o;
    o.patterns = patterns;
    o.ignore_case = caseless;
    o.word = word;
    o.fixed = fixed;
    o.by_message = true;
    QueryResult res;
    try {
      res = run_content(reader, limit_filters(100000), o);
    } catch (const BadInput& e) {
      // A pattern PCRE2 compiles runs (on PCRE2 alone where Hyperscan refuses it); only a limit
      // PCRE2 hits while matching may stop it, out loud.
      INFO("patterns '" << patterns.front() << "': " << e.kind << ": " << e.what());
      CHECK(e.kind == "regex-too-costly");
      ++refused;
      continue;
    }
    REQUIRE_FALSE(res.truncated);
    std::set<std::string> got;
    for (const Hit& h : res.hits) got.insert(h.message ? h.message->uuid : "(no message)");
    INFO("patterns '" << patterns.front() << (patterns.size() > 1 ? "' '" + patterns.back() : "") << "'"
                       << (caseless ? " -i" : "") << (word ? " -w" : "") << (fixed ? " -F" : ""));
    CHECK(got == expected);
    ++compared;
  }
  CHECK(compared > 300);
  CHECK(refused < 10);
}
