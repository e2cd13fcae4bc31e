// `osearch mcp` (mcp/): the JSON-RPC framing and its error codes, version negotiation, tools/list
// with and without --allow-writes, each tool's answer against the CLI's JSON for the same
// arguments, the max_result_chars bound, tool errors that leave the server serving, and the open reader
// kept across calls. The server runs in-process on the mixed-agent fixture; one test pipes lines
// through the built binary.

#include "mcp/budget.h"
#include "tests/json_scrub.h"
#include "tests/mcp_fixture.h"

using namespace agents_e2e;

TEST_CASE("mcp: initialize answers the client's version when supported, else the latest", "[mcp]") {
  McpFixture m;
  for (const char* v : {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}) {
    Json r = m.request("initialize", std::string(R"({"protocolVersion":")") + v + R"(","capabilities":{},"clientInfo":{"name":"t","version":"1"}})");
    CHECK(r["result"]["protocolVersion"].s == v);
    CHECK(r["result"]["serverInfo"]["name"].s == "osearch");
    CHECK(r["result"]["capabilities"]["tools"].is_obj());
  }
  Json old = m.request("initialize", R"({"protocolVersion":"2023-01-01","capabilities":{}})");
  CHECK(old["result"]["protocolVersion"].s == "2025-11-25");
  CHECK(m.server.handle(R"({"jsonrpc":"2.0","method":"notifications/initialized"})").empty());
  CHECK(m.request("ping")["result"].is_obj());

  // 2026-07-28: no handshake; the version rides in each request's _meta, and server/discover.
  Json d = m.request("server/discover", R"({"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}})");
  std::set<std::string> versions;
  for (const auto& v : d["result"]["supportedVersions"].a) versions.insert(v.s);
  CHECK(versions == std::set<std::string>{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"});
  CHECK(d["result"]["resultType"].s == "complete");
  Json list = m.request("tools/list", R"({"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}})");
  CHECK(list["result"]["resultType"].s == "complete");
  CHECK(list["result"]["ttlMs"].i > 0);
  CHECK(list["result"]["cacheScope"].s == "public");
  Json bad = m.request("tools/list", R"({"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01"}})");
  CHECK(error_code(bad) == -32022);
  CHECK(bad["error"]["data"]["requested"].s == "1900-01-01");
}

TEST_CASE("mcp: JSON-RPC errors carry the right codes, notifications get no answer", "[mcp]") {
  McpFixture m;
  Json parse_error = m.send("{not json");
  CHECK(error_code(parse_error) == -32700);
  CHECK(parse_error["id"].is_null());
  CHECK(error_code(m.send("[]")) == -32600);
  // A batch: one answer per request, in one array; nothing for a batch of notifications.
  const std::string batch = m.server.handle(R"([{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},5])");
  Json answers = parse(batch);
  REQUIRE(answers.a.size() == 2);
  CHECK(answers[0]["id"].i == 7);
  CHECK(error_code(answers[1]) == -32600);
  CHECK(m.server.handle(R"([{"jsonrpc":"2.0","method":"notifications/initialized"}])").empty());
  CHECK(error_code(m.send("42")) == -32600);
  CHECK(error_code(m.send(R"({"jsonrpc":"1.0","id":1,"method":"ping"})")) == -32600);
  CHECK(error_code(m.send(R"({"jsonrpc":"2.0","id":1})")) == -32600);
  CHECK(error_code(m.send(R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})")) == -32600);
  Json unknown = m.send(R"({"jsonrpc":"2.0","id":"abc","method":"resources/list"})");
  CHECK(error_code(unknown) == -32601);
  CHECK(unknown["id"].s == "abc");
  CHECK(error_code(m.request("initialize", "{}")) == -32602);
  CHECK(error_code(m.request("tools/call", "[]")) == -32602);
  CHECK(error_code(m.request("tools/call", R"({"arguments":{}})")) == -32602);
  CHECK(error_code(m.request("tools/call", R"({"name":"search_keyword","arguments":[1]})")) == -32602);
  Json no_tool = m.request("tools/call", R"({"name":"no_such_tool","arguments":{}})");
  CHECK(error_code(no_tool) == -32602);
  CHECK(no_tool["error"]["message"].s.find("no_such_tool") != std::string::npos);
  CHECK(error_code(m.request("tools/list", R"({"cursor":5})")) == -32602);
  CHECK(m.request("tools/list", R"({"cursor":"anything"})")["result"]["tools"].a.size() == 13);
  CHECK(m.server.handle(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}})").empty());
  CHECK(m.server.handle(R"({"jsonrpc":"2.0","method":"no/such/notification"})").empty());
  CHECK(m.server.handle("   ").empty());
  CHECK(m.request("ping")["result"].is_obj());  // still serving
}

