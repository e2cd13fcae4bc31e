// `subagents`, `workflows`, `workflow RUN_ID`, `overview`: their options and their runs. main.cpp
// registers them with add_orient_commands and dispatches with run_orient_command.
#pragma once

#include <optional>
#include <string>

#include "cli/options.h"
#include "engine/query/orient.h"

namespace CLI {
class App;
}

namespace osearch {

struct OrientArgs {
  FilterArgs filters;                 // subagents, workflows
  std::string limit, offset;          // as typed (checked by parse_count)
  std::string run_id;                 // workflow
  std::string project, cwd;           // overview
  std::string sessions_n, projects_n;  // overview, as typed
  CLI::App* subagents = nullptr;
  CLI::App* workflows = nullptr;
  CLI::App* workflow = nullptr;
  CLI::App* overview = nullptr;
};

void add_orient_commands(CLI::App& app, OrientArgs& args);
// The exit code when one of these commands was given, else nullopt.
std::optional<int> run_orient_command(const Context& ctx, const OrientArgs& args);
// Each command on its own (the MCP server calls them with args it filled in).
int cmd_subagents(const Context& ctx, const OrientArgs& args);
int cmd_workflows(const Context& ctx, const OrientArgs& args);
int cmd_workflow(const Context& ctx, const OrientArgs& args);
int cmd_overview(const Context& ctx, const OrientArgs& args);

// Printers (cli/print_orient_json.cpp, cli/print_orient_text.cpp).
struct OrientEnvelope {
  std::string action;
  uint64_t total = 0, returned = 0, offset = 0;
  double took_ms = 0;
  IndexCounts counts;
  uint64_t refreshed_files = 0;
  bool stale = false;
  bool more() const { return offset + returned < total; }  // "truncated": results past this page
};
void print_subagents(const Context& ctx, const OrientEnvelope& e, const SubagentList& list);
void print_workflows(const Context& ctx, const OrientEnvelope& e, const WorkflowList& list);
void print_workflow(const Context& ctx, const OrientEnvelope& e, const WorkflowTree& tree);
void print_overview(const Context& ctx, const OrientEnvelope& e, const Overview& o);

}  // namespace osearch
