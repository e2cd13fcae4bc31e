#include "ingest/json_fields.h"

namespace osearch {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;


std::string_view str_field(element e, std::string_view key) {
  std::string_view v;
  if (e[key].get_string().get(v) != simdjson::SUCCESS) return {};
  return v;
}

int64_t int_field(element e, std::string_view key) {
  element v;
  if (e[key].get(v) != simdjson::SUCCESS) return 0;
  int64_t i;
  if (v.get_int64().get(i) == simdjson::SUCCESS) return i;
  uint64_t u;
  if (v.get_uint64().get(u) == simdjson::SUCCESS) return static_cast<int64_t>(u);
  double d;
  // A double outside int64's range (1e80, NaN cannot occur in JSON) would be undefined to cast:
  // such a value is no real duration or count, so it reads as unknown.
  if (v.get_double().get(d) == simdjson::SUCCESS && d > -9.2e18 && d < 9.2e18) return static_cast<int64_t>(d);
  return 0;
}

bool bool_field(element e, std::string_view key) {
  bool b = false;
  if (e[key].get_bool().get(b) != simdjson::SUCCESS) return false;
  return b;
}

std::string_view ltrim(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) ++i;
  return s.substr(i);
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

void append_part(std::string& out, std::string_view part) {
  if (part.empty()) return;
  if (!out.empty()) out.push_back('\n');
  out.append(part);
}

// Every string leaf of a tool input, so commands, paths, patterns and prompts are searchable.
void collect_strings(element e, std::string& out, int depth) {
  if (depth > 16) return;
  switch (e.type()) {
    case simdjson::dom::element_type::STRING:
      append_part(out, std::string_view(e.get_string().value_unsafe()));
      break;
    case simdjson::dom::element_type::ARRAY:
      for (element child : array(e)) collect_strings(child, out, depth + 1);
      break;
    case simdjson::dom::element_type::OBJECT:
      for (auto field : object(e)) collect_strings(field.value, out, depth + 1);
      break;
    default:
      break;
  }
}

// JSON text of a tool input with every string leaf cut to `max_leaf` bytes (on a UTF-8 boundary),
// marked "…[truncated]": the full strings are already in the message text, so the record stays small.
void write_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (u < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\u00";
          out.push_back(kHex[u >> 4]);
          out.push_back(kHex[u & 15]);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

void write_truncated_json(element e, std::string& out, size_t max_leaf, int depth) {
  switch (e.type()) {
    case simdjson::dom::element_type::STRING: {
      std::string_view s = e.get_string().value_unsafe();
      if (s.size() > max_leaf) {
        size_t cut = max_leaf;
        while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
        write_json_string(out, std::string(s.substr(0, cut)) + "…[truncated]");
      } else {
        write_json_string(out, s);
      }
      break;
    }
    case simdjson::dom::element_type::ARRAY: {
      out.push_back('[');
      bool first = true;
      for (element child : array(e)) {
        if (!first) out.push_back(',');
        first = false;
        if (depth < 32) write_truncated_json(child, out, max_leaf, depth + 1); else out += "null";
      }
      out.push_back(']');
      break;
    }
    case simdjson::dom::element_type::OBJECT: {
      out.push_back('{');
      bool first = true;
      for (auto field : object(e)) {
        if (!first) out.push_back(',');
        first = false;
        write_json_string(out, field.key);
        out.push_back(':');
        if (depth < 32) write_truncated_json(field.value, out, max_leaf, depth + 1); else out += "null";
      }
      out.push_back('}');
      break;
    }
    default:
      out += simdjson::minify(e);
  }
}

void collect_block_texts(element content, std::string& out, std::string_view block_type) {
  std::string_view s;
  if (content.get_string().get(s) == simdjson::SUCCESS) {
    append_part(out, s);
    return;
  }
  array blocks;
  if (content.get_array().get(blocks) != simdjson::SUCCESS) return;
  for (element b : blocks)
    if (block_type.empty() || str_field(b, "type") == block_type) append_part(out, str_field(b, "text"));
}

void collect_result_text(element content, std::string& out) { collect_block_texts(content, out, "text"); }


}  // namespace osearch
