// A transcript file found under a source root, and what its kind means for reading it. Discovery
// (ingest/*_layout.cpp) produces these; the engine reads them through the adapter of their format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ingest/adapter.h"
#include "ingest/bounded_id.h"

namespace osearch {

enum class SourceKind : uint8_t {
  ClaudeMain,           // <slug>/<session>.jsonl
  ClaudeRootAgent,      // <slug>/agent-<id>.jsonl: session = the sessionId its lines carry
  ClaudeNestedAgent,    // <slug>/<session>/subagents/agent-<id>.jsonl
  ClaudeWorkflowAgent,  // <slug>/<session>/subagents/workflows/<run>/agent-<id>.jsonl
  ClaudeWorkflowRun,    // <slug>/<session>/workflows/<file>.json (a whole JSON document, re-read on change)
  PiSession,            // omp/pi <dir>/<time>_<id>.jsonl: session = the header id (else the name's id)
  PiSubagent,           // omp <dir>/<time>_<id>/<output>.jsonl: a subagent of session <id>
  CodexRollout,         // <YYYY/MM/DD>/rollout-<time>-<id>.jsonl[.zst]: session = the first session_meta id
  CodexSessionIndex,    // ~/.codex/session_index.jsonl: thread names of any session, line by line
};

// A subagent's transcript: its messages are sidechain messages of the parent session.
inline bool is_subagent_kind(SourceKind k) {
  return k == SourceKind::ClaudeRootAgent || k == SourceKind::ClaudeNestedAgent ||
         k == SourceKind::ClaudeWorkflowAgent || k == SourceKind::PiSubagent;
}
// The first line naming a session decides the file's session (SourceFile::session_id is then only
// the fallback for lines before any does, or for files none does).
inline bool session_from_lines(SourceKind k) {
  return k == SourceKind::ClaudeRootAgent || k == SourceKind::PiSession || k == SourceKind::CodexRollout;
}
inline SourceFormat format_of(SourceKind k) {
  switch (k) {
    case SourceKind::PiSession:
    case SourceKind::PiSubagent: return SourceFormat::PiFamily;
    case SourceKind::CodexRollout: return SourceFormat::Codex;
    case SourceKind::CodexSessionIndex: return SourceFormat::CodexIndex;
    default: return SourceFormat::Claude;
  }
}
// omp rewrites its first line (the 256-byte title slot) in place: same size, new mtime.
inline bool head_rewritten_in_place(SourceKind k) { return k == SourceKind::PiSession; }

struct SourceFile {
  std::string path;
  SourceKind kind = SourceKind::ClaudeMain;
  std::string agent = "claude";
  std::string project;     // Claude: the slug directory name; other agents: empty (from the cwd)
  std::string session_id;  // known from the path (empty for Claude root agent files), bounded
  std::string session_id_full;  // as the path has it, when bounding changed it (else empty)
  std::string agent_id;    // subagent id without the "agent-" prefix
  std::string workflow_run;
  uint64_t dev = 0, ino = 0, size = 0;
  int64_t mtime_ns = 0;
};

// The key a session is stored under, from the id its transcript gives it. A Claude id is the key;
// another agent's id gets "@<agent>": omp re-writes pi sessions keeping their ids, and a pi file
// and its omp copy are two sessions. Users see and resume the id as written (SessionRec::full_id).
inline std::string session_key(const SourceFile& f, std::string_view id) {
  if (f.agent == "claude" || id.empty()) return bounded_id(id);
  std::string keyed(id);
  keyed += '@';
  keyed += f.agent;
  return bounded_id(keyed);
}

// The id as written behind a key session_key made (empty when the key is the id, or was cut).
inline std::string written_session_id(const SourceFile& f, std::string_view key) {
  if (f.agent == "claude") return {};
  const std::string suffix = "@" + f.agent;
  if (key.size() <= suffix.size() || key.substr(key.size() - suffix.size()) != suffix) return {};
  return std::string(key.substr(0, key.size() - suffix.size()));
}

// What one path was when discovery looked at it (before listing it, for a directory). A refresh
// whose every observation still holds has nothing to read (engine/index/source_watch.h).
struct PathStat {
  enum class Type : uint8_t { Missing, Dir, File, Other };
  std::string path;
  Type type = Type::Missing;
  uint64_t dev = 0, ino = 0, size = 0;
  int64_t mtime_ns = 0;
  bool listed = false;  // a directory discovery listed (not only probed)
  bool operator==(const PathStat&) const = default;
  // The same path found the same, whether or not it was listed.
  bool same_as(const PathStat& o) const {
    return path == o.path && type == o.type && dev == o.dev && ino == o.ino && size == o.size && mtime_ns == o.mtime_ns;
  }
};

class KnownTree;  // ingest/known_tree.h

struct DiscoveryResult {
  // What a refresh knows already (the paths its quick check found as recorded): discovery takes
  // stats and unchanged directories' entries from it instead of the file system. Null: none.
  const KnownTree* known = nullptr;
  std::vector<SourceFile> files;  // sorted by path
  // Every directory listed or probed, registry file read and listed file found missing, each as it
  // was before discovery relied on it (the files themselves carry their own stat).
  std::vector<PathStat> observed;
  std::vector<std::string> errors;       // "<dir>: <reason>": directories that could not be listed
  std::vector<std::string> file_errors;  // "<file>: <reason>": transcripts that could not be stat'ed
};

}  // namespace osearch
