// The omp/pi adapter (ingest/pi_family.cpp), one rule at a time on inline lines, and every node of
// every entry kind given the wrong type. The real files are in pi_family_test.cpp.
#include "pi_fixture.h"
#include "ingest/bounded_id.h"
#include "ingest/json_fields.h"
#include "ingest/timeutil.h"

using namespace osearch;
using namespace pi_test;

namespace {

const std::string kAssistantTurn = R"({"type":"message","id":"a1b2c3d4","parentId":"p0000001","timestamp":"2026-09-01T10:00:00.000Z","message":{"role":"assistant","content":[
  {"type":"thinking","thinking":"Let me look first.","thinkingSignature":"SIGNATURE_SECRET_Ab12"},
  {"type":"text","text":"Reading both files."},
  {"type":"redactedThinking","data":"REDACTED_BYTES"},
  {"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"src/main.ts","limit":20}},
  {"type":"toolCall","id":"call_2","name":"bash","arguments":{"command":"grep -rn needle ."}}],
  "api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6",
  "usage":{"input":10,"output":20,"cacheRead":30,"cacheWrite":40,"totalTokens":100,"cost":{"total":0.5}},
  "stopReason":"toolUse","timestamp":1788000000000}})";

FileCarry after_header() {
  FileCarry c;
  c.cwd = "/work/app";
  c.version = "3";
  c.model = "anthropic/claude-sonnet-4-5";
  c.header_seen = true;
  return c;
}

}  // namespace

TEST_CASE("assistant turn: thinking, text and two tool calls become three parts", "[pi]") {
  LineRecords r = parse_one(kAssistantTurn, after_header());
  REQUIRE(r.messages.size() == 3);
  const Message &think = r.messages[0], &text = r.messages[1], &tools = r.messages[2];
  CHECK(think.uuid == "a1b2c3d4");
  CHECK(think.parent_uuid == "p0000001");
  CHECK(text.uuid == "a1b2c3d4#2");
  CHECK(text.parent_uuid == "a1b2c3d4");
  CHECK(tools.uuid == "a1b2c3d4#3");
  CHECK(tools.parent_uuid == "a1b2c3d4#2");
  CHECK(think.content_type == ContentType::Thinking);
  CHECK(text.content_type == ContentType::Text);
  CHECK(tools.content_type == ContentType::ToolUse);
  for (const Message& m : r.messages) {
    CHECK(m.role == Role::Assistant);
    CHECK(m.type == "assistant");
    CHECK_FALSE(m.is_meta);
    CHECK(m.timestamp_ms == *parse_iso8601_ms("2026-09-01T10:00:00.000Z"));
    CHECK(m.cwd == "/work/app");
    CHECK(m.version == "3");
    CHECK(m.text.find("SIGNATURE_SECRET") == std::string::npos);
    CHECK(m.text.find("REDACTED_BYTES") == std::string::npos);
  }
  CHECK(think.text == "Let me look first.");
  CHECK(text.text == "Reading both files.");
  CHECK(tools.text == "read\nsrc/main.ts\nbash\ngrep -rn needle .");
  // usage and model on the first part only
  CHECK(think.model == "claude-opus-4-6");
  CHECK(think.usage.input == 10);
  CHECK(think.usage.output == 20);
  CHECK(think.usage.cache_read == 30);
  CHECK(think.usage.cache_creation == 40);
  CHECK_FALSE(text.usage.any());
  CHECK_FALSE(tools.usage.any());
  CHECK(text.model.empty());
  REQUIRE(tools.tool_calls.size() == 2);
  CHECK(tools.tool_calls[0].id == "call_1");
  CHECK(tools.tool_calls[0].name == "read");
  CHECK(tools.tool_calls[0].input_json == R"({"path":"src/main.ts","limit":20})");
  CHECK(tools.tool_calls[0].file_path == "src/main.ts");
  CHECK(tools.tool_calls[1].id == "call_2");
  CHECK(tools.tool_calls[1].file_path.empty());
}

