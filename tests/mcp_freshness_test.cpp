// A long-lived frontend's freshness (mcp/reader_cache, engine/index/source_gate): once a full check
// has found the sources as recorded, a call stats only the files inotify reported changed (none
// when nothing was written) and reads just those, and every answer is still what a refresh would
// give. The server runs in-process on the mixed-agent fixture (Claude, omp, pi, Codex); the last
// test counts the built binary's stat calls with strace.
#include <sys/stat.h>

#include "tests/json_scrub.h"
#include "tests/mcp_fixture.h"

namespace {

std::string omp_line(const std::string& id, const std::string& text) {
  return R"({"type":"message","id":")" + id +
         R"(","parentId":null,"timestamp":"2026-11-01T11:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":")" +
         text + R"("}],"timestamp":1793530800000}})" + "\n";
}
std::string pi_line(const std::string& id, const std::string& text) {
  return R"({"type":"message","id":")" + id +
         R"(","parentId":null,"timestamp":"2026-11-02T11:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":")" +
         text + R"("}],"timestamp":1}})" + "\n";
}
std::string codex_line(const std::string& text) {
  return R"({"timestamp":"2026-11-03T11:00:00.000Z","type":"event_msg","payload":{"type":"user_message","message":")" +
         text + R"("}})" + "\n";
}
std::string claude_line(const std::string& sid, const std::string& uuid, const std::string& text) {
  return R"({"type":"user","uuid":")" + uuid + R"(","parentUuid":null,"sessionId":")" + sid +
         R"(","timestamp":"2026-11-05T10:00:00.000Z","cwd":"/tmp","message":{"role":"user","content":")" + text +
         R"("}})" + "\n";
}

struct Gated {
  McpFixture m;
  osearch::mcp::ReaderCache& readers = m.server.readers();

  Json keyword(const std::string& word) { return parse(m.ok("search_keyword", R"({"query":")" + word + "\"}")); }
  // Found once, in `session`.
  void found(const std::string& word, const std::string& session) {
    INFO(word);
    const Json j = keyword(word);
    REQUIRE(j["total"].i == 1);
    CHECK(j["results"][0]["session_id"].s == session);
  }
  // Two calls on an unchanged tree: the reader's refresh, then the full check that earns trust.
  void earn_trust() {
    m.ok("list_sessions", "{}");
    m.ok("list_sessions", "{}");
  }
};

}  // namespace

TEST_CASE("mcp freshness: a kept reader stats only the files inotify names, and misses nothing", "[mcp][watch]") {
  Gated g;
  g.earn_trust();
  uint64_t full = g.readers.full_checks();
  const uint64_t opens = g.readers.opens();
  for (int i = 0; i < 3; ++i) g.m.ok("list_sessions", "{}");
  CHECK(g.readers.full_checks() == full);  // nothing written: no stat walk
  CHECK(g.readers.opens() == opens);       // and the same reader
  // A reader closed after a write or an error: the one opened next holds the same record, still trusted.
  g.readers.drop();
  g.m.ok("list_sessions", "{}");
  CHECK(g.readers.full_checks() == full);
  CHECK(g.readers.opens() == opens + 1);
  // An idle server lets its watches go as well: the next call checks in full, then trusts again.
  g.readers.idle();
  append_file(g.m.fx.omp_path(), omp_line("gz000000", "gateidleword"));
  g.found("gateidleword", kOmpId);
  CHECK(g.readers.full_checks() == full + 1);
  g.m.ok("list_sessions", "{}");
  CHECK(g.readers.full_checks() == full + 1);
  full = g.readers.full_checks();

  // Each agent's transcript grows: read by the call itself, without a full check.
  append_file(g.m.fx.omp_path(), omp_line("gz000001", "gateompword"));
  const Json omp = g.keyword("gateompword");
  CHECK(omp["total"].i == 1);
  CHECK(omp["index"]["refreshed_files"].i == 1);
  append_file(g.m.fx.pi_path(), pi_line("gz000002", "gatepiword"));
  g.found("gatepiword", kPiId);
  append_file(g.m.fx.codex_path(), codex_line("gatecodexword"));
  g.found("gatecodexword", kCodexId);
  append_file(g.m.fx.claude + "/" + kClaudeRel, claude_line(kClaudeId, "gate-u1", "gateclaudeword"));
  g.found("gateclaudeword", kClaudeId);
  // Two at once.
  append_file(g.m.fx.omp_path(), omp_line("gz000003", "gatetwoompword"));
  append_file(g.m.fx.pi_path(), pi_line("gz000004", "gatetwopiword"));
  CHECK(g.keyword("gatetwopiword")["index"]["refreshed_files"].i == 2);
  g.found("gatetwoompword", kOmpId);
  // A half-written line waits for its end, as with any refresh.
  const std::string half = pi_line("gz000005", "gatehalfword");
  append_file(g.m.fx.pi_path(), half.substr(0, half.size() / 2));
  CHECK(g.keyword("gatehalfword")["total"].i == 0);
  append_file(g.m.fx.pi_path(), half.substr(half.size() / 2));
  g.found("gatehalfword", kPiId);
  // Attributes alone (a chmod): the file is stat'ed, found unchanged, nothing read.
  REQUIRE(::chmod(g.m.fx.omp_path().c_str(), 0640) == 0);
  CHECK(g.keyword("gateompword")["index"]["refreshed_files"].i == 0);
  CHECK(g.readers.full_checks() == full);
  const uint64_t opens_before_layout = g.readers.opens();

  // A new session file in a known directory: the layout moved, the full path finds it.
  const std::string new_id = "aaaaaaaa-0000-4000-8000-00000000f0a1";
  write_file(g.m.fx.claude + "/sample-project/" + new_id + ".jsonl", claude_line(new_id, "gate-n1", "gatenewword"));
  g.found("gatenewword", new_id);
  CHECK(g.readers.full_checks() > full);
  CHECK(g.readers.opens() > opens_before_layout);

  // Trust is earned again, then a transcript is removed: the archive keeps its session.
  g.m.fx.settle();
  g.earn_trust();
  const uint64_t full2 = g.readers.full_checks();
  g.m.ok("list_sessions", "{}");
  CHECK(g.readers.full_checks() == full2);
  const std::string pi_text = read_file(g.m.fx.pi_path());
  fs::remove(g.m.fx.pi_path());
  const Json gone = g.keyword("gatepiword");
  REQUIRE(gone["total"].i == 1);
  CHECK(gone["results"][0]["source_deleted"].b);
  CHECK(g.readers.full_checks() > full2);

  // Another process commits: the kept snapshot is left, and the gate trusts nothing it did not check.
  g.m.fx.settle();
  g.earn_trust();
  append_file(g.m.fx.omp_path(), omp_line("gz000006", "gateotherword"));
  g.m.fx.index();
  const uint64_t full3 = g.readers.full_checks();
  g.found("gateotherword", kOmpId);
  CHECK(g.readers.full_checks() == full3 + 1);

  // What the server answers is what a fresh build of the same sources answers (the removed
  // transcript back, which a fresh build could not know of otherwise).
  write_file(g.m.fx.pi_path(), pi_text);
  g.found("gatepiword", kPiId);
  g.m.fx.settle();
  g.earn_trust();
  append_file(g.m.fx.codex_path(), codex_line("gatelastword"));
  g.found("gatelastword", kCodexId);
  const std::string served = without_timing(g.m.ok("list_sessions", R"({"limit":50})"));
  const std::string fresh_idx = g.m.fx.tmp / "fresh";
  std::vector<std::string> build{"index", "--full", "--index", fresh_idx, "--format", "json"};
  std::vector<std::string> list{"--no-refresh", "list", "--limit", "50", "--index", fresh_idx, "--format", "json"};
  for (const auto& s : g.m.fx.sources()) {
    build.push_back(s);
    list.push_back(s);
  }
  REQUIRE(run_osearch(build).exit_code == 0);
  RunResult fresh = run_osearch(list);
  REQUIRE(fresh.exit_code == 0);
  const std::string expected = without_timing(fresh.out.substr(0, fresh.out.find_last_not_of('\n') + 1));
  CHECK(erase_fields(served, "index") == erase_fields(expected, "index"));
}

