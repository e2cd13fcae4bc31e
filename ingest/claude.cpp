#include "ingest/claude.h"

#include <string_view>

#include "ingest/bounded_id.h"
#include "ingest/timeutil.h"

namespace osearch {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

constexpr size_t kMaxInputLeafBytes = 256;

std::string_view str_field(element e, std::string_view key) {
  std::string_view v;
  if (e[key].get_string().get(v) != simdjson::SUCCESS) return {};
  return v;
}

int64_t int_field(element e, std::string_view key) {
  element v;
  if (e[key].get(v) != simdjson::SUCCESS) return 0;
  int64_t i;
  if (v.get_int64().get(i) == simdjson::SUCCESS) return i;
  uint64_t u;
  if (v.get_uint64().get(u) == simdjson::SUCCESS) return static_cast<int64_t>(u);
  double d;
  // A double outside int64's range (1e80, NaN cannot occur in JSON) would be undefined to cast:
  // such a value is no real duration or count, so it reads as unknown.
  if (v.get_double().get(d) == simdjson::SUCCESS && d > -9.2e18 && d < 9.2e18) return static_cast<int64_t>(d);
  return 0;
}

bool bool_field(element e, std::string_view key) {
  bool b = false;
  if (e[key].get_bool().get(b) != simdjson::SUCCESS) return false;
  return b;
}

std::string_view ltrim(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) ++i;
  return s.substr(i);
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

void append_part(std::string& out, std::string_view part) {
  if (part.empty()) return;
  if (!out.empty()) out.push_back('\n');
  out.append(part);
}

// Every string leaf of a tool input, so commands, paths, patterns and prompts are searchable.
void collect_strings(element e, std::string& out, int depth = 0) {
  if (depth > 16) return;
  switch (e.type()) {
    case simdjson::dom::element_type::STRING:
      append_part(out, std::string_view(e.get_string().value_unsafe()));
      break;
    case simdjson::dom::element_type::ARRAY:
      for (element child : array(e)) collect_strings(child, out, depth + 1);
      break;
    case simdjson::dom::element_type::OBJECT:
      for (auto field : object(e)) collect_strings(field.value, out, depth + 1);
      break;
    default:
      break;
  }
}

// JSON text of a tool input with every string leaf cut to `max_leaf` bytes (on a UTF-8 boundary),
// marked "…[truncated]": the full strings are already in the message text, so the record stays small.
void write_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (u < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\u00";
          out.push_back(kHex[u >> 4]);
          out.push_back(kHex[u & 15]);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

void write_truncated_json(element e, std::string& out, size_t max_leaf, int depth = 0) {
  switch (e.type()) {
    case simdjson::dom::element_type::STRING: {
      std::string_view s = e.get_string().value_unsafe();
      if (s.size() > max_leaf) {
        size_t cut = max_leaf;
        while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
        write_json_string(out, std::string(s.substr(0, cut)) + "…[truncated]");
      } else {
        write_json_string(out, s);
      }
      break;
    }
    case simdjson::dom::element_type::ARRAY: {
      out.push_back('[');
      bool first = true;
      for (element child : array(e)) {
        if (!first) out.push_back(',');
        first = false;
        if (depth < 32) write_truncated_json(child, out, max_leaf, depth + 1); else out += "null";
      }
      out.push_back(']');
      break;
    }
    case simdjson::dom::element_type::OBJECT: {
      out.push_back('{');
      bool first = true;
      for (auto field : object(e)) {
        if (!first) out.push_back(',');
        first = false;
        write_json_string(out, field.key);
        out.push_back(':');
        if (depth < 32) write_truncated_json(field.value, out, max_leaf, depth + 1); else out += "null";
      }
      out.push_back('}');
      break;
    }
    default:
      out += simdjson::minify(e);
  }
}

// tool_result.content: a string, or blocks whose text parts are joined (images dropped).
void collect_result_text(element content, std::string& out) {
  std::string_view s;
  if (content.get_string().get(s) == simdjson::SUCCESS) {
    append_part(out, s);
    return;
  }
  array blocks;
  if (content.get_array().get(blocks) != simdjson::SUCCESS) return;
  for (element b : blocks) {
    if (str_field(b, "type") == "text") append_part(out, str_field(b, "text"));
  }
}

std::string tool_file_path(std::string_view name, element input) {
  std::string_view p = str_field(input, "file_path");
  if (p.empty()) p = str_field(input, "notebook_path");
  if (p.empty() && (name == "Grep" || name == "Glob" || name == "LS")) p = str_field(input, "path");
  return std::string(p);
}

void parse_usage(element message, TokenUsage& u) {
  element usage;
  if (message["usage"].get(usage) != simdjson::SUCCESS || !usage.is_object()) return;
  u.input = int_field(usage, "input_tokens");
  u.output = int_field(usage, "output_tokens");
  u.cache_creation = int_field(usage, "cache_creation_input_tokens");
  u.cache_read = int_field(usage, "cache_read_input_tokens");
}

void parse_user_content(element obj, element content, Message& m) {
  std::string_view s;
  if (content.get_string().get(s) == simdjson::SUCCESS) {
    m.text.assign(s);
    m.content_type = is_command_envelope(s) ? ContentType::Command : ContentType::Text;
    return;
  }
  array blocks;
  if (content.get_array().get(blocks) != simdjson::SUCCESS) return;
  bool any_text = false;
  for (element b : blocks) {
    std::string_view type = str_field(b, "type");
    if (type == "text") {
      append_part(m.text, str_field(b, "text"));
      any_text = true;
    } else if (type == "tool_result") {
      ToolResult r;
      r.tool_use_id = bounded_id(str_field(b, "tool_use_id"));
      r.is_error = bool_field(b, "is_error");
      element c;
      if (b["content"].get(c) == simdjson::SUCCESS) collect_result_text(c, m.text);
      m.tool_results.push_back(std::move(r));
    }
    // image blocks: never index image bytes.
  }
  if (!m.tool_results.empty()) {
    m.role = Role::Tool;
    m.content_type = ContentType::ToolResult;
    // toolUseResult repeats the result in structured form: take only the facts it adds.
    element tur;
    if (obj["toolUseResult"].get(tur) == simdjson::SUCCESS && tur.is_object()) {
      std::string_view fp = str_field(tur, "filePath");
      element file;
      if (fp.empty() && tur["file"].get(file) == simdjson::SUCCESS) fp = str_field(file, "filePath");
      if (!fp.empty())
        for (auto& r : m.tool_results)
          if (r.file_path.empty()) r.file_path = std::string(fp);
      std::string_view run = str_field(tur, "runId");
      if (!run.empty()) {
        m.workflow_run_id = bounded_id(run);
        m.workflow_task_id = std::string(str_field(tur, "taskId"));
        m.workflow_status = std::string(str_field(tur, "status"));
      }
      std::string_view agent = str_field(tur, "agentId");
      if (!agent.empty()) {
        m.spawned_agent_id = bounded_id(agent);
        m.spawned_duration_ms = int_field(tur, "totalDurationMs");
        m.spawned_total_tokens = int_field(tur, "totalTokens");
      }
    }
  } else if (any_text) {
    m.content_type = is_command_envelope(m.text) ? ContentType::Command : ContentType::Text;
  }
}

void parse_assistant_content(element content, Message& m) {
  std::string_view s;
  if (content.get_string().get(s) == simdjson::SUCCESS) {
    m.text.assign(s);
    m.content_type = ContentType::Text;
    return;
  }
  array blocks;
  if (content.get_array().get(blocks) != simdjson::SUCCESS) return;
  bool has_text = false, has_thinking = false;
  for (element b : blocks) {
    std::string_view type = str_field(b, "type");
    if (type == "text") {
      append_part(m.text, str_field(b, "text"));
      has_text = true;
    } else if (type == "thinking") {
      std::string_view t = str_field(b, "thinking");
      append_part(m.text, t);
      has_thinking = has_thinking || !t.empty();
    } else if (type == "tool_use") {
      ToolCall call;
      call.id = bounded_id(str_field(b, "id"));
      call.name = std::string(str_field(b, "name"));
      element input;
      if (b["input"].get(input) == simdjson::SUCCESS) {
        write_truncated_json(input, call.input_json, kMaxInputLeafBytes);
        call.file_path = tool_file_path(call.name, input);
        append_part(m.text, call.name);
        collect_strings(input, m.text);
      } else {
        call.input_json = "{}";
        append_part(m.text, call.name);
      }
      m.tool_calls.push_back(std::move(call));
    }
  }
  if (!m.tool_calls.empty())
    m.content_type = ContentType::ToolUse;
  else if (has_text)
    m.content_type = ContentType::Text;
  else if (has_thinking)
    m.content_type = ContentType::Thinking;
}

// IDE integrations prepend <ide_opened_file>/<ide_selection> blocks to the typed prompt.
size_t skip_ide_context(std::string_view text) {
  size_t pos = 0;
  for (;;) {
    size_t start = text.find_first_not_of(" \t\r\n", pos);
    if (start == std::string_view::npos) return text.size();
    std::string_view rest = text.substr(start);
    std::string_view close;
    if (starts_with(rest, "<ide_opened_file>")) close = "</ide_opened_file>";
    else if (starts_with(rest, "<ide_selection>")) close = "</ide_selection>";
    else return start;
    size_t end = rest.find(close);
    if (end == std::string_view::npos) return start;
    pos = start + end + close.size();
  }
}

bool parse_message(element obj, std::string_view type, Message& m) {
  m.uuid = bounded_id(str_field(obj, "uuid"));
  if (m.uuid.empty()) return false;
  m.type = std::string(type);
  m.parent_uuid = bounded_id(str_field(obj, "parentUuid"));
  m.logical_parent_uuid = bounded_id(str_field(obj, "logicalParentUuid"));
  if (auto ts = parse_iso8601_ms(str_field(obj, "timestamp"))) m.timestamp_ms = *ts;
  m.is_sidechain = bool_field(obj, "isSidechain");
  m.agent_id = bounded_id(str_field(obj, "agentId"));
  m.cwd = std::string(str_field(obj, "cwd"));
  m.git_branch = std::string(str_field(obj, "gitBranch"));
  m.version = std::string(str_field(obj, "version"));
  m.skill = std::string(str_field(obj, "attributionSkill"));
  bool meta_flag = bool_field(obj, "isMeta");
  bool compact_summary = bool_field(obj, "isCompactSummary");

  element message;
  bool has_message = obj["message"].get(message) == simdjson::SUCCESS && message.is_object();
  element content;
  bool has_content = has_message && message["content"].get(content) == simdjson::SUCCESS;
  if (type == "assistant") {
    m.role = Role::Assistant;
    if (has_message) {
      m.model = std::string(str_field(message, "model"));
      m.api_message_id = bounded_id(str_field(message, "id"));
      parse_usage(message, m.usage);
    }
    if (has_content) parse_assistant_content(content, m);
  } else {
    m.role = Role::User;
    if (has_content) parse_user_content(obj, content, m);
    if (has_message) meta_flag = meta_flag || bool_field(message, "isMeta");
  }
  if (compact_summary) {
    m.content_type = ContentType::Summary;
    meta_flag = true;
  }
  if (m.role == Role::User && m.content_type != ContentType::Command && is_meta_user_text(m.text)) meta_flag = true;
  if (m.role == Role::User && m.content_type == ContentType::Text) m.prompt_offset = skip_ide_context(m.text);
  m.is_meta = meta_flag;
  return true;
}

}  // namespace

bool is_command_envelope(std::string_view text) {
  std::string_view t = ltrim(text);
  return starts_with(t, "<command-name>") || starts_with(t, "<command-message>");
}

bool is_meta_user_text(std::string_view text) {
  std::string_view t = ltrim(text);
  return starts_with(t, "<local-command-caveat>") || starts_with(t, "Caveat: The messages below were generated") ||
         starts_with(t, "<system-reminder>") || starts_with(t, "<task-notification>") ||
         starts_with(t, "<local-command-stdout>") || starts_with(t, "<local-command-stderr>");
}

bool parse_claude_object(element obj, LineRecords& out) {
  std::string_view type = str_field(obj, "type");
  const std::string_view session_id = str_field(obj, "sessionId");
  out.session_id_field = bounded_id(session_id);
  if (out.session_id_field.size() != session_id.size()) out.session_id_full = std::string(session_id);
  if (type == "user" || type == "assistant") {
    out.is_message = parse_message(obj, type, out.message);
    return out.is_message;
  }
  SessionFact fact{};
  if (type == "custom-title") {
    fact.kind = SessionFact::Kind::CustomTitle;
    fact.text = std::string(str_field(obj, "customTitle"));
  } else if (type == "ai-title") {
    fact.kind = SessionFact::Kind::AiTitle;
    fact.text = std::string(str_field(obj, "aiTitle"));
  } else if (type == "summary") {
    fact.kind = SessionFact::Kind::Summary;
    fact.text = std::string(str_field(obj, "summary"));
    fact.ref_uuid = bounded_id(str_field(obj, "leafUuid"));
  } else if (type == "last-prompt") {
    fact.kind = SessionFact::Kind::LastPrompt;
    fact.text = std::string(str_field(obj, "lastPrompt"));
  } else if (type == "system") {
    std::string_view subtype = str_field(obj, "subtype");
    if (subtype == "turn_duration") {
      fact.kind = SessionFact::Kind::TurnDuration;
      fact.ref_uuid = bounded_id(str_field(obj, "parentUuid"));
      fact.value = int_field(obj, "durationMs");
    } else if (subtype == "away_summary") {
      fact.kind = SessionFact::Kind::AwaySummary;
      fact.text = std::string(str_field(obj, "content"));
    } else {
      return false;
    }
  } else {
    return false;
  }
  if (fact.text.empty() && fact.kind != SessionFact::Kind::TurnDuration) return false;
  out.facts.push_back(std::move(fact));
  return true;
}

}  // namespace osearch