TEST_CASE("assistant parts: only the non-empty ones, usage and model on whichever comes first", "[pi]") {
  LineRecords r = parse_one(
      R"({"type":"message","id":"e1","parentId":null,"timestamp":"2026-09-01T10:00:00Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":""},{"type":"toolCall","id":"c","name":"write","arguments":{"file_path":"/a/b.txt","content":"hello"}}],"usage":{"input":5,"output":6,"cacheRead":0,"cacheWrite":0}}})",
      after_header());
  REQUIRE(r.messages.size() == 1);
  CHECK(r.messages[0].uuid == "e1");
  CHECK(r.messages[0].parent_uuid.empty());
  CHECK(r.messages[0].content_type == ContentType::ToolUse);
  CHECK(r.messages[0].usage.input == 5);
  CHECK(r.messages[0].model == "anthropic/claude-sonnet-4-5");  // no message.model: the carry's
  CHECK(r.messages[0].tool_calls.at(0).file_path == "/a/b.txt");
  CHECK(parse_one(R"({"type":"message","id":"e","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"edit","arguments":{"filePath":"x.cpp"}}]}})")
            .messages.at(0)
            .tool_calls.at(0)
            .file_path == "x.cpp");
}

TEST_CASE("errorMessage is searchable: alone, or after the text", "[pi]") {
  LineRecords alone = parse_one(
      R"({"type":"message","id":"e2","parentId":"e1","timestamp":"2026-09-01T10:00:00Z","message":{"role":"assistant","content":[],"model":"gpt-5","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0},"stopReason":"aborted","errorMessage":"Request was aborted"}})");
  REQUIRE(alone.messages.size() == 1);
  CHECK(alone.messages[0].content_type == ContentType::Text);
  CHECK(alone.messages[0].text == "Request was aborted");
  CHECK(alone.messages[0].model == "gpt-5");
  LineRecords after = parse_one(
      R"({"type":"message","id":"e3","message":{"role":"assistant","content":[{"type":"text","text":"Partial answer"},{"type":"toolCall","id":"t","name":"ls","arguments":{}}],"errorMessage":"overloaded_error"}})");
  REQUIRE(after.messages.size() == 2);
  CHECK(after.messages[0].text == "Partial answer\noverloaded_error");
  CHECK(after.messages[1].tool_calls.at(0).input_json == "{}");
  // Nothing to show but tokens spent: a Usage fact keeps them.
  LineRecords empty = parse_one(
      R"({"type":"message","id":"e4","message":{"role":"assistant","content":[{"type":"redactedThinking","data":"x"}],"model":"m1","usage":{"input":7,"output":8}}})");
  CHECK(empty.messages.empty());
  REQUIRE(empty.facts.size() == 1);
  CHECK(empty.facts[0].kind == SessionFact::Kind::Usage);
  CHECK(empty.facts[0].text == "m1");
  CHECK(empty.facts[0].usage.output == 8);
}

