// Search: the filters --type to --limit; content options, exact counts, regex fallbacks; deleted sources; list.
#include "tests/search_fixture.h"

TEST_CASE("search: --type filters by content type", "[search]") {
    Fixture fx(kAll);
    for (const auto& [name, type] : std::vector<std::pair<std::string, ContentType>>{
             {"tool_use", ContentType::ToolUse}, {"tool_result", ContentType::ToolResult},
             {"thinking", ContentType::Thinking}, {"text", ContentType::Text}}) {
        INFO(name);
        auto k = kw_msg(fx, "the", [&](FilterArgs& a) { a.type = {name}; });
        CHECK_FALSE(k.hits.empty());
        for (const auto& h : k.hits) CHECK(msg(h).content_type == type);
        auto c = ct(fx, {{"the"}, false, false, false, true}, [&](FilterArgs& a) { a.type = {name}; });
        CHECK_FALSE(c.hits.empty());
        for (const auto& h : c.hits) CHECK(msg(h).content_type == type);
    }
    CHECK_THROWS_AS(make_filters([](FilterArgs& a) { a.type = {"image"}; }), BadInput);
}

TEST_CASE("search: --tool keeps tool calls and results of that tool", "[search]") {
    Fixture fx(kAll);
    auto r = kw_msg(fx, "CODEOWNERS", [](FilterArgs& a) { a.tool = {"Write"}; });
    CHECK(message_uuids(r) == std::set<std::string>{"33c6b8d0-d4d2-4b07-b926-46adc29db0f0",
                                                    "1aa717b0-64e9-4003-9bce-845587cafe55"});
    auto lower = kw_msg(fx, "CODEOWNERS", [](FilterArgs& a) { a.tool = {"write"}; });
    CHECK(message_uuids(lower) == message_uuids(r));
    auto c = ct(fx, {{"CODEOWNERS"}, false, false, false, true}, [](FilterArgs& a) { a.tool = {"Write"}; });
    CHECK(message_uuids(c) == message_uuids(r));
    CHECK(kw(fx, "CODEOWNERS", [](FilterArgs& a) { a.tool = {"Bash"}; }).hits.empty());
    auto ps = kw_msg(fx, "nul", [](FilterArgs& a) { a.tool = {"PowerShell"}; });
    CHECK(session_ids(ps) == std::set<std::string>{kPoshId});
    for (const auto& h : ps.hits)
        CHECK((msg(h).content_type == ContentType::ToolUse || msg(h).content_type == ContentType::ToolResult));
}

TEST_CASE("search: --cwd is a directory prefix of the session's cwd", "[search]") {
    Fixture fx(kAll);
    const std::set<std::string> spotter = {kSpotterAId, kSpotterBId};
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.cwd = "/home/marco/projects/spotter"; })) == spotter);
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.cwd = "/home/marco"; })) == spotter);
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.cwd = "/home/marco/"; })) == spotter);
    CHECK(ls(fx, [](FilterArgs& a) { a.cwd = "/home/mar"; }).hits.empty());
    CHECK(session_ids(kw(fx, "the", [](FilterArgs& a) { a.cwd = "/Users/alex/workspace/cli"; })) ==
          std::set<std::string>{kAlexId});
    CHECK(session_ids(ct(fx, {{"the"}}, [](FilterArgs& a) { a.cwd = "/tmp/workspace"; })) ==
          std::set<std::string>{kCaptureId});
}

