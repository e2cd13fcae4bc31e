// `osearch serve`: the local web app (issue 14). The server is its own executable, osearch-serve,
// installed beside osearch: its HTTP library pulls libssl, libcrypto and brotli, whose load would
// slow every CLI command's start. `osearch serve` only registers the options (for --help and their
// checks) and execs osearch-serve with the same arguments.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace osearch {

struct ServeArgs {
  std::string port;  // as typed; "" = 7357, "0" = any free port
  std::string host;  // "" = 127.0.0.1
  std::string token;
  bool open = false;
};

// The serve options on `cmd` (osearch's `serve` subcommand, or osearch-serve's own app).
void add_serve_options(CLI::App* cmd, ServeArgs& args);
// Registers `osearch serve` with its options.
CLI::App* add_serve_command(CLI::App& app, ServeArgs& args);

// Execs osearch-serve from the running binary's directory with argv minus the word `serve`.
// Returns only when it cannot: 1, after an error object naming the path it looked for.
int cmd_serve_exec(int argc, char** argv);

}  // namespace osearch
