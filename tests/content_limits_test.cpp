// `content` under issue 7: catastrophic regexes end (regex-too-costly or a flagged partial answer),
// patterns are Unicode-aware (UTF-8 + UCP in Hyperscan and PCRE2), and anchors/word boundaries see
// each message's own edges. Generated indexes; outcomes asserted by exit code, kind and flag only.
#include "tests/cli_fixture.h"
#include "tests/synthetic_index.h"

#include "engine/query/content_scan.h"
#include "engine/query/files.h"

using namespace osearch;

namespace {

QueryResult content(const SyntheticIndex& ix, std::vector<std::string> patterns, bool by_message = true,
                    bool ignore_case = false, bool word = false,
                    std::chrono::milliseconds budget = ContentOptions{}.time_budget) {
  IndexReader r(ix.idx);
  ContentOptions o;
  o.patterns = std::move(patterns);
  o.ignore_case = ignore_case;
  o.word = word;
  o.by_message = by_message;
  o.time_budget = budget;
  return run_content(r, limit_filters(1000), o);
}

std::set<std::string> snippets(const QueryResult& r) {
  std::set<std::string> out;
  for (const auto& h : r.hits) out.insert(h.snippet);
  return out;
}

// Long runs of word characters, without the final char the patterns need right after a repeat.
std::string word_run(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s.push_back("abcdefghijklmnopqrstuvwz0123456789"[i % 34]);
  return s;
}

}  // namespace

TEST_CASE("content limits: catastrophic regexes end as regex-too-costly", "[hardening][content]") {
  const std::string run = word_run(3000);
  SyntheticIndex ix({{run + " x " + run + " y", "short words x y", run}});
  for (const std::string p : {"(\\w+)*\\1x", "((.)*)*\\2y", "(.*)(.*)(.*)\\3\\2\\1"}) {
    INFO(p);
    // Engine: BadInput of kind regex-too-costly naming the pattern.
    bool threw = false;
    try {
      content(ix, {p});
    } catch (const BadInput& e) {
      threw = true;
      CHECK(e.kind == "regex-too-costly");
      CHECK(std::string(e.what()).find(p) != std::string::npos);
    }
    CHECK(threw);
    // CLI: exit 2 and the JSON error object.
    RunResult r = run_osearch({"content", p, "--index", ix.idx, "--no-refresh", "--format", "json"});
    CHECK(r.exit_code == 2);
    Json e;
    REQUIRE(try_parse(last_line(r.err), e));
    CHECK(e["error"]["kind"].s == "regex-too-costly");
  }
}

TEST_CASE("content limits: a costly message the filters drop is no error", "[hardening][content]") {
  // PCRE2 decides candidates on the scan's threads, before the record filters run: a message that
  // is too costly but filtered out must leave the answer as it was when the filters came first.
  const std::string run = word_run(3000);
  const std::string costly = run + " x " + run + " y";
  SyntheticIndex ix({{costly}, {"short words x y", "aax"}, {costly, "bbx"}});
  const std::string pattern = "(\\w+)*\\1x";
  auto with = [&](FilterArgs a) {
    a.limit = 100;
    IndexReader r(ix.idx);
    ContentOptions o;
    o.patterns = {pattern};
    o.by_message = true;
    return run_content(r, parse_filters(a, 0, 20), o);
  };
  FilterArgs other_session;
  other_session.session = {SyntheticIndex::sid_of(1)};
  CHECK(with(other_session).total == 1);  // "aax"
  FilterArgs other_role;                    // every message is the user's
  other_role.role = {"assistant"};
  CHECK(with(other_role).total == 0);
  FilterArgs other_branch;                  // a filter only the message record answers
  other_branch.branch = {"no-such-branch"};
  CHECK(with(other_branch).total == 0);
  // Unfiltered, the costly messages make it an error, wherever they are in the log.
  CHECK_THROWS_AS(with(FilterArgs{}), BadInput);
  FilterArgs costly_session;
  costly_session.session = {SyntheticIndex::sid_of(2)};
  CHECK_THROWS_AS(with(costly_session), BadInput);
}

