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

std::vector<std::string> EmptiedRoots::lines() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < roots_.size(); ++i) {
    std::error_code ec;
    if (deleted_[i] == 0 || !std::filesystem::is_directory(roots_[i].dir, ec)) continue;
    out.push_back(roots_[i].agent + " source " + roots_[i].dir + ": no transcript found there, but " +
                  std::to_string(deleted_[i]) + " indexed from under it " + (deleted_[i] == 1 ? "was" : "were") +
                  ": marked source_deleted (their sessions stay searchable); is it the right directory?");
  }
  return out;
}

}  // namespace osearch
