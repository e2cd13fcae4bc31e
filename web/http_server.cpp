#include "web/http_server.h"

#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "engine/query/query.h"
#include "web/security.h"
#include "web/static_files.h"

extern char** environ;

namespace osearch::web {
namespace {

constexpr std::string_view kTokenPlaceholder = "__OSEARCH_TOKEN__";
constexpr auto kIdleRelease = std::chrono::seconds(30);

const char* kUnauthorizedPage =
    "<!doctype html><html><head><meta charset=\"utf-8\"><title>osearch: sign in</title></head><body>"
    "<h1>osearch</h1><p>This page needs the access token of the running server. Open the URL that "
    "<code>osearch serve</code> printed when it started (<code>http://127.0.0.1:PORT/?token=…</code>).</p>"
    "</body></html>\n";

void set_guard_headers(httplib::Response& res) {
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "no-referrer");
  res.set_header("Content-Security-Policy", std::string(kContentSecurityPolicy));
  res.set_header("X-Frame-Options", "DENY");
  res.set_header("Cross-Origin-Opener-Policy", "same-origin");
  res.set_header("Cross-Origin-Resource-Policy", "same-origin");
  res.set_header("Cache-Control", "no-store");  // answers and the page (it carries the token) stay off disk
}

void answer_json(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body + "\n", "application/json; charset=utf-8");
}

bool is_api(const std::string& path) { return path == "/api" || path.rfind("/api/", 0) == 0; }

const StaticFile* find_static(std::string_view path) {
  if (path == "/") path = "/index.html";
  for (const auto& f : static_files())
    if (f.path == path) return &f;
  return nullptr;
}

// Runs xdg-open on the URL when it is installed; its output goes to stderr (stdout is the URL's).
void open_in_browser(const std::string& url) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  const char* argv[] = {"xdg-open", url.c_str(), nullptr};
  pid_t pid = 0;
  if (posix_spawnp(&pid, "xdg-open", &actions, nullptr, const_cast<char* const*>(argv), environ) != 0)
    std::fprintf(stderr, "osearch serve: xdg-open not found; open the URL yourself\n");
  posix_spawn_file_actions_destroy(&actions);
  // Not waited for: SIGCHLD is ignored in run_web_server, so it leaves no zombie.
}

}  // namespace

void check_serve_options(const ServeOptions& o) {
  if (o.port < 0 || o.port > 65535) throw BadInput("usage", "--port must be 0 to 65535 (0: any free port)");
  if (o.host.empty()) throw BadInput("usage", "--host is empty");
  if (!is_loopback_host(o.host) && o.token.empty())
    throw BadInput("usage", "--host " + o.host +
                                " serves transcripts beyond this machine: give --token too (at least 16 characters)");
  if (!o.token.empty() && o.token.size() < 16) throw BadInput("usage", "--token needs at least 16 characters");
  for (unsigned char c : o.token)
    if (c <= ' ' || c >= 127 || c == ';' || c == ',' || c == '"' || c == '\\')
      throw BadInput("usage", "--token may hold printable ASCII other than ; , \" \\ and space only");
}

struct WebServer::Impl {
  Impl(Context ctx, ServeOptions o)
      : options(std::move(o)), token(options.token.empty() ? random_token() : options.token), api(std::move(ctx)) {}

  ServeOptions options;
  std::string token;
  Api api;
  httplib::Server http;
  int port = 0;
  std::mutex idle_mu;
  std::condition_variable idle_cv;
  bool stopping = false;
  std::atomic<bool> run_returned{false};
  bool verbose = false;  // log each request to stderr

  std::string bind_host() const { return options.host == "localhost" ? "127.0.0.1" : options.host; }

  bool token_in_header(const httplib::Request& req) const {
    return token_equal(req.get_header_value(std::string(kTokenHeader)), token);
  }
  bool token_in_params(const httplib::Request& req) const {
    return req.has_param("token") && token_equal(req.get_param_value("token"), token);
  }
  bool token_in_cookie(const httplib::Request& req) const {
    auto v = cookie_value(req.get_header_value("Cookie"), kTokenCookie);
    return v && token_equal(*v, token);
  }

