// Discovery given what a refresh knows (ingest/known_tree.h): after directories' entries changed,
// it finds what a walk of the whole tree finds, for every agent's layout, while it lists only the
// directories that changed. (tests/source_watch_test.cpp checks whole runs on the "relisted" plan
// against clean builds.)
#include "tests/index_fixture.h"

#include "engine/index/source_watch.h"
#include "ingest/agent_layout.h"
#include "ingest/claude_layout.h"
#include "ingest/known_tree.h"
#include "ingest/layout_util.h"

namespace {

struct Tree : FourAgentTree {
  Tree() : FourAgentTree("known-tree") {}
};

DiscoveryResult discover_root(const SourceRoot& root, const KnownTree* known) {
  if (root.agent == "claude") return discover_claude(root.dir, known);
  if (root.agent == "codex") return discover_codex(root.dir, known);
  return discover_pi_family(root.dir, root.agent, known);
}

// What a run keeps of a discovery: every root's files and observations, as its record holds them.
// `mark_listed` false: as the build before recorded them, every directory only probed (osw2).
std::string record_of(const std::vector<SourceRoot>& roots, const KnownTree* known = nullptr, bool mark_listed = true) {
  std::vector<PathStat> observed;
  std::vector<SourceFile> files;
  for (const auto& root : roots) {
    DiscoveryResult d = discover_root(root, known);
    REQUIRE(d.errors.empty());
    REQUIRE(d.file_errors.empty());
    observed.insert(observed.end(), d.observed.begin(), d.observed.end());
    files.insert(files.end(), d.files.begin(), d.files.end());
  }
  drop_covered_missing(observed);
  if (!mark_listed)
    for (auto& o : observed) o.listed = false;
  std::sort(files.begin(), files.end(), [](const SourceFile& a, const SourceFile& b) { return a.path < b.path; });
  return encode_source_watch(roots, observed, files, wall_clock_ns());
}

// Writes `name` into `dir` and puts the directory's times back: a file slipped in behind its mtime's
// back, which only a listing of the directory sees. Returns its path.
std::string slip_behind_mtime(const std::string& dir, const std::string& name) {
  struct stat before {};
  REQUIRE(::stat(dir.c_str(), &before) == 0);
  const std::string path = dir + "/" + name;
  write_file(path, "{}\n");
  const struct timespec times[2] = {before.st_atim, before.st_mtim};
  REQUIRE(::utimensat(AT_FDCWD, dir.c_str(), times, 0) == 0);
  return path;
}

}  // namespace

TEST_CASE("known tree: discovery after directories changed equals a walk of the whole tree", "[watch]") {
  Tree t;
  const std::string record = record_of(t.roots());
  REQUIRE(!record.empty());
  REQUIRE(check_source_watch(record, t.roots()).unchanged());

  // A session in a new Claude project, a subagent in a session's new subagents dir, a rollout in a
  // new day's dir, an omp subagent, a pi session; and a transcript that grew.
  const std::string project = t.claude + "/-Users-user-other";
  write_file(project + "/aaaaaaaa-0000-4000-8000-00000000e001.jsonl", "{}\n");
  const std::string session_dir = t.claude + "/-Users-user-project/b3edadab-bca0-4054-9b41-f7ffa6941260";
  write_file(session_dir + "/subagents/agent-k1.jsonl", "{}\n");
  const std::string day = t.codex + "/sessions/2026/11/06";
  write_file(day + "/rollout-2026-11-06T10-00-00-01a0b1c2-0000-7000-8000-00000000d0e1.jsonl", "{}\n");
  const std::string artifacts =
      t.omp + "/sessions/-work-omp-proj/2026-11-01T10-00-00-000Z_01a0b1c2-0000-7000-8000-00000000a001";
  write_file(artifacts + "/2-Task.jsonl", "{}\n");
  const std::string pi_dir = t.pi + "/sessions/--work-pi-proj--";
  write_file(pi_dir + "/2026-11-06T10-00-00-000Z_01a0b1c2-0000-7000-8000-00000000b0e1.jsonl", "{}\n");
  append_file(t.claude + "/" + kB3, "{}\n");
  for (const auto& d : {project, session_dir + "/subagents", session_dir, t.claude + "/-Users-user-project", t.claude,
                        day, t.codex + "/sessions/2026/11", artifacts, pi_dir})
    t.clock.settle(d);

  const WatchCheck check = check_source_watch(record, t.roots());
  REQUIRE(check.usable);
  CHECK_FALSE(check.layout_unchanged);
  REQUIRE(check.entries_moved());
  // The recorded directories that gained an entry (a new directory is not recorded: its parent is).
  std::set<std::string> moved;
  for (const auto& d : check.moved_dirs) moved.insert(d.path);
  CHECK(moved == std::set<std::string>{t.claude, t.claude + "/-Users-user-project", t.codex + "/sessions/2026/11",
                                       artifacts, pi_dir});
  REQUIRE(check.changed.size() == 1);
  CHECK(check.changed[0].path == t.claude + "/" + kB3);

  // Root by root: the same files with the same stats and the same observations.
  for (const auto& root : t.roots()) {
    INFO(root.agent);
    const DiscoveryResult walked = discover_root(root, nullptr);
    const DiscoveryResult known = discover_root(root, check.known_tree.get());
    REQUIRE(known.files.size() == walked.files.size());
    for (size_t i = 0; i < walked.files.size(); ++i) {
      const SourceFile &a = known.files[i], &b = walked.files[i];
      CHECK(a.path == b.path);
      CHECK((a.kind == b.kind && a.agent == b.agent && a.project == b.project && a.session_id == b.session_id &&
             a.agent_id == b.agent_id && a.workflow_run == b.workflow_run));
      CHECK((a.dev == b.dev && a.ino == b.ino && a.size == b.size && a.mtime_ns == b.mtime_ns));
    }
    auto sorted = [](std::vector<PathStat> v) {
      std::sort(v.begin(), v.end(), [](const PathStat& a, const PathStat& b) { return a.path < b.path; });
      return v;
    };
    CHECK(sorted(known.observed) == sorted(walked.observed));
  }
  // Its record is the walk's: the next check finds nothing moved.
  const std::string again = record_of(t.roots(), check.known_tree.get());
  CHECK(again == record_of(t.roots()));
  CHECK(check_source_watch(again, t.roots()).unchanged());
  CHECK(files_to_plan(check, [&] {
          std::vector<SourceFile> all;
          for (const auto& root : t.roots()) {
            DiscoveryResult d = discover_root(root, check.known_tree.get());
            all.insert(all.end(), d.files.begin(), d.files.end());
          }
          return all;
        }())->size() == 7);  // five new, one grown, and Codex's session index with the new rollout
}

