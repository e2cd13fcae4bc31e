// SIGTERM and SIGINT stop `osearch index` (with or without --watch) cleanly at a file boundary:
// what was read is committed, the summary is printed, exit 0 (SIGTERM) or 130 (SIGINT); a second
// signal kills at once. No sleeps: the tests wait on the child's stderr, and a plain run is held
// mid-way by a stderr pipe it fills (ops_fixture.h, Spawned).
#include "tests/ops_fixture.h"

#include "engine/index/watch_beat.h"

namespace {

// Three renamed copies of tests/data/claude (about 200 files), and its clean build.
struct BigTree {
  TempDir tmp{"sig"};
  std::string src = tmp / "src";
  IndexSummary clean;
  std::vector<std::string> ref_fp;

  BigTree() {
    for (int k = 0; k < 3; ++k)
      copy_projects(src, "-copy" + std::to_string(k), k == 0 ? "" : "c" + std::to_string(k) + "-");
    const std::string ref = tmp / "ref";
    clean = index_tree(ref, src);
    ref_fp = fingerprint(ref);
    REQUIRE(clean.files_changed > 150);
  }
  std::vector<std::string> args(const std::string& idx, std::vector<std::string> cmd) const {
    cmd.insert(cmd.end(), {"--index", idx, "--source", "claude=" + src, "--format", "json"});
    return cmd;
  }
};

struct IndexJson {
  bool interrupted = false;
  std::string signal;
  uint64_t files_seen = 0, files_changed = 0, messages = 0;
};

IndexJson index_json(const std::string& out) {
  IndexJson s;
  simdjson::dom::parser parser;
  simdjson::dom::element j;
  INFO("stdout: " << out);
  REQUIRE(parser.parse(simdjson::padded_string(out)).get(j) == simdjson::SUCCESS);
  REQUIRE(j["interrupted"].get(s.interrupted) == simdjson::SUCCESS);
  std::string_view sig;
  if (j["signal"].get(sig) == simdjson::SUCCESS) s.signal = sig;
  REQUIRE(j["files_seen"].get(s.files_seen) == simdjson::SUCCESS);
  REQUIRE(j["files_changed"].get(s.files_changed) == simdjson::SUCCESS);
  REQUIRE(j["messages"].get(s.messages) == simdjson::SUCCESS);
  return s;
}

}  // namespace

TEST_CASE("ops: index --watch ends on SIGTERM with exit 0 and on SIGINT with 130, printing its summary",
          "[hardening][ops][signals]") {
  TempDir tmp("watch");
  const std::string src = tmp / "src", idx = tmp / "idx";
  make_tree(src, {kB3, kWindows});
  for (int sig : {SIGTERM, SIGINT}) {
    INFO("signal " << sig);
    Spawned watcher({"index", "--watch", "--index", idx, "--source", "claude=" + src, "--format", "json"});
    REQUIRE(watcher.read_stderr_until("watching for changes"));
    if (sig == SIGTERM) {  // once idle (it beats after a run that found nothing to read)
      poll_until([&] { return watcher_keeps_current(idx, {{"claude", src}}); }, std::chrono::seconds(30),
                 std::chrono::milliseconds(20));
    }
    REQUIRE(::kill(watcher.pid(), sig) == 0);
    RunResult r = watcher.finish();
    INFO("stderr: " << r.err);
    CHECK(r.term_signal == 0);
    CHECK(r.exit_code == (sig == SIGTERM ? 0 : 130));
    IndexJson s = index_json(r.out);
    CHECK(s.interrupted);
    CHECK(s.signal == (sig == SIGTERM ? "SIGTERM" : "SIGINT"));
    CHECK(s.files_seen == 2);
    CHECK(counts_of(idx).sessions == 2);
    CHECK(s.messages == counts_of(idx).messages);  // the last whole run's state, not an idle check's zeros
  }
}

