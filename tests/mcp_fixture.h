// The in-process `osearch mcp` server over the mixed-agent fixture (tests/agents_e2e_fixture.h),
// shared by the MCP tests (tests/mcp_test.cpp, tests/mcp_freshness_test.cpp).
#pragma once

#include "mcp/server.h"
#include "tests/agents_e2e_fixture.h"

using namespace agents_e2e;

namespace mcp_fixture {

struct McpFixture {
  Mixed fx{false};
  osearch::mcp::Server server;
  int next_id = 1;

  explicit McpFixture(bool allow_writes = false) : server(fx.context(), options(allow_writes)) {
    fx.settle();
    fx.index();
  }
  static osearch::mcp::ServerOptions options(bool allow_writes) {
    osearch::mcp::ServerOptions o;
    o.allow_writes = allow_writes;
    return o;
  }

  Json send(const std::string& line) {
    const std::string out = server.handle(line);
    INFO("request: " << line << "\nresponse: " << out);
    REQUIRE(out.find('\n') == std::string::npos);
    Json j = parse(out);
    CHECK(j["jsonrpc"].s == "2.0");
    return j;
  }
  Json request(const std::string& method, const std::string& params = "{}") {
    return send(R"({"jsonrpc":"2.0","id":)" + std::to_string(next_id++) + R"(,"method":")" + method +
                R"(","params":)" + params + "}");
  }
  // tools/call: the result object (content, isError, structuredContent).
  Json call(const std::string& tool, const std::string& arguments) {
    Json r = request("tools/call", R"({"name":")" + tool + R"(","arguments":)" + arguments + "}");
    REQUIRE(r.has("result"));
    return r["result"];
  }
  std::string text_of(const Json& result) {
    REQUIRE(result["content"].a.size() == 1);
    CHECK(result["content"][0]["type"].s == "text");
    return result["content"][0]["text"].s;
  }
  // The tool's JSON text, which must not be an error.
  std::string ok(const std::string& tool, const std::string& arguments) {
    Json r = call(tool, arguments);
    const std::string text = text_of(r);
    INFO(tool << " " << arguments << " -> " << text);
    REQUIRE_FALSE(r["isError"].b);
    return text;
  }
  Json error(const std::string& tool, const std::string& arguments, const std::string& kind) {
    Json r = call(tool, arguments);
    const std::string text = text_of(r);
    INFO(tool << " " << arguments << " -> " << text);
    CHECK(r["isError"].b);
    CHECK_FALSE(r.has("structuredContent"));
    Json e = parse(text)["error"];
    CHECK(e["kind"].s == kind);
    CHECK_FALSE(e["message"].s.empty());
    return e;
  }
  std::string cli(std::vector<std::string> args) {
    RunResult r = fx.run(args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return r.out.substr(0, r.out.find_last_not_of('\n') + 1);
  }
};

inline int error_code(const Json& response) {
  REQUIRE(response.has("error"));
  return static_cast<int>(response["error"]["code"].i);
}

}  // namespace mcp_fixture

using namespace mcp_fixture;
