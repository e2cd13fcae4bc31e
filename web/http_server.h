// `osearch serve`: the web app's HTTP server (cpp-httplib). Static pages embedded in the binary
// (web/static_files.h), the JSON API (web/api.h), and the guards of web/security.h on every request.
#pragma once

#include <memory>
#include <string>

#include "cli/options.h"
#include "web/api.h"

namespace osearch::web {

inline constexpr int kDefaultPort = 7357;

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = kDefaultPort;  // 0: any free port
  std::string token;        // "" = a random one per run
  bool open = false;        // run xdg-open on the URL
};

// Throws BadInput("usage", …): a non-loopback --host without --token, a port out of range, a token
// too short to guard a network bind.
void check_serve_options(const ServeOptions& options);

class WebServer {
 public:
  WebServer(Context ctx, ServeOptions options);
  ~WebServer();
  WebServer(const WebServer&) = delete;
  WebServer& operator=(const WebServer&) = delete;

  // Binds the socket; returns the port. Throws std::runtime_error naming the address when it cannot.
  int bind();
  // http://HOST:PORT/?token=TOKEN (after bind).
  std::string url() const;
  const std::string& token() const;
  // Serves until stop() (from another thread or a signal-waiting thread).
  void run();
  void stop();
  bool is_running() const;  // listening (tests wait for it)
  Api& api();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// `osearch-serve`'s body once its options are parsed: bind, print the URL (flushed: scripts read
// it), serve until SIGINT or SIGTERM. Returns the exit code.
int run_web_server(const Context& ctx, const ServeOptions& options);

}  // namespace osearch::web
