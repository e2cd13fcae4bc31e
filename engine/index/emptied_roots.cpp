#include "engine/index/emptied_roots.h"

#include <filesystem>

#include "engine/index/salvage.h"  // under

namespace osearch {

EmptiedRoots::EmptiedRoots(const std::vector<SourceRoot>& roots)
    : roots_(roots), found_(roots.size(), 0), deleted_(roots.size(), 0), clean_(roots.size(), false) {}

void EmptiedRoots::discovered(size_t i, size_t files, bool clean) {
  found_.at(i) = files;
  clean_.at(i) = clean;
}

void EmptiedRoots::marked_deleted(const std::string& path) {
  for (size_t i = 0; i < roots_.size(); ++i)
    if (clean_[i] && found_[i] == 0 && under(path, roots_[i].dir)) ++deleted_[i];
}

namespace {

// Where an agent's transcripts live below a directory the user may have given instead (SPEC §2: the
// roots are ~/.claude/projects, ~/.omp/agent/sessions, ~/.pi/agent/sessions, ~/.codex/sessions; a
// Codex root is walked to any depth, so one level up finds them already).
std::vector<std::string_view> layouts_below(std::string_view agent) {
  if (agent == "claude") return {"projects", ".claude/projects"};
  if (agent == "omp") return {"agent/sessions", ".omp/agent/sessions"};
  if (agent == "pi") return {"agent/sessions", ".pi/agent/sessions"};
  return {};
}

// " did you mean --source KIND=DIR?" for the first of those layouts below `root` that exists, else "".
std::string suggestion(const SourceRoot& root) {
  std::error_code ec;
  for (std::string_view below : layouts_below(root.agent)) {
    const std::string dir = (std::filesystem::path(root.dir) / below).string();
    if (std::filesystem::is_directory(dir, ec)) return " did you mean --source " + root.agent + "=" + dir + "?";
  }
  return "";
}

}  // namespace

bool EmptiedRoots::listed_nothing(size_t i) const {
  std::error_code ec;
  return clean_[i] && found_[i] == 0 && std::filesystem::is_directory(roots_[i].dir, ec);
}

std::vector<std::string> EmptiedRoots::lines() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < roots_.size(); ++i) {
    if (deleted_[i] == 0 || !listed_nothing(i)) continue;
    const std::string better = suggestion(roots_[i]);
    out.push_back(roots_[i].agent + " source " + roots_[i].dir + ": no transcript found there, but " +
                  std::to_string(deleted_[i]) + " indexed from under it " + (deleted_[i] == 1 ? "was" : "were") +
                  ": marked source_deleted (their sessions stay searchable);" +
                  (better.empty() ? " is it the right directory?" : better));
  }
  return out;
}

std::vector<std::string> EmptiedRoots::hints() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < roots_.size(); ++i) {
    if (deleted_[i] != 0 || !listed_nothing(i)) continue;
    const std::string better = suggestion(roots_[i]);
    if (!better.empty())
      out.push_back(roots_[i].agent + " source " + roots_[i].dir + ": no transcript found there;" + better);
  }
  return out;
}

}  // namespace osearch