TEST_CASE("content limits: a costly message stops the threads' confirming, and the rest is still asked",
          "[hardening][content]") {
  // A log past the size two scanning threads share (8 MB). The costly messages are on a branch only
  // their records name, so the threads (which filter on keys and flags) confirm them, hit PCRE2's
  // limit and stop confirming; the main thread then asks the rest in log order after the record
  // filters. Whatever thread met a costly message first, and wherever the chunks were cut, an answer
  // whose filters drop them holds every matching message, and an unfiltered one is regex-too-costly.
  const std::string run = word_run(3000);
  const std::string costly = run + " x " + run + " y";
  std::string filler;  // no 'x': never a candidate
  while (filler.size() < 8000) filler += "lorem ipsum dolor sit amet ";
  TempDir tmp{"costly-threads"};
  const std::string src = tmp / "claude", idx = tmp / "index";
  // Four sessions: costly messages at the start, middle and end of 0 and 2; matches spread over all.
  size_t matches = 0;
  for (size_t s = 0; s < 4; ++s) {
    const std::string sid = SyntheticIndex::sid_of(s);
    std::string lines;
    for (size_t m = 0; m < 300; ++m) {
      const bool is_costly = s % 2 == 0 && (m == 0 || m == 150 || m == 299);
      const bool is_match = !is_costly && m % 25 == 3;
      matches += is_match;
      const std::string text = is_costly ? costly : is_match ? "short words aax " + std::to_string(m) : filler;
      char ts[40];
      std::snprintf(ts, sizeof ts, "2026-03-01T%02zu:%02zu:%02zu.000Z", m / 3600, (m / 60) % 60, m % 60);
      lines += R"({"type":"user","cwd":"/w/proj","gitBranch":")" + std::string(is_costly ? "slow" : "main") +
               R"(","sessionId":")" + sid + R"(","message":{"role":"user","content":)" + json_string(text) +
               R"(},"uuid":"u-)" + std::to_string(s) + "-" + std::to_string(m) + R"(","timestamp":")" + ts + "\"}\n";
    }
    write_file(src + "/-w-proj/" + sid + ".jsonl", lines);
  }
  REQUIRE(run_index(idx, {{"claude", src}}, IndexOptions{}).bad_lines == 0);
  const std::string pattern = "(\\w+)*\\1x";
  auto with = [&](FilterArgs a, bool by_message) {
    a.limit = 1000;
    IndexReader r(idx);
    ContentOptions o;
    o.patterns = {pattern};
    o.by_message = by_message;
    return run_content(r, parse_filters(a, 0, 20), o);
  };
  FilterArgs main_branch;
  main_branch.branch = {"main"};
  for (int round = 0; round < 3; ++round) {  // the threads' order varies from run to run
    INFO("round " << round);
    const QueryResult by_message = with(main_branch, true);
    CHECK(by_message.total == matches);
    CHECK(by_message.hits.size() == matches);
    CHECK_FALSE(by_message.truncated);
    const QueryResult by_session = with(main_branch, false);
    REQUIRE(by_session.hits.size() == 4);
    for (const Hit& h : by_session.hits) CHECK(h.match_count == matches / 4);
    CHECK_THROWS_AS(with(FilterArgs{}, true), BadInput);
    CHECK_THROWS_AS(with(FilterArgs{}, false), BadInput);
  }
}