TEST_CASE("ops: a plain index stops at a file boundary on SIGTERM or SIGINT and the next run ends like a clean build",
          "[hardening][ops][signals]") {
  BigTree tree;
  for (int sig : {SIGTERM, SIGINT}) {
    INFO("signal " << sig);
    const std::string idx = tree.tmp / ("idx-" + std::to_string(sig));
    // --verbose names each file on stderr as it is done; the 4 KB pipe fills after a few dozen
    // of the ~200 files and holds the run there until we read: the signal lands mid-run.
    std::vector<std::string> args = tree.args(idx, {"index", "--verbose"});
    Spawned run(args, 4096);
    REQUIRE(run.stderr_has_data());
    REQUIRE(::kill(run.pid(), sig) == 0);
    RunResult r = run.finish();
    INFO("stderr: " << r.err.substr(0, 2000));
    CHECK(r.term_signal == 0);
    CHECK(r.exit_code == (sig == SIGTERM ? 0 : 130));
    IndexJson s = index_json(r.out);
    CHECK(s.interrupted);
    CHECK(s.files_changed > 0);
    CHECK(s.files_changed < s.files_seen);
    // What was read is committed and answers queries.
    const IndexCounts partial = counts_of(idx);
    CHECK(partial.messages == s.messages);
    CHECK(partial.messages > 0);
    CHECK(partial.messages < tree.clean.messages);
    RunResult q = run_osearch(tree.args(idx, {"list", "--no-refresh"}));
    CHECK(q.exit_code == 0);
    // The next run reads the rest.
    IndexSummary rest = index_tree(idx, tree.src);
    CHECK(rest.files_changed == s.files_seen - s.files_changed);
    CHECK_SAME_INDEX(idx, tree.ref_fp);
  }
}

TEST_CASE("ops: a second signal kills index at once and the next run still ends like a clean build",
          "[hardening][ops][signals]") {
  BigTree tree;
  const std::string idx = tree.tmp / "idx";
  Spawned run(tree.args(idx, {"index", "--verbose"}), 4096);
  REQUIRE(run.stderr_has_data());
  // The handler blocks both signals while it runs and then restores their default action, so the
  // second one kills whenever it arrives.
  REQUIRE(::kill(run.pid(), SIGINT) == 0);
  REQUIRE(::kill(run.pid(), SIGTERM) == 0);
  RunResult r = run.finish();
  CHECK(r.term_signal == SIGTERM);
  index_tree(idx, tree.src);
  CHECK_SAME_INDEX(idx, tree.ref_fp);
}

TEST_CASE("ops: IndexOptions::should_stop ends a run after the current file, committed", "[hardening][ops][signals]") {
  BigTree tree;
  const std::string idx = tree.tmp / "idx";
  bool stop = false;
  IndexOptions o;
  o.flush_bytes = 64 << 10;  // several batches before the stop
  o.progress = [&](const IndexProgress& p) { stop = p.files_done == 40; };
  o.should_stop = [&] { return stop; };
  IndexSummary s = index_tree(idx, tree.src, o);
  CHECK(s.interrupted);
  CHECK(s.files_changed == 40);
  CHECK(counts_of(idx).messages == s.messages);
  CHECK(s.messages < tree.clean.messages);
  // Stopped before it starts: nothing read, nothing lost.
  IndexOptions at_once;
  at_once.should_stop = [] { return true; };
  IndexSummary none = index_tree(idx, tree.src, at_once);
  CHECK(none.interrupted);
  CHECK(none.files_changed == 0);
  CHECK(counts_of(idx).messages == s.messages);
  {
    // Waiting for another indexer's lock hears the stop request too.
    WriterLock held(idx, true);
    int polls = 0;
    IndexOptions waiting;
    waiting.should_stop = [&] { return ++polls > 3; };
    IndexSummary w = index_tree(idx, tree.src, waiting);
    CHECK(w.interrupted);
    CHECK_FALSE(w.busy);
    CHECK(polls > 3);
  }
  IndexSummary rest = index_tree(idx, tree.src);
  CHECK_FALSE(rest.interrupted);
  CHECK(rest.files_changed == s.files_seen - 40);
  CHECK_SAME_INDEX(idx, tree.ref_fp);
}
