// Codex adapter (parse_codex_object) on byte-for-byte copies of real-shape rollouts
// (tests/data/codex, see its PROVENANCE.md). Expected counts were computed once with python from
// the adapter's rules. Inline lines for each rule are in codex_lines_test.cpp.
#include <map>
#include <set>
#include <tuple>

#include "codex_fixture.h"
#include "ingest/bounded_id.h"

using namespace osearch;
using namespace codex_test;

namespace {

const std::string kModern = "/2026/08/03/rollout-2026-08-03T10-48-56-019fc8be-3658-7ca3-9e29-000000000000.jsonl";
const std::string kCli0106 = "/2025/12/18/rollout-2025-12-18T10-00-00-019b2ea4-aaaa-bbbb-cccc-58208e1f0000.jsonl";
const std::string kRateLimit = "/2025/10/31/rollout-2025-10-31T17-00-00-test-ratelimit-session.jsonl";

using Shape = std::tuple<std::string, std::string, bool>;  // role, content type, is_meta

std::map<Shape, int> shapes(const std::vector<Message>& ms) {
  std::map<Shape, int> out;
  for (const auto& m : ms) ++out[{role_name(m.role), content_type_name(m.content_type), m.is_meta}];
  return out;
}

Shape shape(Role r, ContentType t, bool meta) { return {role_name(r), content_type_name(t), meta}; }

TokenUsage usage_sum(const CodexRun& run) {
  TokenUsage sum;
  for (const auto& f : run.facts(SessionFact::Kind::Usage)) sum.add(f.usage);
  return sum;
}

const Message& with_text(const std::vector<Message>& ms, const std::string& text) {
  for (const auto& m : ms)
    if (m.text == text) return m;
  FAIL("no message with text " << text);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("codex modern rollout: message shapes and counts", "[codex]") {
  CodexRun run = run_file(codex_sessions_dir() + kModern);
  auto ms = run.messages();
  CHECK(ms.size() == 25);
  std::map<Shape, int> expected = {
      {shape(Role::Assistant, ContentType::Summary, false), 5},
      {shape(Role::Assistant, ContentType::Text, false), 1},
      {shape(Role::Assistant, ContentType::Thinking, false), 1},
      {shape(Role::Assistant, ContentType::ToolUse, false), 7},
      {shape(Role::Tool, ContentType::ToolResult, false), 6},
      {shape(Role::User, ContentType::Text, false), 3},
      {shape(Role::User, ContentType::Text, true), 2},
  };
  CHECK(shapes(ms) == expected);
  std::set<std::string> uuids;
  for (const auto& m : ms) {
    uuids.insert(m.uuid);
    CHECK(m.parent_uuid.empty());
    CHECK(m.type == (m.role == Role::Assistant ? "assistant" : m.role == Role::Tool ? "tool" : "user"));
    // Image blocks (input_image, image_url) are never read into text.
    CHECK_FALSE(contains(m.text, "image_url"));
    CHECK_FALSE(contains(m.text, "input_image"));
  }
  CHECK(uuids.size() == ms.size());
  for (const auto& l : run.lines)
    for (const auto& m : l.rec.messages) CHECK(m.uuid == "@" + std::to_string(l.line_offset));
}

TEST_CASE("codex modern rollout: the first of 7 session_meta lines names the session", "[codex]") {
  const std::string path = codex_sessions_dir() + kModern;
  std::string bytes = osearch_test::read_file(path);
  size_t metas = 0;
  for (size_t at = 0; (at = bytes.find("\"type\":\"session_meta\"", at)) != std::string::npos; ++at) ++metas;
  REQUIRE(metas == 7);

  CodexRun run = run_file(path);
  int naming = 0;
  for (const auto& l : run.lines) naming += !l.rec.session_id_field.empty();
  CHECK(naming == 1);
  CHECK(run.lines.front().rec.session_id_field == "019fc8be-3658-7ca3-9e29-000000000000");
  CHECK(run.session_id() == "019fc8be-3658-7ca3-9e29-000000000000");
  CHECK(run.carry.header_seen);
  // Later metas (forks, subagents) do not change the version or branch.
  CHECK(run.carry.version == "0.146.0");
  CHECK(run.carry.git_branch == "main");
}

TEST_CASE("codex modern rollout: cwd, branch, version and model are carried", "[codex]") {
  CodexRun run = run_file(codex_sessions_dir() + kModern);
  auto ms = run.messages();
  const Message& prompt = with_text(ms, "List the files");
  CHECK_FALSE(prompt.is_meta);
  CHECK(prompt.cwd == "/tmp/repo");
  CHECK(prompt.git_branch == "main");
  CHECK(prompt.version == "0.146.0");
  CHECK(prompt.timestamp_ms == 1785754136000);  // 2026-08-03T10:48:56.000Z
  CHECK(prompt.model.empty());
  const Message& answer = with_text(ms, "Found 2 files.");
  CHECK(answer.role == Role::Assistant);
  CHECK(answer.model == "gpt-5.6-luna");  // turn_context line 2
  for (const auto& m : ms) {
    if (m.role == Role::Assistant && m.content_type != ContentType::Summary)
      CHECK_FALSE(m.model.empty());
    if (m.role != Role::Assistant) CHECK(m.model.empty());
  }
  // The last turn_context names gpt-5.6-sol; a trimmed cwd replaced the first.
  CHECK(run.carry.model == "gpt-5.6-sol");
  CHECK(run.carry.cwd == "[trimmed for fixture]");
}

TEST_CASE("codex modern rollout: tool calls pair with outputs by call_id", "[codex]") {
  CodexRun run = run_file(codex_sessions_dir() + kModern);
  std::map<std::string, ToolCall> calls;
  for (const auto& m : run.messages())
    for (const auto& c : m.tool_calls) calls[c.id] = c;
  REQUIRE(calls.count("call-1"));
  CHECK(calls["call-1"].name == "shell");  // a custom_tool_call
  CHECK(calls["call-1"].input_json == R"({"input":"{\"command\":[\"ls\"]}"})");
  REQUIRE(calls.count("call-2"));
  CHECK(calls["call-2"].input_json == R"({"command":["ls"]})");  // function_call: arguments parsed
  REQUIRE(calls.count("call-3"));
  CHECK(calls["call-3"].name == "tool_search");
  CHECK(calls.count("ws-1"));  // web_search_call has no call_id: its own id names it

  int results = 0;
  for (const auto& m : run.messages()) {
    for (const auto& r : m.tool_results) {
      ++results;
      CHECK(calls.count(r.tool_use_id) == 1);
      CHECK_FALSE(r.is_error);
    }
  }
  CHECK(results == 6);
  std::map<std::string, std::string> output_text;
  for (const auto& m : run.messages())
    if (!m.tool_results.empty()) output_text[m.tool_results[0].tool_use_id] = m.text;
  CHECK(output_text["call-1"] == "a.txt\nb.txt\n");  // array of input_text items
  CHECK(output_text["call-2"] == "a.txt\n");         // an object {type: input_text, text}
}

TEST_CASE("codex modern rollout: each prompt once, injected and developer messages meta", "[codex]") {
  CodexRun run = run_file(codex_sessions_dir() + kModern);
  int words = 0, injected = 0;
  for (const auto& m : run.messages()) {
    if (m.role != Role::User) continue;
    if (m.is_meta) {
      ++injected;
    } else {
      ++words;
      CHECK(m.content_type == ContentType::Text);
    }
  }
  CHECK(words == 3);
  CHECK(injected == 2);  // the response_item copy of "List the files" (its user_message came first) and a developer message
}

TEST_CASE("codex modern rollout: facts", "[codex]") {
  CodexRun run = run_file(codex_sessions_dir() + kModern);
  CHECK(run.facts(SessionFact::Kind::CustomTitle).size() == 1);
  CHECK(run.facts(SessionFact::Kind::AwaySummary).size() == 5);  // one compacted line has an empty message
  auto usage = run.facts(SessionFact::Kind::Usage);
  REQUIRE(usage.size() == 1);  // then a null info, then an all-zero total: no information, ignored
  CHECK(usage[0].usage.input == 16341 - 3584);
  CHECK(usage[0].usage.cache_read == 3584);
  CHECK(usage[0].usage.output == 81);
  CHECK(usage[0].text == "gpt-5.6-luna");
  CHECK(run.carry.usage_total.output == 81);  // the all-zero total did not reset the carried one
}

TEST_CASE("codex cli 0.106 rollout: text, meta and usage", "[codex]") {
  CodexRun run = run_file(codex_sessions_dir() + kCli0106);
  auto ms = run.messages();
  std::map<Shape, int> expected = {
      {shape(Role::Assistant, ContentType::Text, false), 7},
      {shape(Role::User, ContentType::Text, false), 6},  // "Start" once, "Step 1" … "Step 5" (no user_message copies)
      {shape(Role::User, ContentType::Text, true), 2},   // the second copy of "Start", the environment context
  };
  CHECK(shapes(ms) == expected);  // tool_call / tool_result are no Codex types: nothing
  CHECK(run.session_id() == "019b2ea4-aaaa-bbbb-cccc-58208e1f0000");
  const Message& start = ms.at(0);
  CHECK(start.text == "Start");
  CHECK_FALSE(start.is_meta);
  CHECK(start.cwd == "/tmp/large");
  CHECK(start.version == "0.106.0");
  CHECK(start.git_branch.empty());
  for (const auto& m : ms)
    if (m.role == Role::Assistant) CHECK(m.model == "gpt-5.2");
  TokenUsage sum = usage_sum(run);
  CHECK(sum.input == run.carry.usage_total.input);
  CHECK(sum.cache_read == run.carry.usage_total.cache_read);
  CHECK(sum.output == run.carry.usage_total.output);
  CHECK(sum.output == 182);
}

TEST_CASE("codex cli 0.53 rollout: only a session and one usage fact", "[codex]") {
  CodexRun run = run_file(codex_sessions_dir() + kRateLimit);
  CHECK(run.messages().empty());
  CHECK(run.session_id() == "test-ratelimit-session");
  CHECK(run.carry.cwd == "/tmp/test");
  auto usage = run.facts(SessionFact::Kind::Usage);
  REQUIRE(usage.size() == 1);  // the second token_count has info null
  TokenUsage sum = usage_sum(run);
  CHECK(sum.input == 12091 - 10880);
  CHECK(sum.cache_read == 10880);
  CHECK(sum.output == 182);
  CHECK(sum.input == run.carry.usage_total.input);
  CHECK(sum.cache_read == run.carry.usage_total.cache_read);
  CHECK(sum.output == run.carry.usage_total.output);
  CHECK(run.facts().size() == 1);  // the error and rate-limit events yield nothing
}

TEST_CASE("codex rollout read from a mid offset continues with the stored carry", "[codex]") {
  const std::string path = codex_sessions_dir() + kModern;
  CodexRun whole = run_file(path);
  size_t half = whole.lines.size() / 2;
  // What the engine stores at a resume point: the offset of the next line and the carry so far.
  FileCarry carry;
  JsonlReader reader;
  size_t seen = 0;
  reader.read(path, 0, [&](simdjson::dom::element obj, uint64_t off) {
    if (seen++ >= half) return;
    LineRecords rec;
    parse_codex_object(obj, off, carry, rec);
  });
  const uint64_t resume = whole.lines[half].line_offset;
  CodexRun rest = run_file(path, resume, carry);
  REQUIRE(rest.lines.size() == whole.lines.size() - half);
  for (size_t i = 0; i < rest.lines.size(); ++i) {
    const auto& a = rest.lines[i].rec.messages;
    const auto& b = whole.lines[half + i].rec.messages;
    REQUIRE(a.size() == b.size());
    for (size_t j = 0; j < a.size(); ++j) {
      CHECK(a[j].uuid == b[j].uuid);
      CHECK(a[j].text == b[j].text);
      CHECK(a[j].model == b[j].model);
      CHECK(a[j].cwd == b[j].cwd);
    }
  }
  // FileCarry's defaulted == is deleted (TokenUsage has none): compare field by field.
  CHECK(rest.carry.cwd == whole.carry.cwd);
  CHECK(rest.carry.model == whole.carry.model);
  CHECK(rest.carry.version == whole.carry.version);
  CHECK(rest.carry.git_branch == whole.carry.git_branch);
  CHECK(rest.carry.header_seen == whole.carry.header_seen);
  CHECK(rest.carry.usage_total.input == whole.carry.usage_total.input);
  CHECK(rest.carry.usage_total.output == whole.carry.usage_total.output);
  CHECK(rest.session_id().empty());  // the header was read before the resume point
}

TEST_CASE("codex session index lines: thread names by id", "[codex]") {
  simdjson::dom::parser parser;
  auto index = [&](const std::string& json, LineRecords& out) {
    simdjson::dom::element doc;
    REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
    return parse_codex_index_object(doc, out);
  };
  LineRecords rec;
  CHECK(index(R"({"id":"019a-1","thread_name":"Fix the parser","updated_at":"2026-01-01T00:00:00Z"})", rec));
  CHECK(rec.session_id_field == "019a-1");
  REQUIRE(rec.facts.size() == 1);
  CHECK(rec.facts[0].kind == SessionFact::Kind::CustomTitle);
  CHECK(rec.facts[0].text == "Fix the parser");
  CHECK(rec.messages.empty());

  std::string long_id(400, 'x');
  LineRecords bounded;
  CHECK(index(R"({"id":")" + long_id + R"(","thread_name":"t"})", bounded));
  CHECK(bounded.session_id_field.size() <= kMaxIdBytes);
  CHECK(bounded.session_id_full == long_id);

  for (const char* bad : {R"({"id":"a"})", R"({"thread_name":"t"})", R"({"id":1,"thread_name":"t"})",
                          R"({"id":"a","thread_name":["t"]})", R"({})"}) {
    LineRecords none;
    CHECK_FALSE(index(bad, none));
    CHECK(none.facts.empty());
  }
}
