// Normalized records produced by the agent adapters (ingest/<agent>.cpp) and stored by engine/store.
// Every adapter, whatever the source format, speaks only these types.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace osearch {

enum class Role : uint8_t { User, Assistant, Tool, System };
enum class ContentType : uint8_t { Text, Thinking, ToolUse, ToolResult, Command, Summary, Unknown };

const char* role_name(Role r);
const char* content_type_name(ContentType t);
bool parse_role(std::string_view s, Role& out);
bool parse_content_type(std::string_view s, ContentType& out);

struct TokenUsage {
  int64_t input = 0;
  int64_t output = 0;
  int64_t cache_creation = 0;
  int64_t cache_read = 0;
  bool any() const { return input || output || cache_creation || cache_read; }
  bool operator==(const TokenUsage&) const = default;
  void add(const TokenUsage& o) {
    input += o.input;
    output += o.output;
    cache_creation += o.cache_creation;
    cache_read += o.cache_read;
  }
};

struct ToolCall {
  std::string id;  // toolu_…
  std::string name;
  std::string input_json;
  std::string file_path;  // Read/Edit/Write/MultiEdit/NotebookEdit/Grep/Glob target, if any
  std::vector<std::string> extra_paths;  // further files one call touches (an apply_patch naming several)
};

struct ToolResult {
  std::string tool_use_id;
  std::string file_path;  // from toolUseResult.filePath / file.filePath
  bool is_error = false;
};

// One user/assistant line (a streamed assistant chunk is its own message, as in the source).
struct Message {
  std::string uuid;
  std::string type;  // "user" | "assistant"
  std::string parent_uuid;
  std::string logical_parent_uuid;
  int64_t timestamp_ms = 0;
  Role role = Role::User;
  ContentType content_type = ContentType::Unknown;
  bool is_meta = false;
  bool is_sidechain = false;
  std::string model;
  std::string agent_id;
  std::string api_message_id;  // message.id: streamed chunks share it and their usage
  TokenUsage usage;            // as written on the line; the store counts it once per api_message_id
  // Claude's usage.iterations of type advisor_message: tokens the advisor model spent inside this
  // API message, counted under that model (the top-level usage is the main model's alone).
  struct ModelUsage {
    std::string model;
    TokenUsage usage;
  };
  std::vector<ModelUsage> advisor_usage;
  std::string cwd;
  std::string git_branch;
  std::string version;
  std::string skill;
  std::string text;  // full decoded searchable text (never image bytes)
  size_t prompt_offset = 0;  // where the human's own words start in `text` (after injected IDE context)
  std::vector<ToolCall> tool_calls;
  std::vector<ToolResult> tool_results;
  // Subagent facts carried by a Task/Agent tool result (toolUseResult.agentId …).
  std::string spawned_agent_id;
  int64_t spawned_duration_ms = 0;
  int64_t spawned_total_tokens = 0;
  // Workflow launch carried by a Workflow tool result (toolUseResult.runId …).
  std::string workflow_run_id, workflow_task_id, workflow_status;
  // A subagent's message as the parent's transcript repeats it (Claude `progress` lines of type
  // agent_progress): the engine takes it only where the subagent's own transcript is missing.
  bool from_progress = false;
};

// A workflow run from `<session>/workflows/<file>.json` (one record per run, its agents inside).
struct WorkflowAgent {
  std::string agent_id, phase, label, model, state;
  int64_t duration_ms = 0, tokens = 0, tool_calls = 0;
};
struct WorkflowRun {
  std::string run_id, task_id, name, status, script, result_json;
  int64_t timestamp_ms = 0, duration_ms = 0, total_tokens = 0;
  std::vector<WorkflowAgent> agents;
};

// Session-level facts that are not messages. For each kind but TurnDuration and Usage the last
// one written wins.
struct SessionFact {
  enum class Kind : uint8_t {
    CustomTitle,   // a title the user set (Claude custom-title, omp title slot, pi session_info, Codex thread name)
    AiTitle,       // a generated title (Claude ai-title, omp title_change / header title)
    Summary,       // Claude `summary` line: titles the session whose message `ref_uuid` is its leaf
    LastPrompt,
    TurnDuration,
    AwaySummary,   // the session's recap: Claude's away summary, the latest compaction/branch summary
    Usage,         // tokens not carried by a message (Codex token_count): `usage`, model in `text`
  };
  Kind kind;
  std::string text;       // title / summary / prompt / model (Usage)
  std::string ref_uuid;   // leafUuid for Summary, parentUuid for TurnDuration
  int64_t value = 0;      // durationMs for TurnDuration
  TokenUsage usage;       // Usage
};

// What one JSONL line yielded: an omp/pi/Codex entry may hold several messages (thinking, text and
// tool calls of one assistant turn are separate messages, as they are separate lines in Claude).
struct LineRecords {
  std::vector<Message> messages;
  std::vector<SessionFact> facts;
  // The session this line names: Claude's sessionId (root agent files attach by it), the omp/pi
  // header id, Codex's session_meta id, a session index line's id. Bounded. Which line decides a
  // file's session is the engine's rule (see SourceFile::session_from_lines).
  std::string session_id_field;
  std::string session_id_full;   // the id as written, when bounding changed it (else empty)
  // A transcript's header (omp/pi session line, Codex first session_meta) makes its session, even
  // one that never gets a message: the working directory and start time it names.
  bool is_header = false;
  std::string header_cwd;
  int64_t header_time_ms = 0;
};

// What a line's records cost in memory until they are written, roughly: their texts plus a fixed
// overhead per record. Parsing ahead and write batches are both bounded by it.
size_t approx_bytes(const LineRecords& rec);

}  // namespace osearch
