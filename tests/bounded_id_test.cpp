// Bounded identifiers (ingest/bounded_id.h) and the Claude adapter's use of them and of the
// repair pass: a transcript field of any length leaves ingest/ as a bounded, deterministic id; and
// a session's value in the text index (its number, engine/store/session_numbers.h).
#include "ingest/bounded_id.h"

#include "engine/store/session_numbers.h"

#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "engine/index/text_index.h"
#include "engine/store/records_store.h"
#include "ingest/claude.h"
#include "ingest/jsonl_reader.h"
#include "test_util.h"

using namespace osearch;
using namespace osearch_test;

TEST_CASE("bounded_id: short ids untouched, long ones bounded, deterministic and distinct", "[hardening][ingest][keys]") {
  const std::string uuid = "b3edadab-bca0-4054-9b41-f7ffa6941260";
  CHECK(bounded_id(uuid) == uuid);
  CHECK(bounded_id(std::string(kMaxIdBytes, 'x')) == std::string(kMaxIdBytes, 'x'));
  const std::string a = std::string(600, 'u');
  const std::string b = std::string(599, 'u') + "v";
  CHECK(bounded_id(a).size() <= kMaxIdBytes);
  CHECK(bounded_id(a) == bounded_id(a));
  CHECK(bounded_id(a) != bounded_id(b));  // differ only in the tail
  CHECK(bounded_id(bounded_id(a)) == bounded_id(a));  // idempotent: keys built twice agree
  CHECK(bounded_id(a).substr(0, 100) == a.substr(0, 100));  // a readable head
  // The head is cut on a UTF-8 boundary.
  std::string cjk;
  for (int i = 0; i < 100; ++i) cjk += "\xE4\xBD\xA0";
  const std::string bc = bounded_id(cjk);
  CHECK(bc.size() <= kMaxIdBytes);
  CHECK((bc.size() - 33) % 3 == 0);
  // A smaller bound (Xapian boolean terms use one).
  CHECK(bounded_id(a, 100).size() <= 100);
}

TEST_CASE("claude adapter: over-long ids come out bounded", "[hardening][ingest][keys]") {
  const std::string long_id = std::string(600, 'i');
  const std::string line = R"({"type":"assistant","sessionId":")" + long_id + R"(","uuid":")" + long_id +
                           R"(","parentUuid":")" + long_id + R"(","agentId":")" + long_id +
                           R"(","message":{"id":")" + long_id +
                           R"(","role":"assistant","content":[{"type":"tool_use","id":")" + long_id +
                           R"(","name":"Bash","input":{"command":"ls"}}]}})";
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(line).get(doc) == simdjson::SUCCESS);
  LineRecords rec;
  REQUIRE(parse_claude_object(doc, rec));
  const std::string want = bounded_id(long_id);
  CHECK(rec.session_id_field == want);
  CHECK(rec.messages.at(0).uuid == want);
  CHECK(rec.messages.at(0).parent_uuid == want);
  CHECK(rec.messages.at(0).agent_id == want);
  CHECK(rec.messages.at(0).api_message_id == want);
  REQUIRE(rec.messages.at(0).tool_calls.size() == 1);
  CHECK(rec.messages.at(0).tool_calls[0].id == want);
  LineRecords summary;
  REQUIRE(parser.parse(R"({"type":"summary","summary":"T","leafUuid":")" + long_id + "\"}").get(doc) == simdjson::SUCCESS);
  parse_claude_object(doc, summary);
  REQUIRE(summary.facts.size() == 1);
  CHECK(summary.facts[0].ref_uuid == want);
}

TEST_CASE("claude adapter: a repaired line keeps its message and tool calls", "[hardening][ingest][repair]") {
  TempDir tmp("repair");
  const std::string path = tmp / "t.jsonl";
  write_file(path, std::string(R"({"type":"assistant","sessionId":"s","uuid":"a1","message":{"id":"m","role":"assistant",)"
                               R"("content":[{"type":"text","text":"bad \ud800 and )" "\xFF" R"( here"},)"
                               R"({"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls","n":1e999}}]}})") +
                       "\n");
  JsonlReader reader;
  LineRecords rec;
  bool kept = false;
  JsonlReadResult res = reader.read(path, 0, [&](simdjson::dom::element e, uint64_t) { kept = parse_claude_object(e, rec); });
  CHECK(res.repaired_lines == 1);
  CHECK(res.bad_lines == 0);
  REQUIRE(kept);
  CHECK(rec.messages.at(0).text.find("bad \xEF\xBF\xBD and \xEF\xBF\xBD here") != std::string::npos);
  REQUIRE(rec.messages.at(0).tool_calls.size() == 1);
  CHECK(rec.messages.at(0).tool_calls[0].input_json.find("\"1e999\"") != std::string::npos);
}

TEST_CASE("SessionRec keeps a long session id as written; version-1 records still decode", "[hardening][ingest][keys]") {
  SessionRec s;
  s.full_id = std::string(600, 's');
  s.id = bounded_id(s.full_id);
  s.project = "p";
  auto back = SessionRec::decode(s.encode());
  REQUIRE(back);
  CHECK(back->id == s.id);
  CHECK(back->shown_id() == s.full_id);
  // A record written before full_id existed (schema 10): version 1, no trailing field.
  SessionRec old;
  old.id = "b3edadab-bca0-4054-9b41-f7ffa6941260";
  old.project = "p";
  std::string bytes = old.encode();
  bytes.pop_back();  // the empty full_id's length byte (a one-byte varint)
  bytes[0] = 1;      // version 1
  auto v1 = SessionRec::decode(bytes);
  REQUIRE(v1);
  CHECK(v1->shown_id() == old.id);
  CHECK(v1->project == "p");
}

TEST_CASE("session numbers: one short value per number, and back", "[index][values]") {
  CHECK(session_number_value(1) == std::string("\x01"));
  CHECK(session_number_value(255).size() == 1);
  CHECK(session_number_value(256) == std::string("\x01\x00", 2));  // a zero byte inside is kept
  CHECK(session_number_value(70000).size() == 3);
  CHECK(session_number_value(UINT32_MAX).size() == 4);
  std::set<std::string> values;
  for (uint32_t n : {1u, 2u, 127u, 128u, 255u, 256u, 257u, 65535u, 65536u, 16777215u, 16777216u, UINT32_MAX}) {
    INFO(n);
    const std::string v = session_number_value(n);
    CHECK(number_of_session_value(v) == std::optional<uint32_t>(n));
    values.insert(v);
  }
  CHECK(values.size() == 12);
  // What is no number: a memory's collapse value, nothing, a leading zero byte, five bytes.
  CHECK_FALSE(number_of_session_value("memory/abc"));
  CHECK_FALSE(number_of_session_value(""));
  CHECK_FALSE(number_of_session_value(std::string("\x00\x01", 2)));
  CHECK_FALSE(number_of_session_value(std::string("\x01\x00\x00\x00\x00", 5)));
  CHECK_THROWS(next_session_number(UINT32_MAX));
  CHECK(next_session_number(41) == 42);
}
