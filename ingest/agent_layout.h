// Directory layouts of omp, pi and Codex (formats/omp-pi-codex.md §1.1, §2, §3): which files under
// a source root are transcripts, and the session id their names carry (the fallback: the session
// is the one the file's header names). Reads directory metadata and omp's small registry files.
#pragma once

#include <string>

#include "ingest/source_file.h"

namespace osearch {

// omp or pi sessions dir (`agent` is "omp" or "pi"): `<dir>/<time>_<id>.jsonl` (and such files
// directly under the root), omp subagent transcripts in `<dir>/<time>_<id>/*.jsonl`. A root that
// holds `sessions/` is taken as the agent dir. For omp, the files listed by the registry
// `<agent dir>/custom-session-files/*` (one absolute path per file) are sessions too.
// `known`: what a refresh knows of the tree already (ingest/known_tree.h); so for discover_codex.
DiscoveryResult discover_pi_family(const std::string& root, const std::string& agent,
                                   const KnownTree* known = nullptr);

// Codex: every `rollout-*.jsonl` / `rollout-*.jsonl.zst` under the root (`.jsonl` wins when both
// exist). A root that holds `sessions/` is taken as CODEX_HOME: its `sessions/` and
// `archived_sessions/` are walked. The thread names in `session_index.jsonl` (in CODEX_HOME, or
// next to a sessions dir) come last in the result.
DiscoveryResult discover_codex(const std::string& root, const KnownTree* known = nullptr);

// The id a transcript's name carries: omp/pi `<time>_<id>.jsonl` -> id; Codex
// `rollout-<time>-<uuid>.jsonl[.zst]` -> uuid (else the name without extension).
std::string pi_family_id_from_name(std::string_view file_name);
std::string codex_id_from_name(std::string_view file_name);

// Claude-style project slug of a working directory: every byte outside [A-Za-z0-9] becomes '-'.
// Used for every agent, so one directory is one project whichever agent worked in it.
std::string project_slug(std::string_view cwd);

}  // namespace osearch
