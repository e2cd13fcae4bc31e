// The omp/pi adapter (ingest/pi_family.cpp) on the real samples in tests/data/omp and tests/data/pi.
// Expected counts were computed once with a python count of each file (per role, per block kind,
// usage sums); the inline rules are in pi_family_lines_test.cpp.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "pi_fixture.h"
#include "ingest/timeutil.h"

using namespace osearch;
using namespace pi_test;

namespace {

struct Tally {
  std::map<std::string, int> by_kind;  // "role/content_type", "+meta" when meta
  TokenUsage usage;
  std::set<std::string> call_ids, result_ids;
  int error_results = 0;
  size_t total = 0;
};

Tally tally(const ParsedFile& pf) {
  Tally t;
  for (const Message* m : pf.messages()) {
    std::string key = std::string(role_name(m->role)) + "/" + content_type_name(m->content_type);
    if (m->is_meta) key += "+meta";
    ++t.by_kind[key];
    t.usage.add(m->usage);
    for (const auto& c : m->tool_calls) t.call_ids.insert(c.id);
    for (const auto& r : m->tool_results) {
      t.result_ids.insert(r.tool_use_id);
      t.error_results += r.is_error;
    }
    ++t.total;
  }
  return t;
}

// Longest run of base64 characters: image data and thinking signatures are thousands long.
size_t longest_base64_run(const std::string& s) {
  size_t best = 0, run = 0;
  for (char c : s) {
    bool b64 = std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || c == '=';
    run = b64 ? run + 1 : 0;
    best = std::max(best, run);
  }
  return best;
}

void check_common(const ParsedFile& pf, const std::string& version) {
  CHECK(pf.read.bad_lines == 0);
  CHECK(pf.read.repaired_lines == 0);
  CHECK(pf.read.objects == pf.lines.size());
  for (const auto& l : pf.lines) {
    for (size_t i = 0; i < l.rec.messages.size(); ++i) {
      const Message& m = l.rec.messages[i];
      INFO("line at " << l.line_offset << " part " << i << " uuid " << m.uuid);
      CHECK(!m.uuid.empty());
      CHECK(m.timestamp_ms > 0);
      CHECK(m.cwd == pf.carry.cwd);
      CHECK(m.version == version);
      CHECK(longest_base64_run(m.text) < 300);
      if (i == 0 && m.role == Role::Assistant && m.content_type != ContentType::Summary) CHECK(!m.model.empty());
      if (i > 0) {
        CHECK(m.uuid == l.rec.messages[0].uuid + "#" + std::to_string(i + 1));
        CHECK(m.parent_uuid == l.rec.messages[i - 1].uuid);
        CHECK(!m.usage.any());
        CHECK(m.model.empty());
      }
      if (m.role != Role::Assistant) CHECK(m.model.empty());
    }
  }
}

}  // namespace

