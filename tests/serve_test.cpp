// `osearch serve` (web/): the JSON API against the CLI's --format json for the same arguments, the
// token (query, header, cookie; never the cookie alone on a POST), the Host check, methods, bad
// input as 400/404 with the error object, and the executables: osearch-serve's URL line and its
// stop on SIGTERM, a network bind refused without --token, `osearch serve` with no osearch-serve
// beside it. The built osearch-serve runs as a child over the mixed-agent fixture and is spoken to
// over a plain socket (this binary does not link the HTTP library, nor its TLS libraries); the API
// layer (web/api.h) is also called in-process.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <regex>

#include "cli/options.h"
#include "tests/agents_e2e_fixture.h"
#include "tests/json_scrub.h"
#include "web/api.h"

using namespace agents_e2e;

extern char** environ;

namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string url_encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
    else out += {'%', kHex[c >> 4], kHex[c & 15]};
  }
  return out;
}

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Answer {
  int status = 0;
  Headers headers;
  std::string body;
  std::string header(std::string_view name) const {
    for (const auto& [k, v] : headers)
      if (k.size() == name.size() && std::equal(k.begin(), k.end(), name.begin(), [](char a, char b) {
            return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
          }))
        return v;
    return "";
  }
  bool has(std::string_view name) const {
    for (const auto& [k, v] : headers)
      if (k.size() == name.size() && strncasecmp(k.c_str(), std::string(name).c_str(), k.size()) == 0) return true;
    return false;
  }
};

// One HTTP/1.1 request on its own connection (Connection: close): enough of a client for these tests.
// A Host header is sent unless `headers` has one.
Answer http(int port, const std::string& method, const std::string& target, const Headers& headers = {},
            const std::string& body = "") {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  std::string req = method + " " + target + " HTTP/1.1\r\n";
  bool host = false;
  for (const auto& [k, v] : headers) {
    req += k + ": " + v + "\r\n";
    host = host || strcasecmp(k.c_str(), "Host") == 0;
  }
  if (!host) req += "Host: 127.0.0.1:" + std::to_string(port) + "\r\n";
  req += "Connection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  for (size_t sent = 0; sent < req.size();) {
    const ssize_t n = ::send(fd, req.data() + sent, req.size() - sent, MSG_NOSIGNAL);
    REQUIRE(n > 0);
    sent += static_cast<size_t>(n);
  }
  std::string raw;
  char buf[65536];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) raw.append(buf, static_cast<size_t>(n));
  ::close(fd);
  Answer a;
  const size_t end = raw.find("\r\n\r\n");
  REQUIRE(end != std::string::npos);
  std::istringstream head(raw.substr(0, end));
  std::string line;
  std::getline(head, line);
  REQUIRE(line.rfind("HTTP/1.1 ", 0) == 0);
  a.status = std::stoi(line.substr(9, 3));
  while (std::getline(head, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    a.headers.emplace_back(line.substr(0, colon), line.substr(line.find_first_not_of(' ', colon + 1)));
  }
  a.body = raw.substr(end + 4);
  return a;
}