TEST_CASE("mcp freshness: without a trusted check every call takes the full one", "[mcp][watch]") {
  Gated g;
  // Directories changed within the last two seconds: no record is kept, so no trust either.
  const std::string recent = g.m.fx.claude + "/-fresh-project";
  fs::create_directories(recent);
  g.m.ok("list_sessions", "{}");
  const uint64_t full = g.readers.full_checks();
  g.m.ok("list_sessions", "{}");
  g.m.ok("list_sessions", "{}");
  CHECK(g.readers.full_checks() >= full + 2);
}

TEST_CASE("mcp freshness: the binary stats no source path on a quiet call", "[mcp][watch]") {
  Mixed fx;
  fx.settle();
  fx.index();
  std::string strace;
  for (const char* dir : {"/usr/bin", "/bin", "/usr/local/bin"})
    if (::access((std::string(dir) + "/strace").c_str(), X_OK) == 0) strace = std::string(dir) + "/strace";
  INFO("strace is needed to count stat calls: `make deps` installs it");
  REQUIRE_FALSE(strace.empty());
  // Stat calls on source paths for a session of `calls` list calls: the first opens the reader
  // (a refresh's check), the second earns the gate's trust; the rest must add none.
  auto source_stats = [&](int calls) {
    std::string in = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}})" "\n";
    for (int i = 0; i < calls; ++i)
      in += R"({"jsonrpc":"2.0","id":)" + std::to_string(i + 2) +
            R"(,"method":"tools/call","params":{"name":"list_sessions","arguments":{"limit":2}}})" "\n";
    const std::string trace = fx.tmp / ("trace-" + std::to_string(calls));
    std::vector<std::string> argv{"-f", "-qq", "-e", "trace=%stat,%lstat,%fstat,statx", "-o", trace, osearch_binary(),
                                  "mcp", "--index", fx.idx};
    for (const auto& s : fx.sources()) argv.push_back(s);
    RunOptions opt;
    const char* asan = std::getenv("ASAN_OPTIONS");  // LeakSanitizer cannot run under ptrace
    opt.env["ASAN_OPTIONS"] = std::string(asan ? asan : "") + (asan && *asan ? ":" : "") + "detect_leaks=0";
    RunResult r = run_process(strace, argv, in, opt);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    REQUIRE(lines_of(r.out).size() == static_cast<size_t>(calls + 1));
    size_t n = 0;
    std::istringstream lines(read_file(trace));
    for (std::string line; std::getline(lines, line);)
      for (const std::string& root : {fx.claude, fx.omp, fx.pi, fx.codex})
        if (line.find(root + "/") != std::string::npos) {
          ++n;
          break;
        }
    return n;
  };
  const size_t two = source_stats(2), twelve = source_stats(12);
  CHECK(two > 0);  // the trace saw the checks at all
  CHECK(twelve == two);
}
