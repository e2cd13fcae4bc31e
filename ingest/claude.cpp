#include "ingest/claude.h"

#include <algorithm>

#include <string_view>

#include "ingest/bounded_id.h"
#include "ingest/json_fields.h"
#include "ingest/timeutil.h"

namespace osearch {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;


std::string tool_file_path(std::string_view name, element input) {
  std::string_view p = str_field(input, "file_path");
  if (p.empty()) p = str_field(input, "notebook_path");
  if (p.empty() && (name == "Grep" || name == "Glob" || name == "LS")) p = str_field(input, "path");
  return std::string(p);
}

void parse_token_counts(element usage, TokenUsage& u) {
  u.input = int_field(usage, "input_tokens");
  u.output = int_field(usage, "output_tokens");
  // The 5-minute/1-hour breakdown when present (as ccusage counts it), else the flat count.
  element breakdown;
  if (usage["cache_creation"].get(breakdown) == simdjson::SUCCESS && breakdown.is_object())
    u.cache_creation = int_field(breakdown, "ephemeral_5m_input_tokens") + int_field(breakdown, "ephemeral_1h_input_tokens");
  else
    u.cache_creation = int_field(usage, "cache_creation_input_tokens");
  u.cache_read = int_field(usage, "cache_read_input_tokens");
}

void parse_usage(element message, Message& m) {
  element usage;
  if (message["usage"].get(usage) != simdjson::SUCCESS || !usage.is_object()) return;
  parse_token_counts(usage, m.usage);
  simdjson::dom::array iterations;
  if (usage["iterations"].get_array().get(iterations) != simdjson::SUCCESS) return;
  for (element it : iterations) {
    if (!it.is_object() || str_field(it, "type") != "advisor_message") continue;
    std::string_view model = str_field(it, "model");
    if (model.empty()) continue;
    Message::ModelUsage mu{std::string(model), {}};
    parse_token_counts(it, mu.usage);
    m.advisor_usage.push_back(std::move(mu));
  }
}

// A tool result too large for the model's context reaches it as a 2 KB preview: "<persisted-output>
// Output too large (80.1KB). Full output saved to: …", the whole output in a file Claude Code deletes
// with the transcript. toolUseResult holds it whole, and the archive is where it survives.
bool is_persisted_preview(std::string_view appended) {
  if (!appended.empty() && appended.front() == '\n') appended.remove_prefix(1);  // append_part's separator
  return appended.starts_with("<persisted-output>");
}

// The whole output of a persisted result, after its preview: Bash's stdout and stderr, Grep's
// content, Read's file.content (the fields toolUseResult gives them; other fields are metadata).
void append_full_output(element tur, std::string& text) {
  for (const char* field : {"stdout", "stderr", "content"}) append_part(text, str_field(tur, field));
  element file;
  if (tur["file"].get(file) == simdjson::SUCCESS && file.is_object()) append_part(text, str_field(file, "content"));
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
  bool any_text = false, persisted = false;
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
      const size_t before = m.text.size();
      if (b["content"].get(c) == simdjson::SUCCESS) collect_result_text(c, m.text);
      persisted = persisted || is_persisted_preview(std::string_view(m.text).substr(before));
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
      if (persisted) append_full_output(tur, m.text);
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

// The fields every message-like line shares. False without a uuid (messages are stored by it).
bool parse_envelope(element obj, std::string_view type, Message& m) {
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
  return true;
}

// What the user's text is: a compaction summary, a command envelope, or words; meta or not.
void classify_user_text(Message& m, bool meta_flag) {
  if (m.role == Role::User && m.content_type == ContentType::Text && is_meta_user_text(m.text)) meta_flag = true;
  // A slash command's envelope is control plane; the arguments the user typed after it are theirs.
  if (m.content_type == ContentType::Command && command_args(m.text).empty()) meta_flag = true;
  if (m.role == Role::User && m.content_type == ContentType::Text) m.prompt_offset = skip_ide_context(m.text);
  m.is_meta = meta_flag;
}

bool parse_message(element obj, std::string_view type, Message& m) {
  if (!parse_envelope(obj, type, m)) return false;
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
      parse_usage(message, m);
    }
    if (has_content) parse_assistant_content(content, m);
  } else {
    m.role = Role::User;
    if (has_content) parse_user_content(obj, content, m);
    if (has_message) meta_flag = meta_flag || bool_field(message, "isMeta");
  }
  // A compaction summary is the richest description of a long session: searchable by default.
  if (compact_summary) m.content_type = ContentType::Summary;
  classify_user_text(m, meta_flag);
  return true;
}

