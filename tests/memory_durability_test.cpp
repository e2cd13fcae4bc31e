// Memories are never lost: export/import round trip, import idempotence, `index --full`, two
// concurrent remembers, a remember while the indexer holds the records env, kill -9 mid-remember.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <random>

#include "engine/store/lmdb.h"
#include "engine/store/store.h"
#include "tests/memory_fixture.h"

namespace {

// A line of `memory export` without its events (which an import extends by one).
std::string record_part(const std::string& line) { return line.substr(0, line.find(",\"events\":")); }

std::vector<std::string> record_parts(const std::string& exported) {
    std::vector<std::string> out;
    for (const auto& l : lines_of(exported)) out.push_back(record_part(l));
    return out;
}

}  // namespace

TEST_CASE("memory: export then import into a fresh index keeps every record byte for byte", "[memory]") {
    Mem m;
    const std::string a = m.remember(m.note("a.md", "alpha"), "résumé 中文 🚀 \"quoted\"\nnew line",
                                     {"--anchor", "file:src/x.cpp:7", "--session", kAlexId, "--start", "u1", "--end", "u2"})["id"].s;
    const std::string b = m.remember(m.note("b.md", "beta"), "second")["id"].s;
    m.json({"memory", "forget", b, "--reason", "archived one"});
    const std::string out = m.exported();
    REQUIRE(lines_of(out).size() == 2);

    TempDir other("memimport");
    const std::string file = other / "mem.jsonl";
    write_file(file, out);
    const std::string idx2 = other / "index";
    RunResult r = run_osearch({"memory", "import", file, "--index", idx2, "--format", "json"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    Json rep = parse(r.out);
    CHECK(rep["added"].i == 2);
    CHECK(rep["unchanged"].i == 0);
    RunResult exp2 = run_osearch({"memory", "export", "--index", idx2});
    REQUIRE(exp2.exit_code == 0);
    CHECK(record_parts(exp2.out) == record_parts(out));
    // The audit trail came along, plus the import.
    Json h = parse(run_osearch({"memory", "show", b, "--history", "--index", idx2, "--format", "json"}).out);
    REQUIRE(h["history"].a.size() == 3);
    CHECK(h["history"][1]["action"].s == "forget");
    CHECK(h["history"][2]["action"].s == "import");

    // Twice: idempotent. From stdin too.
    RunResult again = run_osearch({"memory", "import", "-", "--index", idx2, "--format", "json"}, out);
    REQUIRE(again.exit_code == 0);
    CHECK(parse(again.out)["added"].i == 0);
    CHECK(parse(again.out)["unchanged"].i == 2);
    CHECK(run_osearch({"memory", "export", "--index", idx2}).out == exp2.out);
    // The same id with another record: conflicting, the index's version kept.
    std::string changed = out;
    changed.replace(changed.find("\"second\""), 8, "\"SECOND\"");
    RunResult conflict = run_osearch({"memory", "import", "-", "--index", idx2, "--format", "json"}, changed);
    REQUIRE(conflict.exit_code == 0);
    CHECK(parse(conflict.out)["conflicting"].i == 1);
    CHECK(parse(conflict.out)["conflicting_ids"][0].s == b);
    CHECK(run_osearch({"memory", "export", "--index", idx2}).out == exp2.out);
    // A malformed line imports nothing and says where.
    RunResult bad = run_osearch({"memory", "import", "-", "--index", idx2, "--format", "json"}, "{\"id\":\"x\"}\n");
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find(":1:") != std::string::npos);
    (void)a;
}

TEST_CASE("memory: index --full keeps every memory byte for byte", "[memory]") {
    Mem m;
    m.remember(m.note("a.md", "alpha wombat"), "kept across full", {"--session", kAlexId});
    const std::string b = m.remember(m.note("b.md", "beta"), "archived")["id"].s;
    m.json({"memory", "forget", b, "--reason", "r"});
    const std::string before = m.exported();
    RunResult full = m.run({"index", "--full"});
    INFO(full.err);
    REQUIRE(full.exit_code == 0);
    CHECK(m.exported() == before);
    CHECK(memory_hits(m.json({"keyword", "wombat"})).size() == 1);
    RunResult check = m.run({"check"});
    INFO(check.out << check.err);
    CHECK(check.exit_code == 0);
}

TEST_CASE("memory: concurrent remembers from several processes all land", "[memory]") {
    Mem m;
    const std::string p = m.note("c.md", "concurrent");
    constexpr int kProcs = 4, kEach = 3;
    std::vector<pid_t> kids;
    for (int i = 0; i < kProcs; ++i)
        kids.push_back(fork_child([&, i] {
            for (int j = 0; j < kEach; ++j) {
                RunResult r = m.run({"memory", "remember", "--path", p, "--summary",
                                     "racer" + std::to_string(i) + "x" + std::to_string(j) + "word"});
                if (r.exit_code != 0) return 1;
            }
            return 0;
        }));
    for (pid_t k : kids) CHECK(wait_child(k).exit_code == 0);
    CHECK(m.json({"memory", "list", "--limit", "100"})["total"].i == kProcs * kEach);
    for (int i = 0; i < kProcs; ++i)
        for (int j = 0; j < kEach; ++j) {
            const std::string word = "racer" + std::to_string(i) + "x" + std::to_string(j) + "word";
            INFO(word);
            CHECK(memory_hits(m.json({"keyword", word})).size() == 1);
        }
}

TEST_CASE("memory: remember does not wait for the indexer's locks", "[memory]") {
    Mem m;
    // Hold what a running `osearch index` holds: the writer flock and the records env's LMDB
    // write transaction. A remember (and a memory list) must still complete.
    const int lock_fd = ::open((m.idx + "/writer.lock").c_str(), O_RDWR);
    REQUIRE(lock_fd >= 0);
    REQUIRE(::flock(lock_fd, LOCK_EX) == 0);
    {
        osearch::LmdbEnv env;
        env.open(m.idx + "/" + osearch::current_records_name(m.idx), false, osearch::Store::kMaxDbs);
        osearch::LmdbTxn writer(env, false);
        RunOptions o;
        o.timeout = std::chrono::milliseconds(60000);  // a hang is a failure, not a stuck test
        RunResult r = run_osearch({"memory", "remember", "--path", m.note("w.md", "while indexing"), "--summary",
                                   "written during a build", "--session", kAlexId, "--index", m.idx, "--format", "json"},
                                  "", o);
        INFO(r.err);
        CHECK_FALSE(r.timed_out);
        CHECK(r.exit_code == 0);
        RunResult l = run_osearch({"memory", "list", "--index", m.idx, "--format", "json"}, "", o);
        CHECK(l.exit_code == 0);
        CHECK(parse(l.out)["total"].i == 1);
        writer.abort();
    }
    ::close(lock_fd);
    CHECK(memory_hits(m.json({"keyword", "indexing"})).size() == 1);
}

TEST_CASE("memory: kill -9 during remember leaves no memory or a whole one", "[memory]") {
    Mem m;
    const std::string p = m.note("k.md", "killed midway");
    std::mt19937 rng(11);
    int launched = 0;
    for (int round = 0; round < 16; ++round) {
        const std::string summary = "killword" + std::to_string(round);
        const std::string bin = osearch_binary();
        std::vector<std::string> args{bin, "memory", "remember", "--path", p, "--summary", summary, "--index", m.idx};
        pid_t pid = fork_child([&] {
            std::vector<char*> argv;
            for (auto& a : args) argv.push_back(a.data());
            argv.push_back(nullptr);
            int devnull = ::open("/dev/null", O_WRONLY);
            ::dup2(devnull, 1);
            ::dup2(devnull, 2);
            ::execv(bin.c_str(), argv.data());
            return 127;
        });
        ++launched;
        ::usleep(std::uniform_int_distribution<int>(0, 150000)(rng));
        ::kill(pid, SIGKILL);
        wait_child(pid);
    }
    // Whatever landed is whole: listed, shown, exported and found by its word.
    Json l = m.json({"memory", "list", "--limit", "100"});
    CHECK(l["total"].i <= launched);
    for (const auto& r : l["results"].a) {
        INFO(r["summary"].s);
        CHECK(m.json({"memory", "show", r["id"].s})["exists"].b);
        CHECK(memory_hits(m.json({"keyword", r["summary"].s})).size() == 1);
    }
    CHECK(lines_of(m.exported()).size() == static_cast<size_t>(l["total"].i));
    // And the env takes new writes.
    m.remember(p, "after the kills");
    CHECK(m.json({"memory", "list", "--limit", "100"})["total"].i == l["total"].i + 1);
}

TEST_CASE("memory: an empty data.mdb left by a first remember killed in mdb_env_open is started over", "[memory]") {
    Mem m;
    fs::create_directories(m.idx + "/memories");
    write_file(m.idx + "/memories/data.mdb", "");
    CHECK(m.json({"memory", "list"})["total"].i == 0);  // a reader: no memories, not damage
    const std::string id = m.remember(m.note("u.md", "unborn"), "after an unborn env")["id"].s;
    CHECK(m.json({"memory", "show", id})["exists"].b);
    CHECK(m.run({"check"}).exit_code == 0);
}
