// CLI: regex and usage errors, text format, global options, filters wired, refresh, permissions, empty index.
#include "tests/cli_fixture.h"

TEST_CASE("cli: unsupported regex constructs are named in the error", "[cli]") {
    // SPEC §4: a construct that cannot run is a clear error naming the construct, exit 2. Backreferences and
    // fixed-length lookaround do run (Hyperscan prefilter + PCRE2, checked for exact answers elsewhere);
    // a variable-length lookbehind runs in neither engine.
    Cli cli({kAlex});
    struct Case {
        std::string pattern, construct;
    };
    for (const auto& c : std::vector<Case>{{"(?<=a+)b", "lookbehind"},
                                           {"(?<!\\w+)x", "lookbehind"}}) {
        INFO(c.pattern);
        RunResult r = cli.run({"content", c.pattern});
        INFO("stdout: " << r.out.substr(0, 300) << "\nstderr: " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.out.empty());
        Json e;
        CHECK(try_parse(last_line(r.err), e));
        if (e.has("error")) {
            CHECK(e["error"]["kind"].s == "bad-regex");
            std::string m = e["error"]["message"].s;
            std::transform(m.begin(), m.end(), m.begin(), [](unsigned char ch) { return std::tolower(ch); });
            CHECK(m.find(c.construct) != std::string::npos);
        } else {
            FAIL_CHECK("no {\"error\":…} object on stderr");
        }
    }
    // Text format: a readable message on stderr, still exit 2.
    RunResult t = cli.run({"content", "(?<=a+)b"}, "text");
    CHECK(t.exit_code == 2);
    CHECK(t.out.empty());
    CHECK(t.err.find("osearch") != std::string::npos);
    CHECK(t.err.find('{') == std::string::npos);
}

TEST_CASE("cli: a JSON error is written whether --format json comes before or after the bad flag", "[cli]") {
    Cli cli({kAlex});
    const std::string idx = cli.idx, src = "claude=" + cli.src;
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"--format", "json", "--index", idx, "--source", src, "keyword", "foo", "--bogus"},
             {"keyword", "foo", "--bogus", "--format", "json", "--index", idx, "--source", src},
             {"--index", idx, "--source", src, "keyword", "foo", "--format", "json", "--bogus"},
         }) {
        INFO(Catch::Detail::stringify(args));
        RunResult r = run_osearch(args);
        INFO(r.err);
        CHECK(r.exit_code == 2);
        Json e;
        REQUIRE(try_parse(last_line(r.err), e));
        CHECK(e["error"]["kind"].s == "usage");
    }
}

TEST_CASE("cli: usage errors without --format exit 2", "[cli]") {
    Cli cli({kAlex});
    for (const auto& args : std::vector<std::vector<std::string>>{
             {}, {"nosuchcommand"}, {"keyword"}, {"content"}, {"--format", "xml", "list"}}) {
        INFO(Catch::Detail::stringify(args));
        std::vector<std::string> a = args;
        a.insert(a.end(), {"--index", cli.idx, "--source", "claude=" + cli.src});
        RunResult r = run_osearch(a);
        CHECK(r.exit_code == 2);
        CHECK(r.term_signal == 0);
        CHECK_FALSE(r.err.empty());
    }
}

// =============================================================================================
// Formats and options

TEST_CASE("cli: --format text prints a readable block", "[cli]") {
    Cli cli({kAlex, kPosh});
    RunResult r = cli.run({"keyword", "CODEOWNERS"}, "text");
    REQUIRE(r.exit_code == 0);
    Json ignored;
    CHECK_FALSE(try_parse(r.out, ignored));
    CHECK(r.out.find(kAlexId) != std::string::npos);
    CHECK(r.out.find("CODEOWNERS") != std::string::npos);
    CHECK(r.out.find("claude --resume " + kAlexId) != std::string::npos);
    CHECK(r.out.find("\033[") == std::string::npos);  // no colour when stdout is not a terminal
    CHECK(valid_utf8(r.out));
    RunResult l = cli.run({"list"}, "text");
    REQUIRE(l.exit_code == 0);
    CHECK(l.out.find("Remove phantom nul file") != std::string::npos);
    CHECK(l.out.find(kPoshId) != std::string::npos);
    // Default format when stdout is not a terminal: JSON.
    RunResult d = cli.run({"list"}, "");
    REQUIRE(d.exit_code == 0);
    Json j = parse(d.out);
    CHECK(j["action"].s == "list");
}