TEST_CASE("mcp: tools/list offers the mutating tools only with --allow-writes", "[mcp]") {
  auto names = [](McpFixture& m) {
    std::set<std::string> out;
    const Json list = m.request("tools/list");
    for (const auto& t : list["result"]["tools"].a) {
      out.insert(t["name"].s);
      CHECK(t["inputSchema"]["type"].s == "object");
      CHECK(t["inputSchema"]["additionalProperties"].b == false);
      CHECK(t["outputSchema"]["type"].s == "object");
      CHECK(t["inputSchema"]["properties"].has("max_chars"));
    }
    return out;
  };
  McpFixture read_only;
  const std::set<std::string> expected = {"search_keyword", "search_content", "list_sessions", "read_thread",
                                          "message_context", "message_trace", "file_history", "failures", "stats",
                                          "overview", "subagents", "workflows", "memory_list"};
  CHECK(names(read_only) == expected);
  CHECK(error_code(read_only.request("tools/call", R"({"name":"memory_forget","arguments":{"id":"x","reason":"y"}})")) ==
        -32602);
  McpFixture writable(true);
  std::set<std::string> with_writes = expected;
  with_writes.insert({"memory_remember", "memory_forget"});
  CHECK(names(writable) == with_writes);
  // 2024-11-05 knew neither titles nor output schemas.
  writable.request("initialize", R"({"protocolVersion":"2024-11-05","capabilities":{}})");
  Json first = writable.request("tools/list")["result"]["tools"][0];
  CHECK_FALSE(first.has("outputSchema"));
  CHECK_FALSE(first.has("title"));
  CHECK_FALSE(writable.call("list_sessions", "{}").has("structuredContent"));
}

TEST_CASE("mcp: each tool answers what the CLI prints for the same arguments", "[mcp]") {
  McpFixture m(true);
  struct Case {
    std::string tool, arguments;
    std::vector<std::string> cli;
  };
  const std::vector<Case> cases = {
      {"search_keyword", R"({"query":"please","limit":5})", {"keyword", "please", "--limit", "5"}},
      {"search_keyword", R"({"query":"please","by":"message","agent":["omp","pi"]})",
       {"keyword", "please", "--by", "message", "--agent", "omp", "--agent", "pi"}},
      {"search_content", R"({"pattern":"PLEASE","ignore_case":true,"limit":3})", {"content", "PLEASE", "-i", "--limit", "3"}},
      {"list_sessions", R"({"limit":50})", {"list", "--limit", "50"}},
      {"read_thread", R"({"session":")" + kOmpId + R"(","limit":4})", {"thread", kOmpId, "--limit", "4"}},
      {"file_history", R"({"path":"README.md"})", {"files", "README.md"}},
      {"failures", R"({"max_chars":100})", {"failures", "--max-chars", "100"}},
      {"read_thread", R"({"session":")" + kOmpId + R"(","max_chars":40})", {"thread", kOmpId, "--max-chars", "40"}},
      {"stats", R"({"kind":"tools","by":"agent"})", {"stats", "tools", "--by", "agent"}},
      {"overview", R"({"cwd":"/work/omp proj"})", {"overview", "--cwd", "/work/omp proj"}},
      {"subagents", "{}", {"subagents"}},
      {"workflows", R"({"limit":3})", {"workflows", "--limit", "3"}},
      {"memory_list", "{}", {"memory", "list"}},
  };
  for (const auto& c : cases) {
    INFO(c.tool << " " << c.arguments);
    const std::string text = m.ok(c.tool, c.arguments);
    CHECK(without_timing(text) == without_timing(m.cli(c.cli)));
    Json result = m.call(c.tool, c.arguments);
    CHECK(result["structuredContent"].is_obj());
  }
  // context and trace on a message of the thread.
  Json thread = parse(m.ok("read_thread", R"({"session":")" + kOmpId + "\"}"));
  std::string uuid;
  for (const auto& msg : thread["messages"].a)
    if (msg["uuid"].is_str()) uuid = msg["uuid"].s;
  REQUIRE_FALSE(uuid.empty());
  CHECK(without_timing(m.ok("message_context", R"({"uuid":")" + uuid + "\"}")) == without_timing(m.cli({"context", uuid})));
  CHECK(without_timing(m.ok("message_trace", R"({"uuid":")" + uuid + "\"}")) == without_timing(m.cli({"trace", uuid})));
  // Every session carries its resume hint.
  const Json sessions = parse(m.ok("list_sessions", "{}"));
  for (const auto& s : sessions["results"].a) CHECK_FALSE(s["resume_hint"].s.empty());
}

