// Codex rollout lines -> records (formats/omp-pi-codex.md §3, §7). A line is
// {"timestamp","type","payload"}; legacy (≤0.3x) files hold a bare meta line and bare ResponseItems.
// Carry: cwd, git_branch, version (first session_meta), model (turn_context), usage_total
// (token_count), header_seen (first session_meta seen).
#include <cctype>

#include <string_view>

#include "ingest/adapter.h"
#include "ingest/bounded_id.h"
#include "ingest/codex_items.h"
#include "ingest/json_fields.h"
#include "ingest/timeutil.h"

namespace osearch {
namespace codex {
namespace {

// "@<offset>" for a line's first message, "@<offset>#<n>" for its n-th.
std::string line_uuid(uint64_t line_offset, size_t n) {
  std::string uuid(1, '@');
  uuid += std::to_string(line_offset);
  if (n > 1) {
    uuid += '#';
    uuid += std::to_string(n);
  }
  return uuid;
}

}  // namespace

Message& LineMessages::add(Role role, ContentType type) {
  Message& m = out_.messages.emplace_back();
  m.uuid = line_uuid(line_offset_, out_.messages.size());
  m.type = role == Role::Assistant ? "assistant" : role == Role::Tool ? "tool" : "user";
  m.role = role;
  m.content_type = type;
  m.timestamp_ms = timestamp_ms_;
  stamp_from_carry(m, carry_);
  if (role == Role::Assistant &&
      (type == ContentType::Text || type == ContentType::Thinking || type == ContentType::ToolUse))
    m.model = carry_.model;
  return m;
}

std::string LineMessages::next_uuid() const { return line_uuid(line_offset_, out_.messages.size() + 1); }

namespace {

using simdjson::dom::element;

void set_session_id(std::string_view id, LineRecords& out) {
  out.session_id_field = bounded_id(id);
  if (out.session_id_field.size() != id.size()) out.session_id_full = std::string(id);
}

// The first meta names the file's session; later ones (resumes, a fork's copy of its parent's
// meta) change nothing.
void parse_session_meta(element meta, FileCarry& carry, LineRecords& out) {
  if (carry.header_seen) return;
  carry.header_seen = true;
  set_session_id(str_field(meta, "id"), out);
  carry.cwd = std::string(str_field(meta, "cwd"));
  out.is_header = true;
  out.header_cwd = carry.cwd;
  out.header_time_ms = parse_iso8601_ms(str_field(meta, "timestamp")).value_or(0);
  carry.version = std::string(str_field(meta, "cli_version"));
  element git;
  if (meta["git"].get(git) == simdjson::SUCCESS) carry.git_branch = std::string(str_field(git, "branch"));
}

void parse_turn_context(element ctx, FileCarry& carry) {
  std::string_view model = str_field(ctx, "model");
  if (!model.empty()) carry.model = std::string(model);
  std::string_view cwd = str_field(ctx, "cwd");
  if (!cwd.empty()) carry.cwd = std::string(cwd);
}

// Token counts below zero are no real count: they read as 0, so growth never overflows.
int64_t count_field(element e, std::string_view key) {
  int64_t v = int_field(e, key);
  return v > 0 ? v : 0;
}

// total_token_usage is cumulative: the growth over the carried total is this line's usage.
void parse_token_count(element event, FileCarry& carry, LineRecords& out) {
  element info, total_json;
  if (event["info"].get(info) != simdjson::SUCCESS || !info.is_object()) return;
  if (info["total_token_usage"].get(total_json) != simdjson::SUCCESS || !total_json.is_object()) return;
  TokenUsage total;
  total.cache_read = count_field(total_json, "cached_input_tokens");
  int64_t input = count_field(total_json, "input_tokens");
  total.input = input > total.cache_read ? input - total.cache_read : 0;
  total.output = count_field(total_json, "output_tokens");

  // An all-zero total (seen at the end of real rollouts) says nothing: keeping the carried total
  // stops the next real total from being counted again from zero.
  if (!total.any()) return;
  const TokenUsage& last = carry.usage_total;
  const bool fresh_start = total.input < last.input || total.output < last.output ||
                           total.cache_read < last.cache_read || total.cache_creation < last.cache_creation;
  TokenUsage growth = total;
  if (!fresh_start) {
    growth.input -= last.input;
    growth.output -= last.output;
    growth.cache_read -= last.cache_read;
    growth.cache_creation -= last.cache_creation;
  }
  carry.usage_total = total;
  if (!growth.any()) return;
  SessionFact fact{};
  fact.kind = SessionFact::Kind::Usage;
  fact.usage = growth;
  fact.text = carry.model;
  fact.value = carry.last_timestamp_ms;  // a Usage fact's value is its time: stats buckets the tokens by it
  out.facts.push_back(std::move(fact));
}

void add_fact(LineRecords& out, SessionFact::Kind kind, std::string_view text) {
  if (text.empty()) return;
  SessionFact fact{};
  fact.kind = kind;
  fact.text = std::string(text);
  out.facts.push_back(std::move(fact));
}

// A prompt's text, for pairing its two copies: whitespace at the ends does not count.
uint64_t prompt_hash(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  uint64_t a, b;
  hash128(ltrim(text), a, b);
  return (a | 2) & ~uint64_t{1};  // never 0 ("no copy pending"); bit 0 says which copy came first
}
constexpr uint64_t kFromEvent = 1;

// A response_item user message is the prompt's first copy (then the event_msg one is skipped), or
// its second (then it is meta, so the prompt is counted and shown once).
void pair_prompt_copies(FileCarry& carry, LineRecords& out) {
  for (Message& m : out.messages) {
    if (m.role != Role::User || m.content_type != ContentType::Text || m.is_meta) continue;
    const uint64_t h = prompt_hash(m.text);
    if ((h | kFromEvent) == carry.pending_user_text) {
      m.is_meta = true;
      carry.pending_user_text = 0;
    } else {
      carry.pending_user_text = h;
    }
  }
}

// agent_message/agent_reasoning repeat response items, *_end events repeat call outputs, the rest
// (task_*, turn_aborted, errors, rate limits, …) is not searchable text.
void parse_event(element event, FileCarry& carry, codex::LineMessages& lm) {
  std::string_view type = str_field(event, "type");
  if (type == "user_message") {
    std::string_view text = str_field(event, "message");
    if (text.empty()) return;
    const uint64_t h = prompt_hash(text);
    if (h == carry.pending_user_text) {  // the response_item copy came first and is indexed
      carry.pending_user_text = 0;
      return;
    }
    carry.pending_user_text = h | kFromEvent;  // (the same words typed twice are two prompts)
    lm.add(Role::User, ContentType::Text).text = std::string(text);
  } else if (type == "token_count") {
    parse_token_count(event, carry, lm.out());
  } else if (type == "thread_name_updated") {
    add_fact(lm.out(), SessionFact::Kind::CustomTitle, str_field(event, "thread_name"));
  }
}

// The compaction's summary; replacement_history repeats earlier items and is not read.
void parse_compacted(element compacted, codex::LineMessages& lm) {
  std::string_view summary = str_field(compacted, "message");
  if (summary.empty()) return;
  lm.add(Role::Assistant, ContentType::Summary).text = std::string(summary);
  add_fact(lm.out(), SessionFact::Kind::AwaySummary, summary);
}

// Legacy files: a first line {"id","timestamp","cwd"?,"instructions"?} without `type`,
// {"record_type":"state"} lines, and ResponseItems without an envelope.
void parse_legacy(element obj, std::string_view type, FileCarry& carry, codex::LineMessages& lm) {
  if (type.empty()) {
    if (obj["record_type"].error() == simdjson::SUCCESS) return;
    if (!str_field(obj, "id").empty()) parse_session_meta(obj, carry, lm.out());
    return;
  }
  codex::parse_response_item(obj, lm);
}

bool yielded(const LineRecords& out) {
  return !out.messages.empty() || !out.facts.empty() || !out.session_id_field.empty();
}

}  // namespace
}  // namespace codex

bool parse_codex_object(simdjson::dom::element object, uint64_t line_offset, FileCarry& carry, LineRecords& out) {
  using namespace codex;
  // A line without a readable timestamp (legacy bare items) is as old as the last one that had one.
  int64_t timestamp_ms = parse_iso8601_ms(str_field(object, "timestamp")).value_or(0);
  if (timestamp_ms > 0)
    carry.last_timestamp_ms = timestamp_ms;
  else
    timestamp_ms = carry.last_timestamp_ms;
  LineMessages lm(line_offset, timestamp_ms, carry, out);
  std::string_view type = str_field(object, "type");
  element payload;
  const bool has_payload = object["payload"].get(payload) == simdjson::SUCCESS;
  if (type == "session_meta") {
    if (has_payload && payload.is_object()) parse_session_meta(payload, carry, out);
  } else if (type == "turn_context") {
    if (has_payload) parse_turn_context(payload, carry);
  } else if (type == "response_item") {
    if (has_payload) parse_response_item(payload, lm);
    pair_prompt_copies(carry, out);
  } else if (type == "event_msg") {
    if (has_payload) parse_event(payload, carry, lm);
  } else if (type == "compacted") {
    if (has_payload) parse_compacted(payload, lm);
  } else if (type == "world_state" || starts_with(type, "inter_agent_communication")) {
    // Agent-to-agent plumbing, not conversation text.
  } else if (!has_payload) {
    parse_legacy(object, type, carry, lm);
  }
  return yielded(out);
}

bool parse_codex_index_object(simdjson::dom::element object, LineRecords& out) {
  std::string_view id = str_field(object, "id");
  std::string_view name = str_field(object, "thread_name");
  if (id.empty() || name.empty()) return false;
  codex::set_session_id(id, out);
  codex::add_fact(out, SessionFact::Kind::CustomTitle, name);
  return true;
}

}  // namespace osearch
