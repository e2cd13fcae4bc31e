#include "engine/index/archive_json.h"

#include <array>
#include <vector>

#include <simdjson.h>

#include "engine/index/schema.h"

namespace osearch {
namespace {

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void put_base64(std::string& out, std::string_view in) {
  out.push_back('"');
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const uint32_t v = (uint32_t(uint8_t(in[i])) << 16) | (uint32_t(uint8_t(in[i + 1])) << 8) | uint8_t(in[i + 2]);
    for (int shift : {18, 12, 6, 0}) out.push_back(kBase64[(v >> shift) & 63]);
  }
  if (const size_t rest = in.size() - i; rest > 0) {
    uint32_t v = uint32_t(uint8_t(in[i])) << 16;
    if (rest == 2) v |= uint32_t(uint8_t(in[i + 1])) << 8;
    out.push_back(kBase64[(v >> 18) & 63]);
    out.push_back(kBase64[(v >> 12) & 63]);
    out.push_back(rest == 2 ? kBase64[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  out.push_back('"');
}

std::optional<std::string> from_base64(std::string_view in) {
  static const std::array<int8_t, 256> table = [] {
    std::array<int8_t, 256> t{};
    t.fill(-1);
    for (int i = 0; i < 64; ++i) t[static_cast<uint8_t>(kBase64[i])] = static_cast<int8_t>(i);
    return t;
  }();
  if (in.size() % 4) return std::nullopt;
  std::string out;
  out.reserve(in.size() / 4 * 3);
  for (size_t i = 0; i < in.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = in[i + k];
      if (c == '=' && i + 4 == in.size() && k >= 2) {
        v[k] = 0;
        ++pad;
        continue;
      }
      if (pad) return std::nullopt;  // data after padding
      v[k] = table[static_cast<uint8_t>(c)];
      if (v[k] < 0) return std::nullopt;
    }
    const uint32_t n = (uint32_t(v[0]) << 18) | (uint32_t(v[1]) << 12) | (uint32_t(v[2]) << 6) | uint32_t(v[3]);
    out.push_back(static_cast<char>(n >> 16));
    if (pad < 2) out.push_back(static_cast<char>((n >> 8) & 0xff));
    if (pad < 1) out.push_back(static_cast<char>(n & 0xff));
  }
  return out;
}

// A readable field: written only when it is valid UTF-8 (the records carry it anyway).
void put_text_field(std::string& out, std::string_view name, std::string_view s) {
  if (!simdjson::validate_utf8(s.data(), s.size())) return;
  out += ",\"";
  out += name;
  out += "\":\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out.push_back(kHex[(c >> 4) & 0xf]);
      out.push_back(kHex[c & 0xf]);
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

void put_pairs(std::string& out, std::string_view name, const std::vector<KeyValue>& kvs) {
  out += ",\"";
  out += name;
  out += "\":[";
  for (size_t i = 0; i < kvs.size(); ++i) {
    out += i ? ",[" : "[";
    put_base64(out, kvs[i].key);
    out.push_back(',');
    put_base64(out, kvs[i].value);
    out.push_back(']');
  }
  out.push_back(']');
}

struct Tables {
  std::string_view name;
  std::vector<KeyValue> ArchivedSession::*member;
};
// The tables an archive line carries: file states are left out (they describe files of the machine
// that wrote them; an imported session's files are gone by definition).
constexpr std::array<Tables, 7> kTables{{{"tool_calls", &ArchivedSession::tool_calls},
                                         {"tool_results", &ArchivedSession::tool_results},
                                         {"usage_seen", &ArchivedSession::usage_seen},
                                         {"subagents", &ArchivedSession::subagents},
                                         {"session_files", &ArchivedSession::session_files},
                                         {"workflows", &ArchivedSession::workflows},
                                         {"workflow_agents", &ArchivedSession::workflow_agents}}};

std::optional<std::string> b64_of(simdjson::dom::element e) {
  std::string_view s;
  if (e.get(s)) return std::nullopt;
  return from_base64(s);
}

}  // namespace

std::string encode_archive_line(const ArchivedSession& s, uint64_t schema) {
  std::string out = "{\"format\":\"";
  out += kArchiveFormat;
  out += "\",\"version\":" + std::to_string(kArchiveFormatVersion) + ",\"schema\":" + std::to_string(schema);
  put_text_field(out, "id", s.rec.shown_id());
  put_text_field(out, "agent", s.rec.agent);
  put_text_field(out, "project", s.rec.project);
  out += ",\"message_count\":" + std::to_string(s.messages.size());
  out += ",\"started_at\":" + std::to_string(s.rec.started_at) + ",\"ended_at\":" + std::to_string(s.rec.ended_at);
  out += ",\"key\":";
  put_base64(out, s.id);
  out += ",\"session\":";
  put_base64(out, s.rec_bytes);
  out += ",\"messages\":[";
  for (size_t i = 0; i < s.messages.size(); ++i) {
    const auto& [m, text] = s.messages[i];
    out += i ? ",[" : "[";
    put_base64(out, m.key);
    out.push_back(',');
    put_base64(out, m.encode());
    out.push_back(',');
    put_base64(out, text);
    out.push_back(']');
  }
  out.push_back(']');
  for (const auto& t : kTables) put_pairs(out, t.name, s.*t.member);
  out.push_back('}');
  return out;
}

std::optional<ArchivedSession> decode_archive_line(std::string_view line, std::string& why) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(line.data(), line.size()).get(doc)) {
    why = "not JSON";
    return std::nullopt;
  }
  std::string_view format;
  uint64_t version = 0, schema = 0;
  if (doc["format"].get(format) || format != kArchiveFormat || doc["version"].get(version) ||
      doc["schema"].get(schema)) {
    why = "not an osearch session line";
    return std::nullopt;
  }
  if (version != kArchiveFormatVersion) {
    why = "archive format version " + std::to_string(version) + " is not known to this osearch";
    return std::nullopt;
  }
  const std::optional<SchemaSteps> steps = schema_steps(schema, kSchemaVersion);
  if (!steps) {
    why = "written by schema " + std::to_string(schema) + ", which this osearch cannot carry over";
    return std::nullopt;
  }
  why = "a field is missing or not base64, or a record does not decode or belong to the session";
  ArchivedSession s;
  simdjson::dom::element key, session;
  if (doc["key"].get(key) || doc["session"].get(session)) return std::nullopt;
  auto id = b64_of(key);
  auto rec_bytes = b64_of(session);
  if (!id || id->empty() || id->find('\0') != std::string::npos || !rec_bytes) return std::nullopt;
  auto rec = SessionRec::decode(*rec_bytes);
  if (!rec || rec->id != *id) return std::nullopt;
  s.id = std::move(*id);
  s.rec = std::move(*rec);
  s.rec_bytes = std::move(*rec_bytes);
  const std::string pfx = s.id + '\0';
  auto belongs = [&](std::string_view k) { return k.compare(0, pfx.size(), pfx) == 0; };  // "<sid>\0" itself too (an empty id)
  simdjson::dom::array messages;
  if (doc["messages"].get(messages)) return std::nullopt;
  for (simdjson::dom::element row : messages) {
    simdjson::dom::array cols;
    if (row.get(cols) || cols.size() != 3) return std::nullopt;
    auto k = b64_of(cols.at(0).value_unsafe());
    auto v = b64_of(cols.at(1).value_unsafe());
    auto text = b64_of(cols.at(2).value_unsafe());
    if (!k || !v || !text || !belongs(*k)) return std::nullopt;
    auto m = MessageRec::decode(*k, *v);
    if (!m) return std::nullopt;
    s.messages.emplace_back(std::move(*m), std::move(*text));
  }
  std::vector<std::string> runs;  // workflow run ids: the prefixes of workflow_agents' keys
  for (const auto& t : kTables) {
    simdjson::dom::array rows;
    if (doc[t.name].get(rows)) return std::nullopt;
    for (simdjson::dom::element row : rows) {
      simdjson::dom::array cols;
      if (row.get(cols) || cols.size() != 2) return std::nullopt;
      auto k = b64_of(cols.at(0).value_unsafe());
      auto v = b64_of(cols.at(1).value_unsafe());
      if (!k || !v) return std::nullopt;
      if (t.name == "workflow_agents") {
        bool of_a_run = false;
        for (const auto& run : runs) of_a_run = of_a_run || k->compare(0, run.size(), run) == 0;
        if (!of_a_run) return std::nullopt;
      } else if (!belongs(*k)) {
        return std::nullopt;
      }
      if (t.name == "workflows") runs.push_back(k->substr(pfx.size()) + '\0');
      (s.*t.member).push_back({std::move(*k), std::move(*v)});
    }
  }
  if (!apply_steps(s, *steps)) return std::nullopt;
  why.clear();
  return s;
}

}  // namespace osearch
