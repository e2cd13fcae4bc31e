// Every schema step keeps what cannot be re-read: tests/data/indexes/schema-N/ is an index written
// by the osearch of schema N (make_fixture.sh, README.md there), with sessions whose sources are
// gone and an entry of the legacy `memories` table. This build opens a copy and must answer for
// every session as that osearch did (list, thread, keyword, content), with the memory unchanged.
#include "tests/index_fixture.h"

#include <signal.h>

#include <fstream>
#include <sstream>

#include "engine/index/schema.h"
#include "engine/query/check.h"
#include "engine/query/search.h"
#include "engine/query/thread.h"

namespace {

struct ExpectedArchive {
  struct Session {
    std::string id;
    uint64_t messages = 0;
    std::string keyword, fixed;
  };
  uint64_t schema = 0;
  std::vector<Session> sessions;
  std::vector<std::pair<std::string, std::string>> memories;
};

std::string fixture_dir(uint64_t schema) { return test_data_dir() + "/indexes/schema-" + std::to_string(schema); }

ExpectedArchive read_expected(uint64_t schema) {
  ExpectedArchive e;
  std::ifstream in(fixture_dir(schema) + "/expected.tsv");
  REQUIRE(in);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, '\t');) f.push_back(cell);
    if (f[0] == "schema") e.schema = std::stoull(f.at(1));
    if (f[0] == "session") e.sessions.push_back({f.at(1), std::stoull(f.at(2)), f.at(3), f.at(4)});
    if (f[0] == "memory") e.memories.emplace_back(f.at(1), f.at(2));
  }
  REQUIRE(e.schema == schema);
  REQUIRE(e.sessions.size() == 3);
  return e;
}

