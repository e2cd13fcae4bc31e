// `files PATH` and `failures`: tool calls by the file they touched, and tool calls that failed.
// Both answer from LMDB orders kept at index time (`tc_by_path`, `failed_results`, see
// docs/ARCHITECTURE.md) plus, for shell commands naming a file, one Xapian term lookup.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/query/query.h"
#include "engine/query/reader.h"
#include "engine/query/thread.h"

namespace osearch {

struct FilesOptions {
  std::string path;  // as typed: absolute, relative to `cwd` ("./x", "../x"), or a suffix ("src/main.rs")
  std::string cwd;   // the caller's working directory (relative PATHs resolve against it)
  bool commands = true;  // also shell commands whose text names the file
};

// One tool call that touched the file.
struct FileTouch {
  ToolCallRec call;
  SessionRec session;
  std::string message_uuid;
  std::string file_path;  // the call's path that matched; empty for a shell command naming the file
  std::string how;        // "path" (the tool's file argument, a patch header) or "command"
  bool has_result = false, failed = false;
};

struct FilesResult {
  std::string path;      // as typed
  std::string resolved;  // what was looked up: the absolute path, or the suffix
  std::string match;     // "exact" | "suffix"
  uint64_t total = 0;    // touches passing the filters (offset/limit cut `hits`, not this)
  bool truncated = false;  // shell-command candidates beyond kMaxCommandCandidates were not examined
  std::vector<FileTouch> hits;  // oldest first
  IndexCounts counts;
  uint64_t refreshed_files = 0;
  bool stale = false;
  double took_ms = 0;
};

// Throws BadInput when PATH is empty.
FilesResult run_files(IndexReader& reader, const Filters& filters, const FilesOptions& o);

// Shell-command candidates (Xapian matches of the file name) examined at most.
inline constexpr size_t kMaxCommandCandidates = 20000;

struct FailuresOptions {
  size_t max_chars = 500;  // error text and following messages are cut to this many characters
  size_t next_messages = 3;
};

// A message as `failures` shows it after a failure: its record and (cut) text.
struct ShownMessage {
  MessageRec rec;
  std::string text;
  bool text_truncated = false;
};

struct Failure {
  ToolResultRec result;
  std::optional<ToolCallRec> call;  // absent when the call was never seen (a result without its call)
  SessionRec session;
  ShownMessage result_message;  // the message holding the result; its text is the error text
  std::vector<ShownMessage> next;  // the next messages of the same agent thread of the session
};

struct FailuresResult {
  uint64_t total = 0;
  std::vector<Failure> hits;  // newest first
  IndexCounts counts;
  uint64_t refreshed_files = 0;
  bool stale = false;
  double took_ms = 0;
};

FailuresResult run_failures(IndexReader& reader, const Filters& filters, const FailuresOptions& o);

// Helpers shared by the two (engine/query/files.cpp).
// (cut_chars, which cuts a text on a character boundary, is thread's: engine/query/thread.h)
// Is `name` a tool that runs shell commands (Bash, bash, exec_command, shell, local_shell, …)?
bool is_shell_tool(std::string_view name);

}  // namespace osearch
