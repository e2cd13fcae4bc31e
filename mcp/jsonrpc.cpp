#include "mcp/jsonrpc.h"

#include "cli/json_writer.h"

namespace osearch::mcp {
namespace {

Message invalid(int code, std::string message, std::string id = "null") {
  Message m;
  m.kind = Message::Kind::Invalid;
  m.error_code = code;
  m.error_message = std::move(message);
  m.id = std::move(id);
  return m;
}

}  // namespace

Message classify(simdjson::dom::parser& parser, std::string_view line) {
  simdjson::dom::element doc;
  if (auto err = parser.parse(line.data(), line.size()).get(doc))
    return invalid(code::kParseError, std::string("Parse error: ") + simdjson::error_message(err));
  if (doc.is_array()) {
    Message m;
    m.kind = Message::Kind::Batch;
    for (simdjson::dom::element item : simdjson::dom::array(doc)) m.batch.push_back(simdjson::minify(item));
    if (m.batch.empty()) return invalid(code::kInvalidRequest, "Invalid Request: an empty batch");
    return m;
  }
  simdjson::dom::object obj;
  if (doc.get_object().get(obj)) return invalid(code::kInvalidRequest, "Invalid Request: a message is a JSON object");

  // The id first, so the error names the request when only its other parts are wrong. MCP allows a
  // string or an integer (never null).
  Message m;
  simdjson::dom::element id;
  const bool has_id = !obj["id"].get(id);
  if (has_id) {
    if (id.is_string() || id.is_int64() || id.is_uint64())
      m.id = simdjson::minify(id);
    else
      return invalid(code::kInvalidRequest, "Invalid Request: id must be a string or an integer");
  }
  std::string_view version;
  if (obj["jsonrpc"].get_string().get(version) || version != "2.0")
    return invalid(code::kInvalidRequest, "Invalid Request: jsonrpc must be \"2.0\"", m.id);
  simdjson::dom::element method;
  if (obj["method"].get(method)) {
    simdjson::dom::element ignored;
    if (has_id && (!obj["result"].get(ignored) || !obj["error"].get(ignored))) {
      m.kind = Message::Kind::Response;  // a client's answer to a request of ours (we send none)
      return m;
    }
    return invalid(code::kInvalidRequest, "Invalid Request: method is missing", m.id);
  }
  std::string_view name;
  if (method.get_string().get(name)) return invalid(code::kInvalidRequest, "Invalid Request: method must be a string", m.id);
  m.method = std::string(name);
  simdjson::dom::element params;
  if (!obj["params"].get(params)) m.params = params;
  m.kind = has_id ? Message::Kind::Request : Message::Kind::Notification;
  return m;
}

std::string result_line(std::string_view id, std::string_view result_json) {
  std::string out;
  out.reserve(result_json.size() + id.size() + 40);
  out += "{\"jsonrpc\":\"2.0\",\"id\":";
  out += id;
  out += ",\"result\":";
  out += result_json;
  out += '}';
  return out;
}

std::string error_line(std::string_view id, int code, std::string_view message, std::string_view data_json) {
  JsonWriter w;
  w.begin_object();
  w.key("code");
  w.value(code);
  w.key("message");
  w.value(message);
  w.end_object();
  std::string error = w.take();
  if (!data_json.empty()) {
    error.pop_back();
    error += ",\"data\":";
    error += data_json;
    error += '}';
  }
  return "{\"jsonrpc\":\"2.0\",\"id\":" + std::string(id) + ",\"error\":" + error + "}";
}

}  // namespace osearch::mcp