TEST_CASE("user, developer and other roles", "[pi]") {
  LineRecords user = parse_one(
      R"({"type":"message","id":"u1","parentId":"m0","timestamp":"2026-09-01T10:00:00Z","message":{"role":"user","content":[{"type":"text","text":"fix the build"},{"type":"image","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==","mimeType":"image/png"},{"type":"text","text":"please"}]}})");
  REQUIRE(user.messages.size() == 1);
  CHECK(user.messages[0].text == "fix the build\nplease");
  CHECK(user.messages[0].role == Role::User);
  CHECK(user.messages[0].type == "user");
  CHECK(user.messages[0].content_type == ContentType::Text);
  CHECK_FALSE(user.messages[0].is_meta);
  CHECK(user.messages[0].model.empty());
  // A bare string, and a message of only an image (a blob ref here): nothing to search.
  CHECK(parse_one(R"({"type":"message","id":"u2","message":{"role":"user","content":"plain string"}})").messages.at(0).text ==
        "plain string");
  CHECK(parse_one(R"({"type":"message","id":"u3","message":{"role":"user","content":[{"type":"image","data":"blob:sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef","mimeType":"image/png"}]}})")
            .messages.empty());

  LineRecords dev = parse_one(
      R"({"type":"message","id":"d1","message":{"role":"developer","content":[{"type":"text","text":"<system-reminder>plan mode</system-reminder>"}],"timestamp":1788000000123}})");
  REQUIRE(dev.messages.size() == 1);
  CHECK(dev.messages[0].is_meta);
  CHECK(dev.messages[0].role == Role::User);
  CHECK(dev.messages[0].timestamp_ms == 1788000000123);  // no entry timestamp: message.timestamp (ms)

  LineRecords other = parse_one(R"({"type":"message","id":"o1","message":{"role":"futureRole","content":"new words"}})");
  REQUIRE(other.messages.size() == 1);
  CHECK(other.messages[0].is_meta);
  CHECK(other.messages[0].text == "new words");
  CHECK(parse_one(R"({"type":"message","id":"o2","message":{"role":"futureRole"}})").messages.empty());

  for (const char* role : {"custom", "hookMessage"}) {
    LineRecords c = parse_one(std::string(R"({"type":"message","id":"c1","message":{"role":")") + role +
                              R"(","customType":"ext","content":"injected context","display":false}})");
    REQUIRE(c.messages.size() == 1);
    CHECK(c.messages[0].is_meta);
    CHECK(c.messages[0].text == "injected context");
  }
  LineRecords mention = parse_one(
      R"({"type":"message","id":"f1","message":{"role":"fileMention","files":[{"path":"a.md","content":"alpha","lineCount":1},{"path":"b.png","content":"","image":{"type":"image","data":"blob:sha256:ab","mimeType":"image/png"}}]}})");
  REQUIRE(mention.messages.size() == 1);
  CHECK(mention.messages[0].is_meta);
  CHECK(mention.messages[0].text == "a.md\nalpha\nb.png");
}

TEST_CASE("tool results: id, error flag, text blocks only", "[pi]") {
  LineRecords r = parse_one(
      R"({"type":"message","id":"r1","parentId":"x","timestamp":"2026-09-01T10:00:00Z","message":{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"line one"},{"type":"image","data":"blob:sha256:aaaa","mimeType":"image/png"}],"details":{"displayContent":"DETAILS_COPY","truncation":{"content":"DETAILS_COPY"}},"isError":true}})");
  REQUIRE(r.messages.size() == 1);
  const Message& m = r.messages[0];
  CHECK(m.role == Role::Tool);
  CHECK(m.type == "tool");
  CHECK(m.content_type == ContentType::ToolResult);
  CHECK(m.text == "line one");
  REQUIRE(m.tool_results.size() == 1);
  CHECK(m.tool_results[0].tool_use_id == "call_1");
  CHECK(m.tool_results[0].is_error);
  // An empty result is still the answer to its call.
  LineRecords empty = parse_one(R"({"type":"message","id":"r2","message":{"role":"toolResult","toolCallId":"c2","content":[],"isError":false}})");
  REQUIRE(empty.messages.size() == 1);
  CHECK_FALSE(empty.messages[0].tool_results.at(0).is_error);
}

