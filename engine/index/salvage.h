// Carrying user data over from an old LMDB env that may be damaged: `index --full` starts a new
// generation from the sources, but memories (SPEC §6) and archived sessions — sessions none of
// whose source files exists any more (SPEC §2) — live only in the index.
//
// The old env is read in a forked child: LMDB trusts its pages, and a truncated or garbled file can
// SIGBUS or SIGSEGV the reader. The child never shares a map with this process; it copies what it
// can read into the new env (committing as it goes, so a crash keeps what came before) and reports
// on a pipe what it could not. A child that crashes, hangs or fails costs only the rest of the
// salvage; one stuck before its first commit (a lock held at fork) is forked again
// (engine/store/child_run.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace osearch {

struct SalvageTarget {
  std::string index_dir;
  std::string old_env_dir;   // "" when there is none
  std::string new_env_name;  // records-<k>: created by the child, unlisted
  std::string text_log;      // the new text log's name (text-<k>)
  uint64_t schema = 0;       // records of another schema version are not carried over
  // The source roots of this run: a session is archived when none of its files exists under one
  // (a file outside every root will not be read again either).
  std::vector<std::string> source_dirs;
  // Tests: called in the child after each commit ("salvage-commit"), to kill the run there.
  std::function<void(std::string_view point)> at_point;
};

struct SalvageReport {
  std::string lost;  // what could not be carried over ("" = nothing was lost)
};

// Is `path` inside `dir` (never inside an empty one)?
bool under(std::string_view path, std::string_view dir);
// Is `path` inside one of `dirs`?
bool under_any(const std::string& path, const std::vector<std::string>& dirs);

// Copies memories, then every archived session (records, file states, text log entries) whose
// records and text read back whole. The caller opens the new env afterwards; it counts what was
// salvaged there.
SalvageReport salvage_old_env(const SalvageTarget& target);

}  // namespace osearch