TEST_CASE("content limits: the time budget returns a flagged partial answer", "[hardening][content]") {
  SyntheticIndex ix({{"alpha one", "alpha two"}, {"alpha three"}});
  QueryResult whole = content(ix, {"alpha"});
  CHECK(whole.total == 3);
  CHECK_FALSE(whole.truncated);
  CHECK(whole.total_exact);
  // A budget already spent: nothing is scanned, and the answer says so instead of claiming "none".
  QueryResult cut = content(ix, {"alpha"}, true, false, false, std::chrono::milliseconds(0));
  CHECK(cut.truncated);
  CHECK_FALSE(cut.total_exact);
  CHECK(cut.truncated_reason.find("time budget") != std::string::npos);
  // The CLI option is validated and its envelope carries the flag.
  RunResult bad = run_osearch({"content", "alpha", "--timeout", "0", "--index", ix.idx, "--no-refresh", "--format", "json"});
  CHECK(bad.exit_code == 2);
  RunResult ok = run_osearch({"content", "alpha", "--timeout", "30", "--index", ix.idx, "--no-refresh", "--format", "json"});
  REQUIRE(ok.exit_code == 0);
  Json j = parse(ok.out);
  REQUIRE(j.has("truncated"));
  CHECK_FALSE(j["truncated"].b);
  CHECK(j["total_exact"].b);
}

TEST_CASE("content limits: patterns are Unicode-aware", "[hardening][content]") {
  SyntheticIndex ix({{"naïve café résumé", "中文字符测试 here", "ÉCOLE big", "plain ascii words", "東京abc",
                      "abc東京", "東京 abc 大阪"}});
  // \p{Han} used to be "Pattern can never match".
  CHECK(snippets(content(ix, {"\\p{Han}+"})) ==
        std::set<std::string>{"中文字符测试 here", "東京abc", "abc東京", "東京 abc 大阪"});
  // \w+ spans accented letters: the whole word is the match.
  QueryResult w = content(ix, {"caf\\w"});
  REQUIRE(w.hits.size() == 1);
  REQUIRE(w.hits[0].matched_terms.size() == 1);
  CHECK(w.hits[0].matched_terms[0] == "café");
  QueryResult words = content(ix, {"\\w+é\\b"});
  REQUIRE(words.hits.size() == 1);
  CHECK(words.hits[0].matched_terms[0] == "café");
  // -i folds non-ASCII case, in both engines.
  CHECK(content(ix, {"école"}).hits.empty());
  CHECK(snippets(content(ix, {"école"}, true, true)) == std::set<std::string>{"ÉCOLE big"});
  CHECK(snippets(content(ix, {"(é)cole"}, true, true)) == std::set<std::string>{"ÉCOLE big"});
  // -w: a CJK letter is a word character, so "abc" next to 東京 is not a whole word.
  CHECK(snippets(content(ix, {"abc"}, true, false, true)) == std::set<std::string>{"東京 abc 大阪"});
  CHECK(snippets(content(ix, {"東京"}, true, false, true)) == std::set<std::string>{"東京 abc 大阪"});
}

TEST_CASE("content limits: anchors and word boundaries see each message's own edges", "[hardening][content]") {
  // In the whole-log scan a message's text is framed by binary entry headers, not by line ends:
  // '^foo' missed a message starting with foo, 'foo$' and -w one ending with it.
  SyntheticIndex ix({{"hello foo", "foo starts here", "middle bar here", "xfoo and foox"}});
  CHECK(snippets(content(ix, {"^foo"})) == std::set<std::string>{"foo starts here"});
  CHECK(snippets(content(ix, {"foo$"})) == std::set<std::string>{"hello foo"});
  CHECK(snippets(content(ix, {"\\bfoo\\b"})) == std::set<std::string>{"hello foo", "foo starts here"});
  CHECK(snippets(content(ix, {"foo"}, true, false, true)) == std::set<std::string>{"hello foo", "foo starts here"});
  CHECK(snippets(content(ix, {"\\Ahello"})) == std::set<std::string>{"hello foo"});
  CHECK(content(ix, {"bar$"}).hits.empty());
  CHECK(content(ix, {"(?<=hello )foo$"}).hits.size() == 1);
  // By session, titles are searched too, each on its own: a pattern no message and no title holds
  // finds nothing (every title was taken for a match when each entry was scanned alone).
  for (const std::string p : {"^nothing$", "^zzz", "qqq$", "\\Anone"}) {
    INFO(p);
    CHECK(content(ix, {p}, false).total == 0);
  }
  CHECK(snippets(content(ix, {"^foo"}, false)) == std::set<std::string>{"foo starts here"});
  CHECK(content(ix, {"^foo"}, false).hits.at(0).match_count == 1);
}

