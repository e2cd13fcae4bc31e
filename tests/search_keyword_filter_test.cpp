// Search: keyword identifiers, CJK, collapse and sort; the filters --project to --role.
#include "tests/search_fixture.h"

TEST_CASE("search: keyword finds a UUID verbatim", "[search]") {
    Fixture fx({kAlexLinear, kAlex});
    const std::string id = "2eb22709-c7b4-4a11-9270-468079c0739f";
    auto msgs = read_transcript(fx.path(kAlexLinear));
    auto expect = uuids_where(msgs, contains(id));
    REQUIRE(expect.size() == 5);
    auto r = kw_msg(fx, id, [](FilterArgs& a) { a.include_meta = true; });
    CHECK(message_uuids(r) == expect);
    auto s = kw(fx, id);
    REQUIRE(s.hits.size() == 1);
    CHECK(s.hits[0].session.id == kAlexLinearId);
    CHECK(s.hits[0].snippet.find(id) != std::string::npos);
    CHECK(s.hits[0].match_count == expect.size());
}

TEST_CASE("search: keyword finds a toolu_ id written in message text", "[search]") {
    Fixture fx({kPoshBig, kPosh});
    const std::string id = "toolu_01DMPWtUcWvPwAxdVeAfJ1vV";
    auto expect = uuids_where(read_transcript(fx.path(kPoshBig)), contains(id));
    REQUIRE(expect == std::set<std::string>{"3cccb789-24d1-4943-b96d-9151ffc8636b"});
    // The message is a <task-notification> (injected), so it needs --include-meta.
    auto r = kw_msg(fx, id, [](FilterArgs& a) { a.include_meta = true; });
    // Besides the message that writes it, the call itself and its result carry the id (indexed verbatim).
    auto found = message_uuids(r);
    CHECK(std::includes(found.begin(), found.end(), expect.begin(), expect.end()));
    for (const auto& h : r.hits) {
        REQUIRE(h.message);
        if (expect.count(h.message->uuid)) {
            CHECK(h.snippet.find(id) != std::string::npos);
        } else {
            CHECK((h.message->content_type == ContentType::ToolUse || h.message->content_type == ContentType::ToolResult));
            CHECK(std::find(h.message->tool_call_ids.begin(), h.message->tool_call_ids.end(), id) !=
                  h.message->tool_call_ids.end());
        }
    }
}

TEST_CASE("search: keyword finds a tool call by its toolu_ id", "[search]") {
    // The id of a tool call (tool_use.id, tool_result.tool_use_id) is how transcripts, hooks and
    // error messages name a call (SPEC §4 "a toolu_… id found in a transcript is found verbatim").
    Fixture fx({kAlex});
    auto r = kw_msg(fx, "toolu_01YSSAHQnxsQC5wBW4QHXLbF");
    const std::set<std::string> call_or_result = {"33c6b8d0-d4d2-4b07-b926-46adc29db0f0",
                                                  "1aa717b0-64e9-4003-9bce-845587cafe55"};
    CHECK_FALSE(r.hits.empty());
    for (const auto& u : message_uuids(r)) CHECK(call_or_result.count(u) == 1);
}

TEST_CASE("search: keyword finds snake_case and camelCase names verbatim", "[search]") {
    Fixture fx({kSoph, kClaudeP});
    auto soph = read_transcript(fx.path(kSoph));
    for (const std::string name : {"existing_checkpoint_id", "sessions_with_content", "stripCheckpointTrailer"}) {
        INFO(name);
        auto expect = uuids_where(soph, contains(name));
        REQUIRE_FALSE(expect.empty());
        auto r = kw_msg(fx, name);
        CHECK(message_uuids(r) == expect);
        for (const auto& h : r.hits) CHECK(icontains(h.snippet, name));
    }
    auto claude_p = read_transcript(fx.path(kClaudeP));
    auto expect = uuids_where(claude_p, matches("\\ballowedTools\\b", std::regex::ECMAScript | std::regex::icase));
    REQUIRE(expect.size() == 3);
    auto r = kw_msg(fx, "allowedTools");
    CHECK(message_uuids(r) == expect);
    // camelCase is case-insensitive, as a word.
    CHECK(message_uuids(kw_msg(fx, "allowedtools")) == expect);
}

