#include "cli/cmd_serve.h"

#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "cli/options.h"

namespace osearch {

void add_serve_options(CLI::App* cmd, ServeArgs& a) {
  cmd->add_option("--port", a.port, "TCP port (default 7357; 0 = any free port, printed in the URL)");
  cmd->add_flag("--open", a.open, "open the URL in a browser (xdg-open) when it is installed");
  cmd->add_option("--host", a.host,
                  "address to listen on (default 127.0.0.1); any other than 127.0.0.1, localhost or ::1 needs --token");
  cmd->add_option("--token", a.token, "the access token (default: 32 random bytes per run, in the printed URL)");
}

CLI::App* add_serve_command(CLI::App& app, ServeArgs& a) {
  CLI::App* serve = app.add_subcommand(
      "serve", "local web app: browse sessions, read threads, memories, usage (prints http://127.0.0.1:PORT/?token=…)");
  add_serve_options(serve, a);
  return serve;
}

namespace {

// argv's error format, as main() picks it when parsing is done: the last --format, else JSON off a terminal.
Context error_context(int argc, char** argv) {
  std::string format;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg == "--format" && i + 1 < argc) format = argv[++i];
    else if (arg.rfind("--format=", 0) == 0) format = std::string(arg.substr(9));
  }
  Context c;
  if (format == "json" || format == "jsonl") c.format = Format::Json;
  else if (format == "text") c.format = Format::Text;
  else c.format = ::isatty(STDOUT_FILENO) ? Format::Text : Format::Json;
  return c;
}

// argv without the subcommand word: the first argument that is neither an option nor a global
// option's value (CLI11 parsed it as `serve`).
std::vector<std::string> without_subcommand(int argc, char** argv) {
  std::vector<std::string> out;
  bool removed = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (!removed) {
      if (arg == "--index" || arg == "--source" || arg == "--format") {
        out.emplace_back(arg);
        if (i + 1 < argc) out.emplace_back(argv[++i]);
        continue;
      }
      if (arg == "serve") {
        removed = true;
        continue;
      }
    }
    out.emplace_back(arg);
  }
  return out;
}

}  // namespace

int cmd_serve_exec(int argc, char** argv) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::string server = (ec ? std::filesystem::path(argv[0]).parent_path() : self.parent_path()) / "osearch-serve";
  std::vector<std::string> args = without_subcommand(argc, argv);
  std::vector<char*> exec_argv;
  exec_argv.push_back(const_cast<char*>(server.c_str()));
  for (auto& a : args) exec_argv.push_back(a.data());
  exec_argv.push_back(nullptr);
  std::fflush(stdout);
  ::execv(server.c_str(), exec_argv.data());
  const int err = errno;
  Context c = error_context(argc, argv);
  report_error(&c, "error",
               "osearch serve runs " + server + " (installed beside osearch), which could not be started: " +
                   std::strerror(err));
  return 1;
}

}  // namespace osearch
