// Codex ResponseItems -> messages (formats/omp-pi-codex.md §3, §7). Image data, encrypted
// reasoning and signatures are never read into a message.
#include "ingest/codex_items.h"

#include <algorithm>
#include <string_view>

#include "ingest/bounded_id.h"
#include "ingest/json_fields.h"
#include "ingest/tool_paths.h"

namespace osearch::codex {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

// A nested-JSON parse bigger than this gives its memory back afterwards, so one huge tool output
// does not keep a parse-ahead thread's parser large.
constexpr size_t kKeepParserBytes = 1u << 20;

// Parses JSON held inside a string field (function_call.arguments, a function output envelope).
// The parser is per thread: adapters run on parse-ahead threads and keep no shared state. The
// parsed value is valid until the next NestedJson on this thread is created.
class NestedJson {
 public:
  explicit NestedJson(std::string_view text) : size_(text.size()) {
    ok_ = parser().parse(text.data(), text.size(), true).get(doc_) == simdjson::SUCCESS;
  }
  ~NestedJson() {
    if (size_ > kKeepParserBytes) parser() = simdjson::dom::parser{};
  }
  NestedJson(const NestedJson&) = delete;
  NestedJson& operator=(const NestedJson&) = delete;

  bool ok() const { return ok_; }
  element doc() const { return doc_; }