TEST_CASE("search: meta and command messages are hidden unless --include-meta", "[search]") {
    Fixture fx(kAll);
    auto sample = read_transcript(fx.path(kSample));
    const std::string meta_text = "Please analyze this codebase and create a CLAUDE.md file";
    auto meta = uuids_where(sample, contains(meta_text));
    REQUIRE(meta == std::set<std::string>{"d78d1de2-52bd-4e64-ad0f-affcbcc1dabf"});
    CHECK(ct(fx, {{meta_text}, true}).hits.empty());
    CHECK(message_uuids(ct(fx, {{meta_text}, true, false, false, true}, [](FilterArgs& a) { a.include_meta = true; })) ==
          meta);
    CHECK(message_uuids(kw_msg(fx, "\"analyze this codebase\"", [](FilterArgs& a) { a.include_meta = true; }))
              .count("d78d1de2-52bd-4e64-ad0f-affcbcc1dabf") == 1);
    CHECK(message_uuids(kw_msg(fx, "\"analyze this codebase\"")).count("d78d1de2-52bd-4e64-ad0f-affcbcc1dabf") == 0);

    // A typed slash command is a `command`, hidden by default, shown by --include-meta or --type command.
    const std::string cmd_uuid = "e2ab9812-8be7-4e9e-8194-d9b7b9d6da14";
    CHECK(message_uuids(ct(fx, {{"<command-name>/init"}, true, false, false, true})).count(cmd_uuid) == 0);
    auto as_cmd = ct(fx, {{"<command-name>/init"}, true, false, false, true}, [](FilterArgs& a) { a.type = {"command"}; });
    REQUIRE(message_uuids(as_cmd).count(cmd_uuid) == 1);
    for (const auto& h : as_cmd.hits) CHECK(msg(h).content_type == ContentType::Command);
    auto all = ct(fx, {{"<command-name>/init"}, true, false, false, true}, [](FilterArgs& a) { a.include_meta = true; });
    CHECK(message_uuids(all).count(cmd_uuid) == 1);
    auto user_text = ct(fx, {{"<command-name>/init"}, true, false, false, true}, [](FilterArgs& a) {
        a.include_meta = true;
        a.type = {"text"};
    });
    CHECK(message_uuids(user_text).count(cmd_uuid) == 0);

    // The compact summary of kCapture-like sessions and isMeta lines never leak into default results.
    auto dflt = kw_msg(fx, "the");
    for (const auto& h : dflt.hits) {
        if (!h.message) continue;  // a session title
        CHECK_FALSE(h.message->is_meta);
        CHECK(h.message->content_type != ContentType::Command);
    }
}

TEST_CASE("search: --limit and --offset page through results", "[search]") {
    Fixture fx(kAll);
    auto all = kw(fx, "the", [](FilterArgs& a) { a.limit = 1000; }, true, "newest");
    REQUIRE(all.hits.size() >= 12);
    auto page1 = kw(fx, "the", [](FilterArgs& a) { a.limit = 5; }, true, "newest");
    auto page2 = kw(fx, "the", [](FilterArgs& a) { a.limit = 5; a.offset = 5; }, true, "newest");
    REQUIRE(page1.hits.size() == 5);
    REQUIRE(page2.hits.size() == 5);
    CHECK(page1.total >= all.hits.size());
    for (size_t i = 0; i < 5; ++i) {
        CHECK(hit_key(page1.hits[i]) == hit_key(all.hits[i]));
        CHECK(hit_key(page2.hits[i]) == hit_key(all.hits[5 + i]));
    }
    // Default limit is 20 for keyword/content, 50 for list.
    IndexReader r(fx.idx);
    FilterArgs none;
    CHECK(run_keyword(r, "the", parse_filters(none, now_ms(), 20), KeywordOptions{true, "newest", 200}).hits.size() == 20);

    auto c_all = ct(fx, {{"the"}, false, false, false, true});
    auto c_page = ct(fx, {{"the"}, false, false, false, true}, [](FilterArgs& a) { a.limit = 3; a.offset = 2; });
    REQUIRE(c_page.hits.size() == 3);
    CHECK(c_page.total == c_all.total);
    for (size_t i = 0; i < 3; ++i) CHECK(hit_key(c_page.hits[i]) == hit_key(c_all.hits[2 + i]));

    auto l_all = ls(fx);
    auto l_page = ls(fx, [](FilterArgs& a) { a.limit = 2; a.offset = 3; });
    REQUIRE(l_page.hits.size() == 2);
    CHECK(l_page.total == l_all.total);
    CHECK(l_page.hits[0].session.id == l_all.hits[3].session.id);
    CHECK(l_page.hits[1].session.id == l_all.hits[4].session.id);
    auto beyond = ls(fx, [](FilterArgs& a) { a.offset = 100; });
    CHECK(beyond.hits.empty());
    CHECK(beyond.total == kAll.size());
}