TEST_CASE("search: keyword finds a hyphenated id verbatim", "[search]") {
    Fixture fx({kClaudeP, kSoph});
    auto msgs = read_transcript(fx.path(kClaudeP));
    // "--dangerously-skip-permissions" occurs on its own line of `claude --help` output.
    auto expect = uuids_where(msgs, matches("(^|[^-\\w])--dangerously-skip-permissions\\b"));
    REQUIRE(expect.size() == 2);
    auto r = kw_msg(fx, "dangerously-skip-permissions");
    CHECK(message_uuids(r) == expect);
    auto p = kw_msg(fx, "prepare-commit-msg");
    CHECK(session_ids(p) == std::set<std::string>{kSophId});
}

TEST_CASE("search: keyword finds a file path verbatim", "[search]") {
    Fixture fx({kAlex, kPosh});
    const std::string path = "/Users/alex/workspace/cli/.github/CODEOWNERS";
    auto expect = uuids_where(read_transcript(fx.path(kAlex)), contains(path));
    REQUIRE(expect == std::set<std::string>{"33c6b8d0-d4d2-4b07-b926-46adc29db0f0", "1aa717b0-64e9-4003-9bce-845587cafe55"});
    auto r = kw_msg(fx, path);
    CHECK(message_uuids(r) == expect);
    for (const auto& h : r.hits) CHECK(h.snippet.find(path) != std::string::npos);
}

TEST_CASE("search: keyword finds a file name that occurs inside a longer path", "[search]") {
    // "stringutil_test.go" appears mostly as ".../cli/stringutil/stringutil_test.go".
    Fixture fx({kSoph});
    auto expect = uuids_where(read_transcript(fx.path(kSoph)), contains("stringutil_test.go"));
    REQUIRE(expect.size() >= 5);
    auto r = kw_msg(fx, "stringutil_test.go");
    CHECK(message_uuids(r) == expect);
}

TEST_CASE("search: keyword finds a version string verbatim", "[search]") {
    Fixture fx({kBlameDir, kAlex});
    auto msgs = read_transcript(fx.path(kBlameDir + "/" + kBlameId + ".jsonl"));
    auto expect = uuids_where(msgs, contains("0.1.0"));
    REQUIRE(expect.size() == 2);
    auto r = kw_msg(fx, "0.1.0");
    CHECK(message_uuids(r) == expect);
    auto one = kw_msg(fx, "1.0.0");
    CHECK(message_uuids(one) == uuids_where(msgs, contains("1.0.0")));
    CHECK(kw(fx, "0.1.1").hits.empty());
}

TEST_CASE("search: keyword field prefixes work on a real index", "[search]") {
    Fixture fx(kAll);
    CHECK(session_ids(kw(fx, "CODEOWNERS project:alex")) == std::set<std::string>{kAlexId});
    CHECK(session_ids(kw(fx, "file project:SPOTTER")) == std::set<std::string>{kSpotterAId, kSpotterBId});
    CHECK(session_ids(kw(fx, "file model:haiku")) == std::set<std::string>{kCaptureId, kBlameId});
    CHECK(session_ids(kw(fx, "file branch:master")) == std::set<std::string>{kSpotterAId, kSpotterBId});
    CHECK(session_ids(kw(fx, "file session:97007e")) == std::set<std::string>{kSophId});
    CHECK(session_ids(kw(fx, "CODEOWNERS agent:claude")) == std::set<std::string>{kAlexId});
    CHECK(kw(fx, "CODEOWNERS agent:codex").hits.empty());
    auto tool = kw_msg(fx, "CODEOWNERS tool:Write");
    CHECK(message_uuids(tool) == std::set<std::string>{"33c6b8d0-d4d2-4b07-b926-46adc29db0f0",
                                                       "1aa717b0-64e9-4003-9bce-845587cafe55"});
    auto role = kw_msg(fx, "CODEOWNERS role:tool");
    CHECK(message_uuids(role) == std::set<std::string>{"1aa717b0-64e9-4003-9bce-845587cafe55"});
    auto think = kw_msg(fx, "CODEOWNERS type:thinking");
    REQUIRE_FALSE(think.hits.empty());
    for (const auto& h : think.hits) CHECK(msg(h).content_type == ContentType::Thinking);
    CHECK(message_uuids(kw_msg(fx, "CODEOWNERS -type:thinking")).size() + think.hits.size() ==
          message_uuids(kw_msg(fx, "CODEOWNERS")).size());
}

TEST_CASE("search: keyword project: or model: naming nothing gives zero results", "[search]") {
    Fixture fx(kAll);
    // A field filter that matches no session must not be dropped (that would answer the query unfiltered).
    CHECK(kw(fx, "CODEOWNERS project:no-such-project").hits.empty());
    CHECK(kw(fx, "CODEOWNERS model:gpt-9").hits.empty());
    QueryResult r;
    CHECK_NOTHROW(r = kw(fx, "project:no-such-project"));
    CHECK(r.hits.empty());
}