TEST_CASE("cli: global options are accepted before or after the command", "[cli]") {
    Cli cli({kAlex, kPosh});
    const std::string idx = cli.idx, src = "claude=" + cli.src;
    const std::vector<std::vector<std::string>> forms = {
        {"keyword", "CODEOWNERS", "--index", idx, "--source", src, "--format", "json"},
        {"--index", idx, "--source", src, "--format", "json", "keyword", "CODEOWNERS"},
        {"--index", idx, "keyword", "--format", "json", "CODEOWNERS", "--source", src},
        {"--format=json", "keyword", "CODEOWNERS", "--index=" + idx, "--source=" + src, "--no-refresh", "-q"},
    };
    for (const auto& f : forms) {
        INFO(Catch::Detail::stringify(f));
        RunResult r = run_osearch(f);
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        Json j = parse(r.out);
        CHECK(j["action"].s == "keyword");
        CHECK(j["index"]["sessions"].i == 2);
        REQUIRE(j["results"].a.size() == 1);
        CHECK(j["results"][0]["session_id"].s == kAlexId);
    }
    // $OSEARCH_INDEX and $OSEARCH_SOURCES stand in for the options.
    RunOptions env;
    env.env["OSEARCH_INDEX"] = idx;
    env.env["OSEARCH_SOURCES"] = src;
    RunResult e = run_osearch({"list", "--format", "json"}, "", env);
    REQUIRE(e.exit_code == 0);
    CHECK(parse(e.out)["results"].a.size() == 2);
}

TEST_CASE("cli: --version and --help exit 0", "[cli]") {
    RunResult v = run_osearch({"--version"});
    CHECK(v.exit_code == 0);
    CHECK(v.out.find("osearch") != std::string::npos);
    CHECK(std::regex_search(v.out, std::regex("\\d+\\.\\d+\\.\\d+")));
    RunResult h = run_osearch({"--help"});
    CHECK(h.exit_code == 0);
    for (const char* cmd : {"index", "keyword", "content", "list", "--index", "--format"})
        CHECK(h.out.find(cmd) != std::string::npos);
    RunResult kh = run_osearch({"keyword", "--help"});
    CHECK(kh.exit_code == 0);
    for (const char* opt : {"--by", "--sort", "--project", "--since", "--until", "--limit"})
        CHECK(kh.out.find(opt) != std::string::npos);
    RunResult ch = run_osearch({"content", "--help"});
    CHECK(ch.exit_code == 0);
    for (const char* opt : {"-F", "-i", "-w", "-e"}) CHECK(ch.out.find(opt) != std::string::npos);
}

TEST_CASE("cli: every filter flag is wired to the engine", "[cli]") {
    Cli cli({kAlex, kPosh, kSpotterA, kSpotterB, kSample, kBlameDir});
    auto sessions = [&](std::vector<std::string> args) {
        Json j = cli.json(args);
        return field_set(j["results"], "session_id");
    };
    const std::set<std::string> spotter = {kSpotterAId, kSpotterBId};
    CHECK(sessions({"list", "--project", "SPOTTER"}) == spotter);
    CHECK(sessions({"list", "--agent", "claude"}).size() == 6);
    CHECK(sessions({"list", "--agent", "codex"}).empty());
    CHECK(sessions({"list", "--session", "d6e0", "--session", "5560"}) == spotter);
    CHECK(sessions({"list", "--since", "2026-02-01", "--until", "2026-02-12"}) == spotter);
    CHECK(sessions({"list", "--since", "2026-07-11T14:00:00+08:00", "--until", "2026-07-11T14:30:00+08:00"}) ==
          std::set<std::string>{kPoshId});
    CHECK(sessions({"list", "--since", "100000d"}).size() == 6);
    CHECK(sessions({"list", "--since", "1h"}).empty());
    CHECK(sessions({"list", "--branch", "master"}) == spotter);
    CHECK(sessions({"list", "--model", "haiku"}) == std::set<std::string>{kBlameId});
    CHECK(sessions({"list", "--cwd", "/home/marco"}) == spotter);
    CHECK(sessions({"keyword", "file", "--model", "fable"}) == std::set<std::string>{kPoshId});

    Json tool = cli.json({"content", "No files found", "--role", "tool", "--by", "message"});
    REQUIRE(tool["results"].a.size() >= 5);
    for (const auto& h : tool["results"].a) {
        CHECK(h["role"].s == "tool");
        CHECK(h["content_type"].s == "tool_result");
    }
    CHECK(cli.json({"content", "No files found", "--role", "user"})["total"].i == 0);
    Json types = cli.json({"keyword", "the", "--type", "thinking", "--by", "message"});
    REQUIRE_FALSE(types["results"].a.empty());
    for (const auto& h : types["results"].a) CHECK(h["content_type"].s == "thinking");
    Json w = cli.json({"keyword", "CODEOWNERS", "--tool", "Write", "--by", "message"});
    CHECK(field_set(w["results"], "message_uuid") ==
          std::set<std::string>{"33c6b8d0-d4d2-4b07-b926-46adc29db0f0", "1aa717b0-64e9-4003-9bce-845587cafe55"});
    // Meta hidden by default; --include-meta shows it.
    CHECK(cli.json({"content", "-F", "Please analyze this codebase"})["total"].i == 0);
    CHECK(cli.json({"content", "-F", "Please analyze this codebase", "--include-meta"})["total"].i == 1);
    CHECK(cli.json({"content", "-F", "<command-name>/init", "--type", "command"})["total"].i == 1);
    // --limit / --offset.
    Json all = cli.json({"list"});
    Json page = cli.json({"list", "--limit", "2", "--offset", "1"});
    REQUIRE(page["results"].a.size() == 2);
    CHECK(page["total"].i == all["total"].i);
    CHECK(page["results"][0]["session_id"].s == all["results"][1]["session_id"].s);
    CHECK(page["results"][1]["session_id"].s == all["results"][2]["session_id"].s);
    Json kl = cli.json({"keyword", "the", "--by", "message", "--limit", "3"});
    CHECK(kl["returned"].i == 3);
    CHECK(kl["total"].i > 3);
}

