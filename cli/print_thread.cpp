// JSON / JSON Lines / text for `thread`, `context` and `trace`.
//
// JSON: one object {action, session | uuid, messages | matches, total, returned, truncated, …}.
// JSONL: one message (thread), one match (context) or one chain step (trace) per line, then
// {"summary": {…the envelope without the list…}}.
#include "cli/print_thread.h"

#include <cstdio>

#include "cli/json_writer.h"
#include "cli/printers.h"
#include "cli/terminal_text.h"
#include "ingest/timeutil.h"

namespace osearch {
namespace {

void string_or_null(JsonWriter& w, const std::string& s) {
  if (s.empty())
    w.null();
  else
    w.value(s);
}

void write_message(JsonWriter& w, const MessageView& v, const char* via = nullptr) {
  const MessageRec& m = v.rec;
  w.begin_object();
  w.key("uuid"); w.value(m.uuid);
  w.key("parent_uuid"); string_or_null(w, m.parent_uuid);
  w.key("logical_parent_uuid"); string_or_null(w, m.logical_parent_uuid);
  if (via) {
    w.key("via"); w.value(via);
  }
  w.key("role"); w.value(role_name(m.role));
  w.key("content_type"); w.value(content_type_name(m.content_type));
  w.key("time"); time_or_null(w, m.timestamp_ms);
  w.key("model"); string_or_null(w, m.model);
  w.key("agent_id"); string_or_null(w, m.agent_id);  // a subagent's message; null in the main thread
  w.key("is_sidechain"); w.value(m.is_sidechain);
  w.key("is_meta"); w.value(m.is_meta);
  w.key("cwd"); string_or_null(w, m.cwd);
  w.key("git_branch"); string_or_null(w, m.git_branch);
  w.key("text"); w.value(v.text);
  w.key("truncated"); w.value(v.truncated);
  if (m.usage.any()) {
    w.key("tokens");
    w.begin_object();
    w.key("input"); w.value(m.usage.input);
    w.key("output"); w.value(m.usage.output);
    w.key("cache_creation"); w.value(m.usage.cache_creation);
    w.key("cache_read"); w.value(m.usage.cache_read);
    w.end_object();
  }
  w.key("tool_calls");
  w.begin_array();
  for (const auto& c : v.tool_calls) {
    w.begin_object();
    w.key("id"); w.value(c.id);
    w.key("name"); w.value(c.name);
    w.key("input_json"); w.value(c.input_json);
    w.key("file_path"); string_or_null(w, c.file_path);
    w.key("result");
    if (!c.result.found) {
      w.null();
    } else {
      w.begin_object();
      w.key("is_error"); w.value(c.result.is_error);
      w.key("message_uuid"); string_or_null(w, c.result.message_uuid);
      w.key("text"); w.value(c.result.text);
      w.key("truncated"); w.value(c.result.truncated);
      w.end_object();
    }
    w.end_object();
  }
  w.end_array();
  w.key("tool_results");
  w.begin_array();
  for (const auto& r : v.tool_results) {
    w.begin_object();
    w.key("tool_use_id"); w.value(r.tool_use_id);
    w.key("tool_name"); string_or_null(w, r.tool_name);
    w.key("is_error"); w.value(r.is_error);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

const char* via_name(ChainLink l) { return l == ChainLink::LogicalParent ? "logical_parent" : "parent"; }

void write_run(JsonWriter& w, const RunInfo& info) {
  w.key("took_ms"); w.value(info.took_ms);
  w.key("index");
  w.begin_object();
  w.key("sessions"); w.value(info.counts.sessions);
  w.key("messages"); w.value(info.counts.messages);
  w.key("refreshed_files"); w.value(info.refreshed_files);
  w.key("stale"); w.value(info.stale);
  w.end_object();
}

void write_chain_end(JsonWriter& w, const Chain& c) {
  w.key("chain_end"); w.value(chain_end_name(c.end));
  w.key("chain_end_uuid"); string_or_null(w, c.missing_uuid);
}

// ---- text

struct Style {
  const char* bold;
  const char* dim;
  const char* reset;
  explicit Style(bool color) : bold(color ? "\033[1m" : ""), dim(color ? "\033[2m" : ""), reset(color ? "\033[0m" : "") {}
};

void text_session(const SessionRec& s, const Style& st) {
  const std::string title = s.title().empty() ? "(untitled)" : terminal_safe(s.title());
  std::printf("%s%s%s\n", st.bold, title.c_str(), st.reset);
  std::printf("%s%s · %s · %s · %llu messages%s%s\n", st.dim, terminal_safe(s.shown_id()).c_str(), s.agent.c_str(),
              terminal_safe(s.project).c_str(), (unsigned long long)s.message_count,
              s.source_deleted ? " · source deleted" : "", st.reset);
  std::printf("%s%s%s\n\n", st.dim, terminal_safe(resume_hint(s), LineBreaks::Visible).c_str(), st.reset);
}

std::string indented(std::string_view text, const char* pad) {
  std::string out = pad;
  for (char c : terminal_safe(text)) {
    out.push_back(c);
    if (c == '\n') out += pad;
  }
  return out;
}

void text_message(const MessageView& v, const Style& st, const char* via = nullptr) {
  const MessageRec& m = v.rec;
  std::printf("%s%s %s/%s", st.bold, format_iso8601_ms(m.timestamp_ms).c_str(), role_name(m.role),
              content_type_name(m.content_type));
  if (!m.agent_id.empty()) std::printf(" [agent %s]", terminal_safe(m.agent_id).c_str());
  if (m.is_meta) std::printf(" [meta]");
  if (via && std::string_view(via) == "logical_parent") std::printf(" [across a compaction]");
  std::printf("%s %s%s%s\n", st.reset, st.dim, terminal_safe(m.uuid).c_str(), st.reset);
  if (!v.text.empty()) std::printf("%s%s\n", indented(v.text, "  ").c_str(), v.truncated ? " …" : "");
  for (const auto& c : v.tool_calls) {
    std::printf("  %s→ %s%s %s\n", st.bold, terminal_safe(c.name).c_str(), st.reset,
                terminal_safe(c.input_json.substr(0, 300), LineBreaks::Visible).c_str());
    if (c.result.found)
      std::printf("%s%s\n", indented((c.result.is_error ? "← error: " : "← ") + std::string(c.result.text), "    ").c_str(),
                  c.result.truncated ? " …" : "");
  }
  std::printf("\n");
}

void text_footer(const char* what, size_t returned, uint64_t total, const RunInfo& info, const Style& st) {
  std::printf("%s%zu of %llu %s · %.1f ms%s%s\n", st.dim, returned, (unsigned long long)total, what, info.took_ms,
              info.stale ? " · index busy, may be stale" : "", st.reset);
}

}  // namespace

void print_thread(const Context& ctx, const ThreadResult& r, const RunInfo& info) {
  auto envelope = [&](JsonWriter& w) {
    w.key("action"); w.value("thread");
    w.key("session"); write_session_json(w, r.session);
    w.key("total"); w.value(r.total);
    w.key("offset"); w.value(r.first_index);
    w.key("returned"); w.value(static_cast<uint64_t>(r.messages.size()));
    w.key("truncated"); w.value(r.truncated);
    write_run(w, info);
  };
  if (ctx.format == Format::Text) {
    Style st(ctx.stdout_tty);
    text_session(r.session, st);
    for (const auto& m : r.messages) text_message(m, st);
    text_footer("messages", r.messages.size(), r.total, info, st);
    return;
  }
  print_listing(ctx, "messages", r.messages, envelope,
                [](JsonWriter& w, const MessageView& m) { write_message(w, m); });
}

void print_context(const Context& ctx, const ContextResult& r, const RunInfo& info) {
  auto write_match = [](JsonWriter& w, const ContextMatch& m) {
    w.begin_object();
    w.key("session"); write_session_json(w, m.session);
    w.key("message"); write_message(w, m.message);
    w.key("ancestors");
    w.begin_array();
    for (const auto& a : m.ancestors.steps) write_message(w, a.message, via_name(a.via));
    w.end_array();
    write_chain_end(w, m.ancestors);
    w.key("subagent");
    if (!m.subagent) {
      w.null();
    } else {
      const SubagentRec& s = *m.subagent;
      w.begin_object();
      w.key("agent_id"); w.value(s.agent_id);
      w.key("agent_type"); string_or_null(w, s.agent_type);
      w.key("description"); string_or_null(w, s.description);
      w.key("parent_tool_use_id"); string_or_null(w, s.parent_tool_use_id);
      w.key("message_count"); w.value(s.message_count);
      w.key("started_at"); time_or_null(w, s.first_ts);
      w.key("ended_at"); time_or_null(w, s.last_ts);
      w.key("duration_ms"); w.value(s.duration_ms);
      w.key("total_tokens"); w.value(s.total_tokens);
      w.key("transcript_path"); string_or_null(w, s.transcript_path);
      w.end_object();
    }
    w.key("workflow");
    if (!m.workflow) {
      w.null();
    } else {
      const WorkflowRec& f = *m.workflow;
      w.begin_object();
      w.key("run_id"); w.value(f.run_id);
      w.key("name"); string_or_null(w, f.name);
      w.key("status"); string_or_null(w, f.status);
      w.key("task_id"); string_or_null(w, f.task_id);
      w.key("parent_tool_use_id"); string_or_null(w, f.parent_tool_use_id);
      w.key("time"); time_or_null(w, f.timestamp_ms);
      w.key("duration_ms"); w.value(f.duration_ms);
      w.key("total_tokens"); w.value(f.total_tokens);
      w.key("agent_count"); w.value(f.agent_count);
      if (m.workflow_agent) {
        w.key("agent");
        w.begin_object();
        w.key("agent_id"); w.value(m.workflow_agent->agent_id);
        w.key("phase"); string_or_null(w, m.workflow_agent->phase);
        w.key("label"); string_or_null(w, m.workflow_agent->label);
        w.key("state"); string_or_null(w, m.workflow_agent->state);
        w.key("model"); string_or_null(w, m.workflow_agent->model);
        w.end_object();
      }
      w.end_object();
    }
    w.end_object();
  };
  auto envelope = [&](JsonWriter& w) {
    w.key("action"); w.value("context");
    w.key("uuid"); w.value(r.uuid);
    w.key("total"); w.value(static_cast<uint64_t>(r.matches.size()));
    w.key("returned"); w.value(static_cast<uint64_t>(r.matches.size()));
    w.key("truncated"); w.value(false);
    write_run(w, info);
  };
  if (ctx.format == Format::Text) {
    Style st(ctx.stdout_tty);
    for (const auto& m : r.matches) {
      text_session(m.session, st);
      if (m.subagent) std::printf("%ssubagent %s %s%s\n", st.dim, terminal_safe(m.subagent->agent_id).c_str(),
                                  terminal_safe(m.subagent->agent_type).c_str(), st.reset);
      if (m.workflow) std::printf("%sworkflow %s %s%s\n", st.dim, terminal_safe(m.workflow->run_id).c_str(),
                                  terminal_safe(m.workflow->name).c_str(), st.reset);
      text_message(m.message, st);
      std::printf("%s%zu ancestors, nearest first (chain ends: %s)%s\n\n", st.dim, m.ancestors.steps.size(),
                  chain_end_name(m.ancestors.end), st.reset);
      for (const auto& a : m.ancestors.steps) text_message(a.message, st, via_name(a.via));
    }
    text_footer("sessions hold the message", r.matches.size(), r.matches.size(), info, st);
    return;
  }
  print_listing(ctx, "matches", r.matches, envelope, write_match);
}

void print_trace(const Context& ctx, const TraceResult& r, const RunInfo& info) {
  auto write_steps = [](JsonWriter& w, const Chain& c) {
    for (size_t i = 0; i < c.steps.size(); ++i) write_message(w, c.steps[i].message, i ? via_name(c.steps[i].via) : nullptr);
  };
  auto envelope = [&](JsonWriter& w) {
    w.key("action"); w.value("trace");
    w.key("uuid"); w.value(r.uuid);
    w.key("total"); w.value(static_cast<uint64_t>(r.matches.size()));
    w.key("returned"); w.value(static_cast<uint64_t>(r.matches.size()));
    w.key("truncated"); w.value(false);
    write_run(w, info);
  };
  if (ctx.format == Format::Text) {
    Style st(ctx.stdout_tty);
    for (const auto& m : r.matches) {
      text_session(m.session, st);
      std::printf("%s%zu messages, root first (chain starts: %s)%s\n\n", st.dim, m.chain.steps.size(),
                  chain_end_name(m.chain.end), st.reset);
      for (size_t i = 0; i < m.chain.steps.size(); ++i)
        text_message(m.chain.steps[i].message, st, i ? via_name(m.chain.steps[i].via) : nullptr);
    }
    text_footer("sessions hold the message", r.matches.size(), r.matches.size(), info, st);
    return;
  }
  JsonWriter w = output_writer(ctx);
  if (ctx.format == Format::Jsonl) {
    // The steps of each chain in turn, root first; the summary gives each chain's session and length.
    for (const auto& m : r.matches) write_steps(w, m.chain);
    write_jsonl_summary(w, [&](JsonWriter& w) {
      envelope(w);
      w.key("chains");
      w.begin_array();
      for (const auto& m : r.matches) {
        w.begin_object();
        w.key("session_id"); w.value(m.session.shown_id());
        w.key("length"); w.value(static_cast<uint64_t>(m.chain.steps.size()));
        write_chain_end(w, m.chain);
        w.end_object();
      }
      w.end_array();
    });
  } else {
    w.begin_object();
    envelope(w);
    w.key("matches");
    w.begin_array();
    for (const auto& m : r.matches) {
      w.begin_object();
      w.key("session"); write_session_json(w, m.session);
      w.key("chain");
      w.begin_array();
      write_steps(w, m.chain);
      w.end_array();
      write_chain_end(w, m.chain);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  write_output(ctx, w.str());
}

}  // namespace osearch