TEST_CASE("omp v3 sample: title slot, header, every entry", "[pi]") {
  ParsedFile pf = parse_file(kOmpFile);
  REQUIRE(pf.lines.size() == 1021);
  check_common(pf, "3");

  // Line 1: the 256-byte title slot with an empty title yields nothing.
  CHECK(pf.lines[0].line_offset == 0);
  CHECK_FALSE(pf.lines[0].kept);
  CHECK(pf.lines[0].rec.facts.empty());
  // Line 2: the header.
  CHECK(pf.lines[1].line_offset == 256);
  CHECK(pf.lines[1].kept);
  CHECK(pf.lines[1].rec.session_id_field == "d703a1a9-1b7b-4fb1-b512-c9738b1fe617");
  CHECK(pf.lines[1].rec.session_id_full.empty());
  CHECK(pf.lines[1].rec.messages.empty());
  CHECK(pf.carry.header_seen);
  CHECK(pf.carry.cwd == "/Users/badlogic/workspaces/pi-mono");
  CHECK(pf.carry.version == "3");
  CHECK(pf.carry.model == "claude-sonnet-4-5");  // model_change {provider, modelId}
  CHECK(pf.carry.last_entry_id.empty());         // every entry has an id
  CHECK(pf.facts().empty());

  Tally t = tally(pf);
  CHECK(t.by_kind == std::map<std::string, int>{{"user/text", 88},
                                                {"user/text+meta", 1},  // custom session_exit
                                                {"assistant/thinking", 1},
                                                {"assistant/text", 259},  // 22 of them carry errorMessage
                                                {"assistant/tool_use", 369},
                                                {"tool/tool_result", 373}});
  CHECK(t.call_ids.size() == 391);
  CHECK(t.result_ids.size() == 373);
  CHECK(std::includes(t.call_ids.begin(), t.call_ids.end(), t.result_ids.begin(), t.result_ids.end()));
  CHECK(t.error_results == 19);
  CHECK(t.usage.input == 1049);
  CHECK(t.usage.output == 83156);
  CHECK(t.usage.cache_read == 43229469);
  CHECK(t.usage.cache_creation == 4296232);

  // Line 3 is the first user prompt, a root; line 4 an aborted turn with only its error.
  const Message& first = pf.lines[2].rec.messages.at(0);
  CHECK(first.uuid == "663c75f5");
  CHECK(first.parent_uuid.empty());
  CHECK(first.text == "/mode");
  CHECK(first.type == "user");
  CHECK(first.timestamp_ms == *parse_iso8601_ms("2025-11-20T23:33:01.550Z"));
  const Message& aborted = pf.lines[3].rec.messages.at(0);
  CHECK(aborted.uuid == "19e7dd4e");
  CHECK(aborted.parent_uuid == "663c75f5");
  CHECK(aborted.text == "Request was aborted");
  CHECK(aborted.model == "gpt-5.1-codex");
  CHECK(aborted.content_type == ContentType::Text);

  const Message& exit = pf.lines.back().rec.messages.at(0);
  CHECK(exit.uuid == "c7739972");
  CHECK(exit.is_meta);
  CHECK(exit.text.rfind("session_exit\nsighup\nsignal", 0) == 0);
}

TEST_CASE("pi v1 sample: no ids, '@offset' names and a linear chain", "[pi]") {
  ParsedFile pf = parse_file(kPiLarge);
  REQUIRE(pf.lines.size() == 1019);
  check_common(pf, "");  // v1 headers have no version
  CHECK(pf.lines[0].rec.session_id_field == "d703a1a9-1b7b-4fb1-b512-c9738b1fe617");
  CHECK(pf.carry.cwd == "/Users/badlogic/workspaces/pi-mono");

  // Every entry (thinking_level_change and model_change too) is a link of the chain.
  for (size_t i = 1; i < pf.lines.size(); ++i) {
    const auto& l = pf.lines[i];
    if (l.rec.messages.empty()) continue;
    INFO("line " << i);
    CHECK(l.rec.messages[0].uuid == "@" + std::to_string(l.line_offset));
    CHECK(l.rec.messages[0].parent_uuid == (i == 1 ? "" : "@" + std::to_string(pf.lines[i - 1].line_offset)));
  }
  CHECK(pf.carry.last_entry_id == "@" + std::to_string(pf.lines.back().line_offset));

  // The same content as the omp rewrite of this session, minus omp's session_exit entry.
  Tally t = tally(pf);
  CHECK(t.by_kind == std::map<std::string, int>{{"user/text", 88},
                                                {"assistant/thinking", 1},
                                                {"assistant/text", 259},
                                                {"assistant/tool_use", 369},
                                                {"tool/tool_result", 373}});
  CHECK(t.call_ids.size() == 391);
  CHECK(std::includes(t.call_ids.begin(), t.call_ids.end(), t.result_ids.begin(), t.result_ids.end()));
  CHECK(t.usage.input == 1049);
  CHECK(t.usage.output == 83156);
  CHECK(t.usage.cache_read == 43229469);
  CHECK(t.usage.cache_creation == 4296232);
}

