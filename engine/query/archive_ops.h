// The archive's own commands (SPEC §3): `prune` drops sessions whose sources are gone, `export
// --sessions` writes sessions as JSONL (engine/index/archive_json.h) and `import` loads such a file
// as archived sessions. Memories are never touched.
//
// prune and import take the writer lock and first bring the index up to date (the refresh every
// command runs: it finishes an interrupted batch and upgrades an older schema, so what they write is
// in this build's schema). Each commits in LMDB transactions, after the Xapian side they need:
// a kill -9 leaves the index as before or with whole sessions moved, and `check` passes.
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/index/indexer.h"
#include "engine/query/query.h"

namespace osearch {

// Which sessions a command takes: the session-level filters (project, agent, session, model, cwd)
// and, on the session's last message time, --since and --until.
struct SessionSelection {
  Filters filters;
  bool selects(const SessionRec& s) const;
};

struct ArchivedSessionInfo {  // what prune and export list of a session
  std::string id;             // as written (shown_id)
  std::string agent, project;
  uint64_t messages = 0;
  int64_t started_at = 0, ended_at = 0;
};

struct PruneOptions {
  bool dry_run = false;
  bool refresh = true;  // index first (--no-refresh: decide on the index as it is)
  SessionSelection selection;
  std::function<void(std::string_view point)> at_point;  // tests: "chosen", "records" (dropped), "titles"
};

struct PruneResult {
  bool dry_run = false;
  std::vector<ArchivedSessionInfo> sessions;  // pruned (or, dry run, that would be)
};

PruneResult run_prune(const std::string& index_dir, const std::vector<SourceRoot>& roots, const PruneOptions& o);

struct ExportOptions {
  bool all = false;  // every session, not only the archived ones
  SessionSelection selection;
};

struct ExportResult {
  std::vector<ArchivedSessionInfo> sessions;
  uint64_t unreadable = 0;  // sessions whose records or texts could not be read back whole (skipped)
};

// Calls `line` with each session's line (without the newline). Reads only: no lock, no refresh.
ExportResult run_export(const std::string& index_dir, const ExportOptions& o,
                        const std::function<void(std::string_view line)>& line);

struct ImportOptions {
  bool refresh = true;
  size_t sessions_per_commit = 64;
  std::function<void(std::string_view point)> at_point;  // tests: "shards" (written, not committed), "committed",
                                                         // "folding" (the shards' compaction under way)
};

struct ImportResult {
  uint64_t imported = 0;
  uint64_t already_present = 0;  // archived here already (an import done before): unchanged
  uint64_t skipped_live = 0;     // present here with its source files: the live one is kept
  uint64_t rejected = 0;         // lines that are not a session this osearch can carry
  std::vector<std::string> problems;  // "line N: why", for the rejected
  std::vector<ArchivedSessionInfo> sessions;  // imported
};

ImportResult run_import(const std::string& index_dir, const std::vector<SourceRoot>& roots, std::istream& in,
                        const ImportOptions& o);

}  // namespace osearch
