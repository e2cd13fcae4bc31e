// omp and pi transcripts (formats/omp-pi-codex.md §1, §2, §7): one JSONL family, one adapter.
//
// Line 1 of an omp file may be the fixed-width title slot, then the `session` header, then entries
// {type, id, parentId, timestamp, …}. pi v1 files have no ids: each entry is named "@<line offset>"
// and hangs under the entry before it (FileCarry::last_entry_id). One `message` entry may yield
// several messages (an assistant turn's thinking, text and tool calls): "<id>", "<id>#2", "<id>#3".
#include <string>
#include <string_view>
#include <vector>

#include "ingest/adapter.h"
#include "ingest/bounded_id.h"
#include "ingest/json_fields.h"
#include "ingest/timeutil.h"

namespace osearch {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

constexpr int kMaxDepth = 16;

std::string_view trim(std::string_view s) {
  s = ltrim(s);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

bool has_field(element e, std::string_view key, element& value) {
  return e.is_object() && e[key].get(value) == simdjson::SUCCESS;
}

bool is_image_ref(std::string_view s) { return starts_with(s, "blob:sha256:") || starts_with(s, "data:image/"); }

// collect_strings, minus images: free-form payloads (custom data, tool arguments) may embed image
// blocks or blob refs, and image bytes are never searchable text.
void collect_text_strings(element e, std::string& out, int depth = 0) {
  if (depth > kMaxDepth) return;
  switch (e.type()) {
    case simdjson::dom::element_type::STRING: {
      std::string_view s = e.get_string().value_unsafe();
      if (!is_image_ref(s)) append_part(out, s);
      break;
    }
    case simdjson::dom::element_type::ARRAY:
      for (element child : array(e)) collect_text_strings(child, out, depth + 1);
      break;
    case simdjson::dom::element_type::OBJECT:
      if (str_field(e, "type") == "image") break;
      for (auto field : object(e)) collect_text_strings(field.value, out, depth + 1);
      break;
    default:
      break;
  }
}

// `content` of a message: a string or blocks whose text parts are joined (images dropped).
std::string content_text(element holder) {
  std::string text;
  element content;
  if (has_field(holder, "content", content)) collect_result_text(content, text);
  return text;
}

// The messages of one entry: they share its identity, stamped with the file's carry.
class EntryMessages {
 public:
  EntryMessages(std::string uuid, std::string parent, int64_t timestamp_ms, const FileCarry& carry,
                LineRecords& out)
      : uuid_(std::move(uuid)), parent_(std::move(parent)), timestamp_ms_(timestamp_ms), carry_(carry), out_(out) {}

  // A new message: the first part is the entry, later parts "<uuid>#n" hang under the part before.
  Message& add(Role role, ContentType type, std::string_view kind, std::string text, bool meta) {
    Message m;
    m.uuid = parts_ == 0 ? uuid_ : bounded_id(uuid_ + "#" + std::to_string(parts_ + 1));
    m.parent_uuid = parts_ == 0 ? parent_ : out_.messages.back().uuid;
    m.type = std::string(kind);
    m.timestamp_ms = timestamp_ms_;
    m.role = role;
    m.content_type = type;
    m.is_meta = meta;
    stamp_from_carry(m, carry_);
    m.text = std::move(text);
    ++parts_;
    out_.messages.push_back(std::move(m));
    return out_.messages.back();
  }
  // A meta or plain user-side text message, only when there is text.
  void add_text(std::string text, bool meta) {
    if (!text.empty()) add(Role::User, ContentType::Text, "user", std::move(text), meta);
  }
  // Compaction and branch summaries: searchable as the assistant's words, and the session's recap.
  void add_summary(std::string_view summary) {
    if (summary.empty()) return;
    add(Role::Assistant, ContentType::Summary, "assistant", std::string(summary), false);
    out_.facts.push_back(SessionFact{SessionFact::Kind::AwaySummary, std::string(summary), {}, 0, {}});
  }

  const std::string& uuid() const { return uuid_; }
  const FileCarry& carry() const { return carry_; }
  LineRecords& out() { return out_; }

 private:
  std::string uuid_, parent_;
  int64_t timestamp_ms_;
  const FileCarry& carry_;
  LineRecords& out_;
  int parts_ = 0;
};

ToolCall parse_tool_call(element block, std::string& text) {
  ToolCall call;
  call.id = bounded_id(str_field(block, "id"));
  call.name = std::string(str_field(block, "name"));
  append_part(text, call.name);
  element args;
  if (!has_field(block, "arguments", args)) {
    call.input_json = "{}";
    return call;
  }
  write_truncated_json(args, call.input_json, kMaxInputLeafBytes);
  for (std::string_view key : {"path", "file_path", "filePath"}) {
    std::string_view p = str_field(args, key);
    if (!p.empty()) {
      call.file_path = std::string(p);
      break;
    }
  }
  collect_text_strings(args, text);
  return call;
}

void parse_assistant(element message, EntryMessages& em) {
  std::string thinking, text, tool_text;
  std::vector<ToolCall> calls;
  element content;
  array blocks;
  std::string_view s;
  if (has_field(message, "content", content)) {
    if (content.get_string().get(s) == simdjson::SUCCESS) {
      text.assign(s);
    } else if (content.get_array().get(blocks) == simdjson::SUCCESS) {
      for (element b : blocks) {
        std::string_view type = str_field(b, "type");
        if (type == "thinking") append_part(thinking, str_field(b, "thinking"));
        else if (type == "text") append_part(text, str_field(b, "text"));
        else if (type == "toolCall") calls.push_back(parse_tool_call(b, tool_text));
        // redactedThinking, image, fallback, anthropicServerTool: nothing searchable.
      }
    }
  }
  // A failed or aborted turn often has no content at all: its error is what one searches for.
  append_part(text, str_field(message, "errorMessage"));

  TokenUsage usage;
  element u;
  if (has_field(message, "usage", u)) {
    usage.input = int_field(u, "input");
    usage.output = int_field(u, "output");
    usage.cache_read = int_field(u, "cacheRead");
    usage.cache_creation = int_field(u, "cacheWrite");
  }
  std::string model(str_field(message, "model"));
  if (model.empty()) model = em.carry().model;

  size_t first = em.out().messages.size();
  if (!thinking.empty()) em.add(Role::Assistant, ContentType::Thinking, "assistant", std::move(thinking), false);
  if (!text.empty()) em.add(Role::Assistant, ContentType::Text, "assistant", std::move(text), false);
  if (!calls.empty()) {
    Message& m = em.add(Role::Assistant, ContentType::ToolUse, "assistant", std::move(tool_text), false);
    m.tool_calls = std::move(calls);
  }
  if (em.out().messages.size() > first) {
    Message& head = em.out().messages[first];
    head.usage = usage;
    head.model = std::move(model);
  } else if (usage.any()) {
    // Nothing to show, but the tokens were spent: keep them in the session's total.
    SessionFact fact{SessionFact::Kind::Usage, std::move(model), {}, 0, usage};
    em.out().facts.push_back(std::move(fact));
  }
}

// A user `!cmd` / `$code`: a synthetic tool call and its result in one message.
void parse_execution(element message, std::string_view tool, std::string_view input_key, EntryMessages& em) {
  ToolCall call;
  call.id = bounded_id(em.uuid() + ":" + std::string(tool));
  call.name = std::string(tool);
  call.input_json = "{";
  write_json_string(call.input_json, input_key);
  call.input_json.push_back(':');
  element input;
  if (has_field(message, input_key, input) && input.is_string())
    write_truncated_json(input, call.input_json, kMaxInputLeafBytes);
  else
    call.input_json += "\"\"";
  call.input_json.push_back('}');

  ToolResult result;
  result.tool_use_id = call.id;
  result.is_error = int_field(message, "exitCode") != 0 && !bool_field(message, "cancelled");

  std::string text(str_field(message, input_key));
  append_part(text, str_field(message, "output"));
  Message& m = em.add(Role::Tool, ContentType::ToolResult, "user", std::move(text), false);
  m.tool_calls.push_back(std::move(call));
  m.tool_results.push_back(std::move(result));
}

void parse_message_entry(element message, EntryMessages& em) {
  std::string_view role = str_field(message, "role");
  if (role == "user") {
    em.add_text(content_text(message), false);
  } else if (role == "developer" || role == "custom" || role == "hookMessage") {
    em.add_text(content_text(message), true);
  } else if (role == "assistant") {
    parse_assistant(message, em);
  } else if (role == "toolResult") {
    ToolResult r;
    r.tool_use_id = bounded_id(str_field(message, "toolCallId"));
    r.is_error = bool_field(message, "isError");
    // `details` repeats the text (omp displayContent, pi truncation.content): not added again.
    Message& m = em.add(Role::Tool, ContentType::ToolResult, "tool", content_text(message), false);
    m.tool_results.push_back(std::move(r));
  } else if (role == "bashExecution") {
    parse_execution(message, "bash", "command", em);
  } else if (role == "pythonExecution") {
    parse_execution(message, "python", "code", em);
  } else if (role == "branchSummary" || role == "compactionSummary") {
    em.add_summary(str_field(message, "summary"));
  } else if (role == "fileMention") {
    std::string text;
    array files;
    if (message["files"].get_array().get(files) == simdjson::SUCCESS) {
      for (element f : files) {
        append_part(text, str_field(f, "path"));
        append_part(text, str_field(f, "content"));
      }
    }
    em.add_text(std::move(text), true);
  } else {
    em.add_text(content_text(message), true);  // a role written after this adapter: keep its words
  }
}

// Numbers and strings alike: omp writes `"version":3`, others may write "3".
std::string scalar_text(element holder, std::string_view key) {
  element v;
  if (!has_field(holder, key, v)) return {};
  std::string_view s;
  if (v.get_string().get(s) == simdjson::SUCCESS) return std::string(s);
  if (v.is_int64() || v.is_uint64() || v.is_double()) return std::string(simdjson::minify(v));
  return {};
}

bool parse_header(element obj, FileCarry& carry, LineRecords& out) {
  std::string_view id = str_field(obj, "id");
  out.session_id_field = bounded_id(id);
  if (out.session_id_field.size() != id.size()) out.session_id_full = std::string(id);
  carry.cwd = std::string(str_field(obj, "cwd"));
  out.is_header = true;
  out.header_cwd = carry.cwd;
  out.header_time_ms = parse_iso8601_ms(str_field(obj, "timestamp")).value_or(0);
  carry.version = scalar_text(obj, "version");
  carry.model = std::string(str_field(obj, "modelId"));
  carry.header_seen = true;
  std::string_view title = trim(str_field(obj, "title"));
  if (!title.empty()) out.facts.push_back(SessionFact{SessionFact::Kind::AiTitle, std::string(title), {}, 0, {}});
  return true;
}

bool parse_title_slot(element obj, LineRecords& out) {
  std::string_view title = trim(str_field(obj, "title"));
  if (title.empty()) return false;
  out.facts.push_back(SessionFact{SessionFact::Kind::CustomTitle, std::string(title), {}, 0, {}});
  return true;
}

// Entry kinds that carry no searchable text (credential_pin must never be indexed).
bool is_silent_kind(std::string_view type) {
  for (std::string_view k : {"label", "thinking_level_change", "service_tier_change", "model_usage", "mode_change",
                             "ttsr_injection", "reset_boundary", "credential_pin"})
    if (type == k) return true;
  return false;
}

void parse_entry(element obj, std::string_view type, EntryMessages& em, FileCarry& carry) {
  LineRecords& out = em.out();
  if (type == "message") {
    element message;
    if (has_field(obj, "message", message) && message.is_object()) parse_message_entry(message, em);
  } else if (type == "compaction" || type == "branch_summary") {
    em.add_summary(str_field(obj, "summary"));
  } else if (type == "custom_message") {
    em.add_text(content_text(obj), true);
  } else if (type == "custom") {
    std::string text(str_field(obj, "customType"));
    element data;
    if (has_field(obj, "data", data)) collect_text_strings(data, text);
    em.add_text(std::move(text), true);
  } else if (type == "session_info") {
    // pi's session name; clearing it writes an empty (or no) name, which must win too.
    element name;
    if (!has_field(obj, "name", name) || name.is_string() || name.is_null())
      out.facts.push_back(SessionFact{SessionFact::Kind::CustomTitle, std::string(str_field(obj, "name")), {}, 0, {}});
  } else if (type == "title_change") {
    std::string_view title = trim(str_field(obj, "title"));
    if (!title.empty()) out.facts.push_back(SessionFact{SessionFact::Kind::AiTitle, std::string(title), {}, 0, {}});
  } else if (type == "session_init") {
    em.add_text(std::string(str_field(obj, "task")), true);
  } else if (type == "model_change") {
    std::string_view model = str_field(obj, "model");  // omp "provider/id"
    if (model.empty()) model = str_field(obj, "modelId");  // pi
    if (!model.empty()) carry.model = std::string(model);
  }
  // is_silent_kind and unknown kinds: nothing.
}

}  // namespace

bool parse_pi_family_object(element obj, uint64_t line_offset, FileCarry& carry, LineRecords& out) {
  std::string_view type = str_field(obj, "type");
  if (type.empty()) return false;
  if (type == "session") return parse_header(obj, carry, out);
  if (type == "title" && str_field(obj, "id").empty()) return parse_title_slot(obj, out);

  // Every other line is a tree entry. Without an id (pi v1) it is named by its offset and its
  // parent is the entry before, as pi's own v1 -> v2 migration links them.
  std::string uuid = bounded_id(str_field(obj, "id"));
  std::string parent;
  if (uuid.empty()) {
    uuid = "@" + std::to_string(line_offset);
    parent = carry.last_entry_id;
    carry.last_entry_id = uuid;
  } else {
    parent = bounded_id(str_field(obj, "parentId"));
  }
  if (is_silent_kind(type)) return false;

  int64_t ts = 0;
  if (auto iso = parse_iso8601_ms(str_field(obj, "timestamp"))) {
    ts = *iso;
  } else {
    element message;
    if (has_field(obj, "message", message)) ts = int_field(message, "timestamp");
  }
  EntryMessages em(std::move(uuid), std::move(parent), ts, carry, out);
  parse_entry(obj, type, em, carry);
  return !out.messages.empty() || !out.facts.empty();
}

}  // namespace osearch
