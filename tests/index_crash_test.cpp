// Index: kill -9 at many points, then one more run equals a clean build.
#include "tests/index_fixture.h"
#include "tests/sweep.h"

namespace {

// A source tree three times the size of tests/data/claude (copies 1 and 2 with sessions of their
// own), its clean build, and a child indexer that can be SIGKILLed mid-run.
struct KillFixture {
  TempDir tmp{"kill"};
  std::string src = tmp / "src";
  IndexOptions small_batches;
  IndexSummary clean;
  std::vector<std::string> ref_fp;
  double batched_ms = 0;

  explicit KillFixture(bool check_batches, bool measure = true) {
    for (int k = 0; k < 3; ++k)
      copy_projects(src, "-copy" + std::to_string(k), k == 0 ? "" : "c" + std::to_string(k) + "-");
    small_batches.flush_bytes = 256 << 10;  // many commits, so kills land between and inside them
    const std::string ref = tmp / "ref";
    clean = index_tree(ref, src);
    ref_fp = fingerprint(ref);
    REQUIRE(clean.messages > 2000);
    REQUIRE(clean.sessions > 40);
    // How long a small-batch run takes (delays are fractions of it); batch boundaries alone must
    // not change the result either.
    if (!measure) return;
    const std::string batched = tmp / "batched";
    auto t0 = std::chrono::steady_clock::now();
    index_tree(batched, src, small_batches);
    batched_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (check_batches) CHECK_SAME_INDEX(batched, ref_fp);
  }

  // Starts a child indexing `idx`, SIGKILLs it after `delay`; true when the kill landed mid-run.
  // A child that finished first must have finished cleanly (exit 0: no exception, not busy).
  std::string outcomes;
  bool kill_after(const std::string& idx, std::chrono::microseconds delay) {
    pid_t pid = fork_child([&] {
      IndexSummary s = run_index(idx, roots_of(src), small_batches);
      return s.busy ? 3 : 0;
    });
    std::this_thread::sleep_for(delay);
    ::kill(pid, SIGKILL);
    ChildStatus st = wait_child(pid);
    outcomes += std::to_string(delay.count() / 1000) + "ms:" +
                (st.term_signal ? "killed" : "exit " + std::to_string(st.exit_code)) + " ";
    INFO("child outcomes: " << outcomes);
    CHECK((st.term_signal == SIGKILL || (st.exited && st.exit_code == 0)));
    return st.term_signal == SIGKILL;
  }
  std::chrono::microseconds fraction(double f) const {
    return std::chrono::microseconds(static_cast<int64_t>(batched_ms * 1000 * f));
  }
  void check_recovered(const std::string& idx) {
    IndexSummary s = index_tree(idx, src);
    CHECK_FALSE(s.busy);
    CHECK(s.messages == clean.messages);
    CHECK(s.sessions == clean.sessions);
    CHECK(s.tool_calls == clean.tool_calls);
    CHECK_SAME_INDEX(idx, ref_fp);
  }
};

}  // namespace

TEST_CASE("index: kill -9 at several delays into a fresh build then one more run equals a clean build",
          "[index][crash]") {
  KillFixture fx(true);
  INFO("small-batch build takes " << fx.batched_ms << " ms");
  int killed = 0;
  for (double f : sweep({0.02, 0.1, 0.3, 0.55, 0.8}, {0.1, 0.55})) {
    const std::string idx = fx.tmp / ("k" + std::to_string(static_cast<int>(f * 100)));
    killed += fx.kill_after(idx, fx.fraction(f));
    INFO("killed after " << fx.fraction(f).count() / 1000 << " ms");
    fx.check_recovered(idx);
  }
  INFO("child outcomes: " << fx.outcomes);
  CHECK(killed >= (kSanitizedBuild ? 1 : 3));
}

