#include "engine/index/source_watcher.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "engine/index/inotify_watch.h"
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
constexpr int kSettleMs = 2100;  // a directory's mtime is trusted for a record 2 s after it moved

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

// Why watching ends after InotifyWatch::drain failed (errno as it left it).
std::string unreadable_queue() { return "cannot read inotify events (" + std::string(std::strerror(errno)) + ")"; }

std::optional<std::string> committed_record(const std::string& index_dir) {
  try {
    Store store(index_dir, Store::Mode::Read);
    return read_source_watch(store);
  } catch (const std::exception&) {
    return std::nullopt;
  }
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

  InotifyWatch inotify;
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
      const bool recorded = record && !record->empty();
      if (!recorded) {
        // A directory changed within the last 2 s: no record yet (the next runs take the full plan).
        // Look again once it has settled, which the beat below lets wait that long.
        if (run.unrecorded_watch_dirs.empty()) {  // (the record was dropped for another reason)
          next_run_at = boottime_ns() + 1000 * kMs;
          beat.withdraw();
          continue;
        }
        next_run_at = boottime_ns() + kSettleMs * kMs;
        // The run listed every directory and read what changed, and inotify reports what changes
        // after: the beat holds meanwhile, so queries do not each walk the tree (a new transcript
        // in a new directory, on a tree of tens of thousands, is a full plan for two seconds).
      }
      // (Unchanged watches cost no syscall; one lost with its removed directory is added again.)
      const InotifyWatch::Sync sync = inotify.sync(recorded ? source_watch_dirs(*record) : run.unrecorded_watch_dirs);
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
