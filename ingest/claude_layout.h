// Claude Code directory layout: which files under a projects root are transcripts, and what
// session each belongs to (formats/claude-code.md §1, §8). Reads directory metadata only.
#pragma once

#include <string>

#include "ingest/source_file.h"

namespace osearch {

// Walks `root` (a Claude projects dir). A missing root yields nothing and no error (SPEC §2); a
// root that is not a directory, and every directory or file that cannot be read, is an error.
// `known`: what a refresh knows of the tree already (ingest/known_tree.h).
DiscoveryResult discover_claude(const std::string& root, const KnownTree* known = nullptr);

// Sidecar `<agent file minus .jsonl>.meta.json` path for a subagent transcript.
std::string subagent_meta_path(const std::string& transcript_path);

}  // namespace osearch
