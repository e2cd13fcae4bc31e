// The inotify instance of a source watch (`index --watch`, engine/index/source_watcher; a
// long-lived frontend's gate, engine/index/source_gate): watches exactly the directories a
// source-watch record relied on and drains what happened in them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace osearch {

class InotifyWatch {
 public:
  InotifyWatch();
  ~InotifyWatch();
  InotifyWatch(const InotifyWatch&) = delete;
  InotifyWatch& operator=(const InotifyWatch&) = delete;
  bool ok() const { return fd_ >= 0; }
  int fd() const { return fd_; }

  struct Sync {
    bool complete = true;  // every directory (or an ancestor standing in) is watched
    bool added = false;    // a watch is new: changes before it was in place are unseen
    std::string problem;
  };
  // Watches exactly `dirs`, each missing one through its nearest existing ancestor.
  Sync sync(const std::vector<std::string>& dirs);

  // What the drained events were about, for a caller that can check just those files.
  struct Changes {
    // Files whose content or attributes changed, in a directory watched as itself (the watched
    // path, '/', the name: a recorded transcript's path takes the same form).
    std::vector<std::string> files;
    bool other = false;  // anything else: an entry created, removed or moved, a directory, an overflow
  };
  // Reads every queued event; returns how many matter (events about `index_dir`'s own files do
  // not), or nullopt when the queue cannot be read: changes would then go unseen.
  // `index_dir` in the form drain compares with watched paths: absolute_dir's.
  std::optional<size_t> drain(const std::string& index_dir, Changes* changes = nullptr);

 private:
  struct Watch {
    int wd = -1;
    uint32_t mask = 0;
  };
  int fd_;
  std::map<std::string, Watch> watches_;  // by the path asked for
  std::map<int, std::string> path_by_wd_;
};

// `dir` absolute and canonical (as far as it exists): how an index directory is told apart from
// the source paths beside it, whatever form the user gave it in.
std::string absolute_dir(const std::string& dir);

}  // namespace osearch
