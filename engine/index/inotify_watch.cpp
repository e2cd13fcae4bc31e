#include "engine/index/inotify_watch.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

namespace osearch {
namespace {

// A directory's own changes: what a transcript, registry or subdirectory in it can do.
constexpr uint32_t kDirMask = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM |
                              IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;
// An existing ancestor standing in for a missing directory: only its appearance matters (so an
// ancestor like $HOME does not wake the watcher for every file written there).
constexpr uint32_t kAncestorMask = IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;
// What happens to a file that stays where it is: its bytes or its attributes.
constexpr uint32_t kInPlace = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE;

std::string parent_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos || path == "/") return {};
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool inside(const std::string& path, const std::string& dir) {
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/');
}

}  // namespace

std::string absolute_dir(const std::string& dir) {
  std::error_code ec;
  auto p = std::filesystem::weakly_canonical(std::filesystem::absolute(dir, ec), ec);
  return ec ? dir : p.string();
}

InotifyWatch::InotifyWatch() : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {}

InotifyWatch::~InotifyWatch() {
  if (fd_ >= 0) ::close(fd_);
}

InotifyWatch::Sync InotifyWatch::sync(const std::vector<std::string>& dirs) {
  Sync out;
  const std::set<std::string> wanted(dirs.begin(), dirs.end());
  std::map<std::string, Watch> now;
  for (const auto& dir : wanted) {
    std::string path = dir;
    uint32_t mask = kDirMask;
    for (;;) {
      if (auto known = watches_.find(path); known != watches_.end() && known->second.mask == mask) {
        now[path] = known->second;
        break;
      }
      const int wd = ::inotify_add_watch(fd_, path.c_str(), mask);
      if (wd >= 0) {
        if (!watches_.contains(path)) out.added = true;
        now[path] = {wd, mask};
        break;
      }
      if (errno == ENOENT || errno == ENOTDIR) {  // missing: its parent will show it appear
        path = parent_of(path);
        if (path.empty()) break;
        mask = (wanted.contains(path) ? kDirMask : 0) | kAncestorMask;
        continue;
      }
      out.complete = false;
      out.problem = path + ": " + std::strerror(errno) +
                    (errno == ENOSPC ? " (the inotify watch limit, fs.inotify.max_user_watches, is reached)" : "");
      return out;
    }
  }
  std::set<int> kept;  // (two paths through links can share one watch)
  for (const auto& [path, w] : now) kept.insert(w.wd);
  for (const auto& [path, w] : watches_)
    if (!kept.contains(w.wd)) ::inotify_rm_watch(fd_, w.wd);
  watches_ = std::move(now);
  path_by_wd_.clear();
  for (const auto& [path, w] : watches_) path_by_wd_[w.wd] = path;
  return out;
}

std::optional<size_t> InotifyWatch::drain(const std::string& index_dir, Changes* changes) {
  size_t count = 0;
  alignas(struct inotify_event) char buf[16384];
  for (;;) {
    const ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return std::nullopt;
      return count;
    }
    for (ssize_t at = 0; at < n;) {
      const auto* ev = reinterpret_cast<const struct inotify_event*>(buf + at);
      at += static_cast<ssize_t>(sizeof(struct inotify_event) + ev->len);
      const auto p = path_by_wd_.find(ev->wd);
      if (ev->mask & IN_IGNORED) {  // the watch is gone (its directory was removed): sync adds it again
        if (p != path_by_wd_.end()) {
          watches_.erase(p->second);
          path_by_wd_.erase(p);
        }
        ++count;
        if (changes) changes->other = true;
        continue;
      }
      // (A name is NUL-padded to its record's length.)
      const std::string name = ev->len > 0 ? std::string(ev->name, ::strnlen(ev->name, ev->len)) : std::string();
      const bool named = !(ev->mask & IN_Q_OVERFLOW) && !name.empty() && p != path_by_wd_.end();
      const std::string path = named ? (p->second == "/" ? "/" : p->second + "/") + name : std::string();
      if (named && inside(path, index_dir)) continue;
      ++count;
      if (!changes) continue;
      const auto w = named ? watches_.find(p->second) : watches_.end();
      // Only a file's own bytes or attributes (not a directory's: IN_ISDIR is outside kInPlace),
      // seen by a directory's own watch (not an ancestor standing in for a missing one).
      const bool in_place = named && w != watches_.end() && w->second.mask == kDirMask && (ev->mask & kInPlace) &&
                            (ev->mask & ~kInPlace) == 0;
      if (in_place)
        changes->files.push_back(path);
      else
        changes->other = true;
    }
  }
}

}  // namespace osearch
