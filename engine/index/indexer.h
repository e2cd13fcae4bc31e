// `osearch index`: stat every source file, read only the bytes past each file's stored offset,
// re-read whole the files that shrank or were replaced, keep vanished files' sessions as
// source_deleted. Queries call the same refresh (lazy freshness) with wait=false.
//
// Errors: ReadOnlyIndex when the index cannot be written, NoSpace when the disk fills up
// (engine/store/errors.h); what was committed before either stays consistent.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace osearch {

class LmdbTxn;
struct Dbis;

struct SourceRoot {
  std::string agent;  // "claude" (other adapters come later)
  std::string dir;
};

struct IndexProgress {
  size_t files_done = 0, files_total = 0;
  uint64_t bytes_done = 0, bytes_total = 0;
  std::string_view file;  // the file just read
};

// Rewrite LMDB compactly at the end of the run (engine/store/store_repack.h)? Auto: after a run that
// stored a large share of the messages, or when free pages have piled up.
enum class Repack { Auto, Always, Never };

// Compact the index at the end of the run (engine/index/compact.h): a new generation without the
// garbage of dropped sessions. Always is `index --compact`; Auto when the garbage passes the rule of
// engine/index/garbage.h (`osearch index` runs); Never, the default, for every other caller (a
// query's refresh must stay fast).
enum class Compact { Never, Auto, Always };

struct WatchCheck;

struct IndexOptions {
  bool full = false;            // rebuild derived data from the sources (memories are kept)
  bool wait_for_lock = true;    // false: return busy=true when another indexer runs
  size_t flush_bytes = 6u << 20;  // commit every N bytes of message text (and record overhead)
  size_t max_line_bytes = 64u << 20;  // longer JSONL lines are skipped and counted (oversized_lines)
  Repack repack = Repack::Auto;
  Compact compact = Compact::Never;
  uint64_t compact_min_bytes = 16u << 20;  // Compact::Auto: at least this much garbage (CompactRule)
  std::function<void(const IndexProgress&)> progress;
  // Called once the run knows what it will read (files_total, bytes_total), before it reads any: a
  // query's refresh that turns out to be a build retunes its process for one (cli/huge_pages.h).
  std::function<void(const IndexProgress&)> planned;
  // A query's lazy refresh: a read-only index is answered as it is (summary.read_only) instead of
  // failing with ReadOnlyIndex.
  bool skip_if_read_only = false;
  // Polled between files: true ends the run cleanly. What was read so far is committed (the next
  // run goes on from there); the end-of-run compaction and repack are left for the next run.
  std::function<bool()> should_stop;
  // Called at the steps of a rebuild ("salvaged", "built", "switched") and of a compaction (also
  // "compact-commit" after each commit of the records' copy): tests kill the run there.
  std::function<void(std::string_view point)> at_point;
  // First the quick check (engine/index/source_watch.h), which answers an unchanged corpus with stat
  // calls only and reads just the moved transcripts otherwise (a query's refresh, `osearch index`).
  bool quick_check = false;
  // With quick_check: the caller's own check, which found changed transcripts and nothing else
  // moved (usable, layout unchanged), made on the snapshot it holds: a long-lived frontend whose
  // inotify watches named the files to look at (engine/index/source_gate.h). Used instead of a
  // fresh check; anything else takes the fresh one.
  const WatchCheck* known_check = nullptr;
  // An index written before the garbage counters gets them counted (a walk over every message) and
  // so takes a run even when unchanged; a query's refresh and the watcher leave them unknown.
  bool count_unknown_garbage = true;
};

struct IndexSummary {
  bool busy = false;  // another indexer held the lock (wait_for_lock=false)
  bool read_only = false;    // the index is not writable: nothing done (skip_if_read_only)
  bool interrupted = false;  // should_stop ended the run early
  // How the run found its files: "full" (listed every source dir), "unchanged" (the quick check
  // found nothing to read) or "targeted" (it read just the transcripts the quick check named).
  std::string_view plan = "full";
  uint64_t files_seen = 0, files_changed = 0, files_skipped = 0, files_unreadable = 0, files_deleted = 0;
  uint64_t dirs_unreadable = 0;  // source dirs that could not be listed (a source root that is not a dir too)
  uint64_t bad_lines = 0, bytes_read = 0;
  uint64_t repaired_lines = 0;   // parsed only after the repair pass (ingest/json_repair.h): indexed
  uint64_t oversized_lines = 0;  // longer than IndexOptions::max_line_bytes: skipped
  uint64_t new_messages = 0, new_tool_calls = 0;
  uint64_t sessions = 0, messages = 0, tool_calls = 0;  // totals after the run
  double seconds = 0;
  std::vector<std::string> problems;  // unreadable files/dirs, bad/repaired/oversized lines: --verbose
  // Of those, roots that exist but listed nothing while the index held transcripts from under them,
  // now marked source_deleted (engine/index/emptied_roots.h): said even without --verbose.
  std::vector<std::string> emptied_roots;
  // And roots that list nothing but hold their agent's layout further down: `index` says them.
  std::vector<std::string> root_hints;
  // --full or a schema change: a new generation was built beside the old one and switched to.
  bool rebuilt = false;
  uint64_t salvaged_memories = 0, salvaged_sessions = 0;  // carried over from the old env
  std::string lost;  // what the rebuild could not carry over from a damaged old env ("" = nothing)
  // A compaction ran at the end of the run and switched to its new generation.
  bool compacted = false;
  uint64_t compact_bytes_before = 0, compact_bytes_after = 0;  // the index dir
  std::optional<uint64_t> compact_text_bytes, compact_hidden_documents;  // the garbage it dropped
  double compact_seconds = 0;
  // No source-watch record was kept only because a directory changed in the last two seconds: the
  // directories the record would have named, for a watcher (engine/index/source_watcher.h).
  std::vector<std::string> unrecorded_watch_dirs;
};

IndexSummary run_index(const std::string& index_dir, const std::vector<SourceRoot>& roots, const IndexOptions& options);

// The snapshot's source-watch record, when a quick check (IndexOptions::quick_check) can judge it:
// the schema is this build's, no batch is in flight, a record was kept. A frontend that holds a
// snapshot runs the check on it beside its query (cli QueryIndex; engine/index/source_watch.h).
std::optional<std::string_view> quick_check_record(const LmdbTxn& txn, const Dbis& db);

namespace detail {
// The run itself, with the writer lock held (engine/index/indexer.cpp); run_index (engine/index/index_run.cpp)
// takes the lock and maps the errors.
// `known`: the quick check found only these transcripts moved (engine/index/source_watch.h), so
// the run reads them without listing a directory.
IndexSummary index_under_lock(const std::string& index_dir, const std::vector<SourceRoot>& roots,
                              const IndexOptions& options, const WatchCheck* known = nullptr);
// The summary's totals (sessions, messages, tool calls) as `txn` sees the index.
void read_totals(const LmdbTxn& txn, const Dbis& db, IndexSummary& summary);
}  // namespace detail

}  // namespace osearch