TEST_CASE("cli: keyword --by message and --sort", "[cli]") {
    Cli cli({kAlex, kPosh, kSpotterB});
    Json s = cli.json({"keyword", "the"});
    CHECK(field_set(s["results"], "session_id").size() == s["results"].a.size());
    Json m = cli.json({"keyword", "CODEOWNERS", "--by", "message"});
    CHECK(m["results"].a.size() == 6);
    CHECK(field_set(m["results"], "message_uuid").size() == 6);
    Json n = cli.json({"keyword", "the", "--by", "message", "--sort", "newest", "--limit", "100"});
    Json o = cli.json({"keyword", "the", "--by", "message", "--sort", "oldest", "--limit", "100"});
    REQUIRE(n["results"].a.size() >= 5);
    for (size_t k = 1; k < n["results"].a.size(); ++k) CHECK(n["results"][k - 1]["time"].s >= n["results"][k]["time"].s);
    for (size_t k = 1; k < o["results"].a.size(); ++k) CHECK(o["results"][k - 1]["time"].s <= o["results"][k]["time"].s);
    CHECK(n["results"][0]["session_id"].s == kPoshId);
    CHECK(o["results"][0]["session_id"].s == kAlexId);
}

// =============================================================================================
// Index lifecycle as seen by queries

TEST_CASE("cli: content finds a session whose source file was deleted", "[cli]") {
    Cli cli({kAlex, kPosh});
    fs::remove(cli.path(kAlex));
    // Without a refresh the index still answers from what it has.
    Json nr = cli.json({"content", "CODEOWNERS", "--no-refresh"});
    REQUIRE(nr["results"].a.size() == 1);
    CHECK(nr["results"][0]["session_id"].s == kAlexId);
    CHECK(nr["results"][0]["match_count"].i == 6);
    // The refresh before a query notices the deletion; the session stays searchable.
    Json r = cli.json({"content", "CODEOWNERS"});
    REQUIRE(r["results"].a.size() == 1);
    CHECK(r["results"][0]["session_id"].s == kAlexId);
    CHECK(r["results"][0]["source_deleted"].b == true);
    CHECK(r["results"][0]["match_count"].i == 6);
    Json again = cli.json({"content", "CODEOWNERS", "--no-refresh"});
    REQUIRE(again["results"].a.size() == 1);
    CHECK(again["results"][0]["source_deleted"].b == true);
    Json k = cli.json({"keyword", "CODEOWNERS"});
    REQUIRE(k["results"].a.size() == 1);
    CHECK(k["results"][0]["source_deleted"].b == true);
    Json l = cli.json({"list", "--session", kAlexId});
    REQUIRE(l["results"].a.size() == 1);
    CHECK(l["results"][0]["source_deleted"].b == true);
    CHECK(l["results"][0]["message_count"].i == 6);
}

