// JSON and JSON Lines for `subagents`, `workflows`, `workflow` and `overview` (SPEC §5 envelope:
// action, total, returned, truncated, took_ms, index; then the results).
#include <simdjson.h>

#include <cstdio>

#include "cli/cmd_orient.h"
#include "cli/print_memory.h"
#include "cli/printers.h"
#include "ingest/timeutil.h"

namespace osearch {
namespace {

constexpr size_t kOverviewTitleChars = 100;  // overview is pasted into a context window: titles cut

void str_or_null(JsonWriter& w, const std::string& s) {
  if (s.empty()) w.null(); else w.value(s);
}
void int_or_null(JsonWriter& w, std::optional<int64_t> v) {
  if (v) w.value(*v); else w.null();
}

void write_tokens(JsonWriter& w, const TokenUsage& t) {
  w.begin_object();
  w.key("input"); w.value(t.input);
  w.key("output"); w.value(t.output);
  w.key("cache_creation"); w.value(t.cache_creation);
  w.key("cache_read"); w.value(t.cache_read);
  w.end_object();
}

// The session fields every result carrying a session has (resume_hint included).
void write_session_ref(JsonWriter& w, const SessionRec& s) {
  w.key("session_id"); str_or_null(w, s.shown_id());
  w.key("agent"); str_or_null(w, s.agent);
  w.key("project"); str_or_null(w, s.project);
  w.key("project_path"); str_or_null(w, s.project_path);
  w.key("resume_hint");
  if (s.id.empty()) w.null(); else w.value(resume_hint(s));
}

void write_envelope(JsonWriter& w, const OrientEnvelope& e) {
  w.key("action"); w.value(e.action);
  w.key("total"); w.value(e.total);
  w.key("returned"); w.value(e.returned);
  w.key("truncated"); w.value(e.more());
  w.key("took_ms"); w.value(e.took_ms);
  w.key("index");
  w.begin_object();
  w.key("sessions"); w.value(e.counts.sessions);
  w.key("messages"); w.value(e.counts.messages);
  w.key("refreshed_files"); w.value(e.refreshed_files);
  w.key("stale"); w.value(e.stale);
  w.end_object();
}

// A stored minified JSON value written as JSON (not as a string); null when it does not parse.
void write_raw_json(JsonWriter& w, simdjson::dom::element e) {
  using T = simdjson::dom::element_type;
  switch (e.type()) {
    case T::ARRAY: {
      simdjson::dom::array arr;
      w.begin_array();
      if (e.get_array().get(arr) == simdjson::SUCCESS)
        for (simdjson::dom::element c : arr) write_raw_json(w, c);
      w.end_array();
      break;
    }
    case T::OBJECT: {
      simdjson::dom::object obj;
      w.begin_object();
      if (e.get_object().get(obj) == simdjson::SUCCESS)
        for (auto f : obj) {
          w.key(f.key);
          write_raw_json(w, f.value);
        }
      w.end_object();
      break;
    }
    case T::INT64: w.value(e.get_int64().value_unsafe()); break;
    case T::UINT64: w.value(e.get_uint64().value_unsafe()); break;
    case T::DOUBLE: w.value(e.get_double().value_unsafe()); break;
    case T::STRING: w.value(e.get_string().value_unsafe()); break;
    case T::BOOL: w.value(e.get_bool().value_unsafe()); break;
    default: w.null(); break;
  }
}
void write_stored_json(JsonWriter& w, const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element e;
  if (json.empty() || parser.parse(json).get(e) != simdjson::SUCCESS) return w.null();
  write_raw_json(w, e);
}

void write_subagent(JsonWriter& w, const SubagentRow& r) {
  const SubagentRec& a = r.agent;
  w.begin_object();
  w.key("agent_id"); w.value(a.agent_id);
  w.key("agent_type"); str_or_null(w, a.agent_type);
  w.key("description"); str_or_null(w, a.description);
  write_session_ref(w, r.session);
  w.key("parent_tool_use_id"); str_or_null(w, a.parent_tool_use_id);
  w.key("workflow_run_id"); str_or_null(w, a.workflow_run_id);
  w.key("model"); str_or_null(w, a.model);
  w.key("message_count"); w.value(a.message_count);
  w.key("spawned_at"); time_or_null(w, r.spawned_at);
  w.key("first_time"); time_or_null(w, a.first_ts);
  w.key("last_time"); time_or_null(w, a.last_ts);
  w.key("duration_ms"); int_or_null(w, r.duration_ms());
  w.key("total_tokens"); int_or_null(w, r.total_tokens());
  w.key("tokens");
  if (r.total_tokens()) write_tokens(w, a.tokens); else w.null();
  // What the spawning tool call's result said (Claude's totalDurationMs / totalTokens).
  w.key("reported");
  if (a.duration_ms > 0 || a.total_tokens > 0) {
    w.begin_object();
    w.key("duration_ms"); w.value(a.duration_ms);
    w.key("total_tokens"); w.value(a.total_tokens);
    w.end_object();
  } else {
    w.null();
  }
  w.key("transcript_path"); str_or_null(w, a.transcript_path);
  w.end_object();
}

void write_workflow_row(JsonWriter& w, const WorkflowRow& r, bool whole) {
  const WorkflowRec& run = r.run;
  const bool file = r.has_run_file();
  w.key("run_id"); w.value(run.run_id);
  w.key("name"); str_or_null(w, run.name);
  w.key("status"); str_or_null(w, run.status);
  write_session_ref(w, r.session);
  w.key("task_id"); str_or_null(w, run.task_id);
  w.key("parent_tool_use_id"); str_or_null(w, run.parent_tool_use_id);
  w.key("agent_count"); w.value(r.agent_count);
  w.key("time"); time_or_null(w, r.time_ms);
  w.key("duration_ms"); int_or_null(w, file ? std::optional<int64_t>(run.duration_ms) : std::nullopt);
  w.key("total_tokens"); int_or_null(w, file ? std::optional<int64_t>(run.total_tokens) : std::nullopt);
  w.key("run_file"); str_or_null(w, run.path);
  if (whole) {
    w.key("script"); str_or_null(w, run.script);
    w.key("result"); write_stored_json(w, run.result_json);
  }
}

void write_workflow_agent(JsonWriter& w, const WorkflowAgentRow& r, bool file) {
  const WorkflowAgentRec& a = r.agent;
  auto from_file = [&](int64_t v) { return file ? std::optional<int64_t>(v) : std::nullopt; };
  w.begin_object();
  w.key("agent_id"); w.value(a.agent_id);
  w.key("label"); str_or_null(w, a.label);
  w.key("phase"); str_or_null(w, a.phase);
  w.key("model"); str_or_null(w, !a.model.empty() || !r.transcript ? a.model : r.transcript->model);
  w.key("state"); str_or_null(w, a.state);
  w.key("agent_type"); str_or_null(w, a.agent_type);
  w.key("description"); str_or_null(w, a.description);
  w.key("duration_ms"); int_or_null(w, from_file(a.duration_ms));
  w.key("tokens"); int_or_null(w, from_file(a.tokens));
  w.key("tool_calls"); int_or_null(w, from_file(a.tool_calls));
  w.key("message_count"); w.value(a.message_count);
  w.key("transcript");
  if (r.transcript) {
    SubagentRow t;
    t.agent = *r.transcript;
    w.begin_object();
    w.key("path"); str_or_null(w, t.agent.transcript_path);
    w.key("model"); str_or_null(w, t.agent.model);
    w.key("message_count"); w.value(t.agent.message_count);
    w.key("first_time"); time_or_null(w, t.agent.first_ts);
    w.key("last_time"); time_or_null(w, t.agent.last_ts);
    w.key("duration_ms"); int_or_null(w, t.duration_ms());
    w.key("total_tokens"); int_or_null(w, t.total_tokens());
    w.key("tokens");
    if (t.total_tokens()) write_tokens(w, t.agent.tokens); else w.null();
    w.end_object();
  } else {
    w.null();
  }
  w.end_object();
}

void write_project(JsonWriter& w, const ProjectSummary& p) {
  w.begin_object();
  w.key("project"); w.value(p.project);
  w.key("project_path"); str_or_null(w, p.project_path);
  w.key("sessions"); w.value(p.sessions);
  w.key("messages"); w.value(p.messages);
  w.key("last_activity"); time_or_null(w, p.last_activity);
  w.key("agents");
  w.begin_array();
  for (const auto& a : p.agents) w.value(a);
  w.end_array();
  w.end_object();
}

std::string cut_title(const std::string& t) {
  size_t chars = 0, i = 0;
  for (; i < t.size(); ++i) {
    if ((static_cast<unsigned char>(t[i]) & 0xC0) == 0x80) continue;
    if (chars++ == kOverviewTitleChars) return t.substr(0, i) + "…";
  }
  return t;
}

void write_overview_session(JsonWriter& w, const SessionRec& s) {
  w.begin_object();
  w.key("session_id"); w.value(s.shown_id());
  w.key("agent"); w.value(s.agent);
  w.key("title"); w.value(cut_title(s.title()));
  w.key("started_at"); time_or_null(w, s.started_at);
  w.key("ended_at"); time_or_null(w, s.ended_at);
  w.key("message_count"); w.value(s.message_count);
  w.key("git_branch"); str_or_null(w, s.git_branch);
  w.key("resume_hint"); w.value(resume_hint(s));
  w.end_object();
}

void write_overview_body(JsonWriter& w, const Overview& o) {
  w.key("current");
  if (o.current) {
    w.begin_object();
    w.key("matched_by"); w.value(o.matched_by);
    if (!o.cwd.empty()) {
      w.key("cwd"); w.value(o.cwd);
    }
    w.key("project"); w.value(o.current->project);
    w.key("project_path"); str_or_null(w, o.current->project_path);
    w.key("sessions"); w.value(o.current->sessions);
    w.key("messages"); w.value(o.current->messages);
    w.key("last_activity"); time_or_null(w, o.current->last_activity);
    w.key("recent_sessions");
    w.begin_array();
    for (const auto& s : o.recent_sessions) write_overview_session(w, s);
    w.end_array();
    w.key("memories");
    w.begin_array();
    for (const auto& m : o.memories) write_memory_json(w, m);
    w.end_array();
    w.key("memories_total"); w.value(o.memories_total);
    w.key("memories_truncated"); w.value(o.memories_total > o.memories.size());
    w.end_object();
  } else {
    w.null();
  }
  w.key("projects");
  w.begin_object();
  w.key("total"); w.value(o.projects_total);
  w.key("returned"); w.value(static_cast<uint64_t>(o.projects.size()));
  w.key("truncated"); w.value(o.projects.size() < o.projects_total);
  w.key("items");
  w.begin_array();
  for (const auto& p : o.projects) write_project(w, p);
  w.end_array();
  w.end_object();
  w.key("totals");
  w.begin_object();
  w.key("sessions"); w.value(o.sessions_total);
  w.key("messages"); w.value(o.messages_total);
  w.key("agents");
  w.begin_array();
  for (const auto& a : o.agents) {
    w.begin_object();
    w.key("agent"); w.value(a.agent);
    w.key("sessions"); w.value(a.sessions);
    w.key("messages"); w.value(a.messages);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

// JSON: {envelope…, results:[…]}; JSONL: one result a line, then {"summary":{envelope}}.
template <typename Rows, typename WriteRow>
void print_rows(const Context& ctx, const OrientEnvelope& e, const Rows& rows, WriteRow&& write_row) {
  print_listing(ctx, "results", rows, [&](JsonWriter& w) { write_envelope(w, e); }, write_row);
}

}  // namespace

// Text printers (cli/print_orient_text.cpp).
void print_subagents_text(const OrientEnvelope& e, const SubagentList& list, bool color);
void print_workflows_text(const OrientEnvelope& e, const WorkflowList& list, bool color);
void print_workflow_text(const OrientEnvelope& e, const WorkflowTree& tree, bool color);
void print_overview_text(const OrientEnvelope& e, const Overview& o, bool color);

void print_subagents(const Context& ctx, const OrientEnvelope& e, const SubagentList& list) {
  if (ctx.format == Format::Text) return print_subagents_text(e, list, ctx.stdout_tty);
  print_rows(ctx, e, list.rows, write_subagent);
}

void print_workflows(const Context& ctx, const OrientEnvelope& e, const WorkflowList& list) {
  if (ctx.format == Format::Text) return print_workflows_text(e, list, ctx.stdout_tty);
  print_rows(ctx, e, list.rows, [](JsonWriter& w, const WorkflowRow& r) {
    w.begin_object();
    write_workflow_row(w, r, false);
    w.end_object();
  });
}

void print_workflow(const Context& ctx, const OrientEnvelope& e, const WorkflowTree& t) {
  if (ctx.format == Format::Text) return print_workflow_text(e, t, ctx.stdout_tty);
  const bool file = t.run.has_run_file();
  JsonWriter w = output_writer(ctx);
  if (ctx.format == Format::Jsonl) {  // the run, then one line per agent (with its phase), then the summary
    w.begin_object();
    write_workflow_row(w, t.run, true);
    w.end_object();
    for (const auto& p : t.phases)
      for (const auto& a : p.agents) write_workflow_agent(w, a, file);
    write_jsonl_summary(w, [&](JsonWriter& w) { write_envelope(w, e); });
    return write_output(ctx, w.str());
  }
  w.begin_object();
  write_envelope(w, e);
  w.key("run");
  w.begin_object();
  write_workflow_row(w, t.run, true);
  w.key("phases");
  w.begin_array();
  for (const auto& p : t.phases) {
    w.begin_object();
    w.key("title"); str_or_null(w, p.title);
    w.key("agents");
    w.begin_array();
    for (const auto& a : p.agents) write_workflow_agent(w, a, file);
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  w.end_object();
  write_output(ctx, w.str());
}

void print_overview(const Context& ctx, const OrientEnvelope& e, const Overview& o) {
  if (ctx.format == Format::Text) return print_overview_text(e, o, ctx.stdout_tty);
  JsonWriter w = output_writer(ctx);
  w.begin_object();
  if (ctx.format == Format::Jsonl) {  // one line: the overview is one result
    write_overview_body(w, o);
    w.end_object();
    w.begin_object();
    w.key("summary");
    w.begin_object();
    write_envelope(w, e);
    w.end_object();
  } else {
    write_envelope(w, e);
    write_overview_body(w, o);
  }
  w.end_object();
  write_output(ctx, w.str());
}

}  // namespace osearch
