// Shared helpers of the `thread` / `context` / `trace` tests: references computed from the raw JSONL
// (never by the code under test) and a few synthetic Claude lines.
#pragma once

#include "tests/cli_fixture.h"

#include <map>
#include <set>

namespace thread_test {

// A real session with a compaction: the boundary (a `system` line, not a message) links back by
// logicalParentUuid (tests/data/claude/PROVENANCE.md).
inline const std::string kCompactRel =
    "-private-var-folders-t5-6tq8cxtj20z035rv8hsnzwvh0000gn-T-capture-vyPJVq/8aa54c1d-5030-4491-be42-e0c416424b8a.jsonl";
inline const std::string kCompactId = "8aa54c1d-5030-4491-be42-e0c416424b8a";

// One raw JSONL line with a uuid, as the file has it.
struct RawLine {
  std::string type, uuid, parent, logical_parent;
  bool is_meta = false;
};

inline std::vector<RawLine> raw_lines(const std::string& path) {
  std::vector<RawLine> out;
  simdjson::dom::parser parser;
  for (const auto& line : lines_of(read_file(path))) {
    simdjson::dom::element obj;
    if (parser.parse(line).get(obj) != simdjson::SUCCESS || !obj.is_object()) continue;
    RawLine r;
    std::string_view v;
    if (obj["uuid"].get_string().get(v) != simdjson::SUCCESS || v.empty()) continue;
    r.uuid = std::string(v);
    if (obj["type"].get_string().get(v) == simdjson::SUCCESS) r.type = std::string(v);
    if (obj["parentUuid"].get_string().get(v) == simdjson::SUCCESS) r.parent = std::string(v);
    if (obj["logicalParentUuid"].get_string().get(v) == simdjson::SUCCESS) r.logical_parent = std::string(v);
    bool meta = false;
    if (obj["isMeta"].get_bool().get(meta) == simdjson::SUCCESS) r.is_meta = meta;
    out.push_back(std::move(r));
  }
  return out;
}

inline bool is_message(const RawLine& r) { return r.type == "user" || r.type == "assistant"; }

// The reference count: a user/assistant line with a uuid is one message, once per uuid.
inline std::set<std::string> message_uuids(const std::vector<std::string>& paths) {
  std::set<std::string> out;
  for (const auto& p : paths)
    for (const auto& r : raw_lines(p))
      if (is_message(r)) out.insert(r.uuid);
  return out;
}

// The parent chain of `uuid` over every line of the file (messages or not), root first, keeping
// only messages: parentUuid, else logicalParentUuid (a compaction boundary).
inline std::vector<std::string> reference_chain(const std::string& path, const std::string& uuid) {
  std::map<std::string, RawLine> by_uuid;
  for (auto& r : raw_lines(path)) by_uuid.emplace(r.uuid, r);
  std::vector<std::string> chain;
  std::set<std::string> seen;
  for (std::string at = uuid; !at.empty() && seen.insert(at).second;) {
    auto it = by_uuid.find(at);
    if (it == by_uuid.end()) break;
    if (is_message(it->second)) chain.push_back(at);
    at = it->second.parent.empty() ? it->second.logical_parent : it->second.parent;
  }
  return {chain.rbegin(), chain.rend()};
}

inline std::string claude_user(const std::string& sid, const std::string& uuid, const std::string& parent,
                               const std::string& text, const std::string& ts) {
  const std::string p = parent.empty() ? "null" : "\"" + parent + "\"";
  return R"({"parentUuid":)" + p + R"(,"isSidechain":false,"type":"user","cwd":"/w/proj","sessionId":")" + sid +
         R"(","message":{"role":"user","content":")" + text + R"("},"uuid":")" + uuid + R"(","timestamp":")" + ts +
         "\"}\n";
}

inline std::string claude_assistant(const std::string& sid, const std::string& uuid, const std::string& parent,
                                    const std::string& content_json, const std::string& ts) {
  const std::string p = parent.empty() ? "null" : "\"" + parent + "\"";
  return R"({"parentUuid":)" + p + R"(,"isSidechain":false,"type":"assistant","cwd":"/w/proj","sessionId":")" + sid +
         R"(","message":{"id":"msg_)" + uuid + R"(","model":"claude-test","role":"assistant","content":)" +
         content_json + R"(},"uuid":")" + uuid + R"(","timestamp":")" + ts + "\"}\n";
}

// "2026-03-01T10:MM:SS.000Z" for the n-th second.
inline std::string ts_at(int n) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "2026-03-01T%02d:%02d:%02d.000Z", 10 + n / 3600, (n / 60) % 60, n % 60);
  return buf;
}

inline std::vector<std::string> uuids_of(const Json& messages) {
  std::vector<std::string> out;
  for (const auto& m : messages.a) out.push_back(m["uuid"].s);
  return out;
}

}  // namespace thread_test