TEST_CASE("mcp: memory_remember and memory_forget write only when allowed", "[mcp]") {
  McpFixture m(true);
  const std::string note = m.fx.tmp / "note.md";
  write_file(note, "# Decision\nRecords live in LMDB.\n");
  m.ok("list_sessions", "{}");
  REQUIRE(m.server.readers().is_open());
  // remember opens a reader of its own to resolve the session: the kept one is closed before (one
  // open of an LMDB env per process).
  Json remembered = parse(m.ok("memory_remember", R"({"path":")" + note + R"(","summary":"records in LMDB","session":")" +
                               kOmpId + "\"}"));
  CHECK_FALSE(m.server.readers().is_open());
  CHECK(remembered["session_id"].s.rfind(kOmpId, 0) == 0);  // the id as the index keys it (omp: with @omp)
  CHECK(remembered["action"].s == "memory_remember");
  const std::string id = remembered["id"].s;
  CHECK(parse(m.ok("memory_list", "{}"))["total"].i == 1);
  // keyword finds the new memory through the kept reader (the memory env's generation moved).
  CHECK(parse(m.ok("search_keyword", R"({"query":"LMDB"})"))["total"].i >= 1);
  Json forgotten = parse(m.ok("memory_forget", R"({"id":")" + id + R"(","reason":"test"})"));
  CHECK(forgotten["action"].s == "memory_forget");
  CHECK(parse(m.ok("memory_list", "{}"))["total"].i == 0);
  m.error("memory_forget", R"({"id":"zzzz","reason":"x"})", "unknown-memory");
}

TEST_CASE("mcp: bad input is a tool error naming the problem, and the server keeps serving", "[mcp]") {
  McpFixture m;
  m.error("search_content", R"({"pattern":"("})", "bad-regex");
  m.error("list_sessions", R"({"since":"not a time"})", "bad-time");
  m.error("read_thread", R"({"session":"ffffffff-no-such"})", "unknown-session");
  m.error("message_context", R"({"uuid":"no-such-uuid"})", "unknown-message");
  CHECK(m.error("list_sessions", R"({"limit":"5"})", "usage")["message"].s.find("'limit' must be an integer") !=
        std::string::npos);
  CHECK(m.error("list_sessions", R"({"limti":5,"projcet":"x"})", "usage")["message"].s.find("'limti', 'projcet'") !=
        std::string::npos);
  CHECK(m.error("stats", R"({"kind":"bogus"})", "usage")["message"].s.find("tokens") != std::string::npos);
  m.error("stats", "{}", "usage");  // kind is required
  m.error("list_sessions", R"({"limit":0})", "usage");
  m.error("list_sessions", R"({"include_meta":"yes"})", "usage");
  m.error("search_content", R"({"pattern":"x","timeout":-1})", "usage");
  m.error("read_thread", R"({"session":")" + kOmpId + R"(","max_chars":-5})", "usage");
  m.error("list_sessions", R"({"max_chars":100,"max_result_chars":100})", "usage");  // one bound, one name
  CHECK(m.request("ping")["result"].is_obj());
  CHECK(parse(m.ok("list_sessions", R"({"limit":1})"))["returned"].i == 1);
}

TEST_CASE("mcp: max_result_chars bounds the result, which stays one JSON object marked truncated", "[mcp]") {
  McpFixture m;
  const std::string whole = m.ok("list_sessions", R"({"limit":50,"max_chars":0})");
  REQUIRE(whole.size() > 3000);
  const std::string bounded = m.ok("list_sessions", R"({"limit":50,"max_chars":3000})");
  CHECK(bounded.size() <= 3000);
  Json b = parse(bounded);
  CHECK(b["truncated"].b);
  CHECK(b["truncation"]["from"].s == "results");
  CHECK(b["truncation"]["dropped"].i > 0);
  CHECK(static_cast<size_t>(b["returned"].i) == b["results"].a.size());
  CHECK(b["results"].a.size() + static_cast<size_t>(b["truncation"]["dropped"].i) == parse(whole)["results"].a.size());
  // The default bound is 20,000 characters; max_result_chars is the same bound on every tool.
  CHECK(m.ok("list_sessions", R"({"limit":50})").size() <= osearch::mcp::kDefaultMaxChars);
  CHECK(without_timing(m.ok("list_sessions", R"({"limit":50,"max_result_chars":3000})")) == without_timing(bounded));
  // On read_thread max_chars is the CLI's per-text cut; max_result_chars still bounds the whole.
  const std::string thread = m.ok("read_thread", R"({"session":")" + kOmpId + R"(","max_result_chars":0})");
  REQUIRE(thread.size() > 1500);
  const std::string thread_cut = m.ok("read_thread", R"({"session":")" + kOmpId + R"(","max_result_chars":1500})");
  CHECK(thread_cut.size() <= 1500);
  CHECK(parse(thread_cut)["truncated"].b);

  // One element too long on its own: long strings are cut, at a character boundary.
  const std::string big = R"({"action":"x","results":[{"text":")" + std::string(5000, 'a') + "\u00e9" +
                          std::string(3000, 'b') + R"("}],"n":1})";
  const std::string cut = osearch::mcp::fit_result(big, 1000);
  CHECK(cut.size() <= 1000);
  Json c = parse(cut);
  CHECK(c["truncated"].b);
  CHECK(c["truncation"]["strings_cut"].i == 1);
  REQUIRE(c["results"].a.size() == 1);
  CHECK(valid_utf8(c["results"][0]["text"].s));
  CHECK(osearch::mcp::fit_result(big, 0) == big);
  CHECK(osearch::mcp::fit_result(R"({"a":1})", 100) == R"({"a":1})");
}