TEST_CASE("content limits: which patterns look outside their match", "[hardening][content]") {
  for (const char* p : {"^a", "a$", "\\ba", "a\\B", "\\Aa", "a\\z", "(?<=a)b", "(?<!a)b", "a(?=b)", "a(?!b)",
                        "[a]^", "[]]$", "[^]]$", "[[:alpha:]]$",
                        // "[:b]" is no POSIX name (a ']' comes before any ":]"): the class ends there.
                        "[a[:b]x$|y:]", "[[.a.]]$",
                        // \c[ is a control character, not a class; a comment's '[' is no class either.
                        "\\c[a$", "(?#[)$",
                        // Extended mode is not followed ('#' comments, spaces): taken to look outside.
                        "(?x)a#[\n$", "(?ix:a)", "(?-x)a"})
    CHECK(looks_outside_match(p));
  for (const char* p : {"abc", "[^a-z]+", "a\\$b", "\\^x", "[$^]", "\\Q^$\\E", "[[:alpha:]^]", "\\\\d", "[\\]^]",
                        "[[:alpha:]$]", "[[:alpha:]|^]", "(?i)abc", "(?#^$)abc", "[\\Q]$\\E]"})
    CHECK_FALSE(looks_outside_match(p));
}

TEST_CASE("content limits: a POSIX-looking name in a class does not hide an anchor", "[hardening][content]") {
  // '[a[:b]x$|y:]' is the class [a[:b] (no POSIX name: a ']' comes before any ":]"), then x$, or
  // y:]. Read as if "[:b]x$|y:]" were a POSIX name, the '$' was inside a class: the whole log was
  // scanned as one text, and the message ending in "bx" was silently missing (rg finds it).
  SyntheticIndex ix({{"first message ends with bx", "second message here", "a third"}});
  CHECK(snippets(content(ix, {"[a[:b]x$|y:]"})) == std::set<std::string>{"first message ends with bx"});
  CHECK(snippets(content(ix, {"[[:alpha:]]x$"})) == std::set<std::string>{"first message ends with bx"});
}

TEST_CASE("content limits: a PCRE2 error is never a silent 'no match'", "[hardening][content]") {
  // A repeated group over 40 KB overflowed PCRE2-JIT's default 32 KiB stack, and the error was
  // taken for "no match": the message was silently missing. The JIT stack now grows to 8 MiB and
  // the interpreter retries past it; any other limit is regex-too-costly.
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "ab";
  SyntheticIndex ix({{text + "xa", "plain words"}});
  QueryResult r = content(ix, {"^(?:(a)|b)*x\\1"});
  CHECK(r.total == 1);
  CHECK_FALSE(r.truncated);
}