TEST_CASE("bash and python executions: a synthetic call and its result", "[pi]") {
  LineRecords failed = parse_one(
      R"({"type":"message","id":"b1","message":{"role":"bashExecution","command":"make test","output":"1 failed","exitCode":1,"cancelled":false,"truncated":false}})");
  REQUIRE(failed.messages.size() == 1);
  const Message& m = failed.messages[0];
  CHECK(m.role == Role::Tool);
  CHECK(m.type == "user");
  CHECK(m.content_type == ContentType::ToolResult);
  CHECK(m.text == "make test\n1 failed");
  REQUIRE(m.tool_calls.size() == 1);
  CHECK(m.tool_calls[0].id == "b1:bash");
  CHECK(m.tool_calls[0].name == "bash");
  CHECK(m.tool_calls[0].input_json == R"({"command":"make test"})");
  REQUIRE(m.tool_results.size() == 1);
  CHECK(m.tool_results[0].tool_use_id == "b1:bash");
  CHECK(m.tool_results[0].is_error);

  LineRecords cancelled = parse_one(
      R"({"type":"message","id":"b2","message":{"role":"bashExecution","command":"sleep 100","output":"","exitCode":null,"cancelled":true}})");
  CHECK_FALSE(cancelled.messages.at(0).tool_results.at(0).is_error);
  LineRecords killed = parse_one(
      R"({"type":"message","id":"b3","message":{"role":"bashExecution","command":"yes","output":"y","exitCode":130,"cancelled":true}})");
  CHECK_FALSE(killed.messages.at(0).tool_results.at(0).is_error);

  LineRecords py = parse_one(
      R"j({"type":"message","id":"p1","message":{"role":"pythonExecution","code":"print(\"hi\")","output":"hi","exitCode":0,"cancelled":false}})j");
  const Message& p = py.messages.at(0);
  CHECK(p.text == "print(\"hi\")\nhi");
  CHECK(p.tool_calls.at(0).name == "python");
  CHECK(p.tool_calls.at(0).id == "p1:python");
  CHECK(p.tool_calls.at(0).input_json == R"j({"code":"print(\"hi\")"})j");
  CHECK_FALSE(p.tool_results.at(0).is_error);
}

TEST_CASE("summaries: compaction, branch_summary and their message roles", "[pi]") {
  for (const char* line :
       {R"({"type":"compaction","id":"k1","parentId":"k0","timestamp":"2026-09-01T10:00:00Z","summary":"Goal: ship it","shortSummary":"ship","firstKeptEntryId":"k0","tokensBefore":1000})",
        R"({"type":"branch_summary","id":"k1","parentId":"k0","timestamp":"2026-09-01T10:00:00Z","fromId":"root","summary":"Goal: ship it"})",
        R"({"type":"message","id":"k1","parentId":"k0","timestamp":"2026-09-01T10:00:00Z","message":{"role":"compactionSummary","summary":"Goal: ship it","tokensBefore":5}})",
        R"({"type":"message","id":"k1","parentId":"k0","timestamp":"2026-09-01T10:00:00Z","message":{"role":"branchSummary","summary":"Goal: ship it","fromId":"x"}})"}) {
    INFO(line);
    LineRecords r = parse_one(line);
    REQUIRE(r.messages.size() == 1);
    CHECK(r.messages[0].uuid == "k1");
    CHECK(r.messages[0].role == Role::Assistant);
    CHECK(r.messages[0].type == "assistant");
    CHECK(r.messages[0].content_type == ContentType::Summary);
    CHECK_FALSE(r.messages[0].is_meta);
    CHECK(r.messages[0].text == "Goal: ship it");
    REQUIRE(r.facts.size() == 1);
    CHECK(r.facts[0].kind == SessionFact::Kind::AwaySummary);
    CHECK(r.facts[0].text == "Goal: ship it");
  }
}