// =============================================================================================
// content

TEST_CASE("search: content literal-led regex gives exact match_count", "[search]") {
    Fixture fx(kAll);
    auto soph = read_transcript(fx.path(kSoph));
    auto expect = uuids_where(soph, matches("TruncateRunes\\(s"));
    REQUIRE(expect.size() >= 3);
    auto r = ct(fx, {{"TruncateRunes\\(s"}}, [](FilterArgs& a) { a.include_meta = true; });
    REQUIRE(r.hits.size() == 1);
    CHECK(r.hits[0].session.id == kSophId);
    CHECK(r.hits[0].match_count == expect.size());
    CHECK(r.total == 1);
    auto bm = ct(fx, {{"TruncateRunes\\(s"}, false, false, false, true}, [](FilterArgs& a) { a.include_meta = true; });
    CHECK(message_uuids(bm) == expect);
    CHECK(bm.hits.size() == expect.size());
    for (const auto& h : bm.hits) CHECK(h.snippet.find("TruncateRunes(s") != std::string::npos);
}

TEST_CASE("search: content literal-free regex counts every matching message in every session", "[search]") {
    Fixture fx(kAll);
    const std::string re = "\\b[a-z]+_[a-z]+_[a-z]+\\b";
    std::map<std::string, size_t> expect;
    for (const auto& rel : {kAlex, kPosh, kSoph, kSpotterA, kSpotterB, kSample, kClaudeP,
                            kCaptureDir + "/" + kCaptureId + ".jsonl",
                            kCaptureDir + "/" + kCaptureId + "/subagents/agent-aprompt_suggestion-dcd338.jsonl",
                            kBlameDir + "/" + kBlameId + ".jsonl", kBlameDir + "/agent-ad47cca.jsonl",
                            kBlameDir + "/agent-ae9a854.jsonl"}) {
        INFO(rel);
        REQUIRE(fs::exists(fx.path(rel)));
        for (const auto& m : read_transcript(fx.path(rel)))
            if (std::regex_search(m.text, std::regex(re))) ++expect[m.session_id];
    }
    REQUIRE(expect.size() >= 3);
    auto r = ct(fx, {{re}}, [](FilterArgs& a) { a.include_meta = true; });
    CHECK(r.hits.size() == expect.size());
    for (const auto& [sid, n] : expect) {
        INFO(sid);
        const Hit* h = hit_for(r, sid);
        REQUIRE(h);
        CHECK(h->match_count == n);
    }
    uint64_t total = 0;
    for (const auto& [sid, n] : expect) total += n;
    auto bm = ct(fx, {{re}, false, false, false, true}, [](FilterArgs& a) { a.include_meta = true; });
    CHECK(bm.total == total);
}

TEST_CASE("search: content -F treats regex metacharacters literally", "[search]") {
    Fixture fx(kAll);
    const std::string lit = "TruncateRunes(\"你好世界\", 5, \"...\")";
    auto soph = read_transcript(fx.path(kSoph));
    auto expect = uuids_where(soph, contains(lit));
    REQUIRE_FALSE(expect.empty());
    auto r = ct(fx, {{lit}, true, false, false, true}, [](FilterArgs& a) { a.include_meta = true; });
    CHECK(message_uuids(r) == expect);
    for (const auto& h : r.hits) CHECK(h.snippet.find("你好世界") != std::string::npos);
    // Other metacharacters: [ ] { } * + ? | ^ $ \ .
    auto brackets = uuids_where(soph, contains("[]struct {"));
    REQUIRE_FALSE(brackets.empty());
    CHECK(message_uuids(ct(fx, {{"[]struct {"}, true, false, false, true}, [](FilterArgs& a) { a.include_meta = true; })) ==
          brackets);
    CHECK(ct(fx, {{"a.*b|c+d?"}, true}).hits.empty());
}

