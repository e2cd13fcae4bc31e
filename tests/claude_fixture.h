// Shared fixtures and helpers of the claude_ingest tests (split out of one long file).
#pragma once

// Claude Code adapter (parse_claude_object) and layout discovery (discover_claude), checked on
// byte-for-byte copies of real transcripts in tests/data/claude (a few lines are also varied
// inline, e.g. the same line without its isMeta flag, to test the text classifiers alone).
#include "ingest/claude.h"

#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ingest/claude_layout.h"
#include "ingest/jsonl_reader.h"
#include "tests/corpus_sessions.h"
#include "test_util.h"

using namespace osearch;
using namespace osearch_test;

namespace {

struct Parsed {
  std::string raw;  // minified object
  uint64_t line_offset = 0;
  bool kept = false;
  LineRecords rec;
};

std::vector<Parsed> parse_file(const std::string& rel) {
  std::vector<Parsed> out;
  JsonlReader reader;
  JsonlReadResult res = reader.read(claude_data_dir() + "/" + rel, 0, [&](simdjson::dom::element obj, uint64_t off) {
    Parsed p;
    p.raw = simdjson::minify(obj);
    p.line_offset = off;
    p.kept = parse_claude_object(obj, p.rec);
    out.push_back(std::move(p));
  });
  REQUIRE(res.ok);
  return out;
}

const Parsed& by_uuid(const std::vector<Parsed>& ps, const std::string& uuid) {
  for (const auto& p : ps)
    if (!p.rec.messages.empty() && p.rec.messages.at(0).uuid == uuid) return p;
  FAIL("no message with uuid " << uuid);
  throw std::logic_error("unreachable");
}

const Message& msg(const std::vector<Parsed>& ps, const std::string& uuid) { return by_uuid(ps, uuid).rec.messages.at(0); }

// Parses one JSON object given inline.
struct One {
  bool kept = false;
  LineRecords rec;
};
One parse_one(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
  One o;
  o.kept = parse_claude_object(doc, o.rec);
  return o;
}

std::string erase_all(std::string s, const std::string& what) {
  for (size_t p; (p = s.find(what)) != std::string::npos;) s.erase(p, what.size());
  return s;
}

const std::string kUserProject = "-Users-user-project/b3edadab-bca0-4054-9b41-f7ffa6941260.jsonl";
const std::string kClear = "-Users-user-project/0d3b22c1-ba90-4fd3-b8d2-056ffc626725.jsonl";
const std::string kCompact =
    "-private-var-folders-t5-6tq8cxtj20z035rv8hsnzwvh0000gn-T-capture-vyPJVq/8aa54c1d-5030-4491-be42-e0c416424b8a.jsonl";
const std::string kCaveat =
    "-private-var-folders-t5-6tq8cxtj20z035rv8hsnzwvh0000gn-T-capture-xJ7zS3/f5e1f234-e88e-41da-80fa-714c84819d52.jsonl";
const std::string kHookAgent =
    "-home-marco-projects-spotter-worktrees-spotter-gqc/258c7280-ae70-4798-800f-63464d01a85d/subagents/"
    "agent-acompact-fffbd0.jsonl";
const std::string kTaskNotification = "-fixture-claude-code-log-test-data/eb000000-0000-4000-8000-000000000001.jsonl";
const std::string kExperiments = "-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl";
const std::string kCjk = "sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl";
const std::string kImage = "-Users-dain-workspace-danieldemmel-me-next/4379d1bf-ccb1-414e-a856-9791b73f3af2.jsonl";
const std::string kAiTitle = "-fixture-jazzyalex-agent-sessions/small.jsonl";

}  // namespace