// =============================================================================================
// keyword: CJK

TEST_CASE("search: CJK keyword query finds its session", "[search]") {
    Fixture fx({kSoph, kAlex, kPosh});
    auto msgs = read_transcript(fx.path(kSoph));
    auto expect = uuids_where(msgs, contains("你好世界"));
    REQUIRE(expect.size() == 5);
    auto r = kw(fx, "你好世界");
    REQUIRE(r.hits.size() == 1);
    CHECK(r.hits[0].session.id == kSophId);
    CHECK(r.hits[0].match_count >= expect.size());
    const std::string& sn = r.hits[0].snippet;
    CHECK((sn.find("你好") != std::string::npos || sn.find("世界") != std::string::npos));
    auto bm = kw_msg(fx, "你好世界");
    auto got = message_uuids(bm);
    for (const auto& u : expect) CHECK(got.count(u) == 1);
    // A two-character query.
    CHECK(session_ids(kw(fx, "世界")) == std::set<std::string>{kSophId});
}

TEST_CASE("search: CJK keyword query not in the corpus gives zero results", "[search]") {
    Fixture fx({kSoph, kAlex});
    for (const std::string q : {"数据库迁移", "テスト", "한국어", "世界你好"}) {
        INFO(q);
        QueryResult r;
        REQUIRE_NOTHROW(r = kw(fx, q));
        CHECK(r.hits.empty());
        CHECK(r.total == 0);
    }
}

// =============================================================================================
// keyword: grouping, counts, sort

TEST_CASE("search: keyword gives one result per session with match_count = matching messages", "[search]") {
    Fixture fx(kAll);
    auto soph = read_transcript(fx.path(kSoph));
    auto expect = uuids_where(soph, matches("\\bTruncateRunes\\b", std::regex::ECMAScript | std::regex::icase));
    REQUIRE(expect.size() >= 10);
    auto r = kw(fx, "TruncateRunes", [](FilterArgs& a) { a.include_meta = true; });
    REQUIRE(r.hits.size() == 1);
    CHECK(r.hits[0].session.id == kSophId);
    CHECK(r.hits[0].match_count == expect.size());
    REQUIRE(r.hits[0].message);
    CHECK(expect.count(msg(r.hits[0]).uuid) == 1);  // the best message stands for the session
    auto bm = kw_msg(fx, "TruncateRunes", [](FilterArgs& a) { a.include_meta = true; });
    CHECK(bm.hits.size() == expect.size());
    CHECK(message_uuids(bm) == expect);
    for (const auto& h : bm.hits) CHECK(h.match_count == 1);

    // A query in many sessions: never two results for one session.
    auto many = kw(fx, "file");
    CHECK(many.hits.size() >= 5);
    CHECK(session_ids(many).size() == many.hits.size());
    for (const auto& h : many.hits) CHECK(h.match_count >= 1);
}

TEST_CASE("search: keyword match_count across sessions equals matching messages per session", "[search]") {
    Fixture fx({kSpotterA, kSpotterB, kAlex});
    std::map<std::string, size_t> expect;
    for (const auto& rel : {kSpotterA, kSpotterB, kAlex})
        for (const auto& m : read_transcript(fx.path(rel)))
            if (std::regex_search(m.text, std::regex("\\bphoenix\\b", std::regex::ECMAScript | std::regex::icase)))
                ++expect[m.session_id];
    REQUIRE_FALSE(expect.empty());
    auto r = kw(fx, "phoenix", [](FilterArgs& a) { a.include_meta = true; });
    CHECK(r.hits.size() == expect.size());
    for (const auto& [sid, n] : expect) {
        INFO(sid);
        const Hit* h = hit_for(r, sid);
        REQUIRE(h);
        CHECK(h->match_count == n);
    }
}