TEST_CASE("custom entries, session_init and facts", "[pi]") {
  LineRecords cm = parse_one(
      R"({"type":"custom_message","id":"m1","customType":"vibe","content":[{"type":"text","text":"hidden context"},{"type":"image","data":"QUJD","mimeType":"image/png"}],"display":false})");
  REQUIRE(cm.messages.size() == 1);
  CHECK(cm.messages[0].is_meta);
  CHECK(cm.messages[0].role == Role::User);
  CHECK(cm.messages[0].text == "hidden context");
  CHECK(parse_one(R"({"type":"custom_message","id":"m2","customType":"v","content":"as string"})").messages.at(0).text ==
        "as string");

  LineRecords c = parse_one(
      R"({"type":"custom","id":"m3","customType":"tool_execution_start","data":{"toolCallId":"call_9","toolName":"bash","startedAt":1788000000000,"args":{"command":"npm test"},"shot":{"type":"image","data":"blob:sha256:ff"}}})");
  REQUIRE(c.messages.size() == 1);
  CHECK(c.messages[0].is_meta);
  CHECK(c.messages[0].text == "tool_execution_start\ncall_9\nbash\nnpm test");

  LineRecords init = parse_one(
      R"({"type":"session_init","id":"s1","systemPrompt":"You are a subagent.","task":"Find the flaky test","tools":["read"]})");
  REQUIRE(init.messages.size() == 1);
  CHECK(init.messages[0].is_meta);
  CHECK(init.messages[0].text == "Find the flaky test");

  LineRecords info = parse_one(R"({"type":"session_info","id":"i1","name":"Refactor run modes"})");
  REQUIRE(info.facts.size() == 1);
  CHECK(info.facts[0].kind == SessionFact::Kind::CustomTitle);
  CHECK(info.facts[0].text == "Refactor run modes");
  LineRecords cleared = parse_one(R"({"type":"session_info","id":"i2","name":""})");
  REQUIRE(cleared.facts.size() == 1);  // clearing the name is a fact too: the latest wins
  CHECK(cleared.facts[0].text.empty());

  LineRecords tc = parse_one(R"({"type":"title_change","id":"t1","title":"Flaky test hunt","previousTitle":"","source":"auto"})");
  REQUIRE(tc.facts.size() == 1);
  CHECK(tc.facts[0].kind == SessionFact::Kind::AiTitle);
  CHECK(tc.facts[0].text == "Flaky test hunt");
  CHECK(tc.messages.empty());
}

TEST_CASE("silent entries, model_change and unknown kinds", "[pi]") {
  PiRun run = parse_lines({
      R"({"type":"model_change","id":"a","parentId":null,"model":"openai/gpt-5.1"})",
      R"({"type":"credential_pin","id":"b","parentId":"a","provider":"anthropic","hash":"SECRET_HASH_VALUE"})",
      R"({"type":"label","id":"c","targetId":"a","label":"bookmark"})",
      R"({"type":"thinking_level_change","id":"d","thinkingLevel":null,"configured":null})",
      R"({"type":"service_tier_change","id":"e","serviceTier":null})",
      R"({"type":"model_usage","id":"f","model":"x"})",
      R"({"type":"mode_change","id":"g","mode":"plan","data":{"plan":"words"}})",
      R"({"type":"ttsr_injection","id":"h","injectedRules":["rule"]})",
      R"({"type":"reset_boundary","id":"i"})",
      R"({"type":"brand_new_kind","id":"j","text":"whatever"})",
      R"({"type":"message","id":"k","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}})",
      R"({"type":"model_change","id":"l","provider":"anthropic","modelId":"claude-opus-4-5"})",
  });
  for (size_t i = 0; i + 2 < run.kept.size(); ++i) {
    INFO("line " << i);
    CHECK_FALSE(run.kept[i]);
    CHECK(run.recs[i].messages.empty());
    CHECK(run.recs[i].facts.empty());
  }
  CHECK(run.recs[10].messages.at(0).model == "openai/gpt-5.1");
  CHECK_FALSE(run.kept[11]);
  CHECK(run.carry.model == "claude-opus-4-5");
}

