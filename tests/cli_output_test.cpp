// CLI: the JSON/JSONL/text output contract, golden fields, snippets, zero results, bad input.
#include "tests/cli_fixture.h"

TEST_CASE("cli: keyword JSON envelope and per-hit fields", "[cli]") {
    Cli cli({kAlex, kPosh});
    Json j = cli.json({"keyword", "CODEOWNERS"});
    check_envelope(j, "keyword");
    CHECK(j["query"].s == "CODEOWNERS");
    CHECK(j["index"]["sessions"].i == 2);
    CHECK(j["index"]["messages"].i == 13);  // 6 + 7 user/assistant lines
    CHECK(j["index"]["stale"].b == false);
    REQUIRE(j["results"].a.size() == 1);
    const Json& h = j["results"][0];
    check_search_hit(h);
    CHECK(h["session_id"].s == kAlexId);
    CHECK(h["project"].s == "-Users-alex-workspace-cli");
    CHECK(h["project_path"].s == "/Users/alex/workspace/cli");
    CHECK(h["cwd"].s == "/Users/alex/workspace/cli");
    CHECK(h["git_branch"].s == "alex/ent-98-move-helpgo-back-into-the-main-cli-package");
    CHECK(h["path"].s == cli.path(kAlex));
    CHECK(h["match_count"].i == 6);
    CHECK(h["message_count"].i == 6);
    CHECK(h["message_uuid"].is_str());
    CHECK(h["snippet"].s.find("CODEOWNERS") != std::string::npos);
    REQUIRE_FALSE(h["matched_terms"].a.empty());
    CHECK(h["matched_terms"][0].s == "codeowners");
    CHECK(h["source_deleted"].b == false);
    CHECK(h["resume_hint"].s == "cd /Users/alex/workspace/cli && claude --resume " + kAlexId);
}

TEST_CASE("cli: content JSON envelope and per-hit fields", "[cli]") {
    Cli cli({kAlex, kPosh});
    Json j = cli.json({"content", "CODE[O]WNERS"});
    check_envelope(j, "content");
    CHECK(j["query"].s == "CODE[O]WNERS");
    REQUIRE(j["results"].a.size() == 1);
    const Json& h = j["results"][0];
    check_search_hit(h);
    CHECK(h["session_id"].s == kAlexId);
    CHECK(h["match_count"].i == 6);
    CHECK(h["snippet"].s.find("CODEOWNERS") != std::string::npos);
    Json bm = cli.json({"content", "CODEOWNERS", "--by", "message"});
    check_envelope(bm, "content");
    CHECK(bm["results"].a.size() == 6);
    CHECK(field_set(bm["results"], "message_uuid").size() == 6);
    for (const auto& m : bm["results"].a) {
        check_search_hit(m);
        CHECK(m["match_count"].i == 1);
    }
}

TEST_CASE("cli: list JSON fields newest first", "[cli]") {
    Cli cli({kAlex, kPosh, kSpotterA, kSpotterB, kBlameDir});
    Json j = cli.json({"list"});
    check_envelope(j, "list");
    CHECK(j["query"].is_null());
    REQUIRE(j["results"].a.size() == 5);
    for (size_t n = 0; n < j["results"].a.size(); ++n) {
        const Json& h = j["results"][n];
        for (const auto& k : kListHitKeys) {
            INFO("list key " << k);
            CHECK(h.has(k));
        }
        CHECK(is_iso_ms(h["started_at"]));
        CHECK(is_iso_ms(h["ended_at"]));
        CHECK(h["models"].is_arr());
        for (const char* k : {"input", "output", "cache_creation", "cache_read"}) CHECK(h["tokens"][k].t == Json::T::Int);
        CHECK(h["subagent_count"].t == Json::T::Int);
        CHECK(h["message_count"].i >= 1);
        CHECK(h["resume_hint"].s == "cd " + h["cwd"].s + " && claude --resume " + h["session_id"].s);
        if (n > 0) CHECK(j["results"][n - 1]["ended_at"].s >= h["ended_at"].s);
    }
    std::vector<std::string> order;
    for (const auto& h : j["results"].a) order.push_back(h["session_id"].s);
    CHECK(order == std::vector<std::string>{kPoshId, kSpotterAId, kSpotterBId, kAlexId, kBlameId});
    const Json& blame = j["results"][4];
    CHECK(blame["subagent_count"].i == 2);
    CHECK(blame["models"].a.size() == 2);
}

