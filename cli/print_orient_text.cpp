// --format text for `subagents`, `workflows`, `workflow` and `overview`: every transcript string
// goes through terminal_safe before any colour is added.
#include <cstdio>
#include <string>

#include "cli/cmd_orient.h"
#include "cli/printers.h"
#include "cli/terminal_text.h"
#include "ingest/timeutil.h"

namespace osearch {
namespace {

struct Style {
  const char* bold;
  const char* dim;
  const char* reset;
  explicit Style(bool color) : bold(color ? "\033[1m" : ""), dim(color ? "\033[2m" : ""), reset(color ? "\033[0m" : "") {}
};

std::string when(int64_t ms) { return ms > 0 ? format_iso8601_ms(ms) : "-"; }
std::string safe(const std::string& s, const char* empty = "-") { return s.empty() ? empty : terminal_safe(s); }
std::string opt(std::optional<int64_t> v) { return v ? std::to_string(*v) : "-"; }

void footer(const Style& st, const OrientEnvelope& e, const char* noun) {
  std::printf("%s%llu of %llu %s%s · %.1f ms%s%s\n", st.dim, (unsigned long long)e.returned,
              (unsigned long long)e.total, noun, e.more() ? " (more: --offset)" : "", e.took_ms,
              e.stale ? " · index busy, may be stale" : "", st.reset);
}

void hint(const Style& st, const SessionRec& s) {
  if (!s.id.empty())
    std::printf("  %s%s%s\n", st.dim, terminal_safe(resume_hint(s), LineBreaks::Visible).c_str(), st.reset);
}

}  // namespace

void print_subagents_text(const OrientEnvelope& e, const SubagentList& list, bool color) {
  Style st(color);
  for (const auto& r : list.rows) {
    const SubagentRec& a = r.agent;
    std::printf("%s%s%s %s%s\n", st.bold, safe(a.agent_id).c_str(), st.reset, safe(a.agent_type, "").c_str(),
                a.description.empty() ? "" : (": " + terminal_safe(a.description)).c_str());
    std::printf("  %s%s · %s · %s · %llu messages · %s ms · %s tokens%s\n", st.dim, when(r.spawned_at).c_str(),
                safe(r.session.project).c_str(), safe(r.session.shown_id()).c_str(),
                (unsigned long long)a.message_count, opt(r.duration_ms()).c_str(), opt(r.total_tokens()).c_str(),
                st.reset);
    hint(st, r.session);
    std::printf("\n");
  }
  footer(st, e, "subagents");
}

void print_workflows_text(const OrientEnvelope& e, const WorkflowList& list, bool color) {
  Style st(color);
  for (const auto& r : list.rows) {
    std::printf("%s%s%s %s [%s]\n", st.bold, safe(r.run.run_id).c_str(), st.reset, safe(r.run.name, "").c_str(),
                safe(r.run.status).c_str());
    std::printf("  %s%s · %s · %s · %llu agents", st.dim, when(r.time_ms).c_str(), safe(r.session.project).c_str(),
                safe(r.session.shown_id()).c_str(), (unsigned long long)r.agent_count);
    if (r.has_run_file())
      std::printf(" · %lld ms · %lld tokens", (long long)r.run.duration_ms, (long long)r.run.total_tokens);
    std::printf("%s\n", st.reset);
    hint(st, r.session);
    std::printf("\n");
  }
  footer(st, e, "workflow runs");
}

void print_workflow_text(const OrientEnvelope& e, const WorkflowTree& t, bool color) {
  Style st(color);
  const WorkflowRow& r = t.run;
  std::printf("%s%s%s %s [%s] · %s · %llu agents\n", st.bold, safe(r.run.run_id).c_str(), st.reset,
              safe(r.run.name, "").c_str(), safe(r.run.status).c_str(), when(r.time_ms).c_str(),
              (unsigned long long)r.agent_count);
  std::printf("  %s%s · %s%s\n", st.dim, safe(r.session.project).c_str(), safe(r.session.shown_id()).c_str(), st.reset);
  hint(st, r.session);
  for (const auto& p : t.phases) {
    std::printf("%s%s%s\n", st.bold, p.title.empty() ? "(no phase)" : terminal_safe(p.title).c_str(), st.reset);
    for (const auto& a : p.agents) {
      const std::string model = !a.agent.model.empty() ? a.agent.model : a.transcript ? a.transcript->model : "";
      std::printf("  %s %s · %s · %s · %llu messages", safe(a.agent.agent_id).c_str(), safe(a.agent.label, "").c_str(),
                  safe(model).c_str(), safe(a.agent.state).c_str(), (unsigned long long)a.agent.message_count);
      if (r.has_run_file())
        std::printf(" · %lld tokens · %lld tool calls", (long long)a.agent.tokens, (long long)a.agent.tool_calls);
      std::printf("\n");
      if (a.transcript && !a.transcript->transcript_path.empty())
        std::printf("    %s%s%s\n", st.dim, terminal_safe(a.transcript->transcript_path, LineBreaks::Visible).c_str(),
                    st.reset);
    }
  }
  if (r.has_run_file() && !r.run.result_json.empty())
    std::printf("%sresult%s %s\n", st.bold, st.reset, terminal_safe(r.run.result_json.substr(0, 2000)).c_str());
  std::printf("%s%.1f ms%s\n", st.dim, e.took_ms, st.reset);
}

void print_overview_text(const OrientEnvelope& e, const Overview& o, bool color) {
  Style st(color);
  if (o.current) {
    const ProjectSummary& p = *o.current;
    std::printf("%sproject%s %s (%s) · %llu sessions · %llu messages · last %s\n", st.bold, st.reset,
                safe(p.project).c_str(), safe(p.project_path).c_str(), (unsigned long long)p.sessions,
                (unsigned long long)p.messages, when(p.last_activity).c_str());
    for (const auto& s : o.recent_sessions) {
      std::printf("  %s · %s · %llu messages\n", when(s.ended_at).c_str(), safe(s.title(), "(untitled)").c_str(),
                  (unsigned long long)s.message_count);
      hint(st, s);
    }
    if (o.memories.empty()) std::printf("  memories: none\n");
    for (const auto& m : o.memories)
      std::printf("  memory %s · %s · %s\n", m.id.c_str(), when(m.created_at).c_str(), safe(m.summary).c_str());
    if (o.memories_total > o.memories.size())
      std::printf("  … %llu more memories (osearch memory list --project)\n", (unsigned long long)(o.memories_total - o.memories.size()));
  } else {
    std::printf("%sproject%s none found for %s\n", st.bold, st.reset, o.cwd.empty() ? "the given --project" : safe(o.cwd).c_str());
  }
  std::printf("%sprojects%s (%llu)\n", st.bold, st.reset, (unsigned long long)o.projects_total);
  for (const auto& p : o.projects)
    std::printf("  %s · %llu sessions · last %s\n", safe(p.project_path.empty() ? p.project : p.project_path).c_str(),
                (unsigned long long)p.sessions, when(p.last_activity).c_str());
  std::printf("%stotals%s %llu sessions · %llu messages\n", st.bold, st.reset, (unsigned long long)o.sessions_total,
              (unsigned long long)o.messages_total);
  for (const auto& a : o.agents)
    std::printf("  %s: %llu sessions · %llu messages\n", safe(a.agent).c_str(), (unsigned long long)a.sessions,
                (unsigned long long)a.messages);
  std::printf("%s%.1f ms%s\n", st.dim, e.took_ms, st.reset);
}

}  // namespace osearch