TEST_CASE("pi v1 sample with compactions, bash executions and thinking", "[pi]") {
  ParsedFile pf = parse_file(kPiCompaction);
  REQUIRE(pf.lines.size() == 1003);
  check_common(pf, "");
  CHECK(pf.lines[0].rec.session_id_field == "ffae836b-9420-4060-ac13-7745215f90ff");
  CHECK(pf.carry.model == "claude-opus-4-5");

  Tally t = tally(pf);
  CHECK(t.by_kind == std::map<std::string, int>{{"user/text", 55},
                                                {"assistant/thinking", 49},
                                                {"assistant/text", 269},
                                                {"assistant/tool_use", 437},
                                                {"assistant/summary", 2},
                                                {"tool/tool_result", 451}});  // 448 results + 3 `!cmd`
  CHECK(t.call_ids.size() == 454 + 3);
  CHECK(t.result_ids.size() == 448 + 3);
  CHECK(std::includes(t.call_ids.begin(), t.call_ids.end(), t.result_ids.begin(), t.result_ids.end()));
  CHECK(t.error_results == 12);
  CHECK(t.usage.input == 3689);
  CHECK(t.usage.output == 187895);
  CHECK(t.usage.cache_read == 54693675);
  CHECK(t.usage.cache_creation == 1685320);

  int bash = 0;
  for (const Message* m : pf.messages()) {
    if (m->tool_calls.empty() || m->tool_calls[0].name != "bash" || m->tool_results.empty()) continue;
    ++bash;
    CHECK(m->type == "user");
    CHECK(m->tool_calls[0].id == m->uuid + ":bash");
    CHECK(m->tool_results[0].tool_use_id == m->tool_calls[0].id);
    CHECK_FALSE(m->tool_results[0].is_error);
  }
  CHECK(bash == 3);
  const Message& ls = pf.lines[639].rec.messages.at(0);
  CHECK(ls.tool_calls.at(0).input_json == R"({"command":"ls"})");
  CHECK(ls.text.rfind("ls\nAGENTS.md\nbiome.json\n", 0) == 0);

  std::vector<const SessionFact*> facts = pf.facts();
  REQUIRE(facts.size() == 2);
  for (const SessionFact* f : facts) CHECK(f->kind == SessionFact::Kind::AwaySummary);
  CHECK(facts[1]->text.rfind("# Context Checkpoint: Coding Agent Refactoring", 0) == 0);
  CHECK(pf.lines[628].rec.messages.at(0).text == facts[1]->text);
}

TEST_CASE("pi v3 sample: UUIDv7 session, 8-hex entry ids, compaction", "[pi]") {
  ParsedFile pf = parse_file(kPiV3);
  REQUIRE(pf.lines.size() == 9);
  check_common(pf, "3");
  CHECK(pf.lines[0].rec.session_id_field == "019e19b4-eb48-746a-aa6b-8dfcfa37954b");
  CHECK(pf.carry.cwd == "/tmp/as-agent-fixture/project");
  CHECK(pf.carry.model == "pi-fixture-model");
  CHECK_FALSE(pf.lines[1].kept);  // model_change
  CHECK_FALSE(pf.lines[2].kept);  // thinking_level_change

  Tally t = tally(pf);
  CHECK(t.by_kind ==
        std::map<std::string, int>{{"user/text", 2}, {"assistant/text", 2}, {"assistant/summary", 2}});
  CHECK(t.usage.input == 24);
  CHECK(t.usage.output == 14);
  const Message& prompt = pf.lines[3].rec.messages.at(0);
  CHECK(prompt.uuid == "30c6a75f");
  CHECK(prompt.parent_uuid == "3a59c5dd");  // the root of the tree is not the user message
  CHECK(prompt.text == "Read hello.py and summarize what it prints without editing files.");
  const Message& summary = pf.lines[5].rec.messages.at(0);
  CHECK(summary.uuid == "c139a627");
  CHECK(summary.type == "assistant");
  CHECK_FALSE(summary.is_meta);
  CHECK(summary.text == "hello.py prints a fixture greeting.");
  CHECK(pf.facts().size() == 2);
}