// A prompt typed while the agent was busy reaches the model, from 2.1.114 on, as an `attachment`
// line of type queued_command, and is in the transcript nowhere else: a user message. One a person
// did not type (its origin another kind, e.g. a task's message) or marked isMeta is meta.
bool parse_queued_prompt(element obj, Message& m) {
  element att;
  if (obj["attachment"].get(att) != simdjson::SUCCESS || !att.is_object() ||
      str_field(att, "type") != "queued_command" || !parse_envelope(obj, "user", m))
    return false;
  m.role = Role::User;
  element prompt;
  if (att["prompt"].get(prompt) == simdjson::SUCCESS) {
    std::string_view s;
    if (prompt.get_string().get(s) == simdjson::SUCCESS)
      m.text.assign(s);
    else if (array blocks; prompt.get_array().get(blocks) == simdjson::SUCCESS)
      for (element b : blocks)
        if (str_field(b, "type") == "text") append_part(m.text, str_field(b, "text"));  // never image bytes
  }
  if (m.text.empty()) return false;
  m.content_type = is_command_envelope(m.text) ? ContentType::Command : ContentType::Text;
  element origin;
  const bool other_origin = att["origin"].get(origin) == simdjson::SUCCESS && origin.is_object() &&
                            str_field(origin, "kind") != "human";
  classify_user_text(m, bool_field(obj, "isMeta") || bool_field(att, "isMeta") || other_origin);
  return true;
}

}  // namespace

bool is_command_envelope(std::string_view text) {
  std::string_view t = ltrim(text);
  return starts_with(t, "<command-name>") || starts_with(t, "<command-message>");
}

std::string_view command_args(std::string_view envelope) {
  static constexpr std::string_view kOpen = "<command-args>", kClose = "</command-args>";
  size_t b = envelope.find(kOpen);
  if (b == std::string_view::npos) return {};
  b += kOpen.size();
  size_t e = envelope.find(kClose, b);
  std::string_view args = envelope.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b);
  size_t first = args.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return args.substr(first, args.find_last_not_of(" \t\r\n") + 1 - first);
}

bool is_meta_user_text(std::string_view text) {
  std::string_view t = ltrim(text);
  return starts_with(t, "<local-command-caveat>") || starts_with(t, "Caveat: The messages below were generated") ||
         starts_with(t, "<system-reminder>") || starts_with(t, "<task-notification>") ||
         starts_with(t, "<local-command-stdout>") || starts_with(t, "<local-command-stderr>");
}

namespace {

// While a subagent runs (2.1.12..2.1.63), the parent's transcript repeats each of its messages in a
// `progress` line: data.type agent_progress, data.agentId, data.message the subagent's line (same
// uuid, content, toolUseResult). Copies of a project often lack the subagent's transcript, and then
// these are the only record of what it did and read: a sidechain message of the parent session, as
// the transcript's line would be. Without usage (ccusage counts none of these lines, and where the
// transcript exists its line counts; the engine then drops the copy), nor cwd or branch.
bool parse_agent_progress(element obj, Message& m) {
  element data, inner;
  if (obj["data"].get(data) != simdjson::SUCCESS || !data.is_object() || str_field(data, "type") != "agent_progress" ||
      data["message"].get(inner) != simdjson::SUCCESS || !inner.is_object())
    return false;
  const std::string_view type = str_field(inner, "type");
  if (type != "user" && type != "assistant") return false;
  if (!parse_message(inner, type, m)) return false;
  m.agent_id = bounded_id(str_field(data, "agentId"));
  if (m.agent_id.empty()) return false;  // whose transcript it copies is unknown
  m.from_progress = true;
  m.is_sidechain = true;
  if (m.timestamp_ms == 0)
    if (auto ts = parse_iso8601_ms(str_field(obj, "timestamp"))) m.timestamp_ms = *ts;
  m.usage = {};
  m.advisor_usage.clear();
  m.api_message_id.clear();
  return true;
}

}  // namespace

