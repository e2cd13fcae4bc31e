// Claude Code directory layout: which files under a projects root are transcripts, and what
// session each belongs to (formats/claude-code.md §1, §8). Reads directory metadata only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace osearch {

enum class SourceKind : uint8_t {
  ClaudeMain,           // <slug>/<session>.jsonl
  ClaudeRootAgent,      // <slug>/agent-<id>.jsonl: session = the sessionId its lines carry
  ClaudeNestedAgent,    // <slug>/<session>/subagents/agent-<id>.jsonl
  ClaudeWorkflowAgent,  // <slug>/<session>/subagents/workflows/<run>/agent-<id>.jsonl
  ClaudeWorkflowRun,    // <slug>/<session>/workflows/<file>.json (a whole JSON document, re-read on change)
};

struct SourceFile {
  std::string path;
  SourceKind kind = SourceKind::ClaudeMain;
  std::string agent = "claude";
  std::string project;     // slug directory name
  std::string session_id;  // known from the path (empty for root agent files), bounded
  std::string session_id_full;  // as the path has it, when bounding changed it (else empty)
  std::string agent_id;    // subagent id without the "agent-" prefix
  std::string workflow_run;
  uint64_t dev = 0, ino = 0, size = 0;
  int64_t mtime_ns = 0;
};

struct DiscoveryResult {
  std::vector<SourceFile> files;  // sorted by path
  std::vector<std::string> errors;       // "<dir>: <reason>": directories that could not be listed
  std::vector<std::string> file_errors;  // "<file>: <reason>": transcripts that could not be stat'ed
};

// Walks `root` (a Claude projects dir). A missing root yields nothing and no error (SPEC §2); a
// root that is not a directory, and every directory or file that cannot be read, is an error.
DiscoveryResult discover_claude(const std::string& root);

// Sidecar `<agent file minus .jsonl>.meta.json` path for a subagent transcript.
std::string subagent_meta_path(const std::string& transcript_path);

}  // namespace osearch