TEST_CASE("search: content -i ignores case", "[search]") {
    Fixture fx(kAll);
    auto soph = read_transcript(fx.path(kSoph));
    auto exact = uuids_where(soph, contains("truncaterunes"));
    auto any = uuids_where(soph, matches("truncaterunes", std::regex::ECMAScript | std::regex::icase));
    REQUIRE(exact.empty());
    REQUIRE(any.size() >= 10);
    CHECK(ct(fx, {{"truncaterunes"}}).hits.empty());
    auto r = ct(fx, {{"truncaterunes"}, false, true}, [](FilterArgs& a) { a.include_meta = true; });
    REQUIRE(r.hits.size() == 1);
    CHECK(r.hits[0].match_count == any.size());
    auto f = ct(fx, {{"TRUNCATERUNES"}, true, true, false, true}, [](FilterArgs& a) { a.include_meta = true; });
    CHECK(message_uuids(f) == any);
}

TEST_CASE("search: content -w matches whole words only", "[search]") {
    Fixture fx(kAll);
    auto soph = read_transcript(fx.path(kSoph));
    auto word = uuids_where(soph, matches("\\bRune\\b"));
    auto sub = uuids_where(soph, contains("Rune"));
    REQUIRE(sub.size() > word.size());
    auto w = ct(fx, {{"Rune"}, false, false, true, true}, [](FilterArgs& a) {
        a.include_meta = true;
        a.session = {"97007e37"};
    });
    CHECK(message_uuids(w) == word);
    auto s = ct(fx, {{"Rune"}, false, false, false, true}, [](FilterArgs& a) {
        a.include_meta = true;
        a.session = {"97007e37"};
    });
    CHECK(message_uuids(s) == sub);
}

TEST_CASE("search: content with several -e patterns matches any", "[search]") {
    Fixture fx(kAll);
    std::map<std::string, size_t> expect;
    for (const auto& rel : {kAlex, kSoph})
        for (const auto& m : read_transcript(fx.path(rel)))
            if (m.text.find("CODEOWNERS") != std::string::npos || m.text.find("你好世界") != std::string::npos)
                ++expect[m.session_id];
    REQUIRE(expect.size() == 2);
    auto r = ct(fx, {{"CODEOWNERS", "你好世界"}}, [](FilterArgs& a) { a.include_meta = true; });
    CHECK(session_ids(r) == std::set<std::string>{kAlexId, kSophId});
    for (const auto& [sid, n] : expect) {
        const Hit* h = hit_for(r, sid);
        REQUIRE(h);
        CHECK(h->match_count == n);
    }
}

TEST_CASE("search: content finds text in tool output and thinking", "[search]") {
    Fixture fx(kAll);
    // Tool output (a tool_result) and thinking blocks are scanned too.
    auto out = ct(fx, {{"File created successfully at: /Users/alex/workspace/cli/.github/CODEOWNERS"}, true, false, false, true});
    CHECK(message_uuids(out) == std::set<std::string>{"1aa717b0-64e9-4003-9bce-845587cafe55"});
    auto think = ct(fx, {{"I don't need to use EnterPlanMode"}, true, false, false, true});
    REQUIRE(think.hits.size() == 1);
    CHECK(msg(think.hits[0]).content_type == ContentType::Thinking);
    CHECK(think.hits[0].session.id == kAlexId);
    // Decoded text, not raw JSON: the JSON escape \" is searched as a plain quote.
    auto soph = read_transcript(fx.path(kSoph));
    REQUIRE(uuids_where(soph, contains("TruncateRunes(\\\"你好世界")).empty());
    CHECK_FALSE(ct(fx, {{"TruncateRunes(\"你好世界\""}, true}).hits.empty());
    CHECK(ct(fx, {{"TruncateRunes(\\\"你好世界"}, true}).hits.empty());
}

