// memory remember/forget/restore/list/show: the contract of SPEC §6 and issue 11 through the CLI.
#include "tests/memory_fixture.h"

TEST_CASE("memory: remember returns the record and show reads the file", "[memory]") {
    Mem m;
    const std::string p = m.note("a.md", "# Build\nUse make build JOBS=1 on shared machines.\n");
    Json r = m.remember(p, "how to build on a shared box", {"--anchor", "file:src/main.cpp:42", "--anchor", "doc:README.md"});
    for (const char* k : {"id", "path", "project", "anchors", "created_at"}) CHECK(r.has(k));
    CHECK(r["path"].s == p);
    CHECK(is_iso_ms(r["created_at"]));
    REQUIRE(r["anchors"].a.size() == 2);
    CHECK(r["anchors"][0]["kind"].s == "file");
    CHECK(r["anchors"][0]["path"].s == "src/main.cpp");
    CHECK(r["anchors"][0]["line"].i == 42);
    CHECK(r["anchors"][1]["line"].is_null());
    const std::string id = r["id"].s;

    Json s = m.json({"memory", "show", id});
    CHECK(s["exists"].b);
    CHECK(s["text"].s.find("JOBS=1") != std::string::npos);
    CHECK(s["summary"].s == "how to build on a shared box");
    // A prefix that is unique is enough.
    Json s2 = m.json({"memory", "show", id.substr(0, 12)});
    CHECK(s2["id"].s == id);

    // The file goes away: the memory stays, show says so.
    fs::remove(p);
    Json gone = m.json({"memory", "show", id});
    CHECK_FALSE(gone["exists"].b);
    CHECK(gone["text"].is_null());
}

TEST_CASE("memory: forget, second forget, restore and list", "[memory]") {
    Mem m;
    const std::string a = m.json({"memory", "remember", "--path", m.note("a.md", "alpha"), "--summary", "first"})["id"].s;
    const std::string b = m.json({"memory", "remember", "--path", m.note("b.md", "beta"), "--summary", "second"})["id"].s;
    Json l = m.json({"memory", "list"});
    CHECK(l["total"].i == 2);
    CHECK(ids_of(l["results"]) == std::set<std::string>{a, b});
    CHECK(l["results"][0]["id"].s == b);  // newest first

    Json f = m.json({"memory", "forget", a, "--reason", "outdated"});
    CHECK_FALSE(f["already_deleted"].b);
    CHECK(f["deleted_reason"].s == "outdated");
    CHECK(is_iso_ms(f["deleted_at"]));
    Json f2 = m.json({"memory", "forget", a, "--reason", "again"});
    CHECK(f2["already_deleted"].b);
    CHECK(f2["deleted_reason"].s == "outdated");
    CHECK(ids_of(m.json({"memory", "list"})["results"]) == std::set<std::string>{b});
    CHECK(ids_of(m.json({"memory", "list", "--all"})["results"]) == std::set<std::string>{a, b});
    CHECK(m.json({"memory", "show", a})["deleted_reason"].s == "outdated");

    Json r = m.json({"memory", "restore", a});
    CHECK(r["deleted_at"].is_null());
    CHECK(ids_of(m.json({"memory", "list"})["results"]) == std::set<std::string>{a, b});

    Json h = m.json({"memory", "show", a, "--history"});
    REQUIRE(h["history"].a.size() == 3);
    CHECK(h["history"][0]["action"].s == "remember");
    CHECK(h["history"][1]["action"].s == "forget");
    CHECK(h["history"][1]["reason"].s == "outdated");
    CHECK(h["history"][2]["action"].s == "restore");
    CHECK(h["history"][2]["seq"].i == 3);
}

