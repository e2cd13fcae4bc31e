// Shared helpers of the Codex adapter tests (codex_test.cpp, codex_lines_test.cpp): run inline
// lines or a rollout file through parse_codex_object with one FileCarry, as the engine does.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ingest/adapter.h"
#include "ingest/jsonl_reader.h"
#include "test_util.h"

namespace codex_test {

using namespace osearch;

inline std::string codex_data_dir() { return std::string(OSEARCH_TEST_DATA) + "/codex"; }
inline std::string codex_sessions_dir() { return codex_data_dir() + "/.codex/sessions"; }

struct ParsedLine {
  uint64_t line_offset = 0;
  bool kept = false;
  LineRecords rec;
};

struct CodexRun {
  FileCarry carry;
  std::vector<ParsedLine> lines;

  // The file's session: the first line naming one decides (the engine's rule).
  std::string session_id() const {
    for (const auto& l : lines)
      if (!l.rec.session_id_field.empty()) return l.rec.session_id_field;
    return {};
  }
  std::vector<Message> messages() const {
    std::vector<Message> out;
    for (const auto& l : lines) out.insert(out.end(), l.rec.messages.begin(), l.rec.messages.end());
    return out;
  }
  std::vector<SessionFact> facts() const {
    std::vector<SessionFact> out;
    for (const auto& l : lines) out.insert(out.end(), l.rec.facts.begin(), l.rec.facts.end());
    return out;
  }
  std::vector<SessionFact> facts(SessionFact::Kind kind) const {
    std::vector<SessionFact> out;
    for (const auto& f : facts())
      if (f.kind == kind) out.push_back(f);
    return out;
  }
};

// One JSON object; `carry` goes on to the next line.
inline ParsedLine parse_line(const std::string& json, FileCarry& carry, uint64_t line_offset = 0) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
  ParsedLine p;
  p.line_offset = line_offset;
  p.kept = parse_codex_object(doc, line_offset, carry, p.rec);
  return p;
}

// Inline lines of one file, in order; each line's offset is where it would start in the file.
inline CodexRun run_lines(const std::vector<std::string>& lines, FileCarry carry = {}) {
  CodexRun run;
  run.carry = std::move(carry);
  uint64_t offset = 0;
  for (const auto& l : lines) {
    run.lines.push_back(parse_line(l, run.carry, offset));
    offset += l.size() + 1;
  }
  return run;
}

// The single message one line yields (fails when it yields another number).
inline Message only_message(const std::string& json, FileCarry carry = {}) {
  ParsedLine p = parse_line(json, carry, 0);
  REQUIRE(p.rec.messages.size() == 1);
  return p.rec.messages[0];
}

inline CodexRun run_file(const std::string& path, uint64_t offset = 0, FileCarry carry = {}) {
  CodexRun run;
  run.carry = std::move(carry);
  JsonlReader reader;
  JsonlReadResult res = reader.read(path, offset, [&](simdjson::dom::element obj, uint64_t off) {
    ParsedLine p;
    p.line_offset = off;
    p.kept = parse_codex_object(obj, off, run.carry, p.rec);
    run.lines.push_back(std::move(p));
  });
  REQUIRE(res.ok);
  return run;
}

// A response_item / event_msg line around `payload`.
inline std::string item(const std::string& payload, const std::string& ts = "2026-01-02T03:04:05.678Z") {
  return R"({"timestamp":")" + ts + R"(","type":"response_item","payload":)" + payload + "}";
}
inline std::string event(const std::string& payload) {
  return R"({"timestamp":"2026-01-02T03:04:05.678Z","type":"event_msg","payload":)" + payload + "}";
}
inline std::string meta(const std::string& id, const std::string& extra = "") {
  return R"({"timestamp":"2026-01-02T03:04:00.000Z","type":"session_meta","payload":{"id":")" + id +
         R"(","cwd":"/home/u/proj","cli_version":"0.146.0","git":{"branch":"feat/x","commit_hash":"abc"})" + extra +
         "}}";
}
inline std::string turn_context(const std::string& model, const std::string& cwd = "") {
  return R"({"timestamp":"2026-01-02T03:04:01.000Z","type":"turn_context","payload":{"model":")" + model +
         R"(","cwd":")" + cwd + R"("}})";
}
inline std::string token_count(int64_t input, int64_t cached, int64_t output) {
  return event(R"({"type":"token_count","info":{"total_token_usage":{"input_tokens":)" + std::to_string(input) +
               R"(,"cached_input_tokens":)" + std::to_string(cached) + R"(,"output_tokens":)" +
               std::to_string(output) + R"(,"reasoning_output_tokens":0,"total_tokens":0}}})");
}

inline bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

}  // namespace codex_test
