#include "engine/index/source_watcher.h"

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "engine/index/source_watch.h"
#include "engine/index/watch_beat.h"
#include "engine/store/errors.h"
#include "engine/store/store.h"

namespace osearch {
namespace {

constexpr int kIdleBeatMs = 250;
constexpr int64_t kSafetyCheckNs = 30'000'000'000;  // the quick check runs at least this often
constexpr int kPollMs = 2000;                        // without inotify, or after a failed run
constexpr int64_t kMs = 1'000'000;

// A directory's own changes: what a transcript, registry or subdirectory in it can do.
constexpr uint32_t kDirMask = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM |
                              IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;
// An existing ancestor standing in for a missing directory: only its appearance matters (so an
// ancestor like $HOME does not wake the watcher for every file written there).
constexpr uint32_t kAncestorMask = IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

std::string parent_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos || path == "/") return {};
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The inotify instance and its watches, keyed by the path they were asked for.
class Inotify {
 public:
  Inotify() : fd_(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {}
  ~Inotify() {
    if (fd_ >= 0) ::close(fd_);
  }
  Inotify(const Inotify&) = delete;
  Inotify& operator=(const Inotify&) = delete;
  bool ok() const { return fd_ >= 0; }
  int fd() const { return fd_; }

  struct Sync {
    bool complete = true;  // every directory (or an ancestor standing in) is watched
    bool added = false;    // a watch is new: changes before it was in place are unseen
    std::string problem;
  };

  // Watches exactly `dirs`, each missing one through its nearest existing ancestor.
  Sync sync(const std::vector<std::string>& dirs) {
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

  // Reads every queued event; returns how many matter (events about the index's own files do not),
  // or nullopt when the queue cannot be read: changes would then go unseen while the watcher beat.
  std::optional<size_t> drain(const std::string& index_dir) {
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
        if (ev->mask & IN_IGNORED) {  // the watch is gone (its directory was removed): sync adds it again
          if (auto p = path_by_wd_.find(ev->wd); p != path_by_wd_.end()) {
            watches_.erase(p->second);
            path_by_wd_.erase(p);
          }
          ++count;
          continue;
        }
        if (!(ev->mask & IN_Q_OVERFLOW) && ev->len > 0) {
          auto p = path_by_wd_.find(ev->wd);
          if (p != path_by_wd_.end() && inside(p->second + "/" + ev->name, index_dir)) continue;
        }
        ++count;
      }
    }
  }