TEST_CASE("cli: golden session fields of a real Windows transcript", "[cli]") {
    // Expected values read from D--oh-my-posh/88e16f61….jsonl: 2 user + 5 assistant lines, cwd D:\oh-my-posh,
    // gitBranch next, custom-title "Remove phantom nul file", first message 06:18:25.945Z, last 06:18:55.984Z,
    // usage of its two API messages (msg_011CcunR73…, msg_011CcunSea…) summed once each.
    Cli cli({kPosh, kAlex});
    Json j = cli.json({"list", "--session", "88e16f61"});
    REQUIRE(j["results"].a.size() == 1);
    const Json& h = j["results"][0];
    CHECK(h["session_id"].s == kPoshId);
    CHECK(h["agent"].s == "claude");
    CHECK(h["title"].s == "Remove phantom nul file");
    CHECK(h["project"].s == "D--oh-my-posh");
    CHECK(h["project_path"].s == "D:\\oh-my-posh");
    CHECK(h["cwd"].s == "D:\\oh-my-posh");
    CHECK(h["git_branch"].s == "next");
    CHECK(h["message_count"].i == 7);
    CHECK(h["started_at"].s == "2026-07-11T06:18:25.945Z");
    CHECK(h["ended_at"].s == "2026-07-11T06:18:55.984Z");
    CHECK(h["models"].a.size() == 1);
    CHECK(h["models"][0].s == "claude-fable-5");
    CHECK(h["tokens"]["input"].i == 11327);
    CHECK(h["tokens"]["output"].i == 814);
    CHECK(h["tokens"]["cache_creation"].i == 17283);
    CHECK(h["tokens"]["cache_read"].i == 55284);
    CHECK(h["subagent_count"].i == 0);
    CHECK(h["source_deleted"].b == false);
    CHECK(h["path"].s == cli.path(kPosh));
    CHECK(h["resume_hint"].s == "cd D:\\oh-my-posh && claude --resume 88e16f61-d1b7-47a3-84f1-057e0f96521a");

    // The same session fields on a keyword hit, plus the message's own.
    Json k = cli.json({"keyword", "\"reserved DOS device name\""});
    REQUIRE(k["results"].a.size() == 1);
    const Json& kh = k["results"][0];
    for (const char* key : {"session_id", "title", "project", "project_path", "git_branch", "started_at", "ended_at",
                            "resume_hint"})
        CHECK(kh[key].s == h[key].s);
    CHECK(kh["message_count"].i == 7);
    CHECK(kh["role"].s == "assistant");
    CHECK(kh["content_type"].s == "text");
    CHECK(kh["message_uuid"].s == "9e9672f9-4a39-4a11-91a8-f1e64f0fcfb5");
    CHECK(kh["time"].s >= h["started_at"].s);
    CHECK(kh["time"].s <= h["ended_at"].s);
}

TEST_CASE("cli: golden session fields of a real transcript titled by its first prompt", "[cli]") {
    // From -home-marco-projects-spotter/55604662….jsonl: 4 user + 5 assistant lines, first prompt
    // "mix phx.server doesnt seem to start", cwd /home/marco/projects/spotter, gitBranch master.
    Cli cli({kSpotterB, kSpotterA});
    Json j = cli.json({"list", "--session", kSpotterBId});
    REQUIRE(j["results"].a.size() == 1);
    const Json& h = j["results"][0];
    CHECK(h["session_id"].s == kSpotterBId);
    CHECK(h["title"].s == "mix phx.server doesnt seem to start");
    CHECK(h["project"].s == "-home-marco-projects-spotter");
    CHECK(h["project_path"].s == "/home/marco/projects/spotter");
    CHECK(h["cwd"].s == "/home/marco/projects/spotter");
    CHECK(h["git_branch"].s == "master");
    CHECK(h["message_count"].i == 9);
    CHECK(h["started_at"].s == "2026-02-10T21:11:56.846Z");
    CHECK(h["ended_at"].s == "2026-02-10T21:12:02.480Z");
    CHECK(h["models"].a.size() == 1);
    CHECK(h["models"][0].s == "claude-opus-4-6");
    CHECK(h["resume_hint"].s == "cd /home/marco/projects/spotter && claude --resume " + kSpotterBId);
}

