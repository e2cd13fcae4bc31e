#include "mcp/server.h"

#include <poll.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>

#include "cli/json_writer.h"
#include "cli/terminal_text.h"
#include "mcp/tools.h"

namespace osearch::mcp {
namespace {

constexpr std::array<std::string_view, 5> kVersions = {"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26",
                                                       "2024-11-05"};
constexpr std::string_view kLatestHandshake = "2025-11-25";  // the newest version with initialize
constexpr std::string_view kVersionMetaKey = "io.modelcontextprotocol/protocolVersion";
constexpr const char* kServerVersion = "0.1.0";
constexpr const char* kInstructions =
    "Search past coding-agent sessions (Claude Code, omp, pi, Codex): search_keyword for ranked words, "
    "search_content for regex, then read_thread / message_context to read around a hit. Every session "
    "carries a resume_hint. Results are the osearch CLI's JSON, bounded by max_result_chars.";

bool supported(std::string_view v) {
  for (auto s : kVersions)
    if (s == v) return true;
  return false;
}

// Versions are dates: later ones compare greater.
bool at_least(const std::string& version, std::string_view since) { return version >= since; }

struct ProtocolError {
  int code;
  std::string message;
  std::string data;  // JSON text or ""
};

std::optional<simdjson::dom::object> params_object(const Message& m) {
  if (!m.params) return std::nullopt;
  simdjson::dom::object obj;
  if (m.params->get_object().get(obj)) throw ProtocolError{code::kInvalidParams, "Invalid params: params must be an object", ""};
  return obj;
}

void write_server_info(JsonWriter& w, const std::string& version) {
  w.begin_object();
  w.key("name"); w.value("osearch");
  if (at_least(version, "2025-06-18")) {
    w.key("title"); w.value("osearch: search coding-agent sessions");
  }
  w.key("version"); w.value(kServerVersion);
  w.end_object();
}

// 2026-07-28 results: resultType, and the server's identity in _meta. `w` is inside the result object.
void write_modern_fields(JsonWriter& w, const std::string& version) {
  if (!at_least(version, "2026-07-28")) return;
  w.key("resultType"); w.value("complete");
  w.key("_meta");
  w.begin_object();
  w.key("io.modelcontextprotocol/serverInfo");
  write_server_info(w, version);
  w.end_object();
}

void write_capabilities(JsonWriter& w) {
  w.begin_object();
  w.key("tools");
  w.begin_object();
  w.key("listChanged"); w.value(false);
  w.end_object();
  w.end_object();
}

std::string supported_json() {
  JsonWriter w;
  w.begin_array();
  for (auto v : kVersions) w.value(v);
  w.end_array();
  return w.take();
}

bool write_all(int fd, std::string_view s) {
  while (!s.empty()) {
    ssize_t n = ::write(fd, s.data(), s.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    s.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

std::string Server::initialize(const Message& m) {
  auto params = params_object(m);
  std::string_view requested;
  if (!params || (*params)["protocolVersion"].get_string().get(requested))
    throw ProtocolError{code::kInvalidParams, "Invalid params: initialize needs protocolVersion (a string)", ""};
  negotiated_ = std::string(supported(requested) ? requested : kLatestHandshake);
  JsonWriter w;
  w.begin_object();
  w.key("protocolVersion"); w.value(negotiated_);
  w.key("capabilities");
  write_capabilities(w);
  w.key("serverInfo");
  write_server_info(w, negotiated_);
  w.key("instructions"); w.value(kInstructions);
  write_modern_fields(w, negotiated_);
  w.end_object();
  return w.take();
}

std::string Server::discover(const std::string& version) {
  JsonWriter w;
  w.begin_object();
  w.key("supportedVersions");
  w.begin_array();
  for (auto v : kVersions) w.value(v);
  w.end_array();
  w.key("capabilities");
  write_capabilities(w);
  w.key("instructions"); w.value(kInstructions);
  w.key("ttlMs"); w.value(int64_t{3600000});
  w.key("cacheScope"); w.value("public");
  write_modern_fields(w, version.empty() || !at_least(version, "2026-07-28") ? std::string("2026-07-28") : version);
  w.end_object();
  return w.take();
}

std::string Server::tools_list(const Message& m, const std::string& version) {
  if (auto params = params_object(m)) {
    simdjson::dom::element cursor;
    if (!(*params)["cursor"].get(cursor) && !cursor.is_string())
      throw ProtocolError{code::kInvalidParams, "Invalid params: cursor must be a string", ""};
    // Every tool fits one page: any cursor answers the whole list.
  }
  JsonWriter w;
  w.begin_object();
  w.key("tools");
  w.begin_array();
  for (const auto& t : all_tools())
    if (options_.allow_writes || !t.writes)
      write_tool(w, t, at_least(version, "2025-06-18"), at_least(version, "2025-06-18"), at_least(version, "2025-03-26"));
  w.end_array();
  if (at_least(version, "2026-07-28")) {
    w.key("ttlMs"); w.value(int64_t{3600000});
    w.key("cacheScope"); w.value("public");
  }
  write_modern_fields(w, version);
  w.end_object();
  return w.take();
}

std::string Server::tools_call(const Message& m, const std::string& version) {
  auto params = params_object(m);
  std::string_view name;
  if (!params || (*params)["name"].get_string().get(name))
    throw ProtocolError{code::kInvalidParams, "Invalid params: tools/call needs name (a string)", ""};
  const Tool* tool = find_tool(name, options_.allow_writes);
  if (!tool) throw ProtocolError{code::kInvalidParams, "Unknown tool: " + std::string(name), ""};
  std::optional<simdjson::dom::element> arguments;
  simdjson::dom::element a;
  if (!(*params)["arguments"].get(a)) {
    if (!a.is_object() && !a.is_null())
      throw ProtocolError{code::kInvalidParams, "Invalid params: arguments must be an object", ""};
    arguments = a;
  }
  Context ctx = ctx_;
  ctx.readers = &readers_;
  std::vector<std::string> warnings;  // the refresh's, said once: the agent sees them beside the answer
  ctx.warnings = &warnings;
  // The memory writes open the records env themselves (remember resolves --session through a reader
  // of its own): the kept reader is closed first, as LMDB allows one open of an env per process.
  if (tool->writes) readers_.drop();
  ToolOutcome out = call_tool(*tool, ctx, arguments);
  if (out.index_failed) readers_.drop();  // reopened (and checked) by the next call
  if (out.retry) out = call_tool(*tool, ctx, arguments);
  // {content:[{type:text,text:JSON}], structuredContent: JSON (2025-06-18+, not on errors), isError}
  JsonWriter w;
  w.begin_object();
  w.key("content");
  w.begin_array();
  w.begin_object();
  w.key("type"); w.value("text");
  w.key("text"); w.value(out.json);
  w.end_object();
  for (const auto& line : warnings) {
    w.begin_object();
    w.key("type"); w.value("text");
    w.key("text"); w.value(std::string(kWarningPrefix) + line);
    w.end_object();
  }
  w.end_array();
  w.key("isError"); w.value(out.is_error);
  write_modern_fields(w, version);
  w.end_object();
  std::string result = w.take();
  if (!out.is_error && at_least(version, "2025-06-18")) {
    result.pop_back();
    result += ",\"structuredContent\":";
    result += out.json;
    result += '}';
  }
  return result;
}

std::string Server::dispatch(const Message& m, const std::string& version) {
  if (m.method == "initialize") return initialize(m);
  if (m.method == "server/discover") return discover(version);
  if (m.method == "tools/list") return tools_list(m, version);
  if (m.method == "tools/call") return tools_call(m, version);
  if (m.method == "ping") {
    JsonWriter w;
    w.begin_object();
    write_modern_fields(w, version);
    w.end_object();
    return w.take();
  }
  throw ProtocolError{code::kMethodNotFound, "Method not found: " + m.method, ""};
}

std::string Server::handle(std::string_view line) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return "";
  Message m = classify(parser_, line);
  if (m.kind == Message::Kind::Batch) {
    // JSON-RPC batches (MCP 2025-03-26 has them): each member answered, the answers in one array, none
    // for a batch of notifications. A batch inside a batch is an invalid member.
    std::string out;
    for (const auto& member : m.batch) {
      std::string response = member.front() == '[' ? error_line("null", code::kInvalidRequest, "Invalid Request: a batch in a batch")
                                                   : handle(member);
      if (!response.empty()) out += (out.empty() ? "[" : ",") + response;
    }
    return out.empty() ? out : out + "]";
  }
  if (m.kind == Message::Kind::Invalid) return error_line(m.id, m.error_code, m.error_message);
  // Notifications (initialized, cancelled, …) and responses get no answer.
  if (m.kind != Message::Kind::Request) return "";
  try {
    std::string version = negotiated_.empty() ? std::string(kLatestHandshake) : negotiated_;
    if (auto params = params_object(m)) {
      simdjson::dom::element meta_version;
      if (!(*params)["_meta"][kVersionMetaKey].get(meta_version)) {
        std::string_view v;
        if (meta_version.get_string().get(v) || !supported(v))
          throw ProtocolError{code::kUnsupportedProtocolVersion, "Unsupported protocol version",
                              "{\"supported\":" + supported_json() + ",\"requested\":" + simdjson::minify(meta_version) + "}"};
        version = std::string(v);
      }
    }
    return result_line(m.id, dispatch(m, version));
  } catch (const ProtocolError& e) {
    return error_line(m.id, e.code, e.message, e.data);
  } catch (const std::exception& e) {
    return error_line(m.id, code::kInternalError, std::string("Internal error: ") + e.what());
  }
}

int run_mcp_server(const Context& ctx, bool allow_writes) {
  std::signal(SIGPIPE, SIG_IGN);  // a client gone mid-answer is a write error, not a kill
  ServerOptions options;
  options.allow_writes = allow_writes;
  Server server(ctx, options);
  if (ctx.verbose) std::fprintf(stderr, "osearch mcp: serving on stdio (index %s)\n", ctx.index_dir.c_str());
  return server.serve(STDIN_FILENO, STDOUT_FILENO);
}

int Server::serve(int in_fd, int out_fd) {
  std::string pending;
  char buf[65536];
  for (;;) {
    pollfd p{in_fd, POLLIN, 0};
    const int timeout = readers_.is_open() ? static_cast<int>(options_.idle_release.count()) : -1;
    const int ready = ::poll(&p, 1, timeout);
    if (ready == 0) {
      readers_.idle();
      continue;
    }
    if (ready < 0 && errno != EINTR) return 1;
    if (ready < 0) continue;
    const ssize_t n = ::read(in_fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;
    pending.append(buf, static_cast<size_t>(n));
    size_t start = 0;
    for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string response = handle(std::string_view(pending).substr(start, nl - start));
      if (!response.empty() && !write_all(out_fd, response + "\n")) return 1;
    }
    pending.erase(0, start);
  }
  if (!pending.empty()) {  // a last line without its newline
    std::string response = handle(pending);
    if (!response.empty() && !write_all(out_fd, response + "\n")) return 1;
  }
  return 0;
}

}  // namespace osearch::mcp