bool parse_claude_object(element obj, LineRecords& out) {
  std::string_view type = str_field(obj, "type");
  const std::string_view session_id = str_field(obj, "sessionId");
  out.session_id_field = bounded_id(session_id);
  if (out.session_id_field.size() != session_id.size()) out.session_id_full = std::string(session_id);
  if (type == "user" || type == "assistant") {
    Message m;
    if (!parse_message(obj, type, m)) return false;
    out.messages.push_back(std::move(m));
    return true;
  }
  if (type == "attachment") {
    Message m;
    if (!parse_queued_prompt(obj, m)) return false;
    out.messages.push_back(std::move(m));
    return true;
  }
  if (type == "progress") {
    Message m;
    if (!parse_agent_progress(obj, m)) return false;
    out.messages.push_back(std::move(m));
    return true;
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


namespace {

// The link a skipped line left in `links` ("<uuid>\t<link>\n" entries), or nullopt.
std::optional<std::string_view> skipped_link(std::string_view links, std::string_view uuid) {
  for (size_t pos = 0; pos < links.size();) {
    const size_t tab = links.find('\t', pos);
    const size_t nl = links.find('\n', pos);
    if (tab == std::string_view::npos || nl == std::string_view::npos || tab > nl) return std::nullopt;
    if (links.substr(pos, tab - pos) == uuid) return links.substr(tab + 1, nl - tab - 1);
    pos = nl + 1;
  }
  return std::nullopt;
}

void remember_skipped(FileCarry& carry, const std::string& uuid, const std::string& link) {
  std::string& links = carry.skipped_links;
  links += uuid + '\t' + link + '\n';
  if (static_cast<size_t>(std::count(links.begin(), links.end(), '\n')) > FileCarry::kMaxSkippedLinks)
    links.erase(0, links.find('\n') + 1);
}

}  // namespace

bool parse_claude_object(element obj, LineRecords& out, FileCarry& carry) {
  const bool kept = parse_claude_object(obj, out);
  // A progress line's message is the subagent's: the line itself stays a skipped link of the chain.
  const bool progress_copy = !out.messages.empty() && out.messages.front().from_progress;
  if (!out.messages.empty() && !progress_copy) {
    // A parent that is a skipped line: follow the skipped lines back to the message beyond them.
    for (Message& m : out.messages) {
      if (m.parent_uuid.empty() || !m.logical_parent_uuid.empty()) continue;
      std::string at = m.parent_uuid;
      for (size_t hop = 0; hop < FileCarry::kMaxSkippedLinks; ++hop) {
        auto link = skipped_link(carry.skipped_links, at);
        if (!link) break;
        at = std::string(*link);
        if (at.empty()) break;
      }
      if (!at.empty() && at != m.parent_uuid) m.logical_parent_uuid = std::move(at);
    }
    return kept;
  }
  // Any other line with a uuid (a compaction boundary links back by its logicalParentUuid; a
  // progress line).
  const std::string uuid = bounded_id(str_field(obj, "uuid"));
  if (!uuid.empty()) {
    std::string link = bounded_id(str_field(obj, "parentUuid"));
    if (link.empty()) link = bounded_id(str_field(obj, "logicalParentUuid"));
    remember_skipped(carry, uuid, link);
  }
  return kept;
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