TEST_CASE("cli: queries refresh appended transcript bytes unless --no-refresh", "[cli]") {
    Cli cli({kPosh}, false);
    const std::string full = read_file(root_of(kAlex) + "/" + kAlex);
    // The first 4 lines (through the first assistant chunk), then the rest; the file ends without a newline.
    size_t cut = 0;
    for (int n = 0; n < 4; ++n) cut = full.find('\n', cut) + 1;
    REQUIRE(full.back() != '\n');
    write_file(cli.path(kAlex), full.substr(0, cut));
    cli.index();
    Json before = cli.json({"content", "CODEOWNERS", "--by", "message"});
    CHECK(before["results"].a.size() == 2);
    append_file(cli.path(kAlex), full.substr(cut));
    Json stale = cli.json({"content", "CODEOWNERS", "--by", "message", "--no-refresh"});
    CHECK(stale["results"].a.size() == 2);
    CHECK(stale["index"]["refreshed_files"].i == 0);
    Json fresh = cli.json({"content", "CODEOWNERS", "--by", "message"});
    CHECK(fresh["index"]["refreshed_files"].i >= 1);
    CHECK(fresh["results"].a.size() == 6);
    // The complete last line without a trailing newline is taken.
    CHECK(field_set(fresh["results"], "message_uuid").count("f04ae514-b96a-44f0-9edd-c0a53182f746") == 1);
    Json k = cli.json({"keyword", "CODEOWNERS"});
    REQUIRE(k["results"].a.size() == 1);
    CHECK(k["results"][0]["match_count"].i == 6);
    CHECK(k["index"]["refreshed_files"].i == 0);  // unchanged corpus: nothing re-read
    CHECK(k["index"]["messages"].i == 13);
}

TEST_CASE("cli: the index directory is private with 0700 dirs and 0600 files", "[cli]") {
    Cli cli({kAlex});
    CHECK(mode_bits(cli.idx) == 0700);
    auto files = list_files(cli.idx);
    REQUIRE_FALSE(files.empty());
    for (const auto& f : files) {
        INFO(f);
        CHECK((mode_bits(cli.idx + "/" + f) & 077) == 0);
    }
    for (auto it = fs::recursive_directory_iterator(cli.idx); it != fs::recursive_directory_iterator(); ++it) {
        if (!it->is_directory()) continue;
        INFO(it->path().string());
        CHECK((mode_bits(it->path().string()) & 077) == 0);
    }
}

TEST_CASE("cli: a query on a missing index creates it from the sources", "[cli]") {
    Cli cli({kAlex}, false);
    Json j = cli.json({"keyword", "CODEOWNERS"});
    CHECK(j["index"]["sessions"].i == 1);
    CHECK(j["index"]["refreshed_files"].i >= 1);
    REQUIRE(j["results"].a.size() == 1);
    CHECK(j["results"][0]["session_id"].s == kAlexId);
}

TEST_CASE("cli: queries on an empty index answer zero results, not an error", "[cli]") {
    // A first run where the source root exists but holds no transcripts yet (a fresh ~/.claude/projects).
    Cli cli({}, true);
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"keyword", "error"}, {"content", "error"}, {"list"}, {"keyword", "foo", "--by", "message"}}) {
        INFO(args.front());
        RunResult r = cli.run(args);
        INFO("stderr: " << r.err);
        CHECK(r.exit_code == 0);
        Json j;
        REQUIRE(try_parse(r.out, j));
        CHECK(j["total"].i == 0);
    }
}

TEST_CASE("cli: index --watch picks up appended lines without a query refreshing", "[cli][watch]") {
    Cli cli({kAlex});
    // `index --watch` runs until it is killed.
    const std::string bin = osearch_binary();
    const std::string idx = cli.idx, src = "claude=" + cli.src;
    pid_t watcher = fork_child([&] {
        int devnull = ::open("/dev/null", O_WRONLY);
        ::dup2(devnull, 1);
        ::dup2(devnull, 2);
        ::execl(bin.c_str(), bin.c_str(), "index", "--watch", "--index", idx.c_str(), "--source", src.c_str(),
                static_cast<char*>(nullptr));
        return 127;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));  // let its first pass finish, so a poll takes the line
    const std::string sid = kAlex.substr(kAlex.find('/') + 1, 36);
    append_file(cli.path(kAlex), std::string("\n{\"type\":\"user\",\"uuid\":\"0a0a0a0a-0000-4000-8000-00000000beef\",\"sessionId\":\"") +
                                     sid + "\",\"timestamp\":\"2026-01-19T05:00:00.000Z\",\"cwd\":\"/tmp\",\"message\":"
                                     "{\"role\":\"user\",\"content\":\"watchword zebraquokka\"}}\n");
    // Wait for a poll to take the line (no timing is asserted: up to 30 s on a loaded machine).
    int64_t total = 0;
    for (int i = 0; i < 150 && total == 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        total = cli.json({"keyword", "zebraquokka", "--no-refresh"})["total"].i;
    }
    ::kill(watcher, SIGKILL);
    wait_child(watcher);
    CHECK(total == 1);
}
