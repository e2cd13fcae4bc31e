// JSON-RPC 2.0 framing for `osearch mcp`: one message per line, classified before any MCP meaning
// (parse error, invalid request, notification, request), and the response lines the server writes.
#pragma once

#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace osearch::mcp {

// JSON-RPC's and MCP's error codes.
namespace code {
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kUnsupportedProtocolVersion = -32022;  // MCP 2026-07-28
}  // namespace code

struct Message {
  enum class Kind { Request, Notification, Response, Batch, Invalid };
  Kind kind = Kind::Invalid;
  std::string id = "null";  // the request's id as JSON text (a string or a number), "null" when none
  std::string method;
  std::optional<simdjson::dom::element> params;  // absent when the message has none
  std::vector<std::string> batch;  // Batch: each message of the array, as JSON text
  int error_code = 0;                           // Invalid: kParseError or kInvalidRequest
  std::string error_message;
};

// Parses one line with `parser` (the elements stay valid until its next parse).
Message classify(simdjson::dom::parser& parser, std::string_view line);

// {"jsonrpc":"2.0","id":ID,"result":RESULT} with RESULT already JSON text.
std::string result_line(std::string_view id, std::string_view result_json);
// {"jsonrpc":"2.0","id":ID,"error":{"code":…,"message":…[,"data":DATA]}}, DATA JSON text or empty.
std::string error_line(std::string_view id, int code, std::string_view message, std::string_view data_json = {});

}  // namespace osearch::mcp
