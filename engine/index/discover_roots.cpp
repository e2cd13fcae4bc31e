#include "engine/index/discover_roots.h"

#include <algorithm>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "ingest/agent_layout.h"
#include "ingest/claude_layout.h"
#include "ingest/layout_util.h"

namespace osearch {
namespace {

DiscoveryResult discover(const SourceRoot& root, const KnownTree* known) {
  if (root.agent == "claude") return discover_claude(root.dir, known);
  if (root.agent == "omp" || root.agent == "pi") return discover_pi_family(root.dir, root.agent, known);
  if (root.agent == "codex") return discover_codex(root.dir, known);
  return {};
}

// A file's (device, inode), for telling two roots' links to one file apart.
struct FileIdHash {
  size_t operator()(const std::pair<uint64_t, uint64_t>& id) const {
    return std::hash<uint64_t>{}(id.first * 0x9E3779B97F4A7C15ull ^ id.second);
  }
};

}  // namespace

bool read_before(const SourceFile& a, const SourceFile& b) {
  const bool ai = a.kind == SourceKind::CodexSessionIndex, bi = b.kind == SourceKind::CodexSessionIndex;
  return ai != bi ? bi : a.path < b.path;
}

std::vector<SourceFile> discover_roots(const std::vector<SourceRoot>& roots, const KnownTree* tree,
                                       EmptiedRoots& emptied, IndexSummary& summary, std::vector<PathStat>& observed) {
  // (Decided on views of every root's list before any file moves: a tree of tens of thousands of
  // transcripts is planned without a copy of each path.)
  std::vector<DiscoveryResult> found(roots.size());
  std::vector<std::vector<bool>> keep(roots.size());
  std::unordered_set<std::string_view> listed;
  std::unordered_set<std::pair<uint64_t, uint64_t>, FileIdHash> same_file;  // dev, inode
  size_t kept = 0;
  for (size_t i = 0; i < roots.size(); ++i) {
    DiscoveryResult& d = found[i] = discover(roots[i], tree);
    emptied.discovered(i, d.files.size(), d.errors.empty() && d.file_errors.empty());
    summary.dirs_unreadable += d.errors.size();
    summary.files_unreadable += d.file_errors.size();
    for (auto& e : d.errors) summary.problems.push_back(std::move(e));
    for (auto& e : d.file_errors) summary.problems.push_back(std::move(e));
    for (auto& o : d.observed) observed.push_back(std::move(o));
    keep[i].resize(d.files.size());
    listed.reserve(listed.size() + d.files.size());
    same_file.reserve(same_file.size() + d.files.size());
    for (size_t j = 0; j < d.files.size(); ++j) {
      const SourceFile& f = d.files[j];
      if (!listed.insert(f.path).second || !same_file.insert({f.dev, f.ino}).second) continue;
      keep[i][j] = true;
      ++kept;
    }
  }
  std::vector<SourceFile> files;
  // The usual tree: one root holds every file, each kept. Its list is taken as it is, with no
  // second array of tens of thousands of SourceFiles (fresh pages cost ~10 µs each on some machines).
  const auto has_files = [](const DiscoveryResult& d) { return !d.files.empty(); };
  const auto sole = std::find_if(found.begin(), found.end(), has_files);
  if (sole != found.end() && sole->files.size() == kept && std::none_of(std::next(sole), found.end(), has_files)) {
    files = std::move(sole->files);
  } else {
    files.reserve(kept);
    for (size_t i = 0; i < roots.size(); ++i)
      for (size_t j = 0; j < found[i].files.size(); ++j)
        if (keep[i][j]) files.push_back(std::move(found[i].files[j]));
  }
  drop_covered_missing(observed);  // (in the order the roots were walked)
  return files;
}

}  // namespace osearch
