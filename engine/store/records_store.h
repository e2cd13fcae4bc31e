// Stored record types (LMDB values) and their key layouts. See docs/ARCHITECTURE.md for the map.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ingest/source_file.h"
#include "ingest/records.h"

namespace osearch {

// A session record's title fields, viewed (in a SessionRec's strings or in its encoded bytes): what
// its title and the titles it is found by are made of, decided here for both.
struct TitleFields {
  std::string_view custom, ai, summary, last_prompt, first_prompt;
  std::vector<std::string_view> earlier;  // SessionRec::earlier_titles, oldest first
  // The first line, trimmed and cut to 200 bytes, of custom > ai > summary > last prompt > first prompt.
  std::string_view title() const;
  // title() first, then the custom and generated titles it does not show, then the earlier titles
  // (newest first); each once. Into `out`, cleared first (a pass reuses its capacity).
  void searchable(std::vector<std::string_view>& out) const;
};

struct SessionRec {
  std::string id;       // bounded (ingest/bounded_id.h): the key of every record of the session
  std::string full_id;  // the id as the transcript has it, when bounding changed it (else empty)
  // What users see and `--resume` takes: the id as written.
  const std::string& shown_id() const { return full_id.empty() ? id : full_id; }
  std::string agent = "claude";
  std::string project;
  std::string project_path;
  std::string cwd;
  std::string jsonl_path;
  std::string git_branch;
  std::string version;
  std::string custom_title, ai_title, summary_title, last_prompt, first_prompt, away_summary;
  std::string summary_rank;  // where summary_title was written (file tag + offset): the last one wins
  int64_t started_at = 0;  // ms since epoch, 0 = unknown
  int64_t ended_at = 0;
  uint64_t message_count = 0;
  uint64_t tool_call_count = 0;
  uint64_t subagent_count = 0;
  bool has_main = false;
  bool source_deleted = false;
  std::vector<std::string> models;  // sorted: the same whichever of the session's files was read first
  TokenUsage tokens;

  void add_model(std::string_view model) {
    const auto at = std::lower_bound(models.begin(), models.end(), model);  // (kept sorted, decode too)
    if (at == models.end() || *at != model) models.emplace(at, model);
  }

  // Titles the session had before (a rename, a newer generated title), oldest first: searchable
  // like the title, so a word once in a title is still found.
  std::vector<std::string> earlier_titles;
  static constexpr size_t kMaxEarlierTitles = 16;

  std::string title() const;  // TitleFields::title
  // Every title the session is found by (TitleFields::searchable).
  std::vector<std::string> searchable_titles() const;
  // Sets a title field (custom_title, ai_title), keeping the value it replaces in earlier_titles.
  void replace_title(std::string& field, std::string text);
  std::string encode() const;
  static std::optional<SessionRec> decode(std::string_view bytes);
};

// A session record's filterable fields, viewed in its encoded bytes (SessionRec::encode) without
// copying a string: what a pass over every session compares (Filters::session_matches). The views
// live as long as the bytes (an LMDB read transaction's pages).
struct SessionFacets {
  std::string_view id, agent, project, project_path, cwd, git_branch;
  std::string_view full_id;  // as SessionRec's: empty unless bounding changed the id
  std::string_view shown_id() const { return full_id.empty() ? id : full_id; }
  int64_t started_at = 0, ended_at = 0;
  uint64_t message_count = 0;
  std::vector<std::string_view> models;  // (kept across decodes: a pass reuses its capacity)
  TitleFields titles;                    // (likewise)
  // Whether the bytes decode whole, as SessionRec::decode asks: a record it would refuse is refused.
  bool decode(std::string_view bytes);
};

struct MessageRec {
  std::string key;  // LMDB key (not encoded in the value)
  std::string uuid, session_id, type, parent_uuid, logical_parent_uuid;
  int64_t timestamp_ms = 0;
  Role role = Role::User;
  ContentType content_type = ContentType::Unknown;
  bool is_meta = false;
  bool is_sidechain = false;
  std::string model, agent_id, cwd, git_branch, skill, api_message_id;
  TokenUsage usage;  // counted once per API message id: zero on repeated streamed chunks
  int64_t turn_duration_ms = 0;
  uint64_t text_offset = 0;  // entry start in the text log
  uint64_t text_len = 0;
  std::vector<std::string> tool_call_ids;
  // crc32c of the text (engine/store/crc32c.h), for `osearch check`; absent in records written
  // before schema 20 that an upgrade carried over from an archive.
  std::optional<uint32_t> text_crc;

