// Real transcripts of the four agents written in pieces cut at random bytes (mid-line, mid-character,
// between glued objects, right after an object without its newline), with an index run after each
// piece: the index must end as a one-shot build of the whole files. Every adapter's carry across
// runs (cwd, model, parent links, usage per API message, omp's title slot, pi's header, Codex's
// turn context, a Claude subagent's lines before its parent's) is exercised where the cut falls.
#include <filesystem>
#include <random>

#include "tests/index_fixture.h"

namespace {

struct Tree {
  std::string kind, data, dest;  // tests/data/<data> copied to <the kind's root>/<dest>
};

// Whole trees of real files (their PROVENANCE.md say where each comes from), laid out as each agent
// writes them: Claude project directories, pi and omp session directories, a CODEX_HOME.
const std::vector<Tree> kTrees = {
    {"claude", "claude/-experiments-worktrees", "-experiments-worktrees"},
    {"claude", "claude/-Users-cjm-repos-ai-blame-test", "-Users-cjm-repos-ai-blame-test"},
    {"claude", "claude/-private-var-folders-t5-6tq8cxtj20z035rv8hsnzwvh0000gn-T-capture-caLMT9", "-capture"},
    {"claude", "claude/D--oh-my-posh", "D--oh-my-posh"},
    {"claude", "claude-progress/-home-marco-projects-spotter", "-home-marco-projects-spotter"},
    {"pi", "pi/.pi/agent/sessions/--tmp-osearch-pi-writer-project--", "--tmp-osearch-pi-writer-project--"},
    {"pi", "pi/.pi/agent/sessions/--tmp-as-agent-fixture-project--", "--tmp-as-agent-fixture-project--"},
    {"pi", "mixed/pi/sessions", ""},
    {"omp", "omp-writer/sessions", ""},
    {"omp", "mixed/omp/sessions", ""},
    {"codex", "codex/.codex/sessions", "sessions"},
    {"codex", "mixed/codex", ""},
};

struct Source {
  std::string rel;    // under the root copies
  std::string bytes;  // the whole file
  std::vector<size_t> cuts;
};

}  // namespace

TEST_CASE("index: real transcripts of every agent grown in random pieces end as a one-shot build",
          "[index][hardening]") {
  TempDir tmp("incremental-random");
  // One root per agent kind, each holding its trees under a directory of their own (a Claude tree
  // stays a project directory: its basename is kept).
  std::map<std::string, std::string> root_of;
  std::vector<Source> sources;
  for (const Tree& t : kTrees) {
    const std::string from = test_data_dir() + "/" + t.data;
    REQUIRE(fs::exists(from));
    root_of.emplace(t.kind, "");
    const std::string under = t.kind + (t.dest.empty() ? "" : "/" + t.dest);
    for (const auto& e : fs::recursive_directory_iterator(from)) {
      if (!e.is_regular_file()) continue;
      const std::string name = e.path().filename().string();
      if (!name.ends_with(".jsonl") && !name.ends_with(".json")) continue;
      sources.push_back({under + "/" + fs::relative(e.path(), from).string(), read_file(e.path().string()), {}});
    }
  }
  // The grown files live where the reference's did: file tags and stored paths come from the path.
  std::vector<SourceRoot> roots;
  for (const auto& [kind, unused] : root_of) roots.push_back({kind, tmp / ("tree/" + kind)});
  std::mt19937 rng(20261207);
  for (int round = 0; round < 2; ++round) {
    fs::remove_all(tmp / "tree");
    for (const Source& s : sources) write_file(tmp / ("tree/" + s.rel), s.bytes);
    const std::string ref = tmp / ("ref-" + std::to_string(round)), idx = tmp / ("idx-" + std::to_string(round));
    REQUIRE(run_index(ref, roots, IndexOptions{}).files_unreadable == 0);
    const auto want = fingerprint(ref);
    fs::remove_all(tmp / "tree");

    constexpr size_t kPieces = 5;
    for (Source& s : sources) {
      s.cuts.clear();
      for (size_t k = 1; k < kPieces; ++k) s.cuts.push_back(s.bytes.empty() ? 0 : rng() % (s.bytes.size() + 1));
      std::sort(s.cuts.begin(), s.cuts.end());
      s.cuts.push_back(s.bytes.size());
    }
    for (size_t piece = 0; piece < kPieces; ++piece) {
      for (const Source& s : sources) {
        const std::string path = tmp / ("tree/" + s.rel);
        // A file appears with its first piece (maybe empty), then grows through the same inode.
        const size_t from = piece == 0 ? 0 : s.cuts[piece - 1];
        if (piece == 0) write_file(path, s.bytes.substr(0, s.cuts[0]));
        else if (s.cuts[piece] > from) append_file(path, s.bytes.substr(from, s.cuts[piece] - from));
      }
      INFO("round " << round << " piece " << piece);
      REQUIRE(run_index(idx, roots, IndexOptions{}).files_unreadable == 0);
    }
    const auto got = fingerprint(idx);
    std::string diff = fingerprint_diff(split_titles(got).second, split_titles(want).second);
    INFO("round " << round << ": records differ from a one-shot build:\n" << diff);
    CHECK(diff.empty());
    diff = fingerprint_diff(split_titles(got).first, split_titles(want).first);
    INFO("round " << round << ": titles differ from a one-shot build:\n" << diff);
    CHECK(diff.empty());
  }
}