TEST_CASE("search: unsupported regex constructs are BadInput naming the construct", "[search]") {
    // Backreferences and fixed-length lookaround run (prefilter + PCRE2); variable-length lookbehind runs nowhere.
    Fixture fx({kAlex});
    struct Case {
        std::string pattern, construct;
    };
    for (const auto& c : std::vector<Case>{{"(?<=a+)b", "lookbehind"},
                                           {"(?<!\\w+)x", "lookbehind"}}) {
        INFO(c.pattern);
        bool threw = false;
        try {
            ct(fx, {{c.pattern}});
        } catch (const BadInput& e) {
            threw = true;
            CHECK(e.kind == "bad-regex");
            CHECK(icontains(e.what(), c.construct));
            CHECK(std::string(e.what()).find(c.pattern) != std::string::npos);
        }
        CHECK(threw);
    }
    // A plain syntax error is bad-regex too, never a crash.
    for (const std::string bad : {"(unclosed", "a{3,1}", "[z-a]"}) {
        INFO(bad);
        bool threw = false;
        try {
            ct(fx, {{bad}});
        } catch (const BadInput& e) {
            threw = true;
            CHECK(e.kind == "bad-regex");
        }
        CHECK(threw);
    }
}

TEST_CASE("search: backreference and lookaround patterns are refused or answered exactly", "[search]") {
    // Whatever the engine does with constructs Hyperscan cannot run, it must never give a wrong answer.
    Fixture fx(kAll);
    std::vector<std::pair<std::string, std::vector<CorpusMessage>>> sessions;
    for (const auto& rel : {kAlex, kPosh, kSoph, kSpotterA, kSpotterB, kSample, kClaudeP}) {
        auto msgs = read_transcript(fx.path(rel));
        REQUIRE_FALSE(msgs.empty());
        sessions.emplace_back(msgs.front().session_id, std::move(msgs));
    }
    struct Case {
        std::string pattern;
        std::function<bool(const CorpusMessage&)> pred;
    };
    const std::vector<Case> cases = {
        {"(\\w)\\1", matches("(\\w)\\1")},
        {"(\\w)\\1\\1", matches("(\\w)\\1\\1")},
        {"TruncateRunes(?=\\(s)", matches("TruncateRunes(?=\\(s)")},
        {"Runes(?!\\()", matches("Runes(?!\\()")},
        {"(?<=func )TruncateRunes", contains("func TruncateRunes")},
    };
    for (const auto& c : cases) {
        INFO(c.pattern);
        QueryResult r;
        try {
            r = ct(fx, {{c.pattern}}, [](FilterArgs& a) { a.include_meta = true; });
        } catch (const BadInput& e) {
            CHECK(e.kind == "bad-regex");
            continue;  // refused: the SPEC §4 answer
        }
        for (const auto& [sid, msgs] : sessions) {
            INFO("session " << sid);
            const size_t n = uuids_where(msgs, c.pred).size();
            const Hit* h = hit_for(r, sid);
            if (n == 0) {
                CHECK(h == nullptr);
            } else {
                REQUIRE(h);
                CHECK(h->match_count == n);
            }
        }
    }
}

TEST_CASE("search: content and keyword work after the source file is deleted", "[search]") {
    Fixture fx({kAlex, kPosh});
    fs::remove(fx.path(kAlex));
    IndexSummary s = fx.reindex();
    CHECK(s.files_deleted == 1);
    auto c = ct(fx, {{"CODEOWNERS"}});
    REQUIRE(c.hits.size() == 1);
    CHECK(c.hits[0].session.id == kAlexId);
    CHECK(c.hits[0].session.source_deleted);
    CHECK(c.hits[0].match_count >= 5);
    auto k = kw(fx, "CODEOWNERS");
    REQUIRE(k.hits.size() == 1);
    CHECK(k.hits[0].session.source_deleted);
    auto l = ls(fx);
    REQUIRE(l.hits.size() == 2);
    for (const auto& h : l.hits) CHECK(h.session.source_deleted == (h.session.id == kAlexId));
    // Reindexing again changes nothing.
    fx.reindex();
    CHECK(ct(fx, {{"CODEOWNERS"}}).hits.size() == 1);
}

// =============================================================================================
// list

