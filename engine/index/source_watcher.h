// `osearch index --watch`: keeps the index current as transcripts change, woken by inotify, and
// tells queries so through the heartbeat (engine/index/watch_beat.h) so they skip their stat walk.
//
// Each run is the usual refresh (run_index with the quick check). After it, the watcher watches
// every directory the run's source-watch record relied on (engine/index/source_watch.h: the
// directories discovery listed and the parents of every transcript, registry and missing path),
// so an event arrives for any change the quick check would find. Watches added after a run are
// followed by one more run (a change between the run's stat and the new watch would otherwise be
// missed). Whenever the inotify queue is found empty after the last run committed, the watcher
// beats with the time it looked. It also runs the quick check every 30 s in any case: changes
// inotify cannot see (another host writing over NFS, a transcript modified through a hard link in
// an unwatched directory) are then picked up late rather than never.
//
// While a directory changed in the last 2 s no record is kept, so the runs take the full plan; the
// watcher then watches the directories that run listed and goes on beating, and runs once more when
// the directory has settled (2.1 s later) to keep one. No beat — queries walk as before — while a
// run fails, or when inotify is unavailable or out of watches (the watcher then polls every 2 s).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/index/indexer.h"

namespace osearch {

struct WatchOptions {
  IndexOptions index;                 // each run's options (quick_check is set by the watcher)
  std::function<bool()> should_stop;  // polled at least every 250 ms
  std::function<void(const IndexSummary&)> on_run;  // after each run
  std::function<void(std::string_view)> on_note;    // what the user should know (fallbacks, errors)
  int debounce_ms = 30;  // after an event, wait this long for its companions before running
};

class WatchBeat;
// Runs until should_stop, beating through `beat` (taken by the caller before its first run, so that
// a second watcher is refused before it does any work).
void watch_sources(const std::string& index_dir, const std::vector<SourceRoot>& roots, WatchBeat& beat,
                   const WatchOptions& options);

}  // namespace osearch