TEST_CASE("memory: unknown ids, missing and non-regular files, bad anchors are exit 2", "[memory]") {
    Mem m;
    auto check_error = [&](std::vector<std::string> args, const std::string& kind) {
        RunResult r = m.run(args);
        INFO(Catch::Detail::stringify(args) << "\n" << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.out.empty());
        Json e;
        REQUIRE(try_parse(last_line(r.err), e));
        CHECK(e["error"]["kind"].s == kind);
        CHECK_FALSE(e["error"]["message"].s.empty());
    };
    check_error({"memory", "show", "mzzzzzz"}, "unknown-memory");
    check_error({"memory", "forget", "mzzzzzz", "--reason", "x"}, "unknown-memory");
    check_error({"memory", "restore", "mzzzzzz"}, "unknown-memory");
    check_error({"memory", "remember", "--path", m.notes + "/nope.md", "--summary", "s"}, "bad-path");
    check_error({"memory", "remember", "--path", m.notes, "--summary", "s"}, "bad-path");
    check_error({"memory", "remember", "--path", m.note("x.md", "x"), "--summary", "s", "--anchor", "nocolon"}, "bad-anchor");
    check_error({"memory", "remember", "--path", m.note("y.md", "y"), "--summary", "s", "--session", "ffffffff-no"},
                "unknown-session");
    CHECK(m.json({"memory", "list"})["total"].i == 0);  // nothing was written by a refused remember
}

TEST_CASE("memory: relative paths resolve against the session's project path, else the cwd", "[memory]") {
    Mem m;
    // Without --session: the cwd.
    m.note("rel.md", "relative note");
    RunResult r = m.run_in(m.notes, {"memory", "remember", "--path", "rel.md", "--summary", "rel"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(parse(r.out)["path"].s == m.notes + "/rel.md");
    RunResult dots = m.run_in(m.notes, {"memory", "remember", "--path", "./x/../rel.md", "--summary", "rel"});
    REQUIRE(dots.exit_code == 0);
    CHECK(parse(dots.out)["path"].s == m.notes + "/rel.md");  // stored normalised

    // With --session: the session's project path. The recorded project (a macOS path) is not on
    // this machine, so the refusal names the path it resolved to.
    Json list = m.json({"list"});
    const std::string project_path = list["results"][0]["project_path"].s;
    REQUIRE_FALSE(project_path.empty());
    RunResult viasession = m.run_in(m.notes, {"memory", "remember", "--path", "docs/decision.md", "--summary", "d",
                                              "--session", kAlexId.substr(0, 8)});
    CHECK(viasession.exit_code == 2);
    CHECK(viasession.err.find(project_path + "/docs/decision.md") != std::string::npos);
    // An absolute path with --session: the session gives the project.
    Json rec = m.json({"memory", "remember", "--path", m.notes + "/rel.md", "--summary", "decision", "--session",
                       kAlexId.substr(0, 8)});
    CHECK(rec["session_id"].s == kAlexId);
    CHECK(rec["project"].s == list["results"][0]["project"].s);
    Json with_project = m.json({"memory", "remember", "--path", m.notes + "/rel.md", "--summary", "d2", "--session",
                                kAlexId, "--project", "Other"});
    CHECK(with_project["project"].s == "Other");
}

TEST_CASE("memory: remembered before the first index run, found after it", "[memory]") {
    TempDir t("memfirst");
    const std::string idx = t / "index", note = t / "n.md";
    write_file(note, "okapi notes");
    RunResult r = run_osearch({"memory", "remember", "--path", note, "--summary", "before any index", "--index", idx,
                               "--format", "json"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const std::string id = parse(r.out)["id"].s;
    CHECK(mode_bits(idx + "/memories") == 0700);
    // An empty data.mdb of an interrupted first run beside the memories is still an unborn env.
    fs::create_directories(idx + "/records");
    write_file(idx + "/records/data.mdb", "");
    RunResult ix = run_osearch({"index", "--index", idx, "--source", "claude=" + (t / "none"), "--format", "json"});
    INFO(ix.err);
    REQUIRE(ix.exit_code == 0);
    RunResult k = run_osearch({"keyword", "okapi", "--index", idx, "--source", "claude=" + (t / "none"), "--format", "json"});
    REQUIRE(k.exit_code == 0);
    Json j = parse(k.out);
    REQUIRE(j["results"].a.size() == 1);
    CHECK(j["results"][0]["id"].s == id);
}
