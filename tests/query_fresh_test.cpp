// The default path's freshness beside the query (cli/query_index.h): whichever source changed, and
// wherever it sits among the recorded ones, the answer is the refreshed index's, never the
// speculative one.
#include "tests/cli_fixture.h"
#include "tests/index_fixture.h"

namespace {

using Clock = fs::file_time_type::clock;

// A project of 20 sessions with distinct, settled mtimes (s00 the oldest), its directories older
// still: s04..s19 are then the newest recorded sources, the ones stat'ed before a query starts.
struct AgedTree {
  Cli cli{{}, false};
  std::string proj = cli.src + "/-w-proj";

  AgedTree() {
    fs::create_directories(proj);
    const auto base = Clock::now() - std::chrono::hours(2);
    for (int i = 0; i < 20; ++i) {
      const std::string sid = session(i);
      write_file(file(i), user_line(sid, sid + "-u", "question number " + std::to_string(i)) +
                              assistant_line(sid, sid + "-a", "answer number " + std::to_string(i), sid + "-m", 1, 1));
      fs::last_write_time(file(i), base + std::chrono::seconds(10 * i));
    }
    fs::last_write_time(proj, base - std::chrono::hours(1));
    fs::last_write_time(cli.src, base - std::chrono::hours(1));
    cli.index();
  }
  static std::string session(int i) { return (i < 10 ? "s0" : "s") + std::to_string(i); }
  std::string file(int i) const { return proj + "/" + session(i) + ".jsonl"; }
  Json json(const std::vector<std::string>& args) const { return cli.json(args); }
};

}  // namespace

TEST_CASE("fresh: an unchanged tree answers without a refresh", "[cli][fresh]") {
  AgedTree t;
  Json j = t.json({"keyword", "answer"});
  CHECK(j["index"]["refreshed_files"].i == 0);
  CHECK(j["total"].i == 20);
}

TEST_CASE("fresh: a change to an old source is found by the walk beside the query, which runs again", "[cli][fresh]") {
  AgedTree t;
  // s00 is the oldest recorded source: the query starts before the walk reaches it.
  append_file(t.file(0), user_line("s00", "s00-late", "zebrafinch migration notes", "2026-03-01T11:00:00.000Z"));
  SECTION("keyword") {
    Json j = t.json({"keyword", "zebrafinch"});
    CHECK(j["index"]["refreshed_files"].i == 1);
    REQUIRE(j["results"].a.size() == 1);
    CHECK(j["results"][0]["session_id"].s == "s00");
  }
  SECTION("thread") {
    Json j = t.json({"thread", "s00"});
    CHECK(j["index"]["refreshed_files"].i == 1);
    CHECK(j["messages"].a.size() == 3);
  }
  SECTION("stats") {
    Json j = t.json({"stats", "tokens", "--by", "session", "--session", "s00"});
    CHECK(j["index"]["refreshed_files"].i == 1);
  }
  SECTION("overview") {
    Json j = t.json({"overview", "--project", "proj"});
    CHECK(j["index"]["refreshed_files"].i == 1);
  }
  SECTION("files, then nothing left to refresh") {
    Json j = t.json({"failures"});
    CHECK(j["index"]["refreshed_files"].i == 1);
    Json again = t.json({"keyword", "zebrafinch"});
    CHECK(again["index"]["refreshed_files"].i == 0);
    CHECK(again["results"].a.size() == 1);
  }
}

TEST_CASE("fresh: an error of the query on the old snapshot is not the answer when the walk finds a change",
          "[cli][fresh]") {
  AgedTree t;
  // A new session in the (old) project directory: unknown to the snapshot the query starts on.
  write_file(t.proj + "/s-new.jsonl", user_line("s-new", "n1", "brand new session"));
  Json j = t.json({"thread", "s-new"});
  CHECK(j["index"]["refreshed_files"].i >= 1);
  CHECK(j["messages"].a.size() == 1);
  // A uuid only the new file holds.
  Json c = t.json({"context", "n1"});
  REQUIRE(c["matches"].a.size() == 1);
}

TEST_CASE("fresh: a change to the newest source refreshes before the query", "[cli][fresh]") {
  AgedTree t;
  append_file(t.file(19), user_line("s19", "s19-late", "kingfisher field guide", "2026-03-01T11:00:00.000Z"));
  Json j = t.json({"keyword", "kingfisher"});
  CHECK(j["index"]["refreshed_files"].i == 1);
  REQUIRE(j["results"].a.size() == 1);
  CHECK(j["results"][0]["session_id"].s == "s19");
  // And a shrunk old file is a layout change: the full plan re-reads it.
  write_file(t.file(1), user_line("s01", "s01-u", "question number 1"));
  Json k = t.json({"keyword", "answer"});
  CHECK(k["index"]["refreshed_files"].i >= 1);
  CHECK(k["total"].i == 19);
}