 private:
  static bool inside(const std::string& path, const std::string& dir) {
    return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/');
  }
  struct Watch {
    int wd = -1;
    uint32_t mask = 0;
  };
  int fd_;
  std::map<std::string, Watch> watches_;  // by the path asked for
  std::map<int, std::string> path_by_wd_;
};

// Sleeps up to `ms`, waking early for an inotify event (fd >= 0) or a signal. False: the fd cannot be
// waited on (an error, not a signal), so the caller stops relying on it rather than spin.
bool wait_for(int fd, int ms) {
  struct pollfd p {};
  p.fd = fd;
  p.events = POLLIN;
  const int rc = ::poll(fd >= 0 ? &p : nullptr, fd >= 0 ? 1 : 0, ms);
  if (rc < 0) return errno == EINTR;
  return !(p.revents & (POLLERR | POLLNVAL));
}

// Why watching ends after Inotify::drain failed (errno as it left it).
std::string unreadable_queue() { return "cannot read inotify events (" + std::string(std::strerror(errno)) + ")"; }

std::optional<std::string> committed_record(const std::string& index_dir) {
  try {
    Store store(index_dir, Store::Mode::Read);
    return read_source_watch(store);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string absolute_dir(const std::string& dir) {
  std::error_code ec;
  auto p = std::filesystem::weakly_canonical(std::filesystem::absolute(dir, ec), ec);
  return ec ? dir : p.string();
}

}  // namespace

void watch_sources(const std::string& index_dir, const std::vector<SourceRoot>& roots, WatchBeat& beat,
                   const WatchOptions& options) {
  const std::string own_dir = absolute_dir(index_dir);
  auto note = [&](std::string_view what) {
    if (options.on_note) options.on_note(what);
  };
  auto stop = [&] { return options.should_stop && options.should_stop(); };
  IndexOptions run_options = options.index;
  run_options.quick_check = true;
  run_options.count_unknown_garbage = false;
  run_options.should_stop = options.should_stop;

  Inotify inotify;
  if (!inotify.ok()) note(std::string("inotify is unavailable (") + std::strerror(errno) + "): polling every 2 s");
  bool watching = inotify.ok();  // false: poll, and never beat
  bool dirty = true;
  bool trusted = false;  // the last run kept a record and every directory it names is watched
  int64_t next_run_at = 0, safety_check_at = 0;
  // inotify failed after it worked: no more beats (queries walk again), a quick check every 2 s.
  auto stop_watching = [&](const std::string& why) {
    note(why + ": polling every 2 s; queries keep their own check");
    beat.withdraw();
    watching = false;
    trusted = false;
    next_run_at = boottime_ns() + kPollMs * kMs;
  };

  while (!stop()) {
    const int64_t now = boottime_ns();
    if (now >= safety_check_at || (next_run_at && now >= next_run_at)) dirty = true;
    if (dirty) {
      dirty = false;
      next_run_at = 0;
      safety_check_at = now + kSafetyCheckNs;
      // The run below sees whatever these were about.
      if (watching && !inotify.drain(own_dir)) {
        stop_watching(unreadable_queue());
        continue;
      }
      IndexSummary run;
      try {
        run = run_index(index_dir, roots, run_options);
      } catch (const std::exception& e) {
        beat.withdraw();
        trusted = false;
        note(std::string("the refresh failed, trying again in 2 s: ") + e.what());
        next_run_at = boottime_ns() + kPollMs * kMs;
        continue;
      }
      if (options.on_run) options.on_run(run);
      if (run.interrupted) break;
      trusted = false;
      if (!watching) {
        next_run_at = boottime_ns() + kPollMs * kMs;
        continue;
      }
      const std::optional<std::string> record = committed_record(index_dir);
      if (!record || record->empty()) {
        // A directory changed within the last 2 s: no record yet. Look again once it settles.
        beat.withdraw();
        next_run_at = boottime_ns() + 1000 * kMs;
        continue;
      }
      // (Unchanged watches cost no syscall; one lost with its removed directory is added again.)
      const Inotify::Sync sync = inotify.sync(source_watch_dirs(*record));
      if (!sync.complete) {
        stop_watching("cannot watch " + sync.problem);
        continue;
      }
      if (sync.added) {  // a change just before a new watch was in place went unseen: look once more
        dirty = true;
        continue;
      }
      trusted = true;
    }
    if (!watching) {
      wait_for(-1, kIdleBeatMs);
      continue;
    }
    // The beat vouches for every change before `looked_at`: the queue was empty then, and each
    // earlier event was drained before a run whose stats came after it. A pending change does not
    // withdraw the last beat: a query may miss what changed since, at most kBeatTrustNs ago
    // (the agent asking is usually the one writing, so its transcript nearly always has a change
    // in flight).
    const int64_t looked_at = boottime_ns();
    const std::optional<size_t> events = inotify.drain(own_dir);
    if (!events) {
      stop_watching(unreadable_queue());
      continue;
    }
    if (*events > 0) {
      wait_for(-1, options.debounce_ms);  // let the writer finish its burst
      dirty = true;
      continue;
    }
    if (trusted) beat.beat(looked_at);
    if (!wait_for(inotify.fd(), kIdleBeatMs)) stop_watching("cannot wait for inotify events");
  }
}

}  // namespace osearch