TEST_CASE("header and title slot", "[pi]") {
  PiRun run = parse_lines({
      R"({"type":"title","v":1,"title":"  My session  ","source":"user","updatedAt":"2026-09-01T10:00:00Z","pad":"   "})",
      R"({"type":"session","version":3,"id":"01a0adc4-823b-70d0-aa1d-80adef4fd1b1","title":"Generated title","titleSource":"auto","timestamp":"2026-09-01T10:00:00Z","cwd":"/home/u/app"})",
  });
  REQUIRE(run.kept == std::vector<bool>{true, true});
  REQUIRE(run.recs[0].facts.size() == 1);
  CHECK(run.recs[0].facts[0].kind == SessionFact::Kind::CustomTitle);
  CHECK(run.recs[0].facts[0].text == "My session");
  CHECK(run.recs[1].session_id_field == "01a0adc4-823b-70d0-aa1d-80adef4fd1b1");
  REQUIRE(run.recs[1].facts.size() == 1);
  CHECK(run.recs[1].facts[0].kind == SessionFact::Kind::AiTitle);
  CHECK(run.recs[1].facts[0].text == "Generated title");
  CHECK(run.carry.version == "3");
  CHECK(run.carry.cwd == "/home/u/app");
  CHECK(run.carry.header_seen);

  CHECK_FALSE(parse_lines({R"({"type":"title","v":1,"title":"   ","pad":"  "})"}).kept[0]);
  CHECK_FALSE(parse_lines({R"({"type":"title","v":1,"pad":"  "})"}).kept[0]);
  FileCarry legacy = parse_lines({R"({"type":"session","id":"x","cwd":"/a","modelId":"claude-sonnet-4-5","version":"2"})"}).carry;
  CHECK(legacy.version == "2");
  CHECK(legacy.model == "claude-sonnet-4-5");

  // An id longer than any key may be is bounded; the full one is kept beside it.
  std::string long_id(400, 'a');
  LineRecords h = parse_one(R"({"type":"session","id":")" + long_id + R"("})");
  CHECK(h.session_id_field.size() <= kMaxIdBytes);
  CHECK(h.session_id_full == long_id);
}

TEST_CASE("entries without ids: '@offset' names, each under the entry before", "[pi]") {
  PiRun run = parse_lines({
      R"({"type":"session","id":"s","cwd":"/c"})",
      R"({"type":"message","message":{"role":"user","content":[{"type":"text","text":"q"}]}})",
      R"({"type":"thinking_level_change","thinkingLevel":"high"})",
      R"({"type":"message","message":{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"a"}]}})",
  });
  uint64_t user_at = run.offsets[1], level_at = run.offsets[2], assistant_at = run.offsets[3];
  const Message& q = run.recs[1].messages.at(0);
  CHECK(q.uuid == "@" + std::to_string(user_at));
  CHECK(q.parent_uuid.empty());
  const Message& t = run.recs[3].messages.at(0);
  CHECK(t.uuid == "@" + std::to_string(assistant_at));
  CHECK(t.parent_uuid == "@" + std::to_string(level_at));
  CHECK(run.recs[3].messages.at(1).uuid == t.uuid + "#2");
  CHECK(run.recs[3].messages.at(1).parent_uuid == t.uuid);
  CHECK(run.carry.last_entry_id == t.uuid);
}

namespace {

// `e` as JSON with its node number `target` (pre-order) replaced by `junk`; `counter` counts nodes.
void write_mutated(simdjson::dom::element e, int target, const std::string& junk, int& counter, std::string& out) {
  if (counter++ == target) {
    out += junk;
    return;
  }
  if (e.is_object()) {
    out.push_back('{');
    bool first = true;
    for (auto field : simdjson::dom::object(e)) {
      if (!first) out.push_back(',');
      first = false;
      write_json_string(out, field.key);
      out.push_back(':');
      write_mutated(field.value, target, junk, counter, out);
    }
    out.push_back('}');
  } else if (e.is_array()) {
    out.push_back('[');
    bool first = true;
    for (auto child : simdjson::dom::array(e)) {
      if (!first) out.push_back(',');
      first = false;
      write_mutated(child, target, junk, counter, out);
    }
    out.push_back(']');
  } else {
    out += simdjson::minify(e);
  }
}

}  // namespace