TEST_CASE("content: a re-read session's superseded log entries are neither hits nor counted", "[content][query]") {
  // Four sessions of three messages with "kiwi"; session 0 also says "oldword". Its file is then
  // rewritten: its first entries stay in the text log, superseded, until a compaction.
  std::vector<std::vector<std::string>> sessions(4);
  for (size_t s = 0; s < sessions.size(); ++s)
    for (size_t m = 0; m < 3; ++m) sessions[s].push_back("kiwi note " + std::to_string(m) + (s == 0 && m == 1 ? " oldword" : ""));
  SyntheticIndex ix(sessions);
  ix.rewrite(0, {"kiwi again 0 newword", "kiwi again 1", "kiwi again 2"});
  {
    IndexReader r(ix.idx);
    REQUIRE_FALSE(r.epochs().empty());
  }
  CHECK(content(ix, {"oldword"}).hits.empty());
  const QueryResult fresh = content(ix, {"newword"});
  REQUIRE(fresh.hits.size() == 1);
  CHECK(fresh.hits[0].session.id == SyntheticIndex::sid_of(0));
  // Each current message once: the superseded entries of session 0 are not counted again.
  const QueryResult all = content(ix, {"kiwi"});
  CHECK(all.total == 12);
  CHECK(all.hits.size() == 12);
  const QueryResult by_session = content(ix, {"kiwi"}, false);
  CHECK(by_session.total == 4);
  CHECK(by_session.hits.size() == 4);  // session 0's earliest match is a current message
  for (const Hit& h : by_session.hits) CHECK(h.match_count == 3);
  CHECK(content(ix, {"oldword"}, false).hits.empty());  // by session: the re-read session is checked
  CHECK(content(ix, {"newword"}, false).total == 1);
  // -w: the same, whether the scan's threads settle a literal or PCRE2 confirms a regex.
  CHECK(content(ix, {"kiwi"}, true, false, true).total == 12);
  CHECK(content(ix, {"oldword"}, true, false, true).hits.empty());
  CHECK(content(ix, {"ki\\w+"}, true, false, true).total == 12);
  CHECK(content(ix, {"old\\w+"}, true, false, true).hits.empty());
}

TEST_CASE("content: every message that holds a pattern, however often, and none a match spans into",
          "[content][query]") {
  // Messages holding the pattern hundreds of times next to ones holding it once or not at all; a
  // regex whose only match would span two messages (the log scan stops at a message's first match
  // and resumes past it, so each message is found once whatever it holds).
  std::vector<std::vector<std::string>> sessions(3);
  std::string dense;
  for (int i = 0; i < 400; ++i) dense += "ee ";
  sessions[0] = {dense, "one e here", "none in this", dense + " tail ends with fromhere"};
  sessions[1] = {"toward the start: tohere next", dense, "plain words only", "fromhere and tohere together"};
  sessions[2] = {"nothing", "e", "fromhere", "tohere"};
  SyntheticIndex ix(sessions);
  auto keys = [](const QueryResult& r) {
    std::set<std::string> out;
    for (const Hit& h : r.hits) out.insert(h.session.id + "/" + (h.message ? h.message->uuid : ""));
    return out;
  };
  auto at = [](size_t s, size_t m) { return SyntheticIndex::sid_of(s) + "/u-" + std::to_string(s) + "-" + std::to_string(m); };
  const QueryResult e = content(ix, {"e"});
  CHECK(keys(e) == std::set<std::string>{at(0, 0), at(0, 1), at(0, 2), at(0, 3), at(1, 0), at(1, 1), at(1, 3),
                                         at(2, 1), at(2, 2), at(2, 3)});
  CHECK(keys(content(ix, {"ee"})) == std::set<std::string>{at(0, 0), at(0, 3), at(1, 1)});
  // fromhere ... tohere: within one message only in session 1's last.
  CHECK(keys(content(ix, {"fromhere.*tohere"})) == std::set<std::string>{at(1, 3)});
  CHECK(keys(content(ix, {"fromhere[^x]*tohere"})) == std::set<std::string>{at(1, 3)});
  const QueryResult by_session = content(ix, {"ee"}, false);
  REQUIRE(by_session.hits.size() == 2);
  for (const Hit& h : by_session.hits) CHECK(h.match_count == (h.session.id == SyntheticIndex::sid_of(0) ? 2u : 1u));
}

