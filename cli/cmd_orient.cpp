// `subagents`, `workflows`, `workflow RUN_ID`, `overview`: options, refresh, run, print.
#include "cli/cmd_orient.h"

#include <CLI/CLI.hpp>

#include <chrono>
#include <filesystem>
#include <system_error>

#include "cli/commands.h"
#include "cli/verbatim_args.h"
#include "ingest/timeutil.h"

namespace osearch {
namespace {

constexpr size_t kMaxLimit = 100000;
constexpr size_t kMaxOffset = 1000000000;

void add_scope_filters(CLI::App* cmd, OrientArgs& a) {
  FilterArgs& f = a.filters;
  cmd->add_option("--project", f.project, "case-insensitive substring of the project slug or path");
  cmd->add_option("--agent", f.agent, "claude|omp|pi|codex");
  cmd->add_option("--session", f.session, "session id or prefix (repeatable)");
  cmd->add_option("--since", f.since, "YYYY-MM-DD, ISO 8601, or Ns/Nm/Nh/Nd/Nw ago");
  cmd->add_option("--until", f.until, "exclusive upper bound, same forms as --since");
  cmd->add_option("--cwd", f.cwd, "working directory prefix");
  cmd->add_option("--limit", a.limit, "maximum results (1-100000, default 20)");
  cmd->add_option("--offset", a.offset, "skip the first N results");
}

Filters scope_filters(const OrientArgs& a) {
  FilterArgs typed = a.filters;
  if (!a.limit.empty()) typed.limit = parse_count("--limit", a.limit, 1, kMaxLimit);
  if (!a.offset.empty()) typed.offset = parse_count("--offset", a.offset, 0, kMaxOffset);
  return parse_filters(typed, current_time_ms(), 20);
}

// Refreshes, opens the index, runs `answer(reader, envelope, stop)`: `answer` computes, calls
// stop() (the sources are then confirmed fresh, and the envelope gets the timing and the freshness),
// then prints. Should the sources have changed, stop() throws and the answer is computed again on
// the refreshed index (QueryIndex::run), nothing printed yet.
template <typename Answer>
int answer_query(const Context& ctx, const std::string& action, Answer&& answer) {
  const auto t0 = std::chrono::steady_clock::now();
  QueryIndex index(ctx);
  index.run([&](IndexReader& reader) {
    OrientEnvelope e;
    e.action = action;
    e.counts = reader.counts();
    answer(reader, e, [&] {
      index.confirm();
      e.refreshed_files = index.refreshed_files;
      e.stale = index.stale;
      e.took_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    });
  });
  return 0;
}

std::string process_cwd() {
  std::error_code ec;
  auto p = std::filesystem::current_path(ec);
  return ec ? std::string() : p.string();
}

}  // namespace

void add_orient_commands(CLI::App& app, OrientArgs& a) {
  a.subagents = app.add_subcommand("subagents", "subagent spawns, newest first");
  add_scope_filters(a.subagents, a);
  a.workflows = app.add_subcommand("workflows", "workflow runs, newest first");
  add_scope_filters(a.workflows, a);
  a.workflow = app.add_subcommand("workflow", "one workflow run with its agent tree");
  a.workflow->add_option("run_id", a.run_id, "run id or unique prefix")->required();
  a.overview = app.add_subcommand("overview", "orientation: this project, its recent sessions, all projects, totals");
  a.overview->add_option("--project", a.project, "the project (substring of slug or path) instead of the cwd's");
  a.overview->add_option("--cwd", a.cwd, "directory whose project is current (default: the working directory)");
  a.overview->add_option("--sessions", a.sessions_n, "recent sessions of the project (0-1000, default 5)");
  a.overview->add_option("--projects", a.projects_n, "projects listed (0-100000, default 10)");
}

int cmd_subagents(const Context& ctx, const OrientArgs& a) {
  const Filters f = scope_filters(a);  // bad input fails before any work
  return answer_query(ctx, "subagents", [&](IndexReader& r, OrientEnvelope& e, auto&& stop) {
    SubagentList list = run_subagents(r, f);
    e.total = list.total;
    e.returned = list.rows.size();
    e.offset = f.offset;
    stop();
    print_subagents(ctx, e, list);
  });
}

int cmd_workflows(const Context& ctx, const OrientArgs& a) {
  const Filters f = scope_filters(a);
  return answer_query(ctx, "workflows", [&](IndexReader& r, OrientEnvelope& e, auto&& stop) {
    WorkflowList list = run_workflows(r, f);
    e.total = list.total;
    e.returned = list.rows.size();
    e.offset = f.offset;
    stop();
    print_workflows(ctx, e, list);
  });
}

int cmd_workflow(const Context& ctx, const OrientArgs& a) {
  return answer_query(ctx, "workflow", [&](IndexReader& r, OrientEnvelope& e, auto&& stop) {
    WorkflowTree tree = run_workflow(r, a.run_id);
    e.total = e.returned = 1;
    stop();
    print_workflow(ctx, e, tree);
  });
}

int cmd_overview(const Context& ctx, const OrientArgs& a) {
  OverviewOptions o;
  o.project = a.project;
  o.cwd = a.cwd.empty() ? process_cwd() : a.cwd;
  if (!a.sessions_n.empty()) o.sessions = parse_count("--sessions", a.sessions_n, 0, 1000);
  if (!a.projects_n.empty()) o.projects = parse_count("--projects", a.projects_n, 0, kMaxLimit);
  return answer_query(ctx, "overview", [&](IndexReader& r, OrientEnvelope& e, auto&& stop) {
    Overview ov = run_overview(r, o);
    e.total = ov.projects_total;
    e.returned = ov.projects.size();
    stop();
    print_overview(ctx, e, ov);
  });
}

std::optional<int> run_orient_command(const Context& ctx, const OrientArgs& a) {
  if (a.subagents && *a.subagents) return cmd_subagents(ctx, a);
  if (a.workflows && *a.workflows) return cmd_workflows(ctx, a);
  if (a.workflow && *a.workflow) return cmd_workflow(ctx, a);
  if (a.overview && *a.overview) return cmd_overview(ctx, a);
  return std::nullopt;
}

}  // namespace osearch