TEST_CASE("known tree: an unchanged directory is not listed again, a changed one is", "[watch]") {
  Tree t;
  const std::vector<SourceRoot> roots{{"claude", t.claude}};
  const std::string record = record_of(roots);
  REQUIRE(!record.empty());
  const std::string moved = t.claude + "/-Users-user-project";
  const std::string created = moved + "/aaaaaaaa-0000-4000-8000-00000000e002.jsonl";
  write_file(created, "{}\n");
  t.clock.settle(moved);
  // A file slipped into a directory behind its mtime's back: only a listing would see it. (The
  // quick check trusts mtimes as much; this test's sleight shows which directories were read.)
  const std::string hidden = slip_behind_mtime(t.claude + "/D--oh-my-posh", "aaaaaaaa-0000-4000-8000-00000000e003.jsonl");

  const WatchCheck c = check_source_watch(record, roots);
  REQUIRE(c.entries_moved());
  REQUIRE(c.moved_dirs.size() == 1);
  CHECK(c.moved_dirs[0].path == moved);
  auto has = [](const DiscoveryResult& d, const std::string& path) {
    return std::any_of(d.files.begin(), d.files.end(), [&](const SourceFile& f) { return f.path == path; });
  };
  const DiscoveryResult known = discover_claude(t.claude, c.known_tree.get());
  CHECK(has(known, created));      // listed again
  CHECK_FALSE(has(known, hidden));  // its directory's entries taken from the record
  CHECK(has(discover_claude(t.claude), hidden));
}

