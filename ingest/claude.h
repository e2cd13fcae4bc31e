// Claude Code adapter: one JSONL object -> normalized records (formats/claude-code.md).
// Pure: no I/O, no state beyond the line and the file's carry. File layout rules live in claude_layout.h.
#pragma once

#include <optional>
#include <string>

#include <simdjson.h>

#include "ingest/adapter.h"
#include "ingest/records.h"

namespace osearch {

// Fills `out` from one Claude Code JSONL object. Returns false for lines that carry nothing we
// keep (progress, snapshots, queue operations, attachments, …).
bool parse_claude_object(simdjson::dom::element object, LineRecords& out);
// The same, carrying the links of skipped lines from one line of a file to the next (see
// FileCarry::skipped_links): what the indexer calls.
bool parse_claude_object(simdjson::dom::element object, LineRecords& out, FileCarry& carry);

// Classification of user text (exposed for tests).
bool is_meta_user_text(std::string_view text);
bool is_command_envelope(std::string_view text);
// The trimmed text between <command-args> and </command-args> (empty when there is none).
std::string_view command_args(std::string_view envelope);

}  // namespace osearch

namespace osearch {

// Optional sidecar `agent-<id>.meta.json` next to a subagent transcript.
struct SubagentMeta {
  std::string agent_type, description, tool_use_id;
};
std::optional<SubagentMeta> read_subagent_meta(const std::string& path);

// `<session>/workflows/<file>.json`: nullopt when unreadable or without a runId.
std::optional<WorkflowRun> read_workflow_json(const std::string& path);

}  // namespace osearch
