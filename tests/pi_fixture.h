// Helpers of the omp/pi adapter tests (tests/pi_family_test.cpp): whole files from tests/data/omp and
// tests/data/pi read as the engine reads them (one FileCarry through the file), and inline lines.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "ingest/adapter.h"
#include "ingest/jsonl_reader.h"
#include "test_util.h"

namespace pi_test {

using namespace osearch;

struct ParsedLine {
  uint64_t line_offset = 0;
  bool kept = false;
  LineRecords rec;
};

struct ParsedFile {
  std::vector<ParsedLine> lines;
  FileCarry carry;  // after the last line
  JsonlReadResult read;

  std::vector<const Message*> messages() const {
    std::vector<const Message*> out;
    for (const auto& l : lines)
      for (const auto& m : l.rec.messages) out.push_back(&m);
    return out;
  }
  std::vector<const SessionFact*> facts() const {
    std::vector<const SessionFact*> out;
    for (const auto& l : lines)
      for (const auto& f : l.rec.facts) out.push_back(&f);
    return out;
  }
};

// `rel` is relative to tests/data (e.g. "pi/.pi/agent/sessions/<dir>/<file>").
inline ParsedFile parse_file(const std::string& rel) {
  ParsedFile pf;
  JsonlReader reader;
  pf.read = reader.read(osearch_test::test_data_dir() + "/" + rel, 0,
                        [&](simdjson::dom::element obj, uint64_t off) {
                          ParsedLine l;
                          l.line_offset = off;
                          l.kept = parse_pi_family_object(obj, off, pf.carry, l.rec);
                          pf.lines.push_back(std::move(l));
                        });
  REQUIRE(pf.read.ok);
  return pf;
}

// Inline lines as if they were one file: offsets count the bytes (plus newline) of the lines before.
struct PiRun {
  std::vector<bool> kept;
  std::vector<LineRecords> recs;
  std::vector<uint64_t> offsets;
  FileCarry carry;
  const LineRecords& last() const { return recs.back(); }
};

inline PiRun parse_lines(const std::vector<std::string>& lines, FileCarry carry = {}) {
  PiRun run;
  run.carry = std::move(carry);
  simdjson::dom::parser parser;
  uint64_t offset = 0;
  for (const auto& json : lines) {
    simdjson::dom::element doc;
    REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
    LineRecords rec;
    run.kept.push_back(parse_pi_family_object(doc, offset, run.carry, rec));
    run.recs.push_back(std::move(rec));
    run.offsets.push_back(offset);
    offset += json.size() + 1;
  }
  return run;
}

// One line on its own (the carry may be given, e.g. after a header).
inline LineRecords parse_one(const std::string& json, FileCarry carry = {}) {
  return parse_lines({json}, std::move(carry)).last();
}

inline bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

inline const std::string kOmpFile =
    "omp/.omp/agent/sessions/-workspaces-pi-mono/2025-11-20T23-33-50-805Z_d703a1a9-1b7b-4fb1-b512-c9738b1fe617.jsonl";
inline const std::string kPiLarge =
    "pi/.pi/agent/sessions/--Users-badlogic-workspaces-pi-mono--/"
    "2025-11-20T23-33-50-805Z_d703a1a9-1b7b-4fb1-b512-c9738b1fe617.jsonl";
inline const std::string kPiCompaction =
    "pi/.pi/agent/sessions/--Users-badlogic-workspaces-pi-mono--/"
    "2025-12-09T00-53-29-825Z_ffae836b-9420-4060-ac13-7745215f90ff.jsonl";
inline const std::string kPiV3 =
    "pi/.pi/agent/sessions/--tmp-as-agent-fixture-project--/"
    "2026-05-12T01-02-27-657Z_019e19b4-eb48-746a-aa6b-8dfcfa37954b.jsonl";

// Written by pi's own SessionManager (tests/data/pi/generate_pi_session.mjs).
inline const std::string kPiWriter =
    "pi/.pi/agent/sessions/--tmp-osearch-pi-writer-project--/"
    "2026-12-01T10-24-26-884Z_01a23122-6302-7301-abeb-60b1d2134d56.jsonl";

}  // namespace pi_test
