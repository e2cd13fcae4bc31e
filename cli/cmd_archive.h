// `prune`, `export --sessions`, `import FILE`: the archive's commands (engine/query/archive_ops.h).
// main.cpp registers them with add_archive_commands and dispatches with run_archive_command.
#pragma once

#include <optional>
#include <string>

#include "cli/options.h"

namespace CLI {
class App;
}

namespace osearch {

struct ArchiveArgs {
  FilterArgs filters;        // prune, export: project, agent, session, since, until, cwd
  bool dry_run = false;      // prune
  bool sessions = false;     // export: --sessions (the only kind there is yet)
  bool all = false;          // export: every session, not only the archived ones
  std::string output;        // export: -o FILE (default stdout)
  std::string file;          // import: FILE or -
  CLI::App* prune = nullptr;
  CLI::App* exporter = nullptr;
  CLI::App* importer = nullptr;
};

void add_archive_commands(CLI::App& app, ArchiveArgs& args);
// The exit code when one of these commands was given, else nullopt.
std::optional<int> run_archive_command(const Context& ctx, const ArchiveArgs& args);

}  // namespace osearch
