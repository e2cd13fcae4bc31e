// `osearch serve` (web/): the JSON API against the CLI's --format json for the same arguments, the
// token (query, header, cookie; never the cookie alone on a POST), the Host check, methods, bad
// input as 400/404 with the error object, and the executables: osearch-serve's URL line and its
// stop on SIGTERM, a network bind refused without --token, `osearch serve` with no osearch-serve
// beside it. The server runs in-process on port 0 over the mixed-agent fixture.
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <regex>
#include <thread>

#include "cli/options.h"
#include "tests/agents_e2e_fixture.h"
#include "web/http_server.h"

using namespace agents_e2e;

extern char** environ;

namespace {

// The sources an hour old: the quick check trusts no directory changed in the last two seconds.
void settle_sources(const std::string& root) {
  const auto past = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (const auto& e : fs::recursive_directory_iterator(root)) fs::last_write_time(e.path(), past);
  fs::last_write_time(root, past);
}

osearch::Context serve_context(const Mixed& fx) {
  osearch::GlobalOptions g;
  g.index = fx.idx;
  g.format = "json";
  const auto s = fx.sources();
  for (size_t i = 1; i < s.size(); i += 2) g.sources.push_back(s[i]);
  return osearch::resolve_context(g);
}

std::string without_timing(const std::string& json) {
  static const std::regex took("\"took_ms\":[-0-9.e+]+");
  return std::regex_replace(json, took, "\"took_ms\":0");
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

struct Served {
  Mixed fx{false};
  std::unique_ptr<osearch::web::WebServer> server;
  std::thread thread;
  int port = 0;
  std::string token;

  Served() {
    settle_sources(fx.tmp.path());
    fx.index();
    osearch::web::ServeOptions o;
    o.port = 0;
    server = std::make_unique<osearch::web::WebServer>(serve_context(fx), o);
    port = server->bind();
    token = server->token();
    thread = std::thread([this] { server->run(); });
    for (int i = 0; i < 5000 && !server->is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    REQUIRE(server->is_running());
  }
  ~Served() {
    server->stop();
    thread.join();
  }

  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(60, 0);
    return c;
  }
  httplib::Headers auth() const { return {{"X-Osearch-Token", token}}; }

  // GET with the token header: status and body.
  std::pair<int, std::string> get(const std::string& target, httplib::Headers headers = {}) const {
    auto c = client();
    if (headers.empty()) headers = auth();
    auto r = c.Get(target.c_str(), headers);
    REQUIRE(r);
    return {r->status, r->body};
  }
  std::string ok(const std::string& target) const {
    auto [status, body] = get(target);
    INFO(target << " -> " << body);
    REQUIRE(status == 200);
    return trimmed(body);
  }
  Json error(const std::string& target, int status, const std::string& kind, httplib::Headers headers = {}) const {
    auto [got, body] = get(target, headers);
    INFO(target << " -> " << got << " " << body);
    CHECK(got == status);
    Json e = parse(body)["error"];
    CHECK(e["kind"].s == kind);
    CHECK_FALSE(e["message"].s.empty());
    return e;
  }
  std::string cli(std::vector<std::string> args) const {
    RunResult r = fx.run(args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return trimmed(r.out);
  }
};

}  // namespace

TEST_CASE("serve: each API answers the CLI's --format json for the same arguments", "[serve]") {
  Served s;
  const std::vector<std::pair<std::string, std::vector<std::string>>> pairs = {
      {"/api/keyword?query=ompuserword", {"keyword", "ompuserword"}},
      {"/api/keyword?query=word&by=message&sort=newest&limit=3&agent=omp&agent=pi",
       {"keyword", "word", "--by", "message", "--sort", "newest", "--limit", "3", "--agent", "omp", "--agent", "pi"}},
      {"/api/content?pattern=omp%5Buser%5Dword&ignore-case=true", {"content", "omp[user]word", "--ignore-case"}},
      {"/api/content?pattern=PIUSERWORD&fixed-strings&ignore-case&word-regexp",
       {"content", "PIUSERWORD", "-F", "-i", "-w"}},
      {"/api/list", {"list"}},
      {"/api/list?project=omp&since=2020-01-01&include-meta=1", {"list", "--project", "omp", "--since", "2020-01-01", "--include-meta"}},
      {"/api/thread/" + kOmpId, {"thread", kOmpId}},
      {"/api/thread/" + kOmpId + "?offset=2&limit=3&max-chars=10", {"thread", kOmpId, "--offset", "2", "--limit", "3", "--max-chars", "10"}},
      {"/api/thread/" + kCodexId + "?include-meta=true", {"thread", kCodexId, "--include-meta"}},
      {"/api/context/e0000004?session=" + kOmpId, {"context", "e0000004", "--session", kOmpId}},
      {"/api/trace/e0000006", {"trace", "e0000006"}},
      {"/api/files?path=a.txt", {"files", "a.txt"}},
      {"/api/failures", {"failures"}},
      {"/api/stats/tokens?by=day&utc", {"stats", "tokens", "--by", "day", "--utc"}},
      {"/api/stats/tools", {"stats", "tools"}},
      {"/api/stats/models?agent=codex", {"stats", "models", "--agent", "codex"}},
      {"/api/stats/files", {"stats", "files"}},
      {"/api/stats/daily?utc=true", {"stats", "daily", "--utc"}},
      {"/api/overview?cwd=" + httplib::detail::encode_query_param(kOmpCwd), {"overview", "--cwd", kOmpCwd}},
      {"/api/subagents", {"subagents"}},
      {"/api/workflows", {"workflows"}},
      {"/api/memories?all", {"memory", "list", "--all"}},
  };
  for (const auto& [target, args] : pairs) {
    INFO(target);
    CHECK(without_timing(s.ok(target)) == without_timing(s.cli(args)));
  }
  // The kept reader answered them all: opened once.
  CHECK(s.server->api().reader_opens() == 1);
  Json status = parse(s.ok("/api/status"));
  CHECK(status["sessions"].i == 12);
  Json g1 = parse(s.ok("/api/generation"));
  CHECK(g1["generation"].is_num());
  CHECK(parse(s.ok("/api/generation"))["generation"].i == g1["generation"].i);
}

TEST_CASE("serve: the generation changes when a session arrives or a memory changes", "[serve]") {
  Served s;
  const int64_t before = parse(s.ok("/api/generation"))["generation"].i;
  CHECK(parse(s.ok("/api/generation"))["generation"].i == before);
  // A new transcript: the next call's lazy refresh reads it.
  copy_subtree(claude_data_dir(), "-Users-cjm-repos-ai-blame-test/2c965cfd-41e4-4e31-8339-2986ebced03c.jsonl", s.fx.claude);
  Json after_session = parse(s.ok("/api/generation"));
  CHECK(after_session["generation"].i != before);
  CHECK(after_session["sessions"].i == 13);
  // A memory remembered by another process.
  write_file(s.fx.tmp / "note.md", "# Note\n");
  s.cli({"memory", "remember", "--path", s.fx.tmp / "note.md", "--summary", "a note"});
  CHECK(parse(s.ok("/api/generation"))["generation"].i != after_session["generation"].i);
}

TEST_CASE("serve: every API call and page needs the token; the cookie is set by the first page load", "[serve]") {
  Served s;
  s.error("/api/list", 401, "unauthorized", {{"X-Nothing", "1"}});
  s.error("/api/list", 401, "unauthorized", {{"X-Osearch-Token", s.token + "0"}});
  s.error("/api/list", 401, "unauthorized", {{"X-Osearch-Token", ""}});
  s.error("/api/list?token=" + std::string(64, 'a'), 401, "unauthorized", {{"X-Nothing", "1"}});
  CHECK(s.get("/api/list?token=" + s.token, {{"X-Nothing", "1"}}).first == 200);
  CHECK(s.get("/api/list", {{"Cookie", "a=b; osearch_token=" + s.token}}).first == 200);
  CHECK(s.get("/api/list", {{"Cookie", "osearch_token=" + std::string(64, '0')}}).first == 401);

  auto c = s.client();
  auto page = c.Get("/");
  REQUIRE(page);
  CHECK(page->status == 401);
  CHECK(page->get_header_value("Content-Type").rfind("text/html", 0) == 0);
  CHECK(page->body.find("printed") != std::string::npos);
  CHECK(c.Get("/app.js")->status == 401);

  auto first = c.Get(("/?token=" + s.token).c_str());
  REQUIRE(first);
  CHECK(first->status == 303);
  CHECK(first->get_header_value("Location") == "/");
  const std::string cookie = first->get_header_value("Set-Cookie");
  CHECK(cookie == "osearch_token=" + s.token + "; HttpOnly; SameSite=Strict; Path=/");

  const httplib::Headers with_cookie = {{"Cookie", "osearch_token=" + s.token}};
  auto index = c.Get("/", with_cookie);
  REQUIRE(index);
  CHECK(index->status == 200);
  CHECK(index->get_header_value("Content-Type") == "text/html; charset=utf-8");
  CHECK(index->body.find("content=\"" + s.token + "\"") != std::string::npos);  // for the scripts' header
  CHECK(index->body.find("<script>") == std::string::npos);                      // no inline script
  for (const auto& [path, type] : std::vector<std::pair<std::string, std::string>>{
           {"/app.js", "text/javascript; charset=utf-8"}, {"/app.css", "text/css; charset=utf-8"},
           {"/thread.js", "text/javascript; charset=utf-8"}}) {
    auto r = c.Get(path.c_str(), with_cookie);
    REQUIRE(r);
    CHECK(r->status == 200);
    CHECK(r->get_header_value("Content-Type") == type);
    CHECK_FALSE(r->body.empty());
  }
  CHECK(c.Get("/nope.js", with_cookie)->status == 404);
  // The guard headers, and no CORS at all.
  auto api = c.Get("/api/list", s.auth());
  REQUIRE(api);
  CHECK(api->get_header_value("X-Content-Type-Options") == "nosniff");
  CHECK(api->get_header_value("Referrer-Policy") == "no-referrer");
  CHECK(api->get_header_value("Cache-Control") == "no-store");
  CHECK(api->get_header_value("Content-Security-Policy").find("default-src 'none'") != std::string::npos);
  CHECK(api->get_header_value("Content-Type") == "application/json; charset=utf-8");
  for (const auto& h : api->headers) CHECK(h.first.rfind("Access-Control-", 0) != 0);
  auto preflight = c.Options("/api/list", {{"Origin", "http://evil.example"}, {"X-Osearch-Token", s.token}});
  REQUIRE(preflight);
  CHECK(preflight->status == 405);
  CHECK_FALSE(preflight->has_header("Access-Control-Allow-Origin"));
}

TEST_CASE("serve: a Host header other than this server's is refused (DNS rebinding)", "[serve]") {
  Served s;
  const std::string port = std::to_string(s.port);
  for (const std::string& host : std::vector<std::string>{"evil.example:" + port, "127.0.0.1:1", "127.0.0.1", "localhost.evil:" + port}) {
    INFO(host);
    s.error("/api/list", 403, "forbidden-host", {{"Host", host}, {"X-Osearch-Token", s.token}});
    auto c = s.client();
    CHECK(c.Get(("/?token=" + s.token).c_str(), {{"Host", host}})->status == 403);
  }
  for (const std::string& host : std::vector<std::string>{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port, "[::1]:" + port})
    CHECK(s.get("/api/list", {{"Host", host}, {"X-Osearch-Token", s.token}}).first == 200);
}

TEST_CASE("serve: forget and restore only by POST carrying the token", "[serve]") {
  Served s;
  write_file(s.fx.tmp / "note.md", "# Build\n\n- run `make`\n");
  Json remembered = parse(s.cli({"memory", "remember", "--path", s.fx.tmp / "note.md", "--summary", "how to build"}));
  const std::string id = remembered["id"].s;
  auto c = s.client();

  s.error("/api/memories/" + id + "/forget?reason=x", 405, "method-not-allowed");
  CHECK(c.Get(("/api/memories/" + id + "/forget").c_str(), s.auth())->get_header_value("Allow") == "POST");
  // The cookie alone (what a cross-site form would send) is not enough.
  auto cookie_only = c.Post(("/api/memories/" + id + "/forget").c_str(), {{"Cookie", "osearch_token=" + s.token}},
                            "reason=x", "application/x-www-form-urlencoded");
  REQUIRE(cookie_only);
  CHECK(cookie_only->status == 401);
  CHECK(parse(cookie_only->body)["error"]["kind"].s == "unauthorized");
  CHECK(parse(s.ok("/api/memories"))["total"].i == 1);

  auto no_reason = c.Post(("/api/memories/" + id + "/forget").c_str(), s.auth(), "", "application/x-www-form-urlencoded");
  CHECK(no_reason->status == 400);

  auto forget = c.Post(("/api/memories/" + id + "/forget").c_str(), s.auth(), "reason=outdated",
                       "application/x-www-form-urlencoded");
  REQUIRE(forget);
  INFO(forget->body);
  CHECK(forget->status == 200);
  Json f = parse(forget->body);
  CHECK(f["action"].s == "memory_forget");
  CHECK(f["deleted_reason"].s == "outdated");
  CHECK(parse(s.ok("/api/memories"))["total"].i == 0);
  CHECK(parse(s.ok("/api/memories?all=true"))["total"].i == 1);

  // The token in the body of a form POST is accepted too.
  auto restore = c.Post(("/api/memories/" + id + "/restore").c_str(), "token=" + s.token, "application/x-www-form-urlencoded");
  REQUIRE(restore);
  CHECK(restore->status == 200);
  CHECK(parse(restore->body)["action"].s == "memory_restore");
  CHECK(parse(s.ok("/api/memories"))["total"].i == 1);
  Json shown = parse(s.ok("/api/memories/" + id));
  CHECK(shown["text"].s == "# Build\n\n- run `make`\n");
  auto unknown = c.Post("/api/memories/m000000000000000000/restore", s.auth(), "", "application/x-www-form-urlencoded");
  CHECK(unknown->status == 404);
  CHECK(parse(unknown->body)["error"]["kind"].s == "unknown-memory");
}

TEST_CASE("serve: bad input is 400 with the CLI's error object, what is not found 404", "[serve]") {
  Served s;
  s.error("/api/content?pattern=(unclosed", 400, "bad-regex");
  s.error("/api/list?since=notatime", 400, "bad-time");
  Json unknown = s.error("/api/list?sinse=1d&colour=red", 400, "usage");
  CHECK(unknown["message"].s.find("sinse") != std::string::npos);
  CHECK(unknown["message"].s.find("colour") != std::string::npos);
  s.error("/api/keyword?query=a&query=b", 400, "usage");
  s.error("/api/keyword", 400, "usage");
  s.error("/api/keyword?query=", 400, "usage");
  s.error("/api/keyword?query=x&by=day", 400, "usage");
  s.error("/api/list?limit=-5", 400, "usage");
  s.error("/api/list?include-meta=maybe", 400, "usage");
  s.error("/api/content?pattern=x&timeout=0", 400, "usage");
  s.error("/api/stats/colours", 400, "usage");
  s.error("/api/thread/ffffffff-no-such-session", 404, "unknown-session");
  s.error("/api/context/no-such-uuid", 404, "unknown-message");
  s.error("/api/nothing-here", 404, "not-found");
  s.error("/api/list/extra", 404, "not-found");
  // The CLI's exit 2 for the same input gives the same error object.
  RunResult cli = s.fx.run({"list", "--since", "notatime"});
  CHECK(cli.exit_code == 2);
  CHECK(trimmed(cli.err) == trimmed(s.get("/api/list?since=notatime").second));
  auto c = s.client();
  auto post = c.Post("/api/list", s.auth(), "", "application/x-www-form-urlencoded");
  CHECK(post->status == 405);
  CHECK(post->get_header_value("Allow") == "GET");
  // Still serving after all of these.
  CHECK(parse(s.ok("/api/list"))["total"].i == 12);
}

TEST_CASE("serve: a damaged index is 500 with the error object", "[serve]") {
  Served s;
  s.server->api().release_if_idle(std::chrono::seconds(0));  // no reader kept open
  fs::remove(s.fx.idx + "/text.log");
  auto [status, body] = s.get("/api/keyword?query=ompuserword");
  INFO(body);
  CHECK(status == 500);
  CHECK(parse(body)["error"]["kind"].s == "index-damaged");
}

namespace {

// Starts osearch-serve with a pipe on stdout; returns its pid and the read end.
std::pair<pid_t, int> spawn_serve(const std::vector<std::string>& args) {
  int out[2];
  REQUIRE(::pipe(out) == 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  std::vector<std::string> argv_s = {OSEARCH_SERVE_BINARY};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, OSEARCH_SERVE_BINARY, &fa, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&fa);
  ::close(out[1]);
  return {pid, out[0]};
}

std::string read_line(int fd) {
  std::string line;
  char c;
  while (::read(fd, &c, 1) == 1 && c != '\n') line += c;
  return line;
}

}  // namespace

TEST_CASE("serve: osearch-serve prints the URL first and exits 0 on SIGTERM", "[serve]") {
  Mixed fx;
  std::vector<std::string> args = {"--port", "0", "--index", fx.idx};
  for (auto& a : fx.sources()) args.push_back(a);
  auto [pid, fd] = spawn_serve(args);
  const std::string url = read_line(fd);
  ::close(fd);
  std::smatch m;
  REQUIRE(std::regex_match(url, m, std::regex(R"(http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{64}))")));
  httplib::Client c("127.0.0.1", std::stoi(m[1]));
  auto r = c.Get("/api/list", {{"X-Osearch-Token", m[2].str()}});
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(parse(r->body)["total"].i == 12);
  ::kill(pid, SIGTERM);
  ChildStatus st = wait_child(pid, std::chrono::seconds(30));
  CHECK(st.exited);
  CHECK(st.exit_code == 0);
}

TEST_CASE("serve: a bind beyond loopback needs --token; `osearch serve` execs osearch-serve beside it", "[serve]") {
  TempDir tmp("serve");
  RunOptions serve_bin;
  serve_bin.binary = OSEARCH_SERVE_BINARY;
  serve_bin.timeout = std::chrono::seconds(30);
  RunResult refused = run_osearch({"--host", "0.0.0.0", "--format", "json", "--index", tmp / "idx"}, "", serve_bin);
  CHECK(refused.exit_code == 2);
  CHECK(parse(refused.err)["error"]["kind"].s == "usage");
  CHECK(refused.out.empty());
  RunResult short_token = run_osearch({"--host", "0.0.0.0", "--token", "short", "--format", "json"}, "", serve_bin);
  CHECK(short_token.exit_code == 2);
  RunResult bad_port = run_osearch({"--port", "70000", "--format", "json"}, "", serve_bin);
  CHECK(bad_port.exit_code == 2);

  // Through osearch: the same refusal proves the exec reached osearch-serve.
  RunResult via = run_osearch({"--format", "json", "--index", tmp / "idx", "serve", "--host", "0.0.0.0"});
  CHECK(via.exit_code == 2);
  CHECK(parse(via.err)["error"]["message"].s.find("--token") != std::string::npos);
  RunResult help = run_osearch({"serve", "--help"});
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("--port") != std::string::npos);
  CHECK(help.out.find("--token") != std::string::npos);
  CHECK(run_osearch({"--help"}).out.find("serve") != std::string::npos);

  // An osearch with no osearch-serve beside it: exit 1 naming the path it looked for.
  const std::string lonely = tmp / "bin";
  fs::create_directories(lonely);
  fs::copy_file(osearch_binary(), lonely + "/osearch");
  RunOptions alone;
  alone.binary = lonely + "/osearch";
  RunResult missing = run_osearch({"serve", "--format", "json"}, "", alone);
  CHECK(missing.exit_code == 1);
  Json e = parse(missing.err)["error"];
  CHECK(e["kind"].s == "error");
  CHECK(e["message"].s.find(lonely + "/osearch-serve") != std::string::npos);
}
