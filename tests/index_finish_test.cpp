// Index: the end of a complete run, where the shards' compaction runs beside the LMDB repack
// (engine/index/shard_compaction.h): one layout named at the end, nothing compacted away left
// behind, the same index as a run without a repack, and kill -9 anywhere in it recovers.
#include "tests/index_fixture.h"
#include "tests/sweep.h"

#include "engine/index/index_parts.h"

namespace {

// A tree of three copies of tests/data/claude, written in small batches: many shards to compact.
struct ShardedTree {
  TempDir tmp{"finish"};
  std::string src = tmp / "src";
  ShardedTree() {
    for (int k = 0; k < 3; ++k)
      copy_projects(src, "-copy" + std::to_string(k), k == 0 ? "" : "f" + std::to_string(k) + "-");
  }
  IndexOptions options(Repack repack) const {
    IndexOptions o;
    o.flush_bytes = 64 << 10;
    o.repack = repack;
    return o;
  }
};

XapianLayout named_layout(const std::string& idx) {
  Store store(idx, Store::Mode::Read);
  LmdbTxn txn(store.env(), true);
  return read_parts(txn, store.db()).layout;
}

// Message database dirs in the index dir (main generations, parts, shards).
std::set<std::string> database_dirs(const std::string& idx) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(idx)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("shard-", 0) == 0 || name.rfind("part-", 0) == 0 || name.rfind("xapian", 0) == 0) out.insert(name);
  }
  return out;
}

std::set<std::string> named_dirs(const std::string& idx) {
  const XapianLayout layout = named_layout(idx);
  std::set<std::string> out(layout.shards.begin(), layout.shards.end());
  if (fs::exists(layout.main_dir(idx))) out.insert(fs::path(layout.main_dir(idx)).filename().string());
  return out;
}

// Runs `index` with `options` in a child on `idx`, waits until `ready` holds in the index dir (or 10 s
// pass) and `after_us` more, then kills it: how it ended.
ChildStatus kill_index_when(const ShardedTree& tree, const std::string& idx, const IndexOptions& options,
                            const std::function<bool(const std::string&)>& ready, int after_us) {
  pid_t pid = fork_child([&] {
    IndexSummary s = run_index(idx, roots_of(tree.src), options);
    return s.problems.empty() ? 0 : 4;
  });
  poll_until(
      [&] {
        std::error_code ec;
        return fs::exists(idx, ec) && ready(idx);
      },
      std::chrono::seconds(10));
  std::this_thread::sleep_for(std::chrono::microseconds(after_us));
  ::kill(pid, SIGKILL);
  return wait_child(pid);
}

}  // namespace

TEST_CASE("index: a cold build compacts its shards beside the repack and names one layout", "[index][repack]") {
  ShardedTree tree;
  const std::string plain = tree.tmp / "plain";
  IndexSummary p = index_tree(plain, tree.src, tree.options(Repack::Never));
  REQUIRE(p.problems.empty());
  const auto fp = fingerprint(plain);

  const std::string idx = tree.tmp / "idx";
  IndexSummary s = index_tree(idx, tree.src, tree.options(Repack::Always));
  INFO("problems: " << (s.problems.empty() ? "" : s.problems.front()));
  CHECK(s.problems.empty());
  CHECK(s.messages == p.messages);
  CHECK(current_records_name(idx) == "records-1");  // repacked
  // Compacted: a main database and at most one part, both named; no shard left on disk.
  const XapianLayout layout = named_layout(idx);
  CHECK(layout.generation >= 1);
  CHECK(layout.shards.size() <= 1);
  for (const auto& sh : layout.shards) CHECK(XapianLayout::is_part(sh));
  CHECK(database_dirs(idx) == named_dirs(idx));
  CHECK_SAME_INDEX(idx, fp);
  CHECK(keyword_sessions(idx, "error") == keyword_sessions(plain, "error"));

  // A later run over the same tree changes nothing and keeps the layout.
  IndexSummary again = index_tree(idx, tree.src);
  CHECK(again.new_messages == 0);
  CHECK(database_dirs(idx) == named_dirs(idx));
  CHECK_SAME_INDEX(idx, fp);
}