namespace osearch {

std::optional<SubagentMeta> read_subagent_meta(const std::string& path) {
  simdjson::padded_string json;
  if (simdjson::padded_string::load(path).get(json) != simdjson::SUCCESS) return std::nullopt;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(json).get(doc) != simdjson::SUCCESS || !doc.is_object()) return std::nullopt;
  SubagentMeta m;
  m.agent_type = std::string(str_field(doc, "agentType"));
  m.description = std::string(str_field(doc, "description"));
  m.tool_use_id = bounded_id(str_field(doc, "toolUseId"));
  return m;
}

}  // namespace osearch

namespace osearch {

std::optional<WorkflowRun> read_workflow_json(const std::string& path) {
  simdjson::padded_string json;
  if (simdjson::padded_string::load(path).get(json) != simdjson::SUCCESS) return std::nullopt;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(json).get(doc) != simdjson::SUCCESS || !doc.is_object()) return std::nullopt;
  WorkflowRun run;
  run.run_id = bounded_id(str_field(doc, "runId"));
  if (run.run_id.empty()) return std::nullopt;
  run.task_id = std::string(str_field(doc, "taskId"));
  run.name = std::string(str_field(doc, "workflowName"));
  run.status = std::string(str_field(doc, "status"));
  run.script = std::string(str_field(doc, "script"));
  element result;
  if (doc["result"].get(result) == simdjson::SUCCESS) run.result_json = simdjson::minify(result);
  if (auto ts = parse_iso8601_ms(str_field(doc, "timestamp"))) run.timestamp_ms = *ts;
  run.duration_ms = int_field(doc, "durationMs");
  run.total_tokens = int_field(doc, "totalTokens");
  array progress;
  if (doc["workflowProgress"].get_array().get(progress) == simdjson::SUCCESS) {
    for (element item : progress) {
      if (str_field(item, "type") != "workflow_agent" || str_field(item, "agentId").empty()) continue;
      WorkflowAgent a;
      a.agent_id = bounded_id(str_field(item, "agentId"));
      a.phase = std::string(str_field(item, "phaseTitle"));
      a.label = std::string(str_field(item, "label"));
      a.model = std::string(str_field(item, "model"));
      a.state = std::string(str_field(item, "state"));
      a.duration_ms = int_field(item, "durationMs");
      a.tokens = int_field(item, "tokens");
      a.tool_calls = int_field(item, "toolCalls");
      run.agents.push_back(std::move(a));
    }
  }
  return run;
}

}  // namespace osearch
