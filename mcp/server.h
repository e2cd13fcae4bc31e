// `osearch mcp`: a Model Context Protocol server over stdio. One JSON-RPC message per line in, one
// response per request out (notifications get none); logs go to stderr only. Protocol versions:
// the initialize handshake of 2024-11-05 to 2025-11-25 (the client's version when supported, else
// 2025-11-25), and 2026-07-28's per-request `_meta` version with server/discover.
#pragma once

#include <simdjson.h>

#include <chrono>
#include <string>
#include <string_view>

#include "cli/options.h"
#include "mcp/jsonrpc.h"
#include "mcp/reader_cache.h"

namespace osearch::mcp {

struct ServerOptions {
  bool allow_writes = false;  // memory_remember and memory_forget
  // With no request for this long the reader is closed: an open read transaction keeps a
  // concurrent indexer from reusing LMDB pages.
  std::chrono::milliseconds idle_release{std::chrono::seconds(30)};
};

class Server {
 public:
  Server(Context ctx, ServerOptions options) : ctx_(std::move(ctx)), options_(options) {}
  // One line in, the response line out ("" when there is none: a notification, a response, a blank line).
  std::string handle(std::string_view line);
  // Serves until end of input; 0 then, 1 when the output cannot be written.
  int serve(int in_fd, int out_fd);
  ReaderCache& readers() { return readers_; }

 private:
  std::string dispatch(const Message& m, const std::string& version);
  std::string initialize(const Message& m);
  std::string tools_list(const Message& m, const std::string& version);
  std::string tools_call(const Message& m, const std::string& version);
  std::string discover(const std::string& version);

  Context ctx_;
  ServerOptions options_;
  ReaderCache readers_;
  simdjson::dom::parser parser_;
  std::string negotiated_;  // the version initialize agreed on ("" before it)
};

// `osearch mcp [--allow-writes]` on stdin/stdout.
int run_mcp_server(const Context& ctx, bool allow_writes);

}  // namespace osearch::mcp
