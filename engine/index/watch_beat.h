// The heartbeat of `osearch index --watch`: how a query learns, from the index alone, that a live
// watcher keeps it current and its own stat walk over every transcript can be skipped.
//
// `<index>/watch.beat` is held with an exclusive flock by the watcher for its whole life; the
// kernel drops the lock when the process dies (kill -9 included), so a dead watcher's last beat is
// never believed. While it holds the lock the watcher rewrites the file in place with the time at
// which it last found no change it had not indexed yet (its inotify queue drained after the last
// run committed). A query believes the beat only when
//   - the lock is held by someone else (a live watcher),
//   - the file decodes whole and its checksum matches (no torn read of a rewrite),
//   - it was written on this host, for exactly the query's source roots,
//   - and it is at most `kBeatTrustNs` old (a stopped or stuck watcher stops beating).
// Anything else, and the query takes its usual quick check: the beat can only save work, never
// change an answer beyond the watcher's own delay.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/index/indexer.h"

namespace osearch {

// How old a beat may be and still be believed (the watcher beats every ~250 ms while idle).
inline constexpr int64_t kBeatTrustNs = 1'000'000'000;

// The watcher's side: holds the lock from construction to destruction.
class WatchBeat {
 public:
  // Throws IndexError naming the other watcher when one already holds the lock, ReadOnlyIndex when
  // the file cannot be created.
  WatchBeat(const std::string& index_dir, const std::vector<SourceRoot>& roots);
  ~WatchBeat();
  WatchBeat(const WatchBeat&) = delete;
  WatchBeat& operator=(const WatchBeat&) = delete;

  // Everything changed up to `checked_at_ns` (CLOCK_BOOTTIME, taken before the inotify queue was
  // found empty) is in the committed index.
  void beat(int64_t checked_at_ns);
  // Queries must walk again from now on (a run failed, the watches are incomplete).
  void withdraw();

 private:
  void write(int64_t checked_at_ns);
  int fd_ = -1;
  std::string roots_;
};

// The query's side: does a live watcher vouch that the index is current for `roots`? A few
// syscalls: open, flock, pread, close.
bool watcher_keeps_current(const std::string& index_dir, const std::vector<SourceRoot>& roots);

// What `status` shows: the pid of the live watcher (0: none) and whether its beat is believed.
struct WatcherState {
  long pid = 0;
  bool current = false;
};
WatcherState watcher_state(const std::string& index_dir, const std::vector<SourceRoot>& roots);

int64_t boottime_ns();

}  // namespace osearch