  void handle_api(const httplib::Request& req, httplib::Response& res) {
    // A cross-site form can make the browser send the cookie, never the header or the token itself:
    // a call that changes something must carry the token, not only the cookie (CSRF).
    const bool carried = token_in_header(req) || token_in_params(req);
    if (!carried && !(req.method != "POST" && token_in_cookie(req))) {
      const bool cookie_only = req.method == "POST" && token_in_cookie(req);
      return answer_json(res, 401,
                         error_json("unauthorized",
                                    cookie_only ? "a POST needs the token in the X-Osearch-Token header or the body, "
                                                  "not only the cookie"
                                                : "this API needs the access token: open the URL osearch serve printed, "
                                                  "or send it as ?token= or the X-Osearch-Token header"));
    }
    Params params;
    for (const auto& [k, v] : req.params)
      if (k != "token") params.emplace(k, v);
    const std::string method = req.method == "HEAD" ? "GET" : req.method;
    ApiResponse out = api.handle(method, std::string_view(req.path).substr(std::min<size_t>(req.path.size(), 5)), params);
    if (!out.allow.empty()) res.set_header("Allow", out.allow);
    answer_json(res, out.status, out.body);
  }

  void handle_page(const httplib::Request& req, httplib::Response& res) {
    const bool page = req.path == "/" || req.path == "/index.html";
    if (page && token_in_params(req)) {
      // First load from the printed URL: the cookie, then the page again without the token in the
      // address bar (nor in the history).
      res.set_header("Set-Cookie", std::string(kTokenCookie) + "=" + token + "; HttpOnly; SameSite=Strict; Path=/");
      res.set_redirect("/", 303);
      return;
    }
    if (!token_in_cookie(req) && !token_in_header(req) && !token_in_params(req)) {
      res.status = 401;
      res.set_content(kUnauthorizedPage, "text/html; charset=utf-8");
      return;
    }
    if (req.method != "GET" && req.method != "HEAD") {
      res.status = 405;
      res.set_header("Allow", "GET");
      res.set_content("method not allowed\n", "text/plain; charset=utf-8");
      return;
    }
    const StaticFile* f = find_static(req.path);
    if (!f) {
      res.status = 404;
      res.set_content("not found\n", "text/plain; charset=utf-8");
      return;
    }
    std::string body(f->body);
    // The page's scripts send the token in a header (the cookie is HttpOnly).
    if (f->path == "/index.html")
      if (size_t at = body.find(kTokenPlaceholder); at != std::string::npos) body.replace(at, kTokenPlaceholder.size(), token);
    res.status = 200;
    res.set_content(body, std::string(f->content_type));
  }

  void handle(const httplib::Request& req, httplib::Response& res) {
    set_guard_headers(res);
    if (is_api(req.path))
      handle_api(req, res);
    else
      handle_page(req, res);
  }

  // Every request: the Host header first, before the body is read (DNS rebinding).
  httplib::Server::HandlerResponse check_host(const httplib::Request& req, httplib::Response& res) {
    if (host_header_ok(req.get_header_value("Host"), options.host, port)) return httplib::Server::HandlerResponse::Unhandled;
    set_guard_headers(res);
    const std::string message = "the Host header must name this server (127.0.0.1:" + std::to_string(port) + ")";
    if (is_api(req.path))
      answer_json(res, 403, error_json("forbidden-host", message));
    else {
      res.status = 403;
      res.set_content(message + "\n", "text/plain; charset=utf-8");
    }
    return httplib::Server::HandlerResponse::Handled;
  }