TEST_CASE("search: keyword --sort newest and oldest order by time", "[search]") {
    Fixture fx(kAll);
    auto newest = kw(fx, "file", {}, true, "newest");
    auto oldest = kw(fx, "file", {}, true, "oldest");
    REQUIRE(newest.hits.size() >= 10);
    REQUIRE(oldest.hits.size() == newest.hits.size());
    // A title hit (no message) stands at its session's end time.
    auto t = [](const Hit& h) { return h.message ? h.message->timestamp_ms : h.session.ended_at; };
    for (size_t i = 1; i < newest.hits.size(); ++i) CHECK(t(newest.hits[i - 1]) >= t(newest.hits[i]));
    for (size_t i = 1; i < oldest.hits.size(); ++i) CHECK(t(oldest.hits[i - 1]) <= t(oldest.hits[i]));
    // The extremes really are the newest / oldest matching messages.
    CHECK(newest.hits.front().session.id == kPoshId);
    CHECK(oldest.hits.front().session.id == kSampleId);

    auto sess_new = kw(fx, "file", {}, false, "newest");
    REQUIRE(sess_new.hits.size() >= 5);
    for (size_t i = 1; i < sess_new.hits.size(); ++i) CHECK(t(sess_new.hits[i - 1]) >= t(sess_new.hits[i]));
    CHECK(session_ids(sess_new).size() == sess_new.hits.size());
    auto sess_old = kw(fx, "file", {}, false, "oldest");
    for (size_t i = 1; i < sess_old.hits.size(); ++i) CHECK(t(sess_old.hits[i - 1]) <= t(sess_old.hits[i]));
}

// =============================================================================================
// Filters (SPEC §3 "Common filters")

TEST_CASE("search: --project is a case-insensitive substring of slug or path", "[search]") {
    Fixture fx(kAll);
    const std::set<std::string> spotter = {kSpotterAId, kSpotterBId};
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.project = {"spotter"}; })) == spotter);
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.project = {"SPOTTER"}; })) == spotter);
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.project = {"/home/marco/projects"}; })) == spotter);  // path
    CHECK(session_ids(kw(fx, "file", [](FilterArgs& a) { a.project = {"Spotter"}; })) == spotter);
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.project = {"oh-my-posh"}; })) == std::set<std::string>{kPoshId});
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.project = {"spotter", "oh-my"}; })) ==
          std::set<std::string>{kSpotterAId, kSpotterBId, kPoshId});
    CHECK(ls(fx, [](FilterArgs& a) { a.project = {"no-such-project"}; }).hits.empty());
    auto c = ct(fx, {{"phoenix"}}, [](FilterArgs& a) { a.project = {"SPOTTER"}; });
    CHECK_FALSE(c.hits.empty());
    for (const auto& h : c.hits) CHECK(spotter.count(h.session.id) == 1);
}

TEST_CASE("search: --agent filters by agent kind", "[search]") {
    Fixture fx({kAlex, kPosh, kSpotterB});
    CHECK(ls(fx, [](FilterArgs& a) { a.agent = {"claude"}; }).hits.size() == 3);
    CHECK(ls(fx, [](FilterArgs& a) { a.agent = {"codex"}; }).hits.empty());
    CHECK(kw(fx, "file", [](FilterArgs& a) { a.agent = {"omp"}; }).hits.empty());
    CHECK(ct(fx, {{"file"}}, [](FilterArgs& a) { a.agent = {"pi"}; }).hits.empty());
    CHECK_FALSE(kw(fx, "file", [](FilterArgs& a) { a.agent = {"claude"}; }).hits.empty());
    CHECK_THROWS_AS(make_filters([](FilterArgs& a) { a.agent = {"gemini"}; }), BadInput);
}

TEST_CASE("search: --session takes id prefixes and repeats", "[search]") {
    Fixture fx(kAll);
    CHECK(session_ids(kw(fx, "file", [](FilterArgs& a) { a.session = {"97007e"}; })) == std::set<std::string>{kSophId});
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.session = {kPoshId}; })) == std::set<std::string>{kPoshId});
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.session = {"97007E37"}; })) == std::set<std::string>{kSophId});
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.session = {"9700", "5560"}; })) ==
          std::set<std::string>{kSophId, kSpotterBId});
    auto c = ct(fx, {{"file"}}, [](FilterArgs& a) { a.session = {"d6e0"}; });
    CHECK(session_ids(c) == std::set<std::string>{kSpotterAId});
    CHECK(ls(fx, [](FilterArgs& a) { a.session = {"ffffffff"}; }).hits.empty());
}