TEST_CASE("search: list is newest first by ended_at with session fields", "[search]") {
    Fixture fx(kAll);
    auto r = ls(fx);
    REQUIRE(r.hits.size() == kAll.size());
    CHECK(r.total == kAll.size());
    for (size_t i = 1; i < r.hits.size(); ++i) CHECK(r.hits[i - 1].session.ended_at >= r.hits[i].session.ended_at);
    CHECK(r.hits.front().session.id == kPoshId);
    CHECK(r.hits.back().session.id == kSampleId);
    const Hit* alex = hit_for(r, kAlexId);
    REQUIRE(alex);
    const SessionRec& s = alex->session;
    CHECK(s.project == "-Users-alex-workspace-cli");
    CHECK(s.project_path == "/Users/alex/workspace/cli");
    CHECK(s.cwd == "/Users/alex/workspace/cli");
    CHECK(s.git_branch == "alex/ent-98-move-helpgo-back-into-the-main-cli-package");
    CHECK(s.started_at == iso_ms("2026-01-19T03:15:09.400Z"));
    CHECK(s.ended_at == iso_ms("2026-01-19T03:15:25.841Z"));
    CHECK(s.message_count == 6);
    CHECK(s.models == std::vector<std::string>{"claude-opus-4-5-20251101"});
    CHECK(s.subagent_count == 0);
    CHECK_FALSE(s.source_deleted);
    CHECK(s.jsonl_path == fx.path(kAlex));
    // Subagents are counted on their parent session.
    const Hit* blame = hit_for(r, kBlameId);
    REQUIRE(blame);
    CHECK(blame->session.subagent_count == 2);
    CHECK(blame->session.models.size() == 2);
    const Hit* cap = hit_for(r, kCaptureId);
    REQUIRE(cap);
    CHECK(cap->session.subagent_count == 1);
}

TEST_CASE("search: list time filters select sessions that overlap the range", "[search]") {
    Fixture fx(kAll);
    // kSoph runs 14:03:16.655Z .. 14:10:24.911Z on 2026-01-09.
    auto inside = ls(fx, [](FilterArgs& a) {
        a.since = "2026-01-09T14:05:00Z";
        a.until = "2026-01-09T14:06:00Z";
    });
    CHECK(session_ids(inside) == std::set<std::string>{kSophId});
    auto tail = ls(fx, [](FilterArgs& a) { a.since = "2026-01-09T14:10:24.911Z"; a.until = "2026-01-10"; });
    CHECK(session_ids(tail) == std::set<std::string>{kSophId});
    auto head = ls(fx, [](FilterArgs& a) { a.since = "2026-01-09"; a.until = "2026-01-09T14:03:16.656Z"; });
    CHECK(session_ids(head) == std::set<std::string>{kSophId});
    // until is exclusive: a range ending exactly at the start does not overlap.
    auto before = ls(fx, [](FilterArgs& a) { a.since = "2026-01-09T00:00:00Z"; a.until = "2026-01-09T14:03:16.655Z"; });
    CHECK(before.hits.empty());
    auto after = ls(fx, [](FilterArgs& a) { a.since = "2026-01-09T14:10:24.912Z"; a.until = "2026-01-10T00:00:00Z"; });
    CHECK(after.hits.empty());
}

TEST_CASE("search: a persisted tool result is found by its whole output, not only its preview", "[search]") {
    // The Grep result 95b9a81e… reached the model as a 2 KB preview; its whole 42.8 KB output
    // (toolUseResult) is indexed after it: a word only the output holds is found by both searches.
    Fixture fx(kAll);
    const std::set<std::string> result = {"95b9a81e-7a93-4ca3-a0fb-f7ccaeea3922"};
    CHECK(message_uuids(kw_msg(fx, "TestShadow_ShadowBranchNaming")) == result);
    CHECK(message_uuids(ct(fx, {{"GetCheckpointIDFromCommitMessage"}, false, false, false, true})) == result);
    CHECK(message_uuids(ct(fx, {{"TestShadow_\\w+Naming"}, false, false, true, true})) == result);
}