// Starts osearch-serve with a pipe on stdout; returns its pid and the read end.
std::pair<pid_t, int> spawn_serve(const std::vector<std::string>& args) {
  int out[2];
  REQUIRE(::pipe2(out, O_CLOEXEC) == 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
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

// osearch-serve on the fixture's index, port 0: its port and token from the URL line.
struct Served {
  Mixed fx{false};
  pid_t pid = -1;
  int port = 0;
  std::string token;

  explicit Served(bool index_first = true) {
    fx.settle();
    if (index_first) fx.index();
  }
  void start() {
    std::vector<std::string> args = {"--port", "0", "--index", fx.idx, "--format", "json", "-q"};
    for (const auto& a : fx.sources()) args.push_back(a);
    auto [child, fd] = spawn_serve(args);
    pid = child;
    const std::string url = read_line(fd);
    ::close(fd);
    std::smatch m;
    INFO("first line: " << url);
    REQUIRE(std::regex_match(url, m, std::regex(R"(http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{64}))")));
    port = std::stoi(m[1]);
    token = m[2];
  }
  ~Served() {
    if (pid <= 0) return;
    ::kill(pid, SIGTERM);
    ChildStatus st = wait_child(pid, std::chrono::seconds(30));
    CHECK(st.exited);
    CHECK(st.exit_code == 0);
  }
  Headers auth() const { return {{"X-Osearch-Token", token}}; }

  Answer get(const std::string& target, const Headers& headers) const { return http(port, "GET", target, headers); }
  Answer get(const std::string& target) const { return http(port, "GET", target, auth()); }
  Answer post(const std::string& target, const Headers& headers, const std::string& body) const {
    Headers h = headers;
    h.emplace_back("Content-Type", "application/x-www-form-urlencoded");
    return http(port, "POST", target, h, body);
  }
  std::string ok(const std::string& target) const {
    Answer a = get(target);
    INFO(target << " -> " << a.body);
    REQUIRE(a.status == 200);
    return trimmed(a.body);
  }
  Json error(const std::string& target, int status, const std::string& kind) const { return error(target, status, kind, auth()); }
  Json error(const std::string& target, int status, const std::string& kind, const Headers& headers) const {
    Answer a = get(target, headers);
    INFO(target << " -> " << a.status << " " << a.body);
    CHECK(a.status == status);
    CHECK(a.header("Content-Type") == "application/json; charset=utf-8");
    Json e = parse(a.body)["error"];
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

TEST_CASE("serve: the API layer keeps one reader across calls and routes by method", "[serve]") {
  Mixed fx(false);
  fx.settle();
  fx.index();
  osearch::web::Api api(fx.context());
  auto call = [&](std::string_view method, std::string_view path, osearch::web::Params p = {}) {
    return api.handle(method, path, p);
  };
  CHECK(call("GET", "keyword", {{"query", "ompuserword"}}).status == 200);
  CHECK(call("GET", "list").status == 200);
  CHECK(call("GET", "thread/" + kOmpId).status == 200);
  CHECK(call("GET", "stats/tokens", {{"by", "day"}}).status == 200);
  CHECK(call("GET", "generation").status == 200);
  CHECK(api.reader_opens() == 1);  // refreshed lazily each time, reopened never
  auto forget = call("GET", "memories/m1/forget");
  CHECK(forget.status == 405);
  CHECK(forget.allow == "POST");
  CHECK(call("POST", "list").allow == "GET");
  CHECK(call("GET", "thread").status == 404);
  CHECK(call("GET", "stats").status == 404);
  CHECK(call("GET", "keyword/x").status == 404);
  CHECK(call("GET", "thread/" + kOmpId, {{"limit", "2"}, {"limit", "3"}}).status == 400);
  api.release_if_idle(std::chrono::seconds(0));
  CHECK(call("GET", "list").status == 200);
  CHECK(api.reader_opens() == 2);
}

TEST_CASE("serve: a refresh's warning of a root that lists nothing reaches the next answer, once", "[serve]") {
  // The HOME-for-projects mistake (engine/index/emptied_roots.h): the server's stderr is not the
  // page, which would show every session archived without a word.
  const EmptiedHome fx("serve-emptied");
  osearch::web::Api api(fx.context());
  // The poll refreshes first: its answer carries the warning, before its own members.
  const auto poll = api.handle("GET", "generation", {});
  REQUIRE(poll.status == 200);
  INFO(poll.body);
  Json first = parse(poll.body);
  REQUIRE(first.has("warnings"));
  CHECK(first.keys().front() == "warnings");
  REQUIRE(first["warnings"].a.size() == 1);
  CHECK(first["warnings"][0].s.find(fx.warning()) == 0);
  CHECK(first["sessions"].i == 1);
  // Said once: the next answers are the CLI's alone, and they show the session archived.
  const auto list = api.handle("GET", "list", {});
  REQUIRE(list.status == 200);
  Json answer = parse(list.body);
  CHECK_FALSE(answer.has("warnings"));
  REQUIRE(answer["results"].a.size() == 1);
  CHECK(answer["results"][0]["source_deleted"].b);
  CHECK_FALSE(parse(api.handle("GET", "generation", {}).body).has("warnings"));
}

TEST_CASE("serve: each API answers the CLI's --format json for the same arguments", "[serve]") {
  Served s;
  s.start();
  const std::vector<std::pair<std::string, std::vector<std::string>>> pairs = {
      {"/api/keyword?query=ompuserword", {"keyword", "ompuserword"}},
      {"/api/keyword?query=word&by=message&sort=newest&limit=3&agent=omp&agent=pi",
       {"keyword", "word", "--by", "message", "--sort", "newest", "--limit", "3", "--agent", "omp", "--agent", "pi"}},
      {"/api/content?pattern=omp%5Buser%5Dword&ignore-case=true", {"content", "omp[user]word", "--ignore-case"}},
      {"/api/content?pattern=PIUSERWORD&fixed-strings&ignore-case&word-regexp",
       {"content", "PIUSERWORD", "-F", "-i", "-w"}},
      {"/api/list", {"list"}},
      {"/api/list?project=omp&since=2020-01-01&include-meta=1",
       {"list", "--project", "omp", "--since", "2020-01-01", "--include-meta"}},
      {"/api/thread/" + kOmpId, {"thread", kOmpId}},
      {"/api/thread/" + kOmpId + "?offset=2&limit=3&max-chars=10",
       {"thread", kOmpId, "--offset", "2", "--limit", "3", "--max-chars", "10"}},
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
      {"/api/overview?cwd=" + url_encode(kOmpCwd), {"overview", "--cwd", kOmpCwd}},
      {"/api/subagents", {"subagents"}},
      {"/api/workflows", {"workflows"}},
      {"/api/memories?all", {"memory", "list", "--all"}},
  };
  for (const auto& [target, args] : pairs) {
    INFO(target);
    CHECK(without_timing(s.ok(target)) == without_timing(s.cli(args)));
  }
  Json status = parse(s.ok("/api/status"));
  CHECK(status["sessions"].i == 12);
  Json g1 = parse(s.ok("/api/generation"));
  CHECK(g1["generation"].is_num());
  CHECK(parse(s.ok("/api/generation"))["generation"].i == g1["generation"].i);
}

TEST_CASE("serve: the generation changes when a session arrives or a memory changes", "[serve]") {
  Served s;
  s.start();
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

TEST_CASE("serve: every API call and page needs the token, made a cookie by the first page load", "[serve]") {
  Served s;
  s.start();
  s.error("/api/list", 401, "unauthorized", {});
  s.error("/api/list", 401, "unauthorized", {{"X-Osearch-Token", s.token + "0"}});
  s.error("/api/list", 401, "unauthorized", {{"X-Osearch-Token", s.token.substr(1)}});
  s.error("/api/list?token=" + std::string(64, 'a'), 401, "unauthorized", {});
  CHECK(s.get("/api/list?token=" + s.token, {}).status == 200);
  CHECK(s.get("/api/list", {{"Cookie", "a=b; osearch_token=" + s.token}}).status == 200);
  CHECK(s.get("/api/list", {{"Cookie", "osearch_token=" + std::string(64, '0')}}).status == 401);

  Answer page = s.get("/", {});
  CHECK(page.status == 401);
  CHECK(page.header("Content-Type").rfind("text/html", 0) == 0);
  CHECK(page.body.find("printed") != std::string::npos);
  CHECK(s.get("/app.js", {}).status == 401);

  Answer first = s.get("/?token=" + s.token, {});
  CHECK(first.status == 303);
  CHECK(first.header("Location") == "/");
  CHECK(first.header("Set-Cookie") == "osearch_token=" + s.token + "; HttpOnly; SameSite=Strict; Path=/");

  const Headers with_cookie = {{"Cookie", "osearch_token=" + s.token}};
  Answer index = s.get("/", with_cookie);
  CHECK(index.status == 200);
  CHECK(index.header("Content-Type") == "text/html; charset=utf-8");
  CHECK(index.body.find("content=\"" + s.token + "\"") != std::string::npos);  // for the scripts' header
  CHECK(index.body.find("<script>") == std::string::npos);                      // no inline script
  for (const auto& [path, type] : std::vector<std::pair<std::string, std::string>>{
           {"/app.js", "text/javascript; charset=utf-8"},
           {"/app.css", "text/css; charset=utf-8"},
           {"/thread.js", "text/javascript; charset=utf-8"}}) {
    Answer r = s.get(path, with_cookie);
    CHECK(r.status == 200);
    CHECK(r.header("Content-Type") == type);
    CHECK_FALSE(r.body.empty());
  }
  CHECK(s.get("/nope.js", with_cookie).status == 404);
  // The guard headers, and no CORS at all.
  Answer api = s.get("/api/list");
  CHECK(api.header("X-Content-Type-Options") == "nosniff");
  CHECK(api.header("Referrer-Policy") == "no-referrer");
  CHECK(api.header("Cache-Control") == "no-store");
  CHECK(api.header("Content-Security-Policy").find("default-src 'none'") != std::string::npos);
  CHECK(api.header("Content-Type") == "application/json; charset=utf-8");
  for (const auto& h : api.headers) CHECK(h.first.rfind("Access-Control-", 0) != 0);
  Answer preflight = http(s.port, "OPTIONS", "/api/list", {{"Origin", "http://evil.example"}, {"X-Osearch-Token", s.token}});
  CHECK(preflight.status == 405);
  CHECK_FALSE(preflight.has("Access-Control-Allow-Origin"));
}

TEST_CASE("serve: a Host header other than this server's is refused (DNS rebinding)", "[serve]") {
  Served s;
  s.start();
  const std::string port = std::to_string(s.port);
  for (const std::string& host :
       std::vector<std::string>{"evil.example:" + port, "127.0.0.1:1", "127.0.0.1", "localhost.evil:" + port}) {
    INFO(host);
    s.error("/api/list", 403, "forbidden-host", {{"Host", host}, {"X-Osearch-Token", s.token}});
    CHECK(s.get("/?token=" + s.token, {{"Host", host}}).status == 403);
  }
  for (const std::string& host :
       std::vector<std::string>{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port, "[::1]:" + port})
    CHECK(s.get("/api/list", {{"Host", host}, {"X-Osearch-Token", s.token}}).status == 200);
}

TEST_CASE("serve: forget and restore only by POST carrying the token", "[serve]") {
  Served s;
  write_file(s.fx.tmp / "note.md", "# Build\n\n- run `make`\n");
  Json remembered = parse(s.cli({"memory", "remember", "--path", s.fx.tmp / "note.md", "--summary", "how to build"}));
  const std::string id = remembered["id"].s;
  s.start();

  s.error("/api/memories/" + id + "/forget?reason=x", 405, "method-not-allowed");
  CHECK(s.get("/api/memories/" + id + "/forget").header("Allow") == "POST");
  // The cookie alone (what a cross-site form would send) is not enough.
  Answer cookie_only = s.post("/api/memories/" + id + "/forget", {{"Cookie", "osearch_token=" + s.token}}, "reason=x");
  CHECK(cookie_only.status == 401);
  CHECK(parse(cookie_only.body)["error"]["kind"].s == "unauthorized");
  CHECK(parse(s.ok("/api/memories"))["total"].i == 1);

  CHECK(s.post("/api/memories/" + id + "/forget", s.auth(), "").status == 400);  // --reason is required

  Answer forget = s.post("/api/memories/" + id + "/forget", s.auth(), "reason=outdated");
  INFO(forget.body);
  CHECK(forget.status == 200);
  Json f = parse(forget.body);
  CHECK(f["action"].s == "memory_forget");
  CHECK(f["deleted_reason"].s == "outdated");
  CHECK(parse(s.ok("/api/memories"))["total"].i == 0);
  CHECK(parse(s.ok("/api/memories?all=true"))["total"].i == 1);

  // The token in the body of a form POST is accepted too.
  Answer restore = s.post("/api/memories/" + id + "/restore", {}, "token=" + s.token);
  CHECK(restore.status == 200);
  CHECK(parse(restore.body)["action"].s == "memory_restore");
  CHECK(parse(s.ok("/api/memories"))["total"].i == 1);
  Json shown = parse(s.ok("/api/memories/" + id));
  CHECK(shown["text"].s == "# Build\n\n- run `make`\n");
  Answer unknown = s.post("/api/memories/m000000000000000000/restore", s.auth(), "");
  CHECK(unknown.status == 404);
  CHECK(parse(unknown.body)["error"]["kind"].s == "unknown-memory");
}

TEST_CASE("serve: bad input is 400 with the CLI's error object, what is not found 404", "[serve]") {
  Served s;
  s.start();
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
  CHECK(trimmed(cli.err) == trimmed(s.get("/api/list?since=notatime").body));
  Answer post = s.post("/api/list", s.auth(), "");
  CHECK(post.status == 405);
  CHECK(post.header("Allow") == "GET");
  // Still serving after all of these.
  CHECK(parse(s.ok("/api/list"))["total"].i == 12);
}

TEST_CASE("serve: a damaged index is 500 with the error object", "[serve]") {
  Served s;
  fs::remove(s.fx.idx + "/text.log");
  s.start();
  Answer a = s.get("/api/keyword?query=ompuserword");
  INFO(a.body);
  CHECK(a.status == 500);
  CHECK(parse(a.body)["error"]["kind"].s == "index-damaged");
  CHECK(s.get("/api/status").status == 500);
}

TEST_CASE("serve: a bind beyond loopback needs --token, and `osearch serve` execs osearch-serve beside it", "[serve]") {
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