TEST_CASE("cli: jsonl prints one object per result then a summary line", "[cli]") {
    Cli cli({kAlex, kPosh, kSoph});
    RunResult r = cli.run({"keyword", "file", "--by", "message", "--limit", "4"}, "jsonl");
    REQUIRE(r.exit_code == 0);
    auto lines = lines_of(r.out);
    REQUIRE(lines.size() == 5);
    for (size_t n = 0; n < 4; ++n) {
        Json h = parse(lines[n]);
        CHECK_FALSE(h["summary"].is_obj());  // a hit's "summary" is the session summary text
        check_search_hit(h);
    }
    Json last = parse(lines.back());
    REQUIRE(last.has("summary"));
    REQUIRE(last["summary"].is_obj());
    CHECK(last.keys() == std::vector<std::string>{"summary"});
    const Json& s = last["summary"];
    CHECK(s["action"].s == "keyword");
    CHECK(s["returned"].i == 4);
    CHECK(s["total"].i >= 4);
    CHECK(s["query"].s == "file");
    CHECK(s["index"]["sessions"].i == 3);
    CHECK_FALSE(s.has("results"));

    // Zero results: only the summary line.
    RunResult z = cli.run({"keyword", "zzzqqqxxx"}, "jsonl");
    REQUIRE(z.exit_code == 0);
    auto zl = lines_of(z.out);
    REQUIRE(zl.size() == 1);
    CHECK(parse(zl[0])["summary"]["total"].i == 0);

    // content and list too.
    RunResult c = cli.run({"content", "CODEOWNERS"}, "jsonl");
    REQUIRE(c.exit_code == 0);
    auto cl = lines_of(c.out);
    REQUIRE(cl.size() == 2);
    CHECK(parse(cl[0])["session_id"].s == kAlexId);
    CHECK(parse(cl[1])["summary"]["action"].s == "content");
    RunResult l = cli.run({"list"}, "jsonl");
    REQUIRE(l.exit_code == 0);
    auto ll = lines_of(l.out);
    REQUIRE(ll.size() == 4);
    CHECK(parse(ll[3])["summary"]["action"].s == "list");
    CHECK(parse(ll[3])["summary"]["total"].i == 3);
}

TEST_CASE("cli: every list's JSONL summary holds the JSON envelope", "[cli]") {
    Cli cli({kAlex, kPosh, kSoph});
    const std::string uuid =
        cli.json({"keyword", "file", "--by", "message", "--limit", "1"})["results"][0]["message_uuid"].s;
    // Each command, and the key of its list in JSON.
    const std::vector<std::pair<std::vector<std::string>, std::string>> commands = {
        {{"keyword", "file", "--limit", "1"}, "results"}, {{"content", "file", "--limit", "1"}, "results"},
        {{"list", "--limit", "1"}, "results"},            {{"thread", kAlexId, "--limit", "2"}, "messages"},
        {{"context", uuid}, "matches"},                   {{"files", "README.md"}, "results"},
        {{"failures"}, "results"},                        {{"subagents"}, "results"},
        {{"workflows"}, "results"},                       {{"stats", "tools", "--limit", "1"}, "rows"},
        {{"memory", "list"}, "results"},
    };
    for (const auto& [args, list_key] : commands) {
        INFO(Catch::Detail::stringify(args));
        Json j = cli.json(args);
        RunResult r = cli.run(args, "jsonl");
        REQUIRE(r.exit_code == 0);
        auto lines = lines_of(r.out);
        REQUIRE_FALSE(lines.empty());
        const Json last = parse(lines.back());
        REQUIRE(last["summary"].is_obj());
        const Json& summary = last["summary"];
        std::vector<std::string> envelope;
        for (const auto& k : j.keys())
            if (k != list_key) envelope.push_back(k);
        CHECK(summary.keys() == envelope);
        CHECK(lines.size() == j[list_key].a.size() + 1);
        for (const char* k : {"action", "total", "returned", "truncated"})
            if (j.has(k)) {
                INFO(k);
                CHECK(summary[k].i == j[k].i);
                CHECK(summary[k].b == j[k].b);
                CHECK(summary[k].s == j[k].s);
            }
    }
}