TEST_CASE("search: --since and --until take dates and ISO times with offsets and relative times and until is exclusive", "[search]") {
    Fixture fx(kAll);
    // Dates (local midnight) with a day of margin on both sides.
    auto feb = [](FilterArgs& a) {
        a.since = "2026-02-01";
        a.until = "2026-02-12";
    };
    const std::set<std::string> in_feb = {kCaptureId, kSpotterAId, kSpotterBId};
    CHECK(session_ids(kw(fx, "the", feb)) == in_feb);
    CHECK(session_ids(ct(fx, {{"the"}}, feb)) == in_feb);
    CHECK(session_ids(ls(fx, feb)) == in_feb);

    // The last message of kAlex is at 03:15:25.841Z: --until that instant excludes it, --since includes it.
    const std::string last_uuid = "f04ae514-b96a-44f0-9edd-c0a53182f746";
    auto base = kw_msg(fx, "CODEOWNERS");
    REQUIRE(message_uuids(base).count(last_uuid) == 1);
    auto before = kw_msg(fx, "CODEOWNERS", [](FilterArgs& a) { a.until = "2026-01-19T03:15:25.841Z"; });
    CHECK(message_uuids(before).count(last_uuid) == 0);
    CHECK(before.hits.size() == base.hits.size() - 1);
    auto from = kw_msg(fx, "CODEOWNERS", [](FilterArgs& a) { a.since = "2026-01-19T03:15:25.841Z"; });
    CHECK(message_uuids(from) == std::set<std::string>{last_uuid});
    // The same instants written with a +08:00 offset.
    auto before8 = kw_msg(fx, "CODEOWNERS", [](FilterArgs& a) { a.until = "2026-01-19T11:15:25.841+08:00"; });
    CHECK(message_uuids(before8) == message_uuids(before));
    auto from8 = ct(fx, {{"CODEOWNERS"}, false, false, false, true},
                    [](FilterArgs& a) { a.since = "2026-01-19T11:15:25.841+08:00"; });
    CHECK(message_uuids(from8) == std::set<std::string>{last_uuid});
    auto until_c = ct(fx, {{"CODEOWNERS"}, false, false, false, true},
                      [](FilterArgs& a) { a.until = "2026-01-19T03:15:25.841Z"; });
    CHECK(message_uuids(until_c).count(last_uuid) == 0);
    CHECK_FALSE(until_c.hits.empty());

    // Relative: N days back from now reaches the newest session (2026-07-11) but not the February ones.
    const int64_t day = 86400000;
    const int64_t posh_start = iso_ms("2026-07-11T06:18:25.945Z");
    const int64_t days = (now_ms() - posh_start) / day + 1;
    REQUIRE(now_ms() - days * day > iso_ms("2026-02-10T22:59:46.748Z"));
    const std::string rel = std::to_string(days) + "d";
    CHECK(session_ids(kw(fx, "the", [&](FilterArgs& a) { a.since = rel; })) == std::set<std::string>{kPoshId});
    CHECK(session_ids(ls(fx, [&](FilterArgs& a) { a.since = rel; })) == std::set<std::string>{kPoshId});
    CHECK(session_ids(ls(fx, [&](FilterArgs& a) { a.since = std::to_string(days * 24) + "h"; })) ==
          std::set<std::string>{kPoshId});
    CHECK_FALSE(session_ids(ls(fx, [&](FilterArgs& a) { a.until = rel; })).count(kPoshId));
    CHECK(ls(fx, [](FilterArgs& a) { a.since = "1s"; }).hits.empty());
    CHECK(ls(fx, [](FilterArgs& a) { a.until = "1s"; }).hits.size() == kAll.size());

    // Bad times are BadInput("bad-time").
    for (const char* bad : {"yesterday", "2026-13-45", "5x", "-3d", ""}) {
        if (std::string(bad).empty()) continue;
        INFO(bad);
        try {
            make_filters([&](FilterArgs& a) { a.since = bad; });
            FAIL("no error for --since " << bad);
        } catch (const BadInput& e) {
            CHECK(e.kind == "bad-time");
        }
    }
}

TEST_CASE("search: --branch is the exact git branch", "[search]") {
    Fixture fx(kAll);
    const std::set<std::string> master = {kSpotterAId, kSpotterBId};
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.branch = {"master"}; })) == master);
    CHECK(session_ids(kw(fx, "file", [](FilterArgs& a) { a.branch = {"master"}; })) == master);
    CHECK(session_ids(ct(fx, {{"the"}}, [](FilterArgs& a) { a.branch = {"master"}; })) == master);
    const std::string alex_branch = "alex/ent-98-move-helpgo-back-into-the-main-cli-package";
    CHECK(session_ids(kw(fx, "CODEOWNERS", [&](FilterArgs& a) { a.branch = {alex_branch}; })) ==
          std::set<std::string>{kAlexId});
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.branch = {"next", "master"}; })) ==
          std::set<std::string>{kSpotterAId, kSpotterBId, kPoshId});
    CHECK(ls(fx, [](FilterArgs& a) { a.branch = {"mast"}; }).hits.empty());
    CHECK(kw(fx, "file", [](FilterArgs& a) { a.branch = {"no-such-branch"}; }).hits.empty());
}