TEST_CASE("index: kill -9 while the shards compact beside the repack, then one more run equals a clean build",
          "[index][repack][crash]") {
  ShardedTree tree;
  const std::string ref = tree.tmp / "ref";
  IndexSummary clean = index_tree(ref, tree.src);
  const auto fp = fingerprint(ref);

  int killed = 0, trials = 0;
  std::string outcomes;
  auto trial = [&](const std::string& name, const std::function<bool(const std::string&)>& ready, int after_us) {
    const std::string idx = tree.tmp / ("k-" + name);
    const ChildStatus st = kill_index_when(tree, idx, tree.options(Repack::Always), ready, after_us);
    outcomes += name + (st.term_signal ? ":killed " : ":exit " + std::to_string(st.exit_code) + " ");
    INFO("outcomes: " << outcomes);
    CHECK((st.term_signal == SIGKILL || (st.exited && st.exit_code == 0)));
    killed += st.term_signal == SIGKILL;
    ++trials;
    IndexSummary s = index_tree(idx, tree.src);
    CHECK_FALSE(s.busy);
    CHECK(s.messages == clean.messages);
    CHECK(s.sessions == clean.sessions);
    CHECK(database_dirs(idx) == named_dirs(idx));
    CHECK_SAME_INDEX(idx, fp);
  };
  // The compaction's output appears (generation 1's part), the repack's env appears, the pointer moves.
  const auto compacting = [](const std::string& idx) { return fs::exists(idx + "/part-1"); };
  const auto repacking = [](const std::string& idx) { return fs::exists(idx + "/records-1/data.mdb"); };
  const auto switched = [](const std::string& idx) { return fs::exists(idx + "/records.current"); };
  for (int us : sweep({0, 2000}, {0})) {
    trial("compacting" + std::to_string(us), compacting, us);
    trial("repacking" + std::to_string(us), repacking, us);
    trial("switched" + std::to_string(us), switched, us);
  }
  INFO("outcomes: " << outcomes);
  CHECK(killed >= trials / 2);
}

TEST_CASE("index --full: the new generation is repacked beside its compaction and the switch names the copy",
          "[index][repack][full]") {
  ShardedTree tree;
  const std::string plain = tree.tmp / "plain";
  IndexSummary p = index_tree(plain, tree.src, tree.options(Repack::Never));
  REQUIRE(p.problems.empty());
  const auto fp = fingerprint(plain);

  const std::string idx = tree.tmp / "idx";
  REQUIRE(index_tree(idx, tree.src, tree.options(Repack::Always)).problems.empty());
  REQUIRE(current_records_name(idx) == "records-1");
  IndexOptions full = tree.options(Repack::Always);
  full.full = true;
  IndexSummary s = index_tree(idx, tree.src, full);
  INFO("problems: " << (s.problems.empty() ? "" : s.problems.front()));
  CHECK(s.problems.empty());
  CHECK(s.rebuilt);
  CHECK(s.messages == p.messages);
  // The rebuild's env was records-2; its copy, records-3, is the one named. Nothing else is left.
  CHECK(current_records_name(idx) == "records-3");
  std::set<std::string> envs;
  for (const auto& e : fs::directory_iterator(idx))
    if (e.path().filename().string().rfind("records-", 0) == 0) envs.insert(e.path().filename().string());
  CHECK(envs == std::set<std::string>{"records-3"});
  CHECK(database_dirs(idx) == named_dirs(idx));
  CHECK_SAME_INDEX(idx, fp);
  CHECK(keyword_sessions(idx, "error") == keyword_sessions(plain, "error"));

  // Without a repack the switch names the rebuild's own env.
  IndexOptions unpacked = tree.options(Repack::Never);
  unpacked.full = true;
  REQUIRE(index_tree(idx, tree.src, unpacked).problems.empty());
  CHECK(current_records_name(idx) == "records-4");
  CHECK_SAME_INDEX(idx, fp);
}

TEST_CASE("index --full: kill -9 while the new generation is repacked leaves the old index, and one more run ends clean",
          "[index][repack][full][crash]") {
  ShardedTree tree;
  const std::string ref = tree.tmp / "ref";
  IndexSummary clean = index_tree(ref, tree.src);
  const auto fp = fingerprint(ref);

  int killed = 0, trials = 0;
  std::string outcomes;
  auto trial = [&](const std::string& name, const std::function<bool(const std::string&)>& ready, int after_us) {
    const std::string idx = tree.tmp / ("k-" + name);
    REQUIRE(index_tree(idx, tree.src, tree.options(Repack::Always)).problems.empty());  // records-1
    IndexOptions full = tree.options(Repack::Always);
    full.full = true;
    const ChildStatus st = kill_index_when(tree, idx, full, ready, after_us);
    outcomes += name + (st.term_signal ? ":killed " : ":exit " + std::to_string(st.exit_code) + " ");
    INFO("outcomes: " << outcomes);
    CHECK((st.term_signal == SIGKILL || (st.exited && st.exit_code == 0)));
    killed += st.term_signal == SIGKILL;
    ++trials;
    // Killed before its switch the old generation answers, whole; after it, the new one.
    CHECK_SAME_INDEX(idx, fp);
    IndexSummary s = index_tree(idx, tree.src);
    CHECK_FALSE(s.busy);
    CHECK(s.messages == clean.messages);
    CHECK(database_dirs(idx) == named_dirs(idx));
    CHECK_SAME_INDEX(idx, fp);
  };
  // The rebuild's env appears (records-2), then its copy (records-3).
  const auto rebuilding = [](const std::string& idx) { return fs::exists(idx + "/records-2/data.mdb"); };
  const auto repacking = [](const std::string& idx) { return fs::exists(idx + "/records-3/data.mdb"); };
  for (int us : sweep({0, 3000}, {0})) {
    trial("rebuilding" + std::to_string(us), rebuilding, us);
    trial("repacking" + std::to_string(us), repacking, us);
  }
  INFO("outcomes: " << outcomes);
  CHECK(killed >= trials / 2);
}