// The omp v3 shapes of formats §7 that the samples lack, in the order the real writer puts them.
TEST_CASE("omp v3 by hand: developer, tool_execution_start, title_change, soft compaction, blob image", "[pi]") {
  const std::string blob = "blob:sha256:" + std::string(64, 'e');
  PiRun run = parse_lines({
      R"({"type":"title","v":1,"title":"Fix flaky parser test","source":"auto","updatedAt":"2026-09-17T05:10:00.000Z","pad":"    "})",
      R"({"type":"session","version":3,"id":"01a0adc4-823b-70d0-aa1d-80adef4fd1b1","timestamp":"2026-09-17T05:08:51.899Z","cwd":"/home/dev/parser"})",
      R"({"type":"model_change","id":"1f2e3d4c","parentId":null,"timestamp":"2026-09-17T05:08:51.900Z","model":"anthropic/claude-opus-4-6","role":"default"})",
      R"({"type":"thinking_level_change","id":"2a3b4c5d","parentId":"1f2e3d4c","timestamp":"2026-09-17T05:08:51.900Z","thinkingLevel":null,"configured":null})",
      R"({"type":"message","id":"3b4c5d6e","parentId":"2a3b4c5d","timestamp":"2026-09-17T05:08:52.000Z","message":{"role":"developer","content":[{"type":"text","text":"Plan mode is off."}],"timestamp":1789622932000}})",
      R"({"type":"message","id":"4c5d6e7f","parentId":"3b4c5d6e","timestamp":"2026-09-17T05:08:53.000Z","message":{"role":"user","content":[{"type":"text","text":"Why does parser_test fail on CI?"},{"type":"image","data":")" +
          blob + R"(","mimeType":"image/png"}],"timestamp":1789622933000}})",
      R"({"type":"message","id":"5d6e7f80","parentId":"4c5d6e7f","timestamp":"2026-09-17T05:08:58.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"Check the test first.","thinkingSignature":"EqQBCkgIBxABGAIiQ"},{"type":"toolCall","id":"toolu_01A","name":"read","arguments":{"path":"tests/parser_test.cpp"},"intent":"Read the failing test"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","usage":{"input":3,"output":120,"cacheRead":9000,"cacheWrite":1500,"totalTokens":10623,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.02}},"stopReason":"toolUse","timestamp":1789622934000,"completedAt":1789622938000,"contextSnapshot":{"promptTokens":10503,"nonMessageTokens":4000,"compactionEpoch":0}}})",
      R"({"type":"custom","id":"6e7f8091","parentId":"5d6e7f80","timestamp":"2026-09-17T05:08:58.100Z","customType":"tool_execution_start","data":{"toolCallId":"toolu_01A","toolName":"read","startedAt":1789622938100,"args":{"path":"tests/parser_test.cpp"},"intent":"Read the failing test"}})",
      R"({"type":"message","id":"7f8091a2","parentId":"6e7f8091","timestamp":"2026-09-17T05:08:58.200Z","message":{"role":"toolResult","toolCallId":"toolu_01A","toolName":"read","content":[{"type":"text","text":"[file#A1B2]\n1:TEST(Parser, Dates) {"}],"details":{"displayContent":"TEST(Parser, Dates) {"},"isError":false,"timestamp":1789622938200}})",
      R"({"type":"title_change","id":"8091a2b3","parentId":"7f8091a2","timestamp":"2026-09-17T05:09:00.000Z","title":"Fix flaky parser test","previousTitle":"","source":"auto","trigger":"first-turn"})",
      R"({"type":"message","id":"91a2b3c4","parentId":"8091a2b3","timestamp":"2026-09-17T05:09:05.000Z","message":{"role":"assistant","content":[{"type":"text","text":"The test depends on the local timezone."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","usage":{"input":2,"output":30,"cacheRead":10000,"cacheWrite":200},"stopReason":"stop","timestamp":1789622940000}})",
      R"({"type":"compaction","id":"a2b3c4d5","parentId":"91a2b3c4","timestamp":"2026-09-17T05:10:00.000Z","summary":"## Goal\nFix the flaky parser test\n\n## Turn Context (split turn)\nTZ dependent\n<files>\ntests/parser_test.cpp\n</files>","shortSummary":"Parser test: TZ","firstKeptEntryId":"91a2b3c4","tokensBefore":48000,"tokensAfter":3000,"method":"soft"})",
      R"({"type":"credential_pin","id":"b3c4d5e6","parentId":"a2b3c4d5","timestamp":"2026-09-17T05:10:01.000Z","provider":"anthropic","hash":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"})",
      R"({"type":"custom","id":"c4d5e6f7","parentId":"b3c4d5e6","timestamp":"2026-09-17T05:10:02.000Z","customType":"session_exit","data":{"reason":"user","kind":"exit","recordedAt":"2026-09-17T05:10:02.000Z"}})",
  });
  REQUIRE(run.recs.size() == 14);
  CHECK(run.recs[0].facts.at(0).kind == SessionFact::Kind::CustomTitle);
  CHECK(run.recs[0].facts.at(0).text == "Fix flaky parser test");
  CHECK(run.recs[1].session_id_field == "01a0adc4-823b-70d0-aa1d-80adef4fd1b1");
  CHECK(run.carry.model == "anthropic/claude-opus-4-6");
  CHECK(run.carry.version == "3");

  const Message& dev = run.recs[4].messages.at(0);
  CHECK(dev.is_meta);
  CHECK(dev.text == "Plan mode is off.");
  const Message& prompt = run.recs[5].messages.at(0);
  CHECK_FALSE(prompt.is_meta);
  CHECK(prompt.text == "Why does parser_test fail on CI?");

  const auto& turn = run.recs[6].messages;
  REQUIRE(turn.size() == 2);
  CHECK(turn[0].content_type == ContentType::Thinking);
  CHECK(turn[0].usage.cache_read == 9000);
  CHECK(turn[0].model == "claude-opus-4-6");
  CHECK(turn[1].uuid == "5d6e7f80#2");
  CHECK(turn[1].tool_calls.at(0).id == "toolu_01A");
  CHECK(turn[1].tool_calls.at(0).file_path == "tests/parser_test.cpp");

  const Message& start = run.recs[7].messages.at(0);
  CHECK(start.is_meta);
  CHECK(start.text.rfind("tool_execution_start\ntoolu_01A\nread", 0) == 0);
  const Message& result = run.recs[8].messages.at(0);
  CHECK(result.parent_uuid == "6e7f8091");  // under tool_execution_start, not the call
  CHECK(result.tool_results.at(0).tool_use_id == "toolu_01A");
  CHECK(result.text == "[file#A1B2]\n1:TEST(Parser, Dates) {");  // details.displayContent not repeated

  CHECK(run.recs[9].facts.at(0).kind == SessionFact::Kind::AiTitle);
  CHECK(run.recs[9].facts.at(0).text == "Fix flaky parser test");
  const Message& compaction = run.recs[11].messages.at(0);
  CHECK(compaction.content_type == ContentType::Summary);
  CHECK(compaction.text.find("<files>\ntests/parser_test.cpp\n</files>") != std::string::npos);
  CHECK(compaction.text.find("Parser test: TZ") == std::string::npos);
  CHECK(run.recs[11].facts.at(0).kind == SessionFact::Kind::AwaySummary);
  CHECK_FALSE(run.kept[12]);  // credential_pin
  CHECK(run.recs[12].messages.empty());
  CHECK(run.recs[13].messages.at(0).text.rfind("session_exit\nuser\nexit", 0) == 0);

  for (const auto& rec : run.recs)
    for (const Message& m : rec.messages) {
      CHECK(m.text.find("blob:sha256:") == std::string::npos);
      CHECK(m.text.find("EqQBCkgIBxABGAIiQ") == std::string::npos);
      CHECK(m.text.find("9f86d081884c7d659a2f") == std::string::npos);
      CHECK(m.cwd == "/home/dev/parser");
    }
}