TEST_CASE("cli: snippets respect --snippet-chars and stay valid UTF-8 on CJK and emoji", "[cli]") {
    Cli cli({kSoph, kAlex});
    for (size_t n : {1u, 2u, 5u, 10u, 17u, 40u, 80u, 200u}) {
        const std::string chars = std::to_string(n);
        std::vector<std::vector<std::string>> queries = {
            {"keyword", "你好世界", "--by", "message"},
            {"content", "🎉", "--by", "message"},
            {"content", "你好世界", "--by", "message", "--include-meta"},
            {"content", "-F", "hello 🎉 world", "--by", "message"},
            {"keyword", "TruncateRunes", "--by", "message"},
        };
        for (auto q : queries) {
            q.insert(q.end(), {"--snippet-chars", chars});
            Json j = cli.json(q);
            REQUIRE_FALSE(j["results"].a.empty());
            for (const auto& h : j["results"].a) {
                const std::string& sn = h["snippet"].s;
                INFO(Catch::Detail::stringify(q) << " snippet [" << sn << "]");
                CHECK(valid_utf8(sn));
                CHECK(code_points(sn) <= n);
                CHECK_FALSE(sn.empty());
            }
        }
    }
    // Default: at most 200 characters, the match inside.
    Json d = cli.json({"content", "🎉", "--by", "message"});
    REQUIRE_FALSE(d["results"].a.empty());
    for (const auto& h : d["results"].a) {
        CHECK(code_points(h["snippet"].s) <= 200);
        CHECK(valid_utf8(h["snippet"].s));
        CHECK(h["snippet"].s.find("🎉") != std::string::npos);
    }
    Json c = cli.json({"keyword", "你好世界", "--by", "message", "--snippet-chars", "30"});
    for (const auto& h : c["results"].a) {
        INFO(h["snippet"].s);
        CHECK((h["snippet"].s.find("你好") != std::string::npos || h["snippet"].s.find("世界") != std::string::npos));
    }
}

TEST_CASE("cli: snippets are plain text without newlines or raw JSON escapes", "[cli]") {
    Cli cli({kSoph});
    Json j = cli.json({"content", "TruncateRunes\\(", "--by", "message", "--include-meta"});
    REQUIRE_FALSE(j["results"].a.empty());
    for (const auto& h : j["results"].a) {
        const std::string& sn = h["snippet"].s;
        INFO(sn);
        CHECK(sn.find("TruncateRunes(") != std::string::npos);
        CHECK(sn.find("\\\"") == std::string::npos);  // decoded text, not JSON source
        CHECK(sn.find("\\n") == std::string::npos);
    }
}

// =============================================================================================
// Exit codes and errors

TEST_CASE("cli: zero results exit 0 with an empty result list", "[cli]") {
    Cli cli({kAlex});
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"keyword", "zzzqqqxxx"},
             {"keyword", "数据库迁移"},
             {"content", "zzzqqqxxx"},
             {"content", "-F", "a.*b(c"},
             {"list", "--project", "no-such-project"},
             {"keyword", "CODEOWNERS", "--since", "1s"},
         }) {
        INFO(Catch::Detail::stringify(args));
        RunResult r = cli.run(args);
        INFO(r.err);
        CHECK(r.exit_code == 0);
        Json j = parse(r.out);
        CHECK(j["total"].i == 0);
        CHECK(j["returned"].i == 0);
        CHECK(j["results"].a.empty());
    }
}

TEST_CASE("cli: bad input exits 2 with a JSON error object on stderr", "[cli]") {
    Cli cli({kAlex});
    struct Case {
        std::vector<std::string> args;
        std::string kind;
    };
    const std::vector<Case> cases = {
        {{"keyword", "foo", "--no-such-flag"}, "usage"},
        {{"content", "foo", "--since", "yesterday"}, "bad-time"},
        {{"keyword", "foo", "--until", "2026-13-45"}, "bad-time"},
        {{"list", "--since", "5x"}, "bad-time"},
        {{"content", "(unclosed"}, "bad-regex"},
        {{"content", "a{3,1}"}, "bad-regex"},
        {{"keyword", "OR"}, "usage"},
        {{"keyword", "foo", "--role", "robot"}, "usage"},
        {{"keyword", "foo", "--agent", "gemini"}, "usage"},
        {{"keyword", "foo", "--sort", "sideways"}, "usage"},
        {{"list", "--limit", "0"}, "usage"},
    };
    for (const auto& c : cases) {
        INFO(Catch::Detail::stringify(c.args));
        RunResult r = cli.run(c.args);
        INFO("stdout: " << r.out << "\nstderr: " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.term_signal == 0);
        CHECK(r.out.empty());
        Json e;
        CHECK(try_parse(last_line(r.err), e));
        if (e.has("error")) {
            CHECK(e["error"]["kind"].s == c.kind);
            CHECK_FALSE(e["error"]["message"].s.empty());
        } else {
            FAIL_CHECK("no {\"error\":…} object on stderr");
        }
    }
}