 private:
  static simdjson::dom::parser& parser() {
    thread_local simdjson::dom::parser p;
    return p;
  }
  size_t size_;
  bool ok_ = false;
  element doc_;
};

bool field(element e, std::string_view key, element& out) { return e[key].get(out) == simdjson::SUCCESS; }

// The `text` of each content block (input_text, output_text, summary_text, reasoning_text; image
// and encrypted blocks have none). A string content is the text itself.
void append_blocks_text(element content, std::string& out) { collect_block_texts(content, out); }

// `s` cut to `max` bytes on a UTF-8 boundary, as a JSON string (marked like write_truncated_json).
void write_cut_string(std::string& out, std::string_view s, size_t max) {
  if (s.size() <= max) return write_json_string(out, s);
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  write_json_string(out, std::string(s.substr(0, cut)) + "…[truncated]");
}

std::string single_field_json(std::string_view key, std::string_view value) {
  std::string out = "{";
  write_json_string(out, key);
  out.push_back(':');
  write_cut_string(out, value, kMaxInputLeafBytes);
  out.push_back('}');
  return out;
}

std::string call_id_of(element item) { return bounded_id(str_field(item, "call_id")); }

// The files an apply_patch text names ("*** Update File: <path>" …), after any path the call
// names itself: the first is the call's file_path, the others its extra_paths.
void add_patch_paths(std::string_view text, ToolCall& call) {
  if (text.find("*** Begin Patch") == std::string_view::npos) return;
  for (std::string& p : patch_file_paths(text)) {
    if (call.file_path.empty()) call.file_path = std::move(p);
    else if (p != call.file_path && std::find(call.extra_paths.begin(), call.extra_paths.end(), p) == call.extra_paths.end())
      call.extra_paths.push_back(std::move(p));
  }
}

void parse_message(element item, LineMessages& lm) {
  std::string_view role = str_field(item, "role");
  bool assistant = role == "assistant";
  if (!assistant && role != "user" && role != "developer" && role != "system") return;
  Message& m = lm.add(assistant ? Role::Assistant : Role::User, ContentType::Text);
  element content;
  if (field(item, "content", content)) append_blocks_text(content, m.text);
  if (m.text.empty()) return lm.drop_last();
  // The user's own words are text; injected context (environment, AGENTS.md, instructions) and
  // developer/system prompts are meta. In current rollouts the prompt also comes as an
  // event_msg.user_message: codex.cpp keeps one of the two copies.
  if (!assistant) m.is_meta = role != "user" || is_injected_user_text(m.text);
}

void parse_reasoning(element item, LineMessages& lm) {
  Message& m = lm.add(Role::Assistant, ContentType::Thinking);
  element part;
  if (field(item, "summary", part)) append_blocks_text(part, m.text);
  if (field(item, "content", part)) append_blocks_text(part, m.text);
  if (m.text.empty()) lm.drop_last();
}

Message& add_tool_use(LineMessages& lm, std::string id, std::string_view name) {
  Message& m = lm.add(Role::Assistant, ContentType::ToolUse);
  ToolCall call;
  call.id = std::move(id);
  call.name = std::string(name);
  m.tool_calls.push_back(std::move(call));
  append_part(m.text, name);
  return m;
}

void set_file_path(element input, ToolCall& call) {
  for (std::string_view key : {"path", "file_path", "filePath"}) {
    std::string_view p = str_field(input, key);
    if (!p.empty()) {
      call.file_path = std::string(p);
      return;
    }
  }
}

// `arguments` is a JSON string; newer or foreign writers may put the object itself.
void parse_function_call(element item, LineMessages& lm) {
  Message& m = add_tool_use(lm, call_id_of(item), str_field(item, "name"));
  ToolCall& call = m.tool_calls.back();
  element args;
  if (!field(item, "arguments", args) || args.is_null()) {
    call.input_json = "{}";
    return;
  }
  std::string_view raw;
  if (args.get_string().get(raw) != simdjson::SUCCESS) {
    write_truncated_json(args, call.input_json, kMaxInputLeafBytes);
    collect_strings(args, m.text);
    set_file_path(args, call);
    return;
  }
  NestedJson parsed(raw);
  if (!parsed.ok()) {
    append_part(m.text, raw);
    call.input_json = single_field_json("arguments", raw);
    return;
  }
  write_truncated_json(parsed.doc(), call.input_json, kMaxInputLeafBytes);
  collect_strings(parsed.doc(), m.text);
  set_file_path(parsed.doc(), call);
  add_patch_paths(m.text, call);  // exec_command / shell running `apply_patch <<'EOF' …`
}

void parse_custom_tool_call(element item, LineMessages& lm) {
  Message& m = add_tool_use(lm, call_id_of(item), str_field(item, "name"));
  std::string_view input = str_field(item, "input");
  append_part(m.text, input);
  m.tool_calls.back().input_json = single_field_json("input", input);
  add_patch_paths(input, m.tool_calls.back());
}

void parse_local_shell_call(element item, LineMessages& lm) {
  std::string id = call_id_of(item);
  if (id.empty()) id = bounded_id(str_field(item, "id"));
  if (id.empty()) id = lm.next_uuid();
  Message& m = add_tool_use(lm, std::move(id), "local_shell");
  ToolCall& call = m.tool_calls.back();
  element action;
  if (!field(item, "action", action)) {
    call.input_json = "{}";
    return;
  }
  write_truncated_json(action, call.input_json, kMaxInputLeafBytes);
  std::string command;
  array argv;
  if (action["command"].get_array().get(argv) == simdjson::SUCCESS) {
    for (element arg : argv) {
      std::string_view s;
      if (arg.get_string().get(s) != simdjson::SUCCESS || s.empty()) continue;
      if (!command.empty()) command.push_back(' ');
      command.append(s);
    }
  }
  append_part(m.text, command);
  append_part(m.text, str_field(action, "workdir"));
  add_patch_paths(command, call);
}

void parse_web_search_call(element item, LineMessages& lm) {
  std::string id = bounded_id(str_field(item, "id"));
  if (id.empty()) id = lm.next_uuid();
  Message& m = add_tool_use(lm, std::move(id), "web_search");
  ToolCall& call = m.tool_calls.back();
  element action;
  if (!field(item, "action", action)) {
    call.input_json = "{}";
    return;
  }
  write_truncated_json(action, call.input_json, kMaxInputLeafBytes);
  std::string_view query = str_field(action, "query");
  append_part(m.text, query);
  array queries;
  if (action["queries"].get_array().get(queries) == simdjson::SUCCESS) {
    for (element q : queries) {
      std::string_view s;
      if (q.get_string().get(s) == simdjson::SUCCESS && s != query) append_part(m.text, s);
    }
  }
  append_part(m.text, str_field(action, "url"));
  append_part(m.text, str_field(action, "pattern"));
}

void parse_tool_search_call(element item, LineMessages& lm) {
  Message& m = add_tool_use(lm, call_id_of(item), "tool_search");
  ToolCall& call = m.tool_calls.back();
  element args;
  if (!field(item, "arguments", args)) {
    call.input_json = "{}";
    return;
  }
  write_truncated_json(args, call.input_json, kMaxInputLeafBytes);
  collect_strings(args, m.text);
}

// exit_code (a number) or success (a bool) of an output object and of its `metadata`.
void read_error_flags(element obj, bool& is_error) {
  auto read = [&](element e) {
    element code;
    if (field(e, "exit_code", code) && code.is_number()) is_error = int_field(e, "exit_code") != 0;
    bool success = true;
    if (e["success"].get_bool().get(success) == simdjson::SUCCESS && !success) is_error = true;
  };
  read(obj);
  element metadata;
  if (field(obj, "metadata", metadata) && metadata.is_object()) read(metadata);
}

// An output that is not a string: blocks, or an object whose output/content/text holds the text.
void append_output_value(element output, std::string& text, bool& is_error, int depth) {
  if (depth > 4) return;
  if (output.is_string() || output.is_array()) return append_blocks_text(output, text);
  if (!output.is_object()) return;
  read_error_flags(output, is_error);
  for (std::string_view key : {"output", "content", "text"}) {
    element inner;
    if (field(output, key, inner) && !inner.is_null()) return append_output_value(inner, text, is_error, depth + 1);
  }
  collect_strings(output, text);
}

// A string output is often the JSON envelope {"output": "...", "metadata": {"exit_code": N}}.
void append_output_string(std::string_view raw, std::string& text, bool& is_error) {
  std::string_view t = ltrim(raw);
  if (!t.empty() && t.front() == '{') {
    NestedJson parsed(raw);
    std::string_view inner;
    if (parsed.ok() && parsed.doc()["output"].get_string().get(inner) == simdjson::SUCCESS) {
      append_part(text, inner);
      read_error_flags(parsed.doc(), is_error);
      return;
    }
  }
  append_part(text, raw);
}

void parse_tool_output(element item, LineMessages& lm) {
  Message& m = lm.add(Role::Tool, ContentType::ToolResult);
  ToolResult result;
  result.tool_use_id = call_id_of(item);
  element output;
  if (field(item, "output", output)) {
    std::string_view raw;
    if (output.get_string().get(raw) == simdjson::SUCCESS)
      append_output_string(raw, m.text, result.is_error);
    else
      append_output_value(output, m.text, result.is_error, 0);
  }
  m.tool_results.push_back(std::move(result));
}

}  // namespace

bool is_injected_user_text(std::string_view text) {
  std::string_view t = ltrim(text);
  for (std::string_view p : {"<environment_context>", "<user_instructions>", "# AGENTS.md", "<permissions",
                             "<INSTRUCTIONS>", "<developer_instructions>", "<turn_aborted>", "<collaboration_mode>"})
    if (starts_with(t, p)) return true;
  return false;
}

void parse_response_item(element item, LineMessages& lm) {
  std::string_view type = str_field(item, "type");
  if (type == "message") parse_message(item, lm);
  else if (type == "reasoning") parse_reasoning(item, lm);
  else if (type == "function_call") parse_function_call(item, lm);
  else if (type == "custom_tool_call") parse_custom_tool_call(item, lm);
  else if (type == "local_shell_call") parse_local_shell_call(item, lm);
  else if (type == "web_search_call") parse_web_search_call(item, lm);
  else if (type == "tool_search_call") parse_tool_search_call(item, lm);
  else if (type == "function_call_output" || type == "custom_tool_call_output" || type == "tool_search_output")
    parse_tool_output(item, lm);
  // ghost_snapshot, image_generation_call, agent_message, unknown: nothing.
}

}  // namespace osearch::codex
