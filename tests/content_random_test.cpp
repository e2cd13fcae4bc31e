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
#include "tests/test_seed.h"

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
  const uint32_t seed = osearch_test::test_seed(20261206);
  INFO("seed " << seed);
  std::mt19937 rng(seed);
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
    try {
      for (const auto& [uuid, text] : texts)
        if (pcre->first_match(text)) expected.insert(uuid);
    } catch (const BadInput&) {
      continue;  // PCRE2 itself stops at a limit (a recursion that loops): no reference to hold it to
    }
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

TEST_CASE("content: random patterns by session and by message, filtered and paged, over re-read sessions",
          "[content][hardening]") {
  // The scan's threads count what they settle per session, hand re-read sessions' entries (their
  // superseded ones are still in the log) to the caller, scan only a few sessions' ranges, and page:
  // each must agree with PCRE2 run on every current message alone.
  const uint32_t seed = osearch_test::test_seed(20261207);
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  struct Current {
    std::string uuid, sid, text;
    int day;
  };
  std::vector<Current> all;
  const auto record = [&](size_t s, const std::vector<std::string>& texts, const char* tag, int day) {
    const std::string sid = SyntheticIndex::sid_of(s);
    std::erase_if(all, [&](const Current& c) { return c.sid == sid; });
    for (size_t m = 0; m < texts.size(); ++m) all.push_back({tag + std::to_string(s) + "-" + std::to_string(m), sid, texts[m], day});
  };
  // The first message is the session's title; no other message repeats it.
  const auto session = [&](size_t n) {
    std::vector<std::string> texts = {"opening remarks"};
    for (size_t m = 1; m < n; ++m) texts.push_back(random_text(rng));
    return texts;
  };
  std::vector<std::vector<std::string>> first(12);
  for (size_t s = 0; s < first.size(); ++s) record(s, first[s] = session(5 + rng() % 40), "u-", 1);
  SyntheticIndex ix(first);
  for (size_t s : {3, 7}) {
    const std::vector<std::string> texts = session(5 + rng() % 30);
    ix.rewrite(s, texts);
    record(s, texts, "r-", 2);
  }
  std::vector<std::vector<std::string>> added;
  for (size_t k = 0; k < 3; ++k) record(12 + k, added.emplace_back(session(5 + rng() % 30)), "a-", 3);
  ix.add(12, added);
  IndexReader reader(ix.idx);

  size_t compared = 0;
  for (int round = 0; round < 300; ++round) {
    const bool caseless = round % 4 == 0, word = round % 5 == 1, fixed = round % 5 == 2;
    const std::vector<std::string> patterns = {random_pattern(rng)};
    const std::vector<std::string> expressions = {reference_expression(patterns[0], word, fixed)};
    std::string error;
    const std::optional<PcreMatcher> pcre = PcreMatcher::compile(expressions, patterns, caseless, error);
    if (!pcre) continue;
    ContentOptions o;
    o.patterns = patterns;
    o.ignore_case = caseless;
    o.word = word;
    o.fixed = fixed;
    o.by_message = round % 2 == 0;
    o.scope_scan = static_cast<ContentOptions::ScopeScan>(rng() % 3);
    FilterArgs args;
    if (round % 3 == 1) args.since = "2026-03-02T00:00:00Z";
    if (round % 4 == 3)
      for (size_t n = 1 + rng() % 3; n > 0; --n) args.session.push_back(SyntheticIndex::sid_of(rng() % 15).substr(0, 8));
    const auto kept = [&](const Current& c) {
      const bool named = args.session.empty() || std::any_of(args.session.begin(), args.session.end(),
                                                              [&](const std::string& p) { return c.sid.starts_with(p); });
      return named && (args.since.empty() || c.day >= 2);
    };
    std::set<std::string> expected_messages;
    std::map<std::string, uint64_t> expected_sessions;
    try {
      for (const Current& c : all)
        if (kept(c) && pcre->first_match(c.text)) {
          expected_messages.insert(c.uuid);
          ++expected_sessions[c.sid];
        }
    } catch (const BadInput&) {
      continue;  // PCRE2 itself stops at a limit (a recursion that loops): no reference to hold it to
    }
    INFO("pattern '" << patterns[0] << "'" << (caseless ? " -i" : "") << (word ? " -w" : "") << (fixed ? " -F" : "")
                     << (o.by_message ? " --by message" : "") << (args.since.empty() ? "" : " --since day 2")
                     << " sessions " << args.session.size() << " scope scan " << static_cast<int>(o.scope_scan));
    std::set<std::string> got_messages;
    std::map<std::string, uint64_t> got_sessions;
    for (size_t offset = 0, limit = 3;; offset += limit) {
      if (offset == 12) limit = 100000;
      args.limit = limit;
      args.offset = offset;
      QueryResult r;
      try {
        r = run_content(reader, parse_filters(args, 0, 20), o);
      } catch (const BadInput& e) {
        INFO(e.kind << ": " << e.what());
        CHECK(e.kind == "regex-too-costly");
        break;
      }
      REQUIRE_FALSE(r.truncated);
      CHECK(r.total_exact);
      CHECK(r.total == (o.by_message ? expected_messages.size() : expected_sessions.size()));
      for (const Hit& h : r.hits) {
        REQUIRE(h.message);
        if (o.by_message)
          CHECK(got_messages.insert(h.message->uuid).second);
        else
          CHECK(got_sessions.emplace(h.session.id, h.match_count).second);
      }
      if (r.hits.size() < limit) break;
    }
    if (o.by_message)
      CHECK(got_messages == expected_messages);
    else
      CHECK(got_sessions == expected_sessions);
    ++compared;
  }
  CHECK(compared > 150);
}
