#include "memory/jsonl.h"

#include <simdjson.h>

#include <cstdio>

#include "ingest/json_fields.h"

namespace osearch::memory {

std::string json_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  write_json_string(out, s);
  return out;
}

std::string to_jsonl_line(const Record& r, const std::vector<Event>& events) {
  std::string o = "{\"id\":" + json_quote(r.id) + ",\"path\":" + json_quote(r.path) + ",\"summary\":" + json_quote(r.summary) +
                  ",\"project\":" + json_quote(r.project) + ",\"session_id\":" + json_quote(r.session_id) +
                  ",\"message_start\":" + json_quote(r.message_start) + ",\"message_end\":" + json_quote(r.message_end) +
                  ",\"anchors\":[";
  for (size_t i = 0; i < r.anchors.size(); ++i) {
    const Anchor& a = r.anchors[i];
    o += (i ? ",{" : "{") + std::string("\"kind\":") + json_quote(a.kind) + ",\"path\":" + json_quote(a.path) +
         ",\"line\":" + std::to_string(a.line) + "}";
  }
  o += "],\"created_at_ms\":" + std::to_string(r.created_at) + ",\"deleted_at_ms\":" + std::to_string(r.deleted_at) +
       ",\"deleted_reason\":" + json_quote(r.deleted_reason) + ",\"events\":[";
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    o += (i ? ",{" : "{") + std::string("\"seq\":") + std::to_string(e.seq) + ",\"action\":" + json_quote(action_name(e.action)) +
         ",\"time_ms\":" + std::to_string(e.time) + ",\"reason\":" + json_quote(e.reason) + "}";
  }
  o += "]}";
  return o;
}

namespace {
[[noreturn]] void bad(const std::string& why) { throw InvalidMemory("bad-import", why); }

std::string str_field(simdjson::dom::object obj, const char* key, bool required) {
  std::string_view v;
  auto e = obj[key];
  if (e.error() == simdjson::NO_SUCH_FIELD) {
    if (required) bad(std::string("missing \"") + key + "\"");
    return "";
  }
  if (e.get_string().get(v) != simdjson::SUCCESS) bad(std::string("\"") + key + "\" is not a string");
  return std::string(v);
}

int64_t int_field(simdjson::dom::object obj, const char* key, bool required) {
  int64_t v = 0;
  auto e = obj[key];
  if (e.error() == simdjson::NO_SUCH_FIELD) {
    if (required) bad(std::string("missing \"") + key + "\"");
    return 0;
  }
  if (e.get_int64().get(v) != simdjson::SUCCESS) bad(std::string("\"") + key + "\" is not an integer");
  return v;
}
}  // namespace

Exported from_jsonl_line(std::string_view line) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(simdjson::padded_string(line)).get(doc) != simdjson::SUCCESS) bad("not a JSON object");
  simdjson::dom::object obj;
  if (doc.get_object().get(obj) != simdjson::SUCCESS) bad("not a JSON object");
  Exported x;
  Record& r = x.record;
  r.id = str_field(obj, "id", true);
  if (!valid_id_text(r.id)) bad("\"id\" must be 1-64 letters, digits, '-' or '_'");
  r.path = str_field(obj, "path", true);
  r.summary = str_field(obj, "summary", true);
  if (r.path.empty() || r.path[0] != '/') bad("\"path\" must be absolute");
  r.project = str_field(obj, "project", false);
  r.session_id = str_field(obj, "session_id", false);
  r.message_start = str_field(obj, "message_start", false);
  r.message_end = str_field(obj, "message_end", false);
  r.created_at = int_field(obj, "created_at_ms", true);
  r.deleted_at = int_field(obj, "deleted_at_ms", false);
  r.deleted_reason = str_field(obj, "deleted_reason", false);
  simdjson::dom::array arr;
  if (obj["anchors"].get_array().get(arr) == simdjson::SUCCESS) {
    for (simdjson::dom::element e : arr) {
      simdjson::dom::object a;
      if (e.get_object().get(a) != simdjson::SUCCESS) bad("an anchor is not an object");
      Anchor an;
      an.kind = str_field(a, "kind", true);
      an.path = str_field(a, "path", true);
      const int64_t line_no = int_field(a, "line", false);
      an.line = line_no < 0 ? 0 : static_cast<uint64_t>(line_no);
      r.anchors.push_back(std::move(an));
    }
  }
  if (obj["events"].get_array().get(arr) == simdjson::SUCCESS) {
    for (simdjson::dom::element e : arr) {
      simdjson::dom::object eo;
      if (e.get_object().get(eo) != simdjson::SUCCESS) bad("an event is not an object");
      Event ev;
      ev.seq = static_cast<uint64_t>(int_field(eo, "seq", true));
      auto action = parse_action(str_field(eo, "action", true));
      if (!action) bad("an event's \"action\" is not remember, forget, restore or import");
      ev.action = *action;
      ev.time = int_field(eo, "time_ms", true);
      ev.reason = str_field(eo, "reason", false);
      x.events.push_back(std::move(ev));
    }
  }
  return x;
}

}  // namespace osearch::memory
