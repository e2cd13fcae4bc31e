// The quick check a query's refresh makes before anything else (SPEC §3: "on an unchanged corpus
// this costs only stat calls"). A complete index run records what its discovery relied on: every
// directory it listed or probed (stat'ed before it was listed), every registry file it read, every
// listed file it found missing, and every transcript with its stat and what discovery made of it.
// A later refresh stats those paths again: when every observation still holds, discovery would
// find the same files with the same sizes, and there is nothing to read.
//
// When only transcripts moved (appended, rewritten), the same record gives the changed files
// without listing a directory or decoding every file state: the run reads just those.
//
// A directory modified within the last two seconds is not trusted (its mtime has the coarse
// clock's resolution: an entry created in the same tick after the listing would leave it
// unchanged), so no record is kept until it settles and the next refresh takes the full path.
#pragma once

#include <cstdint>
#include <atomic>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/index/indexer.h"
#include "ingest/known_tree.h"
#include "ingest/source_file.h"

namespace osearch {

// The record of a run over `roots` ("" when a directory is too recent to be trusted, or a path too
// long to record). `observed` as the discoveries gave them, `files` the transcripts the run read.
std::string encode_source_watch(const std::vector<SourceRoot>& roots, const std::vector<PathStat>& observed,
                                const std::vector<SourceFile>& files, int64_t now_ns);
// Whether a directory of `observed` changed too recently for a record (encode_source_watch's "").
bool has_recent_directory(const std::vector<PathStat>& observed, int64_t now_ns);
// The directories source_watch_dirs would give for the record of this discovery (sorted, unique):
// for a watcher when no record could be kept because a directory is too recent.
std::vector<std::string> discovery_watch_dirs(const std::vector<PathStat>& observed, const std::vector<SourceFile>& files);

struct WatchCheck {
  bool usable = false;            // a well-formed record for these roots
  bool layout_unchanged = false;  // every directory, registry and missing file is as recorded
  size_t files = 0;               // transcripts recorded
  // Transcripts whose stat moved, with their new stat (when layout_unchanged or entries_moved()).
  // A file that is gone, replaced, shrunk or no longer a regular file makes layout_unchanged false
  // instead, and the check names nothing.
  std::vector<SourceFile> changed;
  std::vector<SourceFile> session_indexes;  // Codex session index files recorded (with `changed`)
  // With `changed` when layout_unchanged: the record with their new stats, for the run that reads
  // them to keep.
  std::string updated_record;
  // Directories still there whose entries changed (layout_unchanged false), when nothing else
  // moved but transcripts that grew: the run lists those again and takes the rest from
  // `known_tree`, every recorded path as the check found it (ingest/known_tree.h).
  std::vector<PathStat> moved_dirs;
  std::shared_ptr<const KnownTree> known_tree;
  bool unchanged() const { return usable && layout_unchanged && changed.empty(); }
  bool entries_moved() const { return usable && !layout_unchanged && known_tree != nullptr; }
  // Whether a run given this check may read what it names (targeted, or relisted) instead of
  // checking every path again.
  bool guides_run() const { return usable && (layout_unchanged || entries_moved()); }
};

// Stats every recorded path (in two threads for big records), decoding the record as it goes.
// With `only`, stats just those paths and takes every other entry as recorded: for a caller whose
// inotify watches saw nothing else change (engine/index/source_gate). A path of `only` that is not
// a recorded transcript leaves layout_unchanged false (the full check decides).
WatchCheck check_source_watch(std::string_view record, const std::vector<SourceRoot>& roots,
                              const std::set<std::string>* only = nullptr);

// The same stat walk shared out block by block, for a verdict only: every thread that calls work()
// takes the next blocks until none is left, so a query's thread can finish a walk that a second
// thread started beside the query (cli QueryIndex). unchanged() once every work() has returned:
// false on any doubt (a record of other roots, one that does not decode, any change).
class SourceWalk {
 public:
  // `record` is viewed, not copied (478 KB at 2 GB, copied on every query's critical path): it must
  // outlive every work() call (cli QueryIndex: the reader's snapshot, closed only after the walk).
  SourceWalk(std::string_view record, const std::vector<SourceRoot>& roots);
  void work();
  // The walk is not needed any more: work() takes no further block.
  void abandon() { differs_ = true; }
  bool unchanged() const { return usable_ && !differs_.load(); }

 private:
  std::string_view record_;
  bool usable_ = false;
  uint64_t entries_ = 0;
  size_t entries_at_ = 0;
  std::vector<uint32_t> starts_;  // each block's start, then the blocks' end
  std::atomic<size_t> next_{0};
  std::atomic<bool> differs_{false};
};

// Stats only the `count` entries with the newest recorded mtimes (transcripts being written, the
// directories new sessions appear in): true when each is as recorded. A cheap first look: a query
// on the default path runs the whole check beside itself only when this passes (cli QueryIndex).
bool recent_sources_unchanged(std::string_view record, const std::vector<SourceRoot>& roots, size_t count);

// Does the record decode whole (`check`: a damaged page inside it is damage like any other)?
bool source_watch_decodes(std::string_view record);

// The directories whose inotify watches see every change the quick check would find: each
// recorded directory, and the parent of each recorded file, registry and missing path (sorted,
// unique; empty when the record does not decode).
std::vector<std::string> source_watch_dirs(std::string_view record);

// The files a targeted run reads: the changed ones, and Codex's session index when a rollout changed
// (it is read whole then: the sessions its earlier lines named may only now exist).
std::vector<SourceFile> files_to_read(const WatchCheck& check);

// After a relisting (check.entries_moved(), discovery given check.known_tree): the files of
// `files` (in the order they are read: Codex's session indexes last) the plan compares with their
// states, in that order: the ones new to the record, the ones that grew, and the session index
// when a rollout is among them. nullopt when a recorded transcript is not among `files` (gone
// since the check): the full plan's.
std::optional<std::vector<const SourceFile*>> files_to_plan(const WatchCheck& check, const std::vector<SourceFile>& files);

class Store;
// Keeps `record` as the index's watch record ("" removes it), in its own transaction, after the
// run's data is committed: a crash before it leaves the old record, which the moved files no longer
// match.
void keep_source_watch(const Store& store, const std::string& record);
std::optional<std::string> read_source_watch(const Store& store);
int64_t wall_clock_ns();

}  // namespace osearch
