// The memory commands' engine side (SPEC §6): writes go to the memory env (never the records env,
// so they never wait for an indexer) and then to the memories' text index; reads answer from
// both. Unknown or ambiguous ids and bad input are BadInput (exit 2).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/query/query.h"
#include "memory/jsonl.h"
#include "memory/memory.h"

namespace osearch {

struct RememberInput {
  std::string path, summary, session, start, end, project;
  std::vector<std::string> anchors;
  std::string cwd;  // relative paths resolve here without --session
};
// Committed (durable) when it returns.
memory::Record remember_memory(const std::string& index_dir, const RememberInput& in, int64_t now_ms);

struct MemoryChange {
  memory::Record record;
  bool changed = false;
};
MemoryChange forget_memory(const std::string& index_dir, std::string_view id, std::string_view reason, int64_t now_ms);
MemoryChange restore_memory(const std::string& index_dir, std::string_view id, int64_t now_ms);

struct MemoryListOptions {
  std::string query;  // ranked by it when set
  bool all = false;   // archived ones too
  std::vector<std::string> projects;  // lower-cased substrings
  std::optional<int64_t> since_ms, until_ms;
  size_t limit = 50, offset = 0;
};
struct MemoryItem {
  memory::Record record;
  double score = 0;
  std::string snippet;
};
struct MemoryList {
  uint64_t total = 0;
  std::vector<MemoryItem> items;
};
MemoryList list_memories(const std::string& index_dir, const MemoryListOptions& o);

struct MemoryDetail {
  memory::Record record;
  bool exists = false;  // the file is still there
  std::string text;     // its current text (empty when it is gone)
  bool text_truncated = false;
  std::vector<memory::Event> events;
};
MemoryDetail show_memory(const std::string& index_dir, std::string_view id);

std::vector<memory::Exported> export_memories(const std::string& index_dir);
struct ImportReport {
  uint64_t added = 0, unchanged = 0, conflicting = 0;
  std::vector<std::string> conflicting_ids;
};
ImportReport import_memories(const std::string& index_dir, const std::vector<memory::Exported>& items, int64_t now_ms);

// A memory as a keyword hit (engine/query/keyword.cpp) and in overview.
std::optional<memory::Record> memory_record(const std::string& index_dir, std::string_view id);
// Active memories of a project (matched by slug, path, or the memory file lying under the
// project path), newest first; `total` counts them all.
MemoryList project_memories(const std::vector<memory::Record>& all, const std::string& project, const std::string& project_path,
                            size_t limit);
uint64_t memory_count(const std::string& index_dir);
// Brings the memories' text index up to date (a refresh re-reads changed files). Never throws for
// a read-only index: it then answers from what is there.
void refresh_memories(const std::string& index_dir, bool reread_files);

// Does this project filter (lower-cased substrings) match the memory?
bool memory_project_matches(const memory::Record& r, const std::vector<std::string>& projects);

}  // namespace osearch