// The fixture's versions: schema-N directories under tests/data/indexes.
std::vector<uint64_t> fixture_versions() {
  std::vector<uint64_t> out;
  for (const auto& e : fs::directory_iterator(test_data_dir() + "/indexes")) {
    const std::string name = e.path().filename().string();
    if (e.is_directory() && name.rfind("schema-", 0) == 0) out.push_back(std::stoull(name.substr(7)));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> legacy_memory(const std::string& idx, const std::string& key) {
  IndexReader r(idx);
  auto v = r.txn().get(r.db().memories, key);
  return v ? std::optional<std::string>(std::string(*v)) : std::nullopt;
}

bool finds(const QueryResult& r, const std::string& sid) {
  for (const auto& h : r.hits)
    if (h.session.id == sid) return true;
  return false;
}

// Every session and memory of the fixture answers in `idx` as the old osearch said.
void check_answers(const std::string& idx, const ExpectedArchive& e) {
  const auto sessions = all_sessions(idx);
  CHECK(sessions.size() == e.sessions.size());
  IndexReader reader(idx);
  for (const auto& s : e.sessions) {
    INFO("session " << s.id);
    REQUIRE(sessions.count(s.id) == 1);
    CHECK(sessions.at(s.id).message_count == s.messages);  // list
    ThreadOptions t;
    t.include_meta = true;
    ThreadResult thread = run_thread(reader, s.id, t);  // thread
    CHECK(thread.total == s.messages);
    Filters f;
    f.limit = 100;
    CHECK(finds(run_keyword(reader, s.keyword, f, KeywordOptions{}), s.id));  // keyword
    ContentOptions c;
    c.patterns = {s.fixed};
    c.fixed = true;
    CHECK(finds(run_content(reader, f, c), s.id));  // content
  }
  for (const auto& [key, value] : e.memories) CHECK(legacy_memory(idx, key) == value);
  CHECK(check_index(idx).ok);
}

// Opens a copy of the schema-N fixture with this build (a plain run, as any command's refresh).
void check_upgrade_from(uint64_t schema) {
  const ExpectedArchive e = read_expected(schema);
  TempDir tmp("schema-" + std::to_string(schema));
  const std::string idx = tmp / "idx", src = tmp / "src";
  copy_tree(fixture_dir(schema), idx);
  fs::create_directories(src);
  IndexSummary s = index_tree(idx, src);
  INFO("lost: " << s.lost);
  CHECK(s.lost.empty());
  CHECK(s.rebuilt == (schema != kSchemaVersion));
  if (s.rebuilt) CHECK(s.salvaged_sessions == e.sessions.size());  // none of their files is here
  check_answers(idx, e);
  // Another run changes nothing; --full carries them again.
  IndexSummary again = index_tree(idx, src);
  CHECK_FALSE(again.rebuilt);
  CHECK(again.files_changed == 0);
  IndexSummary full = index_tree(idx, src, full_options());
  CHECK(full.lost.empty());
  CHECK(full.salvaged_sessions == e.sessions.size());
  check_answers(idx, e);
}

}  // namespace

// One case per fixture: each covers the steps from its schema to this build's.
TEST_CASE("upgrade: a schema-10 index (stop 5) keeps its archived sessions and memories", "[upgrade][archive]") {
  check_upgrade_from(10);
}
TEST_CASE("upgrade: a schema-11 index (stop 15) keeps its archived sessions and memories", "[upgrade][archive]") {
  check_upgrade_from(11);
}
TEST_CASE("upgrade: a schema-12 index (between stops 15 and 16) keeps its archived sessions and memories",
          "[upgrade][archive]") {
  check_upgrade_from(12);
}
TEST_CASE("upgrade: a schema-13 index (stop 16) keeps its archived sessions and memories", "[upgrade][archive]") {
  check_upgrade_from(13);
}
TEST_CASE("upgrade: a schema-14 index (a branch merged within stop 17) keeps its archived sessions and memories",
          "[upgrade][archive]") {
  check_upgrade_from(14);
}
TEST_CASE("upgrade: a schema-15 index (a branch merged within stop 17) keeps its archived sessions and memories",
          "[upgrade][archive]") {
  check_upgrade_from(15);
}
TEST_CASE("upgrade: a schema-16 index (stop 17) keeps its archived sessions and memories", "[upgrade][archive]") {
  check_upgrade_from(16);
}
TEST_CASE("upgrade: a schema-17 index (stop 23) keeps its archived sessions and memories", "[upgrade][archive]") {
  check_upgrade_from(17);
}
TEST_CASE("upgrade: a schema-18 index (stop 31) keeps its archived sessions and memories", "[upgrade][archive]") {
  check_upgrade_from(18);
}
TEST_CASE("upgrade: a schema-19 index (Dec 3 through stop 43) keeps its archived sessions and memories", "[upgrade][archive]") {
  check_upgrade_from(19);
}
TEST_CASE("upgrade: a schema-20 index (stops 44 to 45) keeps its archived sessions and memories", "[upgrade][archive]") {
  check_upgrade_from(20);
}
TEST_CASE("upgrade: a schema-21 index (stops 46 to 49) keeps its archived sessions and memories", "[upgrade][archive]") {
  check_upgrade_from(21);
}
TEST_CASE("upgrade: a schema-22 index (stops 50 to 62) keeps its archived sessions and memories", "[upgrade][archive]") {
  check_upgrade_from(22);
}
TEST_CASE("upgrade: a schema-23 index (stop 63) keeps its archived sessions and memories", "[upgrade][archive]") {
  check_upgrade_from(23);
}

TEST_CASE("upgrade: read before its upgrade (--no-refresh), an older index says so and answers nothing wrong",
          "[upgrade][archive]") {
  // Schema 18's documents name sessions by id, this build's readers by number: an answer from them
  // would be empty, so the reader refuses the index and names the way out.
  TempDir tmp("schema-before");
  const std::string idx = tmp / "idx";
  copy_tree(fixture_dir(18), idx);
  for (const std::vector<std::string>& cmd : {std::vector<std::string>{"keyword", "gotcha"},
                                             std::vector<std::string>{"list"}, std::vector<std::string>{"status"}}) {
    std::vector<std::string> argv = {"--index", idx, "--no-refresh", "--format", "json"};
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    RunResult r = run_osearch(argv);
    INFO(cmd[0] << ": " << r.out << r.err);
    CHECK_FALSE(r.ok());
    CHECK((r.out + r.err).find("schema 18") != std::string::npos);
    CHECK((r.out + r.err).find("run `osearch index` to upgrade it") != std::string::npos);
  }
  // The default path upgrades it and answers.
  RunResult up = run_osearch({"--index", idx, "--source", "claude=" + (tmp / "none"), "--format", "json", "keyword", "gotcha"});
  INFO(up.err);
  CHECK(up.ok());
  CHECK(up.out.find("88e16f61-d1b7-47a3-84f1-057e0f96521a") != std::string::npos);
}

TEST_CASE("upgrade: every fixture's schema is carried over, and the newest is at most one step behind",
          "[upgrade][archive]") {
  const std::vector<uint64_t> versions = fixture_versions();
  REQUIRE_FALSE(versions.empty());
  for (uint64_t v : versions) {
    INFO("fixture schema-" << v);
    CHECK(v >= kOldestMigratedSchema);
    CHECK(v <= kSchemaVersion);
  }
  // kSchemaVersion N+1 is tested by the schema-N fixture (its upgrade must keep the archive); a
  // bump past that has no index of the version before it to upgrade from.
  INFO("kSchemaVersion is " << kSchemaVersion << " but the newest fixture is tests/data/indexes/schema-"
                            << versions.back()
                            << ": before bumping the schema again, write the fixture of the current one with "
                               "tests/data/indexes/make_fixture.sh (built from the commit before the bump), add its "
                               "test case in tests/schema_upgrade_test.cpp, and teach engine/index/archive_io.cpp "
                               "the step (docs/ARCHITECTURE.md, Schema upgrades)");
  CHECK(kSchemaVersion <= versions.back() + 1);
}

TEST_CASE("upgrade: kill -9 at any point of a migration; the next run ends with every archived session",
          "[upgrade][archive][crash]") {
  const uint64_t from = fixture_versions().front();
  REQUIRE(from < kSchemaVersion);
  const ExpectedArchive e = read_expected(from);
  // salvage-commit:N is the salvage child's Nth commit into the new env (memories, then the
  // archive): the child kills the whole run from there, as a kill -9 of osearch would.
  for (const std::string point : {"salvage-commit:1", "salvage-commit:2", "salvaged", "built", "switched"}) {
    INFO("killed at " << point);
    TempDir tmp("schema-kill");
    const std::string idx = tmp / "idx", src = tmp / "src";
    copy_tree(fixture_dir(from), idx);
    fs::create_directories(src);
    const std::string live_before = current_records_name(idx);
    pid_t pid = fork_child([&] {
      int commits = 0;
      IndexOptions o;
      o.at_point = [&](std::string_view p) {
        if (p == "salvage-commit" && point == "salvage-commit:" + std::to_string(++commits)) {
          ::kill(::getppid(), SIGKILL);  // the run that forked this salvage child
          ::raise(SIGKILL);
        }
        if (p == point) ::raise(SIGKILL);
      };
      run_index(idx, roots_of(src), o);
      return 0;
    });
    ChildStatus st = wait_child(pid);
    CHECK(st.term_signal == SIGKILL);
    // Until the switch the old generation stays the live one; after it, the new one is whole.
    if (point == "switched")
      CHECK(current_records_name(idx) != live_before);
    else
      CHECK(current_records_name(idx) == live_before);
    IndexSummary s = index_tree(idx, src);
    INFO("lost: " << s.lost);
    CHECK(s.lost.empty());
    CHECK(s.rebuilt == (point != "switched"));
    check_answers(idx, e);
  }
}
