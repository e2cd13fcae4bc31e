// Index: a source root that exists but lists nothing, over transcripts the index read from under it
// (a HOME given for ~/.claude/projects by mistake), is said once, by `index` and by a query's
// refresh; the sessions stay, marked source_deleted, and come back with the right root.
#include "tests/index_fixture.h"

namespace {

bool any_source_deleted(const std::string& idx) {
  for (const auto& [id, s] : all_sessions(idx))
    if (s.source_deleted) return true;
  return false;
}

bool all_source_deleted(const std::string& idx) {
  for (const auto& [id, s] : all_sessions(idx))
    if (!s.source_deleted) return false;
  return true;
}

}  // namespace

TEST_CASE("index: a root that exists but lists nothing over indexed transcripts is said once", "[index]") {
  TempDir tmp("emptied-root");
  const std::string home = tmp / "home";
  const std::string projects = home + "/.claude/projects";
  make_tree(projects, {"-Users-user-project", kWindows});
  const std::string idx = tmp / "idx";
  IndexSummary first = run_index(idx, {SourceRoot{"claude", projects}}, {});
  REQUIRE(first.problems.empty());
  REQUIRE(first.sessions > 0);

  // The HOME given instead of its projects dir: nothing there looks like a transcript.
  IndexSummary wrong = run_index(idx, {SourceRoot{"claude", home}}, {});
  CHECK(wrong.files_deleted == first.files_seen);
  REQUIRE(wrong.emptied_roots.size() == 1);
  const std::string& line = wrong.emptied_roots.front();
  CHECK(line.find("claude source " + home + ":") == 0);
  CHECK(line.find(std::to_string(first.files_seen) + " indexed from under it") != std::string::npos);
  CHECK(line.find("did you mean --source claude=" + projects + "?") != std::string::npos);
  CHECK(std::find(wrong.problems.begin(), wrong.problems.end(), line) != wrong.problems.end());
  CHECK(wrong.sessions == first.sessions);  // the archive keeps them
  CHECK(all_source_deleted(idx));

  // The marking is said once: the next run has nothing left to mark, and names the right root only.
  IndexSummary again = run_index(idx, {SourceRoot{"claude", home}}, {});
  CHECK(again.files_deleted == 0);
  CHECK(again.emptied_roots.empty());
  REQUIRE(again.root_hints.size() == 1);
  CHECK(again.root_hints.front() ==
        "claude source " + home + ": no transcript found there; did you mean --source claude=" + projects + "?");

  // The right root brings every session back.
  IndexSummary right = run_index(idx, {SourceRoot{"claude", projects}}, {});
  CHECK(right.emptied_roots.empty());
  CHECK(right.sessions == first.sessions);
  CHECK_FALSE(any_source_deleted(idx));

  // A root that lists some transcripts, while others under it vanished, is not this case.
  fs::remove(projects + "/" + kWindows);
  IndexSummary one_gone = run_index(idx, {SourceRoot{"claude", projects}}, {});
  CHECK(one_gone.files_deleted == 1);
  CHECK(one_gone.emptied_roots.empty());
}

TEST_CASE("index: an empty root on a new index, and a missing root, are silent", "[index]") {
  TempDir tmp("emptied-root-silent");
  const std::string empty = tmp / "empty";
  fs::create_directories(empty);
  IndexSummary s = run_index(tmp / "idx", {SourceRoot{"claude", empty}}, {});
  CHECK(s.emptied_roots.empty());
  CHECK(s.problems.empty());

  // SPEC: a missing root is skipped silently, even when transcripts were read from it.
  const std::string src = tmp / "src";
  make_tree(src, {kWindows});
  const std::string idx = tmp / "idx2";
  index_tree(idx, src);
  fs::remove_all(src);
  IndexSummary gone = index_tree(idx, src);
  CHECK(gone.files_deleted == 1);
  CHECK(gone.emptied_roots.empty());
  CHECK(gone.problems.empty());
}