TEST_CASE("search: --model is a substring of the session's models", "[search]") {
    Fixture fx(kAll);
    const std::set<std::string> haiku = {kCaptureId, kBlameId};
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.model = {"haiku"}; })) == haiku);
    CHECK(session_ids(kw(fx, "file", [](FilterArgs& a) { a.model = {"HAIKU"}; })) == haiku);
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.model = {"claude-opus-4-6"}; })) ==
          std::set<std::string>{kSpotterAId, kSpotterBId});
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.model = {"sonnet"}; })) == std::set<std::string>{kSampleId});
    CHECK(session_ids(ct(fx, {{"the"}}, [](FilterArgs& a) { a.model = {"fable"}; })) == std::set<std::string>{kPoshId});
    CHECK(ls(fx, [](FilterArgs& a) { a.model = {"gpt-5"}; }).hits.empty());
}

TEST_CASE("search: --role keeps roles and tool results are role tool never user", "[search]") {
    Fixture fx(kAll);
    auto sample = read_transcript(fx.path(kSample));
    auto no_files = uuids_where(sample, contains("No files found"));
    REQUIRE(no_files.size() >= 5);
    for (const auto& m : sample)
        if (no_files.count(m.uuid)) REQUIRE(m.tool_result);

    auto tool = ct(fx, {{"No files found"}, false, false, false, true}, [](FilterArgs& a) {
        a.role = {"tool"};
        a.session = {kSampleId};
    });
    CHECK(message_uuids(tool) == no_files);
    for (const auto& h : tool.hits) CHECK(msg(h).role == Role::Tool);
    CHECK(ct(fx, {{"No files found"}, false, false, false, true}, [](FilterArgs& a) { a.role = {"user"}; }).hits.empty());
    auto kt = kw_msg(fx, "\"No files found\"", [](FilterArgs& a) { a.role = {"tool"}; a.session = {kSampleId}; });
    CHECK(message_uuids(kt) == no_files);
    CHECK(kw_msg(fx, "\"No files found\"", [](FilterArgs& a) { a.role = {"user"}; }).hits.empty());

    auto users = kw_msg(fx, "file", [](FilterArgs& a) { a.role = {"user"}; });
    CHECK_FALSE(users.hits.empty());
    for (const auto& h : users.hits) {
        CHECK(msg(h).role == Role::User);
        CHECK(msg(h).content_type != ContentType::ToolResult);
    }
    auto asst = kw_msg(fx, "file", [](FilterArgs& a) { a.role = {"assistant"}; });
    CHECK_FALSE(asst.hits.empty());
    for (const auto& h : asst.hits) CHECK(msg(h).role == Role::Assistant);
    auto both = kw_msg(fx, "file", [](FilterArgs& a) { a.role = {"user", "tool"}; });
    for (const auto& h : both.hits) CHECK(msg(h).role != Role::Assistant);
    // Every tool_result in the corpus is role tool.
    auto results = kw_msg(fx, "file", [](FilterArgs& a) { a.type = {"tool_result"}; });
    CHECK_FALSE(results.hits.empty());
    for (const auto& h : results.hits) CHECK(msg(h).role == Role::Tool);
    CHECK_THROWS_AS(make_filters([](FilterArgs& a) { a.role = {"robot"}; }), BadInput);
}

TEST_CASE("search: a file read with line-number gutters is found by its first words, content still sees the gutter",
          "[search]") {
    Fixture fx({kAlexLinear});
    auto msgs = read_transcript(fx.path(kAlexLinear));
    // "     1→package commands": the gutter is not part of the first word.
    auto expect = uuids_where(msgs, contains("1→package commands"));
    REQUIRE_FALSE(expect.empty());
    auto r = kw_msg(fx, "\"package commands\"", [](FilterArgs& a) { a.include_meta = true; });
    auto found = message_uuids(r);
    CHECK(std::includes(found.begin(), found.end(), expect.begin(), expect.end()));
    // The text keeps it: a content scan matches the gutter itself.
    auto c = ct(fx, {{"1→package commands"}, true, false, false, true}, [](FilterArgs& a) { a.include_meta = true; });
    CHECK(message_uuids(c) == expect);
}