TEST_CASE("known tree: a record without directories marked listed serves; an earlier build's is not trusted", "[watch]") {
  Tree t;
  const std::vector<SourceRoot> roots{{"claude", t.claude}, {"codex", t.codex}};
  std::string record = record_of(roots, nullptr, false);
  REQUIRE(record.starts_with("osw4"));
  // An earlier build's record (osw3, or osw2 without listed marks) decodes, so `check` finds no
  // damage in it, but no check trusts it: the refresh takes the full plan (source_watch_format.h).
  for (const char* earlier : {"osw3", "osw2"}) {
    std::string old = record;
    old.replace(0, 4, earlier);
    CHECK(source_watch_decodes(old));
    CHECK_FALSE(check_source_watch(old, roots).usable);
    CHECK_FALSE(recent_sources_unchanged(old, roots, 16));
  }
  CHECK(source_watch_decodes(record));
  REQUIRE(check_source_watch(record, roots).unchanged());
  const std::string created = t.codex + "/sessions/2026/11/03/rollout-2026-11-03T11-00-00-01a0b1c2-0000-7000-8000-00000000d0e2.jsonl";
  write_file(created, "{}\n");
  t.clock.settle(t.codex + "/sessions/2026/11/03");
  // A file slipped into an unchanged directory behind its mtime's back: with no directory marked
  // listed, none of their entries is taken from the record, so the relisting reads it.
  const std::string hidden = slip_behind_mtime(t.claude + "/D--oh-my-posh", "aaaaaaaa-0000-4000-8000-00000000e004.jsonl");
  const WatchCheck c = check_source_watch(record, roots);
  REQUIRE(c.entries_moved());
  const DiscoveryResult known = discover_codex(t.codex, c.known_tree.get());
  const DiscoveryResult walked = discover_codex(t.codex);
  REQUIRE(known.files.size() == walked.files.size());
  for (size_t i = 0; i < known.files.size(); ++i) CHECK(known.files[i].path == walked.files[i].path);
  const DiscoveryResult claude = discover_claude(t.claude, c.known_tree.get());
  CHECK(std::any_of(claude.files.begin(), claude.files.end(), [&](const SourceFile& f) { return f.path == hidden; }));
}

TEST_CASE("known tree: random creations across every layout, each refresh equal to a clean build", "[watch]") {
  Tree t;
  const std::string idx = t.tmp / "index", idx_full = t.tmp / "index-full";
  IndexOptions quick;
  quick.quick_check = true;
  quick.count_unknown_garbage = false;
  quick.wait_for_lock = false;
  REQUIRE(run_index(idx, t.roots(), quick).plan == "full");
  std::mt19937 rng(20261205);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  std::vector<std::string> transcripts;
  for (const auto& e : fs::recursive_directory_iterator(t.tmp.path()))
    if (e.is_regular_file() && e.path().extension() == ".jsonl" && e.path().string().find("/index") == std::string::npos)
      transcripts.push_back(e.path().string());
  std::sort(transcripts.begin(), transcripts.end());
  std::map<std::string, int> plans;
  for (int step = 0; step < 24; ++step) {
    char id[40];
    std::snprintf(id, sizeof id, "%08d-0000-4000-8000-%012d", 77, step);
    const std::string sid = id;
    std::vector<std::string> touched;  // directories whose entries this step changed, settled after
    auto create = [&](const std::string& path, const std::string& text) {
      // Every directory the file needed, and the parent of the first one that was there.
      fs::path p = fs::path(path).parent_path();
      std::vector<std::string> made;
      while (!fs::exists(p)) {
        made.push_back(p.string());
        p = p.parent_path();
      }
      write_file(path, text);
      transcripts.push_back(path);
      for (auto& m : made) touched.push_back(m);
      touched.push_back(p.string());
    };
    const std::string user = R"({"type":"user","uuid":"rnd-)" + std::to_string(step) + R"(","parentUuid":null,"sessionId":")" +
                             sid + R"(","timestamp":"2026-11-06T10:00:00.000Z","message":{"role":"user","content":"random step )" +
                             std::to_string(step) + R"("}})" "\n";
    switch (pick(7)) {
      case 0: create(t.claude + "/-Users-user-project/" + sid + ".jsonl", user); break;
      case 1: create(t.claude + "/-Users-rnd-" + std::to_string(pick(3)) + "/" + sid + ".jsonl", user); break;
      case 2: create(t.claude + "/-Users-user-project/b3edadab-bca0-4054-9b41-f7ffa6941260/subagents/agent-r" + std::to_string(step) + ".jsonl", user); break;
      case 3:
        create(t.codex + "/sessions/2026/11/0" + std::to_string(3 + pick(4)) + "/rollout-2026-11-06T10-00-00-" + sid + ".jsonl",
               R"({"timestamp":"2026-11-06T10:00:00.000Z","type":"session_meta","payload":{"id":")" + sid +
                   R"(","timestamp":"2026-11-06T10:00:00.000Z","cwd":"/work/rnd"}})" "\n");
        break;
      case 4:
        create(t.pi + "/sessions/--work-pi-proj--/2026-11-06T10-00-00-000Z_" + sid + ".jsonl",
               R"({"type":"session","version":3,"id":")" + sid + R"(","timestamp":"2026-11-06T10:00:00.000Z","cwd":"/work/pi-proj"})" "\n");
        break;
      case 5:
        create(t.omp + "/sessions/-work-omp-proj/2026-11-01T10-00-00-000Z_01a0b1c2-0000-7000-8000-00000000a001/r" +
                   std::to_string(step) + ".jsonl",
               R"({"type":"session","version":3,"id":")" + sid + R"(","timestamp":"2026-11-06T10:00:00.000Z","cwd":"/work/omp proj"})" "\n");
        break;
      default: break;  // only a transcript grows
    }
    if (pick(2) == 0 || touched.empty()) append_file(transcripts[pick(transcripts.size())], "\n");
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    for (const auto& d : touched) t.clock.settle(d);
    INFO("step " << step);
    const IndexSummary r = run_index(idx, t.roots(), quick);
    ++plans[std::string(r.plan)];
    CHECK((r.plan == "relisted" || (touched.empty() && (r.plan == "targeted" || r.plan == "unchanged"))));
    REQUIRE(run_index(idx_full, t.roots(), IndexOptions{}).files_unreadable == 0);
    CHECK_SAME_INDEX(idx, fingerprint(idx_full));
    CHECK(run_index(idx, t.roots(), quick).plan == "unchanged");
  }
  CHECK(plans["relisted"] >= 12);
}

