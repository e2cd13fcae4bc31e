// Bounded identifiers (ingest/bounded_id.h) and the Claude adapter's use of them and of the
// repair pass: a transcript field of any length leaves ingest/ as a bounded, deterministic id; and
// the session id as the text index keeps it (session_value).
#include "ingest/bounded_id.h"

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

TEST_CASE("session_value: one value per session id, and back", "[index][values]") {
  const std::string uuid = "1af7fc5e-8455-4414-9ccd-011d40f70b2a";
  CHECK(session_value(uuid).size() == 17);  // a canonical UUID as its 16 bytes
  const std::vector<std::string> ids = {
      uuid,
      "1AF7FC5E-8455-4414-9CCD-011D40F70B2A",  // upper case: kept as written
      "1af7fc5e-8455-4414-9ccd-011d40f70b2g",  // not hex
      "1af7fc5e08455-4414-9ccd-011d40f70b2a",  // a dash missing
      "1af7fc5e-8455-4414-9ccd-011d40f70b2",   // short
      "rollout-2025-01-01T00-00-00-1af7fc5e",  // 36 bytes, not a UUID
      "memory/abc",
      "",
      std::string("\x01") + std::string(16, 'a'),  // what an encoded UUID looks like
      std::string("\x00", 1) + "x",
      std::string("\x01", 1),
      "agent-a1b2c3",
  };
  std::set<std::string> values;
  for (const auto& id : ids) {
    INFO(id);
    const std::string v = session_value(id);
    CHECK(session_of_value(v) == id);
    values.insert(v);
  }
  CHECK(values.size() == ids.size());
  // Every byte pattern of a UUID survives, both ends of each nibble included.
  for (const std::string id : {"00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
                               "0123abcd-ef45-6789-a0b1-c2d3e4f56789"})
    CHECK(session_of_value(session_value(id)) == id);
}
