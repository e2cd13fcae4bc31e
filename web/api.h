// The web app's JSON API: each endpoint one CLI command (cli/commands.h) run in-process with the
// CLI's option names (web/params.h), its --format json answer written to a string (Context::output),
// the open index kept across calls (mcp::ReaderCache, lazy refresh per call). HTTP-free, so the
// routing, the parameter checks and the status codes are testable without a socket.
//
// Calls are serialized by one mutex: LMDB allows one open of an env per process and IndexReader is
// not thread-safe, while the HTTP server answers on a pool of threads.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "cli/options.h"
#include "mcp/reader_cache.h"
#include "web/params.h"

namespace osearch::web {

struct ApiResponse {
  int status = 200;
  std::string body;   // JSON: the CLI's object, or {"error":{"kind","message"}}
  std::string allow;  // 405: the method the endpoint takes
};

class Api {
 public:
  explicit Api(Context ctx);
  // `path` after "/api/" ("keyword", "thread/<id>", "memories/<id>/forget"), already URL-decoded.
  ApiResponse handle(std::string_view method, std::string_view path, const Params& params);
  // Closes the kept reader when no call came for `idle` (its read transaction pins LMDB pages a
  // concurrent indexer could reuse). Called by the server's housekeeping thread.
  void release_if_idle(std::chrono::steady_clock::duration idle);
  uint64_t reader_opens() const { return readers_.opens(); }  // tests

 private:
  ApiResponse dispatch(std::string_view method, std::string_view path, const Params& params);
  std::string generation();
  // The answer with the refreshes' pending warnings as its first member, said once.
  std::string with_warnings(std::string body);

  Context ctx_;
  std::mutex engine_;
  mcp::ReaderCache readers_;
  // What a refresh warned of (a source root that lists nothing over indexed transcripts), kept
  // until an answer carries it: the poll of /api/generation refreshes as often as any view.
  std::vector<std::string> warnings_;
  std::chrono::steady_clock::time_point last_call_;
};

// The error object every frontend prints ({"error":{"kind":…,"message":…}}).
std::string error_json(const std::string& kind, const std::string& message);

}  // namespace osearch::web