TEST_CASE("a file written by pi's own SessionManager: every kind pi writes, a branch, a cleared name", "[pi]") {
  ParsedFile pf = parse_file(kPiWriter);
  REQUIRE(pf.lines.size() == 19);
  check_common(pf, "3");
  CHECK(pf.lines[0].rec.session_id_field == "01a23122-6302-7301-abeb-60b1d2134d56");
  CHECK(pf.carry.cwd == "/tmp/osearch-pi-writer/project");
  CHECK(pf.carry.model == "claude-opus-4-5");

  Tally t = tally(pf);
  CHECK(t.by_kind == std::map<std::string, int>{{"user/text", 1},
                                                {"user/text+meta", 2},  // custom_message, custom
                                                {"assistant/thinking", 1},
                                                {"assistant/text", 4},  // one is only "Request was aborted"
                                                {"assistant/tool_use", 1},
                                                {"assistant/summary", 2},
                                                {"tool/tool_result", 4}});  // 2 results + 2 `!cmd`
  CHECK(t.call_ids == t.result_ids);
  CHECK(t.call_ids.size() == 4);
  CHECK(t.error_results == 2);  // the failing bash tool result and `!npm test` exit 1; not the cancelled one
  CHECK(t.usage.input == 115);
  CHECK(t.usage.output == 226);
  CHECK(t.usage.cache_read == 6507);
  CHECK(t.usage.cache_creation == 408);

  CHECK(pf.lines[3].rec.messages.at(0).text == "Why does the quokka parser reject dates?");  // image dropped
  const auto& turn = pf.lines[4].rec.messages;
  REQUIRE(turn.size() == 3);
  CHECK(turn[0].uuid == "4127c2eb");
  CHECK(turn[2].uuid == "4127c2eb#3");
  CHECK(turn[2].tool_calls.size() == 2);
  CHECK(pf.lines[5].rec.messages.at(0).parent_uuid == "4127c2eb");
  CHECK(pf.lines[6].rec.messages.at(0).text == "FAIL quokka.test.ts");  // not details.truncation.content
  CHECK(pf.lines[9].rec.messages.at(0).text == "sleep 600");
  CHECK(pf.lines[10].rec.messages.at(0).text == "Request was aborted");
  CHECK(pf.lines[12].rec.messages.at(0).text == "wombat-state\nnumbat state\nechidna");
  CHECK_FALSE(pf.lines[14].kept);  // label
  // The branch summary hangs under the prompt, beside the first answer.
  const Message& branch = pf.lines[16].rec.messages.at(0);
  CHECK(branch.parent_uuid == "183ffa7e");
  CHECK(branch.text == "The abandoned branch tried a regex.");
  CHECK(pf.lines[17].rec.messages.at(0).parent_uuid == "3407e446");

  std::vector<const SessionFact*> facts = pf.facts();
  REQUIRE(facts.size() == 4);
  CHECK(facts[0]->kind == SessionFact::Kind::CustomTitle);
  CHECK(facts[0]->text == "Quokka date parsing");
  CHECK(facts[1]->kind == SessionFact::Kind::AwaySummary);
  CHECK(facts[2]->kind == SessionFact::Kind::AwaySummary);
  CHECK(facts[3]->kind == SessionFact::Kind::CustomTitle);
  CHECK(facts[3]->text.empty());
}