  // The adapters decide: a command envelope without arguments is meta, one with arguments is the
  // user's words (SPEC §3); injected context, caveats and reminders are meta.
  bool hidden_by_default() const { return is_meta; }
  std::string encode() const;
  static std::optional<MessageRec> decode(std::string_view key, std::string_view bytes);
  // Where its text is in the text log, (text_offset, text_len), read from an encoded record without
  // decoding the rest; nullopt when the bytes are no record.
  static std::optional<std::pair<uint64_t, uint64_t>> text_span_in(std::string_view bytes);
};

struct ToolCallRec {
  std::string id, session_id, message_key, name, input_json, file_path;
  int64_t timestamp_ms = 0;
  std::vector<std::string> extra_paths;  // further files the call touches (an apply_patch naming several)
  // file_path then extra_paths: each has an entry in `tc_by_path` (tool_path_key).
  std::vector<std::string> paths() const;
  std::string encode() const;
  static std::optional<ToolCallRec> decode(std::string_view bytes);
  // The call's name alone, a view of `bytes` (a filter by tool decodes nothing else).
  static std::optional<std::string_view> name_in(std::string_view bytes);
};

struct ToolResultRec {
  std::string tool_use_id, session_id, message_key, file_path;
  bool is_error = false;
  std::string encode() const;
  static std::optional<ToolResultRec> decode(std::string_view bytes);
};

struct SubagentRec {
  std::string agent_id, session_id, parent_tool_use_id, agent_type, description, transcript_path;
  // duration_ms and total_tokens are what the spawning tool result reported (Claude's
  // toolUseResult.totalDurationMs / totalTokens); 0 when there was none.
  int64_t duration_ms = 0, total_tokens = 0, first_ts = 0, last_ts = 0;
  uint64_t message_count = 0;
  // From the agent's own transcript (schema 14; absent in older records): its usage, each API
  // message once as the session counts it; the last model it ran; its workflow run, if any.
  TokenUsage tokens;
  std::string model, workflow_run_id;
  // false for a record kept from an older index (its session's source gone): `tokens` then misses
  // what was read before the upgrade, so it is no answer.
  bool usage_complete = true;
  std::string encode() const;
  static std::optional<SubagentRec> decode(std::string_view bytes);
};

struct WorkflowRec {
  std::string run_id, session_id, task_id, parent_tool_use_id, name, status, script, result_json, path;
  int64_t timestamp_ms = 0, duration_ms = 0, total_tokens = 0;
  uint64_t agent_count = 0;
  std::string encode() const;
  static std::optional<WorkflowRec> decode(std::string_view bytes);
};

struct WorkflowAgentRec {
  std::string run_id, agent_id, session_id, phase, label, model, state, agent_type, description, transcript_path;
  int64_t duration_ms = 0, tokens = 0, tool_calls = 0;
  uint64_t message_count = 0;
  std::string encode() const;
  static std::optional<WorkflowAgentRec> decode(std::string_view bytes);
};

// Per source file: where the next read starts, and how to notice the file was replaced.
struct FileState {
  std::string path;
  SourceKind kind = SourceKind::ClaudeMain;
  std::string agent, project, session_id, agent_id;
  uint64_t dev = 0, ino = 0, size = 0;
  int64_t mtime_ns = 0;
  uint64_t offset = 0;  // byte after the last complete line consumed
  // The CRC-32C of the tail_len bytes before `offset` (JsonlReadResult::tail): a grown file whose
  // bytes there differ was rewritten, and is read whole again (engine/index/run_plan). 0: nothing
  // to compare (nothing consumed, or a workflow file moved without bytes).
  uint64_t tail_len = 0;
  uint32_t tail_crc = 0;
  uint64_t lines = 0, bad_lines = 0, repaired_lines = 0, oversized_lines = 0;
  bool deleted = false;
  FileCarry carry;  // what the adapter carries from the lines before `offset` to the next one
  // carry.skipped_links is not in the encoded state: it is kilobytes per Claude file, and a refresh
  // reads every file's state, so it lives in `file_links` (same key) and is read only for a file
  // read again (links_unread until then). A state written before schema 16 holds it inline.
  bool links_unread = false;
  std::string encode() const;
  static std::optional<FileState> decode(std::string_view key, std::string_view bytes);  // path from the value
};

// An encoded FileState read in place: every field checked, none copied. A plan compares each
// discovered file with its stored state, and most are unchanged: those need no FileState at all.
struct FileStateView {
  std::string_view bytes;  // the encoded state (state() decodes it)
  std::string_view path, session_id;
  uint64_t dev = 0, ino = 0, size = 0, offset = 0;
  int64_t mtime_ns = 0;
  bool deleted = false;
  uint64_t tail_len = 0;
  uint32_t tail_crc = 0;
  bool tail_kept = false;  // false: a state written before tails were kept (its file may be rewritten unseen)
  // nullopt: the bytes do not decode whole (a damaged page).
  static std::optional<FileStateView> parse(std::string_view bytes);
  FileState state() const;
};

class Encoder;
class Decoder;
// A TokenUsage's encoding, shared by the records that carry one and the aggregates (usage_agg.h).
void encode_usage(Encoder& e, const TokenUsage& u);
TokenUsage decode_usage(Decoder& d);

// Key builders. Message keys order a session's messages by time, then file, then line.
std::string message_key(std::string_view session_id, int64_t ts_ms, uint32_t file_tag, uint64_t line_offset);
std::string session_of_message_key(std::string_view key);
int64_t timestamp_of_message_key(std::string_view key);
// The session id a message key starts with, as a view of `key`; nullopt when `key` is no message's
// (no separator, or no time after it).
std::optional<std::string_view> session_in_message_key(std::string_view key);
// Every key part is bounded (ingest/bounded_id.h) so no key reaches LMDB's 511-byte limit: ids
// arrive bounded from ingest/, paths and project names are bounded here. A record whose key holds
// a bounded part keeps the full value in its value (FileState::path, session_files' value).
std::string pair_key(std::string_view a, std::string_view b);  // bounded(a) \0 bounded(b)
// `msg_uuid`: the session's number (be32, engine/store/session_numbers.h) then the bounded uuid ->
// message key. Numbers are given in order, so a batch's new sessions append at the tree's right
// edge (keyed by the session id, each new session dirtied a page of its own all over a growing tree:
// a tree of many short sessions built several times slower). A session's entries stay together, and
// a uuid alone is found through the message documents' uuid term (text_index.h,
// sessions_with_uuid_term). find_message_key (session_numbers.h) looks one up by session id or number.
// Without a uuid: the prefix of the session's entries.
std::string message_uuid_key(uint32_t session_number, std::string_view uuid = {});
// The session number a `msg_uuid` key starts with; nullopt for a key too short to hold a uuid.
std::optional<uint32_t> session_number_of_uuid_key(std::string_view key);
std::string file_key(std::string_view path);                   // key of `files`
std::string session_time_key(int64_t ended_at, std::string_view sid);  // key of `sess_by_time`
// A `sess_by_time` key's parts (views of it). Throws IndexDamaged("records") for a key too short to
// hold them: only a damaged page has one, and reading past it would be undefined.
struct SessionTimeKey {
  int64_t ended_at = 0;
  std::string_view sid;
};
SessionTimeKey parse_session_time_key(std::string_view key);
uint32_t file_tag(std::string_view path);

// `tc_by_path`: reversed(path) \0 sid \0 tool call id, so one range finds a path and every path
// ending in a suffix (`src/main.rs` -> all of "/…/src/main.rs"). reversed_path is its first part,
// bounded like every key part (a long path keeps its last bytes, then a hash).
std::string reversed_path(std::string_view path);
std::string tool_path_key(std::string_view path, std::string_view sid, std::string_view tool_call_id);
// Its value: the call's time and tool name, and the path itself when the key holds it cut (longer
// than a key part), so a time or tool filter over the paths reads no call record. An index written
// before kept "" (ToolPathEntry::decode: nullopt), where the call is read instead.
std::string tool_path_value(const ToolCallRec& call, std::string_view path);
struct ToolPathEntry {
  int64_t timestamp_ms = 0;
  std::string_view name;
  std::string_view long_path;  // "" when the key's reversed path is the whole path
  static std::optional<ToolPathEntry> decode(std::string_view value);
};
// `failed_results`: be64(sortable result time) sid \0 tool_use_id -> its call's name (or ""), one per
// tool result with is_error, written with the result (engine/store/failed_results.h).
std::string failed_result_key(int64_t ts_ms, std::string_view sid, std::string_view tool_use_id);

}  // namespace osearch