TEST_CASE("index: kill -9 again and again on one index and while adding to an index", "[index][crash]") {
  KillFixture fx(false);
  int killed = 0;
  // The same index killed at growing delays, then finished.
  const std::string idx = fx.tmp / "kk";
  for (double f : sweep({0.03, 0.08, 0.15, 0.3, 0.5}, {0.08, 0.3})) killed += fx.kill_after(idx, fx.fraction(f));
  INFO("child outcomes: " << fx.outcomes);
  CHECK(killed >= (kSanitizedBuild ? 1 : 2));
  fx.check_recovered(idx);

  // Only the -copy0 projects indexed first; copies 1 and 2 appear and that update is killed.
  TempDir hidden("kill-hidden");
  for (const auto& e : fs::directory_iterator(fx.src)) {
    const std::string name = e.path().filename().string();
    if (name.find("-copy0") == std::string::npos) fs::rename(e.path(), hidden / name);
  }
  const std::string grow = fx.tmp / "grow";
  index_tree(grow, fx.src);
  for (const auto& e : fs::directory_iterator(hidden.path()))
    fs::rename(e.path(), fx.src + "/" + e.path().filename().string());
  CHECK(fx.kill_after(grow, fx.fraction(0.3)));
  fx.check_recovered(grow);
}

TEST_CASE("index: kill -9 at exact points right after file N is handed to the batch", "[index][crash]") {
  KillFixture fx(false, false);
  for (size_t at : sweep({1u, 7u, 40u, 120u}, {7u, 120u})) {
    const std::string idx = fx.tmp / ("p" + std::to_string(at));
    IndexOptions o = fx.small_batches;
    o.progress = [at](const IndexProgress& p) {
      if (p.files_done == at) ::raise(SIGKILL);
    };
    pid_t pid = fork_child([&] {
      run_index(idx, roots_of(fx.src), o);
      return 0;
    });
    ChildStatus st = wait_child(pid);
    INFO("killed after file " << at);
    CHECK(st.term_signal == SIGKILL);
    fx.check_recovered(idx);
  }
}

TEST_CASE("index: kill -9 while a fresh index is being created then one more run equals a clean build",
          "[index][crash]") {
  // The first milliseconds of a first run create the LMDB environment, the text log and the Xapian
  // database. Kills there (by time, and as soon as a new directory appears in the index dir)
  // must leave an index the next run can finish.
  TempDir tmp("kill-create");
  const std::string src = tmp / "src";
  make_tree(src, {"-Users-user-project", kWindows});
  const std::string ref = tmp / "ref";
  index_tree(ref, src);
  const auto ref_fp = fingerprint(ref);

  auto trial = [&](const std::string& name, const std::function<void(const std::string&)>& wait) {
    const std::string idx = tmp / name;
    pid_t pid = fork_child([&] {
      run_index(idx, roots_of(src), IndexOptions{});
      return 0;
    });
    wait(idx);
    ::kill(pid, SIGKILL);
    wait_child(pid);
    INFO("trial " << name);
    IndexSummary s;
    REQUIRE_NOTHROW(s = index_tree(idx, src));
    CHECK(s.messages == counts_of(ref).messages);
    CHECK_SAME_INDEX(idx, ref_fp);
    fs::remove_all(idx);
  };
  for (int i : sweep({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {0, 1, 2, 3})) {
    // Kill the moment the search database being created in a directory other than records/ has
    // a temporary file (a version file written and synced before its atomic rename), or has files
    // at all for the odd trials.
    trial("d" + std::to_string(i), [i](const std::string& idx) {
      poll_until(
          [&] {
            std::error_code ec;
            for (const auto& e : fs::directory_iterator(idx, ec)) {
              if (!e.is_directory(ec) || e.path().filename() == "records") continue;
              for (const auto& f : fs::directory_iterator(e.path(), ec))
                if (i % 2 == 1 || f.path().extension() == ".tmp") return true;
            }
            return false;
          },
          std::chrono::seconds(2));
    });
  }
  for (int us : sweep_range(0, 12000, 500, 2000))
    trial("t" + std::to_string(us), [us](const std::string&) { std::this_thread::sleep_for(std::chrono::microseconds(us)); });
}