TEST_CASE("mcp: one reader serves calls until the index moves", "[mcp]") {
  McpFixture m;
  m.ok("list_sessions", "{}");
  m.ok("search_keyword", R"({"query":"please"})");
  m.ok("read_thread", R"({"session":")" + kOmpId + "\"}");
  CHECK(m.server.readers().opens() == 1);
  // Another process commits: the next call answers from a reader of the new state.
  append_file(m.fx.omp_path(), R"({"type":"message","id":"zz01","parentId":null,"timestamp":"2026-11-01T11:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"mcpfreshword"}],"timestamp":1793530800000}})" "\n");
  m.fx.index();
  CHECK(parse(m.ok("search_keyword", R"({"query":"mcpfreshword"})"))["total"].i == 1);
  CHECK(m.server.readers().opens() == 2);
  // A transcript that grows between calls is read by the call's own lazy refresh.
  append_file(m.fx.omp_path(), R"({"type":"message","id":"zz02","parentId":"zz01","timestamp":"2026-11-01T11:01:00.000Z","message":{"role":"user","content":[{"type":"text","text":"mcplaterword"}],"timestamp":1793530860000}})" "\n");
  Json later = parse(m.ok("search_keyword", R"({"query":"mcplaterword"})"));
  CHECK(later["total"].i == 1);
  CHECK(later["index"]["refreshed_files"].i == 1);
  CHECK(m.server.readers().opens() == 3);
}

TEST_CASE("mcp: the binary serves lines on stdin and exits 0 at their end", "[mcp]") {
  Mixed fx;
  std::vector<std::string> args = {"mcp", "--index", fx.idx};
  for (const auto& s : fx.sources()) args.push_back(s);
  const std::string in =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}})" "\n"
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})" "\n"
      "not json\n"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_sessions","arguments":{"limit":2}}})" "\n"
      R"({"jsonrpc":"2.0","id":3,"method":"ping"})";  // the last line without its newline
  RunResult r = run_osearch(args, in);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  const auto lines = lines_of(r.out);
  REQUIRE(lines.size() == 4);
  CHECK(parse(lines[0])["id"].i == 1);
  CHECK(parse(lines[1])["error"]["code"].i == -32700);
  Json call = parse(lines[2]);
  CHECK(call["id"].i == 2);
  CHECK(call["result"]["structuredContent"]["returned"].i == 2);
  CHECK(parse(lines[3])["id"].i == 3);
}

TEST_CASE("mcp: a refresh's warning of a root that lists nothing reaches the tool result, once", "[mcp]") {
  // The HOME-for-projects mistake (engine/index/emptied_roots.h) through the server: its stderr is only
  // the client's log, so the agent would see every session archived without a word.
  const EmptiedHome fx("mcp-emptied");
  osearch::mcp::Server server(fx.context(), osearch::mcp::ServerOptions{});
  auto list = [&] {
    const std::string out = server.handle(
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_sessions","arguments":{}}})");
    INFO(out);
    return parse(out)["result"];
  };
  Json first = list();
  REQUIRE(first["content"].a.size() == 2);
  CHECK_FALSE(first["isError"].b);
  CHECK(first["content"][1]["type"].s == "text");
  CHECK(first["content"][1]["text"].s.find("osearch: warning: " + fx.warning()) == 0);
  // The answer itself is unchanged: the JSON text first, the same as structuredContent.
  const Json answer = parse(first["content"][0]["text"].s);
  REQUIRE(answer["results"].a.size() == 1);
  CHECK(answer["results"][0]["source_deleted"].b);
  CHECK(first["structuredContent"].is_obj());
  // Said by the refresh that marked them: the next call has the answer alone.
  Json second = list();
  CHECK(second["content"].a.size() == 1);
}