TEST_CASE("wrong types everywhere never crash and never invent text", "[pi]") {
  CHECK(parse_one(R"({"type":"message","id":"w1","message":{"role":"user","content":42}})").messages.empty());
  LineRecords args = parse_one(
      R"({"type":"message","id":"w2","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"bash","arguments":"ls -la"}],"usage":[1,2,3]}})");
  REQUIRE(args.messages.size() == 1);
  CHECK(args.messages[0].tool_calls.at(0).input_json == R"("ls -la")");
  CHECK(args.messages[0].text == "bash\nls -la");
  CHECK_FALSE(args.messages[0].usage.any());
  CHECK(parse_one(R"({"type":"message","id":"w3","message":"not an object"})").messages.empty());
  CHECK(parse_one(R"({"type":"message","id":"w4","message":{"role":7,"content":"x"}})").messages.size() == 1);
  CHECK(parse_one(R"({"type":42})").messages.empty());
  CHECK(parse_one(R"({"type":"session","id":{"a":1},"cwd":[],"version":{"v":3},"title":5})").session_id_field.empty());
  LineRecords ids = parse_one(R"({"type":"message","id":5,"parentId":{},"message":{"role":"user","content":"q"}})");
  CHECK(ids.messages.at(0).uuid == "@0");  // a non-string id is no id
  CHECK(parse_one(R"({"type":"session_info","id":"i","name":{"x":"y"}})").facts.empty());
  std::string deep = std::string(1000, '[') + std::string(1000, ']');
  CHECK(parse_one(R"({"type":"custom","id":"d","customType":"deep","data":)" + deep + "}").messages.at(0).text == "deep");

  // Every node of every kind of entry replaced by every kind of junk.
  const std::vector<std::string> templates = {
      kAssistantTurn,
      R"({"type":"title","v":1,"title":"t","pad":" "})",
      R"({"type":"session","version":3,"id":"s","title":"t","cwd":"/c","modelId":"m"})",
      R"({"type":"message","id":"a","parentId":"b","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":[{"type":"text","text":"x"},{"type":"image","data":"QQ==","mimeType":"image/png"}],"timestamp":1}})",
      R"({"type":"message","id":"a","message":{"role":"toolResult","toolCallId":"c","content":[{"type":"text","text":"x"}],"isError":true}})",
      R"({"type":"message","id":"a","message":{"role":"bashExecution","command":"ls","output":"o","exitCode":1,"cancelled":false}})",
      R"({"type":"message","id":"a","message":{"role":"fileMention","files":[{"path":"p","content":"c"}]}})",
      R"({"type":"message","id":"a","message":{"role":"compactionSummary","summary":"s"}})",
      R"({"type":"compaction","id":"a","summary":"s","shortSummary":"t"})",
      R"({"type":"custom","id":"a","customType":"k","data":{"x":["y",{"z":1}]}})",
      R"({"type":"custom_message","id":"a","customType":"k","content":[{"type":"text","text":"x"}]})",
      R"({"type":"session_info","id":"a","name":"n"})",
      R"({"type":"title_change","id":"a","title":"t"})",
      R"({"type":"session_init","id":"a","task":"t"})",
      R"({"type":"model_change","id":"a","model":"p/m","provider":"p","modelId":"m"})",
  };
  const std::vector<std::string> junk = {"null", "true", "-1e308", "18446744073709551615", "\"\"", "\"str\"",
                                         "[]", "{}", "[[[[{\"type\":\"text\",\"text\":5}]]]]", "{\"type\":\"image\"}"};
  simdjson::dom::parser parser;
  size_t variants = 0;
  for (const std::string& tpl : templates) {
    simdjson::dom::element doc;
    REQUIRE(parser.parse(tpl).get(doc) == simdjson::SUCCESS);
    int nodes = 0;
    std::string unused;
    write_mutated(doc, -1, "", nodes, unused);
    for (int target = 0; target < nodes; ++target)
      for (const std::string& j : junk) {
        std::string line;
        int counter = 0;
        write_mutated(doc, target, j, counter, line);
        INFO(line);
        FileCarry carry;
        carry.last_entry_id = "@prev";
        LineRecords rec = parse_one(line, carry);
        ++variants;
        for (const Message& m : rec.messages) {
          CHECK(!m.uuid.empty());
          CHECK(m.text.find("QQ==") == std::string::npos);
        }
      }
  }
  CHECK(variants > 1000);
}