TEST_CASE("content limits: what Hyperscan refuses even as a prefilter runs on PCRE2 alone", "[hardening][content]") {
  // \K \R \N \G, an anchor inside the pattern, branch reset and a call of a group are PCRE's syntax
  // that Hyperscan does not compile at all: `content` exited 2 on them. PCRE2 now decides every
  // message (past the literal prefilter), each alone, with -i, -w and a second -e as ever.
  SyntheticIndex ix({{"import os", "error\nnext line", "error at the end", "bb a", "say foo", "xfoo", "FOO bar", ""}});
  using Set = std::set<std::string>;
  CHECK(snippets(content(ix, {"import\\s+\\K\\w+"})) == Set{"import os"});
  CHECK(snippets(content(ix, {"error\\R"})) == Set{"error next line"});  // (a snippet's line ends are spaces)
  CHECK(snippets(content(ix, {"error\\N+end"})) == Set{"error at the end"});
  CHECK(snippets(content(ix, {"\\Gx"})) == Set{"xfoo"});
  CHECK(content(ix, {"foo^"}).hits.empty());
  // (In a branch reset both alternatives are group 1, and (?1) calls the first: (a).)
  CHECK(snippets(content(ix, {"(?|(a)|(b))\\1 (?1)"})) == Set{"bb a"});
  CHECK(snippets(content(ix, {"foo\\K"}, true, true)) == Set{"say foo", "xfoo", "FOO bar"});
  CHECK(snippets(content(ix, {"foo\\K"}, true, true, true)) == Set{"say foo", "FOO bar"});
  CHECK(snippets(content(ix, {"\\Gimport", "bar\\R?$"})) == Set{"import os", "FOO bar"});
  // By session: the count of matching messages, and a title that matches alone.
  const QueryResult by_session = content(ix, {"e\\R|\\Ge"}, false);
  REQUIRE(by_session.hits.size() == 1);
  CHECK(by_session.hits[0].match_count == 2);
  // Refused by both engines: PCRE2's message, exit 2 (bad-regex).
  CHECK_THROWS_AS(content(ix, {"(?|a"}), BadInput);
}

TEST_CASE("content limits: a page of thousands of hits lets the maps' pages go and answers the same", "[hardening][content]") {
  // Every hit's record and text read through maps whose pages are let go between hits: the views a
  // query still holds page back in, so the answers are the ones of a reader that never releases.
  std::vector<std::vector<std::string>> texts(40);
  for (auto& session : texts)
    for (int m = 0; m < 60; ++m) session.push_back("note " + std::to_string(m) + " about pagesword here");
  SyntheticIndex ix(texts);
  auto page_of = [&](bool release, bool by_message) {
    IndexReader r(ix.idx);
    if (release) r.set_hit_pages(1, 0);
    ContentOptions o;
    o.patterns = {"pagesword"};
    o.by_message = by_message;
    QueryResult q = run_content(r, limit_filters(100000), o);
    CHECK((r.page_releases() > 0) == release);
    std::vector<std::string> out;
    for (const auto& h : q.hits)
      out.push_back(h.session.id + " " + (h.message ? h.message->uuid : "") + " " + h.snippet + " " +
                    std::to_string(h.match_count));
    return out;
  };
  for (bool by_message : {true, false}) {
    INFO("by message " << by_message);
    const auto kept = page_of(false, by_message);
    CHECK(kept.size() == (by_message ? 2400u : 40u));
    CHECK(page_of(true, by_message) == kept);
  }

  TempDir tmp("hit-pages");
  copy_tree(claude_data_dir(), tmp / "src");
  REQUIRE(run_index(tmp / "idx", {{"claude", tmp / "src"}}, IndexOptions{}).bad_lines == 0);
  auto failures_of = [&](bool release) {
    IndexReader r(tmp / "idx");
    if (release) r.set_hit_pages(1, 0);
    FailuresResult res = run_failures(r, limit_filters(100000), FailuresOptions{});
    CHECK((r.page_releases() > 0) == release);
    std::vector<std::string> out;
    for (const auto& f : res.hits) {
      std::string line = f.session.id + " " + f.result.tool_use_id + " " + f.result_message.text;
      for (const auto& n : f.next) line += " | " + n.text;
      out.push_back(line);
    }
    return out;
  };
  const auto kept = failures_of(false);
  REQUIRE(kept.size() > 2);
  CHECK(failures_of(true) == kept);
}