  void install_routes() {
    http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) { return check_host(req, res); });
    auto h = [this](const httplib::Request& req, httplib::Response& res) { handle(req, res); };
    http.Get(".*", h);
    http.Post(".*", h);
    http.Put(".*", h);
    http.Patch(".*", h);
    http.Delete(".*", h);
    http.Options(".*", h);
    http.set_payload_max_length(1 << 20);
    http.set_keep_alive_timeout(30);
    // Headers and body go out in two writes: without this, Nagle's algorithm holds the body until the
    // client's delayed ACK (40 ms per answer on Linux).
    http.set_tcp_nodelay(true);
    http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
      set_guard_headers(res);
      answer_json(res, 500, error_json("error", "internal error"));
    });
    if (verbose)
      http.set_logger([](const httplib::Request& req, const httplib::Response& res) {
        // The path only: the query string may carry the token.
        std::fprintf(stderr, "osearch serve: %s %s %d\n", req.method.c_str(), req.path.c_str(), res.status);
      });
  }
  void housekeeping() {
    std::unique_lock lock(idle_mu);
    while (!idle_cv.wait_for(lock, std::chrono::seconds(1), [this] { return stopping; }))
      api.release_if_idle(kIdleRelease);
  }
};

WebServer::WebServer(Context ctx, ServeOptions options) {
  check_serve_options(options);
  const bool verbose = ctx.verbose;
  impl_ = std::make_unique<Impl>(std::move(ctx), std::move(options));
  impl_->verbose = verbose;
  impl_->install_routes();
}

WebServer::~WebServer() = default;

int WebServer::bind() {
  Impl& s = *impl_;
  const std::string host = s.bind_host();
  if (s.options.port == 0)
    s.port = s.http.bind_to_any_port(host);
  else
    s.port = s.http.bind_to_port(host, s.options.port) ? s.options.port : -1;
  if (s.port <= 0)
    throw std::runtime_error("cannot listen on " + host + ":" + std::to_string(s.options.port) +
                             " (in use? --port 0 takes any free port)");
  return s.port;
}

std::string WebServer::url() const {
  const std::string& h = impl_->options.host;
  const std::string host = h.find(':') != std::string::npos && h.front() != '[' ? "[" + h + "]" : h;
  return "http://" + host + ":" + std::to_string(impl_->port) + "/?token=" + impl_->token;
}

const std::string& WebServer::token() const { return impl_->token; }
Api& WebServer::api() { return impl_->api; }

void WebServer::run() {
  std::thread idle([this] { impl_->housekeeping(); });
  impl_->http.listen_after_bind();
  impl_->run_returned = true;
  {
    std::lock_guard lock(impl_->idle_mu);
    impl_->stopping = true;
  }
  impl_->idle_cv.notify_all();
  idle.join();
}

void WebServer::stop() {
  // httplib's stop() does nothing before listening started: wait for it (run() may be just starting).
  for (int i = 0; i < 5000 && !impl_->http.is_running() && !impl_->run_returned; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  impl_->http.stop();
}

bool WebServer::is_running() const { return impl_->http.is_running(); }

int run_web_server(const Context& ctx, const ServeOptions& options) {
  // SIGINT and SIGTERM are taken by one thread (sigwait), never by a handler: it stops the server,
  // which returns from run() and exits 0. Blocked before any thread starts, so all inherit the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);  // a browser gone mid-answer is a write error, not a kill
  ::signal(SIGCHLD, SIG_IGN);  // xdg-open is not waited for

  WebServer server(ctx, options);
  server.bind();
  const std::string url = server.url();
  std::printf("%s\n", url.c_str());
  std::fflush(stdout);
  if (!ctx.quiet) std::fprintf(stderr, "osearch serve: index %s; Ctrl-C stops\n", ctx.index_dir.c_str());
  if (options.open) open_in_browser(url);

  std::atomic<bool> done{false};
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    if (!done) server.stop();
  });
  server.run();
  done = true;
  // run() can also end without a signal (the listening socket failed): wake the waiter to let it go.
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  return 0;
}

}  // namespace osearch::web