TEST_CASE("index: a root one level above its agent's layout is named with the right one", "[index]") {
  TempDir tmp("emptied-root-layout");
  // omp and pi homes (~/.omp, ~/.pi), a dir holding `agent/sessions`, and a Claude config dir.
  const std::vector<std::pair<SourceRoot, std::string>> cases = {
      {{"omp", tmp / "home/.omp"}, tmp / "home/.omp/agent/sessions"},
      {{"pi", tmp / "home"}, tmp / "home/.pi/agent/sessions"},
      {{"omp", tmp / "profile"}, tmp / "profile/agent/sessions"},
      {{"claude", tmp / "cfg"}, tmp / "cfg/projects"},
  };
  for (const auto& [root, right] : cases) {
    INFO(root.agent << "=" << root.dir);
    fs::create_directories(right + "/-some-project");
    IndexSummary s = run_index(tmp / ("idx-" + root.agent + std::to_string(root.dir.size())), {root}, {});
    CHECK(s.emptied_roots.empty());
    REQUIRE(s.root_hints.size() == 1);
    CHECK(s.root_hints.front() == root.agent + " source " + root.dir +
                                      ": no transcript found there; did you mean --source " + root.agent + "=" + right +
                                      "?");
    CHECK(std::find(s.problems.begin(), s.problems.end(), s.root_hints.front()) != s.problems.end());
  }
  // The right roots themselves, empty as they are, are silent; so is a Codex home (walked to any depth).
  for (const auto& [root, right] : cases) {
    IndexSummary s = run_index(tmp / "idx-right", {SourceRoot{root.agent, right}}, {});
    CHECK(s.emptied_roots.empty());
    CHECK(s.root_hints.empty());
  }
  fs::create_directories(tmp / "codex-home/sessions");
  CHECK(run_index(tmp / "idx-codex", {SourceRoot{"codex", tmp / "codex-home"}}, {}).root_hints.empty());
}

TEST_CASE("cli: a query's refresh says when its root lists nothing over indexed transcripts", "[cli][index]") {
  TempDir tmp("emptied-root-cli");
  const std::string home = tmp / "home";
  const std::string projects = home + "/.claude/projects";
  make_tree(projects, {kWindows});
  const std::string idx = tmp / "idx";
  RunResult built = run_osearch({"--index", idx, "--source", "claude=" + projects, "index", "--format", "json"});
  REQUIRE(built.exit_code == 0);

  RunResult q = run_osearch({"--index", idx, "--source", "claude=" + home, "list", "--format", "json"});
  CHECK(q.exit_code == 0);
  CHECK(q.err.find("osearch: warning: claude source " + home + ": no transcript found there") != std::string::npos);
  CHECK(q.out.find("\"source_deleted\":true") != std::string::npos);
  // Once only.
  RunResult q2 = run_osearch({"--index", idx, "--source", "claude=" + home, "list", "--format", "json"});
  CHECK(q2.err.find("no transcript found there") == std::string::npos);

  // `index` says it without --verbose too.
  RunResult fixed = run_osearch({"--index", idx, "--source", "claude=" + projects, "index", "--format", "json"});
  REQUIRE(fixed.exit_code == 0);
  RunResult ix = run_osearch({"--index", idx, "--source", "claude=" + home, "index", "--format", "json"});
  CHECK(ix.exit_code == 0);
  CHECK(ix.err.find("no transcript found there") != std::string::npos);
  CHECK(ix.out.find("\"warnings\":[\"claude source " + home + ": no transcript found there") != std::string::npos);
  // Each `index` that lists the root names the right one; queries do not repeat it.
  RunResult ix2 = run_osearch({"--index", idx, "--source", "claude=" + home, "index", "--full", "--format", "json"});
  CHECK(ix2.exit_code == 0);
  CHECK(ix2.err.find("did you mean --source claude=" + projects + "?") != std::string::npos);
  CHECK(ix2.out.find("did you mean --source claude=" + projects + "?") != std::string::npos);
  RunResult q3 = run_osearch({"--index", idx, "--source", "claude=" + home, "list", "--format", "json"});
  CHECK(q3.err.find("did you mean") == std::string::npos);
}
