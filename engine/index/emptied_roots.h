// A source root that exists and lists nothing, on an index that read transcripts from under it:
// the run marks every one of them source_deleted. That is usually a wrong `--source` directory (a
// HOME given for ~/.claude, a single project dir for the projects dir), and the archive keeps the
// sessions either way, but the user must hear it: SPEC skips only a *missing* root silently. Said
// once, by the run that marks them (a later run has nothing left to mark).
//
// A root that lists nothing and marked nothing but holds its agent's layout one or two levels down
// (`--source omp=~/.omp` for ~/.omp/agent/sessions) gets a hint naming that directory (hints()),
// which `osearch index` prints whenever it lists the root; a query's refresh does not repeat it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/index/indexer.h"

namespace osearch {

class EmptiedRoots {
 public:
  explicit EmptiedRoots(const std::vector<SourceRoot>& roots);
  // Root `i`'s discovery listed `files` transcripts; `clean`: without an unreadable dir or file.
  void discovered(size_t i, size_t files, bool clean);
  // A transcript the index read is marked source_deleted by this run.
  void marked_deleted(const std::string& path);
  // One line per root that is a directory, was listed cleanly, held no transcript, and had
  // transcripts marked deleted under it (with the directory below it that has its agent's layout).
  std::vector<std::string> lines() const;
  // One line per such root that marked nothing but has its agent's layout below it.
  std::vector<std::string> hints() const;

 private:
  bool listed_nothing(size_t i) const;  // root i is a directory, listed cleanly, with no transcript
  const std::vector<SourceRoot>& roots_;
  std::vector<size_t> found_, deleted_;
  std::vector<bool> clean_;
};

}  // namespace osearch