TEST_CASE("known tree: a directory's entries are known only when it was listed and has not changed", "[watch]") {
  auto dir = [](std::string path, bool listed) {
    PathStat p{std::move(path), PathStat::Type::Dir, 1, 2, 4096, 1000};
    p.listed = listed;
    return p;
  };
  KnownTree tree;
  tree.add(dir("/r", true), false, false);
  tree.add(dir("/r/listed", true), false, false);
  tree.add(dir("/r/probed", false), false, false);  // observed (a Claude session dir), never listed
  tree.add(dir("/r/moved", true), false, true);
  tree.add(dir("/r/empty", true), false, false);
  for (const char* parent : {"/r/listed", "/r/probed", "/r/moved"})
    tree.add(PathStat{std::string(parent) + "/a.jsonl", PathStat::Type::File, 1, 3, 10, 1000}, true, false);
  tree.add(PathStat{"/r/listed/gone.jsonl", PathStat::Type::Missing}, false, false);
  tree.add(dir("/r", false), false, false);  // a root is recorded twice: opened, then listed
  tree.finish();

  const auto* root = tree.listing_of("/r");
  REQUIRE(root);
  CHECK(root->size() == 4);  // its four directories
  const auto* listed = tree.listing_of("/r/listed");
  REQUIRE(listed);
  REQUIRE(listed->size() == 1);  // a missing path is no entry
  CHECK((*listed)[0]->path == "/r/listed/a.jsonl");
  CHECK(tree.listing_of("/r/probed") == nullptr);
  CHECK(tree.listing_of("/r/moved") == nullptr);
  REQUIRE(tree.listing_of("/r/empty"));
  CHECK(tree.listing_of("/r/empty")->empty());
  CHECK(tree.listing_of("/r/unknown") == nullptr);
  CHECK(tree.transcripts() == 3);
  CHECK(tree.is_transcript("/r/moved/a.jsonl"));
  CHECK_FALSE(tree.is_transcript("/r/listed"));
  REQUIRE(tree.stat_of("/r/listed/gone.jsonl"));
  CHECK(tree.stat_of("/r/listed/gone.jsonl")->type == PathStat::Type::Missing);
  CHECK(tree.stat_of("/r/nothing") == nullptr);
  // A discovery's guess of its list's size: the transcripts under its root, at any depth, not beside it.
  CHECK(tree.transcripts_under("/r") == 3);
  CHECK(tree.transcripts_under("/r/") == 3);
  CHECK(tree.transcripts_under("/r/listed") == 1);
  CHECK(tree.transcripts_under("/r/list") == 0);  // a name's prefix is not its directory
  CHECK(tree.transcripts_under("/q") == 0);
}

TEST_CASE("known tree: a listing's entries name themselves as a walk's do", "[watch]") {
  TempDir t("dir-entry");
  const std::string d = t / "proj";
  fs::create_directories(d + "/sub");
  std::ofstream(d + "/a.jsonl") << "{}\n";
  std::vector<std::pair<std::string, std::string>> walked;  // path, name
  for (const auto& e : fs::directory_iterator(d)) {
    const DirEntry entry(e);
    walked.emplace_back(entry.path_view(), entry.name());
    CHECK(entry.path().string() == entry.path_view());
    CHECK(entry.path().filename().string() == entry.name());
  }
  std::sort(walked.begin(), walked.end());
  REQUIRE(walked.size() == 2);
  for (const auto& [path, name] : walked) {
    const DirEntry known(path, name == "sub" ? PathStat::Type::Dir : PathStat::Type::File);
    CHECK(known.path_view() == path);
    CHECK(known.name() == name);
    CHECK(known.path().string() == path);  // made when asked, from the view
    std::error_code ec;
    CHECK(known.is_directory(ec) == (name == "sub"));
  }
}
