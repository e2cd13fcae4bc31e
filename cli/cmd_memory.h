// `memory remember|forget|restore|list|show|export|import` (SPEC §6): options and runs. main.cpp
// registers them with add_memory_commands and dispatches with run_memory_command.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/options.h"

namespace CLI {
class App;
}

namespace osearch {

struct MemoryArgs {
  std::string path, summary, session, start, end, project;  // remember
  std::vector<std::string> anchors;
  std::string id, reason;  // forget, restore, show
  bool history = false;    // show
  std::string query;       // list
  bool all = false;
  std::vector<std::string> projects;
  std::string since, until, limit, offset;
  std::string file;  // import
  CLI::App *root = nullptr, *remember = nullptr, *forget = nullptr, *restore = nullptr, *list = nullptr, *show = nullptr,
           *exporter = nullptr, *importer = nullptr;
};

void add_memory_commands(CLI::App& app, MemoryArgs& args);
std::optional<int> run_memory_command(const Context& ctx, const MemoryArgs& args);
// Each command on its own (the MCP server calls them with args it filled in).
int cmd_memory_remember(const Context& ctx, const MemoryArgs& args);
int cmd_memory_forget(const Context& ctx, const MemoryArgs& args);
int cmd_memory_restore(const Context& ctx, const MemoryArgs& args);
int cmd_memory_show(const Context& ctx, const MemoryArgs& args);
int cmd_memory_list(const Context& ctx, const MemoryArgs& args);

}  // namespace osearch
