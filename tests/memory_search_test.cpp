// Memories in search: keyword hits of --type memory (CJK, emoji), memory list --query, overview,
// a changed file re-read on refresh, a deleted memories-text rebuilt.
#include "tests/memory_fixture.h"

TEST_CASE("memory: CJK and emoji summaries and file text are found by keyword and list --query", "[memory]") {
    Mem m;
    const std::string id = m.remember(m.note("zh.md", "部署流程：先运行迁移脚本，再重启服务 🚀 zebrafinch"),
                                      "状态存储只能在维护中修改 🦄")["id"].s;
    // A summary in Chinese, one of its words in the file text, an emoji, an ASCII word of the file.
    for (std::string q : {"状态存储", "迁移脚本", "🦄", "zebrafinch"}) {
        INFO(q);
        Json k = m.json({"keyword", q});
        auto hits = memory_hits(k);
        REQUIRE(hits.size() == 1);
        CHECK(hits[0]["id"].s == id);
        CHECK(hits[0]["content_type"].s == "memory");
        CHECK(hits[0]["summary"].s == "状态存储只能在维护中修改 🦄");
        Json l = m.json({"memory", "list", "--query", q});
        CHECK(ids_of(l["results"]) == std::set<std::string>{id});
    }
    // --type memory: memories only; a filter that cannot apply to a memory excludes it.
    Json only = m.json({"keyword", "zebrafinch", "--type", "memory"});
    CHECK(only["results"].a.size() == 1);
    Json t = m.json({"keyword", "the", "--type", "memory"});
    CHECK(t["results"].a.empty());
    CHECK(memory_hits(m.json({"keyword", "zebrafinch", "--role", "user"})).empty());
    CHECK(memory_hits(m.json({"keyword", "zebrafinch", "--model", "claude"})).empty());
    CHECK(memory_hits(m.json({"keyword", "zebrafinch", "--since", "1d"})).size() == 1);
    CHECK(memory_hits(m.json({"keyword", "zebrafinch", "--until", "2000-01-01"})).empty());
    // Forgotten: gone from keyword and list, back with --all.
    m.json({"memory", "forget", id, "--reason", "wrong"});
    CHECK(memory_hits(m.json({"keyword", "zebrafinch"})).empty());
    CHECK(m.json({"memory", "list", "--query", "zebrafinch"})["results"].a.empty());
    CHECK(m.json({"memory", "list", "--query", "zebrafinch", "--all"})["results"].a.size() == 1);
}

TEST_CASE("memory: ranked with messages, never collapsed into a session", "[memory]") {
    Mem m;
    // A word the session uses: its hits and the memory's share one ranking.
    Json before = m.json({"keyword", "the"});
    REQUIRE(before["total"].i > 0);
    m.remember(m.note("a.md", "the the the"), "the note");
    m.remember(m.note("b.md", "the"), "another");
    Json after = m.json({"keyword", "the", "--limit", "100"});
    CHECK(memory_hits(after).size() == 2);
    CHECK(after["total"].i == before["total"].i + 2);
    for (const auto& h : after["results"].a) CHECK(h["score"].num() > 0);
}

TEST_CASE("memory: overview lists the project's active memories", "[memory]") {
    Mem m;
    Json ov = m.json({"overview", "--project", "cli"});
    REQUIRE(ov["current"].is_obj());
    CHECK(ov["current"]["memories"].a.empty());
    const std::string project = ov["current"]["project"].s;
    const std::string a = m.remember(m.note("a.md", "x"), "first", {"--project", project})["id"].s;
    const std::string b = m.remember(m.note("b.md", "y"), "second", {"--session", kAlexId})["id"].s;
    const std::string other = m.remember(m.note("c.md", "z"), "elsewhere", {"--project", "unrelated"})["id"].s;
    ov = m.json({"overview", "--project", "cli"});
    const Json& mem = ov["current"]["memories"];
    REQUIRE(mem.a.size() == 2);
    CHECK(mem[0]["id"].s == b);  // newest first
    CHECK(mem[1]["id"].s == a);
    CHECK(ov["current"]["memories_total"].i == 2);
    CHECK_FALSE(ov["current"]["memories_truncated"].b);
    m.json({"memory", "forget", a, "--reason", "x"});
    CHECK(m.json({"overview", "--project", "cli"})["current"]["memories"].a.size() == 1);
    (void)other;
}

TEST_CASE("memory: a changed file is re-read on the next refresh", "[memory]") {
    Mem m;
    const std::string p = m.note("n.md", "original wording aardvark");
    const std::string id = m.remember(p, "a note")["id"].s;
    CHECK(memory_hits(m.json({"keyword", "aardvark"})).size() == 1);
    replace_file(p, "rewritten wording pangolin, a longer text than before");
    CHECK(memory_hits(m.json({"keyword", "pangolin", "--no-refresh"})).empty());  // not refreshed yet
    CHECK(memory_hits(m.json({"keyword", "pangolin"})).size() == 1);
    CHECK(memory_hits(m.json({"keyword", "aardvark"})).empty());
    CHECK(m.json({"memory", "list", "--query", "pangolin"})["results"].a.size() == 1);
    CHECK(m.json({"memory", "show", id})["text"].s.find("pangolin") != std::string::npos);
    // `osearch index` re-reads it too.
    replace_file(p, "third version numbat");
    m.index();
    CHECK(memory_hits(m.json({"keyword", "numbat", "--no-refresh"})).size() == 1);
    // Gone: the memory stays, found by its summary.
    fs::remove(p);
    CHECK(memory_hits(m.json({"keyword", "note"})).size() == 1);
    CHECK_FALSE(m.json({"memory", "show", id})["exists"].b);
}

TEST_CASE("memory: a deleted or damaged memories-text is rebuilt and found", "[memory]") {
    Mem m;
    const std::string id = m.remember(m.note("n.md", "quetzalcoatl"), "feathered serpent")["id"].s;
    fs::remove_all(m.idx + "/memories-text");
    auto hits = memory_hits(m.json({"keyword", "quetzalcoatl", "--no-refresh"}));
    REQUIRE(hits.size() == 1);
    CHECK(hits[0]["id"].s == id);
    // Garbage in its files: rebuilt by the next writer or refresh.
    for (const auto& e : fs::directory_iterator(m.idx + "/memories-text"))
        if (e.is_regular_file()) replace_file(e.path().string(), "garbage");
    CHECK(memory_hits(m.json({"keyword", "quetzalcoatl"})).size() == 1);
    CHECK(m.json({"status"})["memories"].i == 1);
}
