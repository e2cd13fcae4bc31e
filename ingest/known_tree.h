// What a refresh knows of its source tree before discovery walks it: the last complete run's
// record of every path its discovery relied on (engine/index/source_watch.h), each just stat'ed
// again by the quick check and found as recorded, except directories whose entries changed (a
// session created in a project, a subagents dir in a session dir). Discovery then lists only
// those directories and whatever is new under them; every other path's stat comes from the check
// and every other listed directory's entries from the record: the same result as a walk of the
// whole tree, for the syscalls of the change.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ingest/source_file.h"

namespace osearch {

class KnownTree {
 public:
  // A recorded path as the check found it. `entries_moved`: a directory still there whose entries
  // changed, to be listed again. `transcript`: a file discovery took as a transcript.
  void add(PathStat now, bool transcript, bool entries_moved);
  // After the last add(): sorts the paths and groups each unchanged listed directory's entries.
  void finish();

  // The path's stat as the check found it; null when it is not recorded (stat it).
  const PathStat* stat_of(std::string_view path) const;
  // The entries (directories and files) a directory had when discovery last listed it, when it was
  // listed then and its entries have not changed since; null when it must be listed.
  const std::vector<const PathStat*>* listing_of(std::string_view dir) const;
  bool is_transcript(std::string_view path) const;
  size_t transcripts() const { return transcripts_; }
  // How many of them lie under `dir` (a discovery's guess of its list's size).
  size_t transcripts_under(std::string_view dir) const;

 private:
  struct Known {
    PathStat stat;
    bool transcript = false;
    bool entries_moved = false;
  };
  const Known* find(std::string_view path) const;
  std::vector<Known> known_;  // by path once finished
  std::unordered_map<std::string_view, const Known*> by_path_;  // views of known_'s paths
  std::unordered_map<std::string_view, std::vector<const PathStat*>> listings_;  // views of known_'s paths
  size_t transcripts_ = 0;
};

}  // namespace osearch
