// Mixed-agent crash safety (issue 8): kill -9 during `index` over Claude, omp, pi and Codex sources
// at several points, then one more run equals a clean build (the idea of index_crash_test.cpp on a
// corpus of all four agents, with zstd rollouts, subagents and the session index among them).
#include "tests/index_fixture.h"
#include "tests/sweep.h"

namespace {

std::vector<SourceRoot> mixed_roots(const std::string& src) {
  return {{"claude", src + "/claude"}, {"omp", src + "/omp"}, {"pi", src + "/pi"}, {"codex", src + "/codex"}};
}

// tests/data/mixed plus the real omp, pi, Codex and Claude samples, and a compressed rollout.
void build_mixed_tree(const std::string& src) {
  const std::string data = test_data_dir();
  copy_tree(data + "/mixed/omp", src + "/omp");
  copy_tree(data + "/mixed/pi", src + "/pi");
  copy_tree(data + "/mixed/codex", src + "/codex");
  copy_tree(data + "/omp/.omp/agent/sessions", src + "/omp/sessions");
  copy_tree(data + "/pi/.pi/agent/sessions", src + "/pi/sessions");
  copy_tree(data + "/codex/.codex/sessions", src + "/codex/sessions");
  copy_tree(data + "/codex/zstd", src + "/codex/sessions/2026/08/04");
  copy_tree(claude_data_dir(), src + "/claude");
}

struct MixedKill {
  TempDir tmp{"agents-kill"};
  std::string src = tmp / "src";
  IndexOptions small_batches;
  IndexSummary clean;
  std::vector<std::string> ref_fp;
  double batched_ms = 0;
  std::string outcomes;

  MixedKill() {
    build_mixed_tree(src);
    small_batches.flush_bytes = 128 << 10;  // many commits, so kills land between and inside them
    const std::string ref = tmp / "ref";
    clean = run_index(ref, mixed_roots(src), IndexOptions{});
    ref_fp = fingerprint(ref);
    REQUIRE(clean.sessions > 30);
    const auto t0 = std::chrono::steady_clock::now();
    run_index(tmp / "batched", mixed_roots(src), small_batches);
    batched_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    CHECK_SAME_INDEX(tmp / "batched", ref_fp);
  }

  bool kill_after(const std::string& idx, std::chrono::microseconds delay) {
    pid_t pid = fork_child([&] {
      IndexSummary s = run_index(idx, mixed_roots(src), small_batches);
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
    IndexSummary s = run_index(idx, mixed_roots(src), IndexOptions{});
    CHECK_FALSE(s.busy);
    CHECK(s.messages == clean.messages);
    CHECK(s.sessions == clean.sessions);
    CHECK(s.tool_calls == clean.tool_calls);
    CHECK_SAME_INDEX(idx, ref_fp);
  }
};

}  // namespace

TEST_CASE("agents: kill -9 during a mixed-agent index then one more run equals a clean build", "[agents][crash]") {
  MixedKill fx;
  INFO("small-batch build takes " << fx.batched_ms << " ms");
  int killed = 0;
  for (double f : sweep({0.05, 0.3, 0.7}, {0.3})) {
    const std::string idx = fx.tmp / ("k" + std::to_string(static_cast<int>(f * 100)));
    killed += fx.kill_after(idx, fx.fraction(f));
    fx.check_recovered(idx);
  }
  // Kills right after file N is handed to the batch.
  for (size_t at : sweep({3u, 20u}, {20u})) {
    const std::string idx = fx.tmp / ("p" + std::to_string(at));
    IndexOptions o = fx.small_batches;
    o.progress = [at](const IndexProgress& p) {
      if (p.files_done == at) ::raise(SIGKILL);
    };
    pid_t pid = fork_child([&] {
      run_index(idx, mixed_roots(fx.src), o);
      return 0;
    });
    ChildStatus st = wait_child(pid);
    INFO("killed after file " << at);
    CHECK(st.term_signal == SIGKILL);
    fx.check_recovered(idx);
  }
  INFO("child outcomes: " << fx.outcomes);
  CHECK(killed >= (kSanitizedBuild ? 1 : 2));
}

TEST_CASE("agents: kill -9 while appending to every agent's files then one more run equals a clean build",
          "[agents][crash]") {
  MixedKill fx;
  // An index of the tree, then each agent's main file grows; the update is killed, then finished.
  const std::string idx = fx.tmp / "grow";
  run_index(idx, mixed_roots(fx.src), IndexOptions{});
  // Many new entries in the omp, pi and Codex main files (a long turn written while indexing).
  std::string pi_lines, cx_lines;
  std::string parent = "e0000019";
  for (int i = 0; i < 1500; ++i) {
    const std::string id = "z" + std::to_string(1000000 + i);
    pi_lines += R"({"type":"message","id":")" + id + R"(","parentId":")" + parent +
                R"(","timestamp":"2026-11-02T12:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"grown line )" +
                std::to_string(i) + R"( of a long turn with some words"}],"timestamp":1}})" + "\n";
    parent = id;
    cx_lines += R"({"timestamp":"2026-11-03T12:00:00.000Z","type":"event_msg","payload":{"type":"user_message","message":"grown codex line )" +
                std::to_string(i) + R"("}})" + "\n";
  }
  append_file(fx.src + "/omp/sessions/-work-omp-proj/2026-11-01T10-00-00-000Z_01a0b1c2-0000-7000-8000-00000000a001.jsonl", pi_lines);
  append_file(fx.src + "/pi/sessions/--work-pi-proj--/2026-11-02T10-00-00-000Z_01a0b1c2-0000-7000-8000-00000000b001.jsonl", pi_lines);
  append_file(fx.src + "/codex/sessions/2026/11/03/rollout-2026-11-03T10-00-00-01a0b1c2-0000-7000-8000-00000000d001.jsonl", cx_lines);
  // Fresh reference for the grown tree.
  const std::string ref2 = fx.tmp / "ref2";
  IndexSummary clean2 = run_index(ref2, mixed_roots(fx.src), IndexOptions{});
  fx.ref_fp = fingerprint(ref2);
  fx.clean = clean2;
  for (double f : {0.03, 0.1}) fx.kill_after(idx, fx.fraction(f));
  fx.check_recovered(idx);
}
