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
    if (p.rec.is_message && p.rec.message.uuid == uuid) return p;
  FAIL("no message with uuid " << uuid);
  throw std::logic_error("unreachable");
}

const Message& msg(const std::vector<Parsed>& ps, const std::string& uuid) { return by_uuid(ps, uuid).rec.message; }

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
const std::string kWindows = "D--oh-my-posh/88e16f61-d1b7-47a3-84f1-057e0f96521a.jsonl";
const std::string kExperiments = "-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl";
const std::string kCjk = "sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl";
const std::string kImage = "-Users-dain-workspace-danieldemmel-me-next/4379d1bf-ccb1-414e-a856-9791b73f3af2.jsonl";
const std::string kGlued = "-Users-soph-Work-entire-devenv-cli/130d7b7e-5801-4345-9bd6-f32fd9b8429b.jsonl";
const std::string kAiTitle = "-fixture-jazzyalex-agent-sessions/small.jsonl";

}  // namespace

TEST_CASE("claude: roles of user prompt and assistant lines and tool_result lines as Role::Tool", "[claude]") {
  auto ps = parse_file(kUserProject);

  const Message& prompt = msg(ps, "48ce81b2-770b-410c-a183-8ee03eadb473");
  CHECK(prompt.type == "user");
  CHECK(prompt.role == Role::User);
  CHECK(prompt.content_type == ContentType::Text);
  CHECK_FALSE(prompt.is_meta);
  CHECK(prompt.text == "Hello I want to have some test conversation with you create some file for me");
  CHECK(prompt.cwd == "/Users/user/project");
  CHECK(prompt.git_branch == "main");
  CHECK(prompt.timestamp_ms > 1700000000000LL);
  CHECK(by_uuid(ps, "48ce81b2-770b-410c-a183-8ee03eadb473").rec.session_id_field ==
        "b3edadab-bca0-4054-9b41-f7ffa6941260");

  const Message& write_result = msg(ps, "b15172ff-ba40-4502-9a4e-97ecff3f8d6b");
  CHECK(write_result.type == "user");
  CHECK(write_result.role == Role::Tool);
  CHECK(write_result.content_type == ContentType::ToolResult);
  CHECK_FALSE(write_result.is_meta);
  REQUIRE(write_result.tool_results.size() == 1);
  CHECK(write_result.tool_results[0].tool_use_id == "toolu_019D8yENskx1DsDZYbdv2udz");
  CHECK(write_result.tool_results[0].file_path == "/Users/user/project/test-file.txt");  // toolUseResult.filePath
  CHECK_FALSE(write_result.tool_results[0].is_error);
  CHECK(write_result.text.find("File created successfully") != std::string::npos);

  const Message& read_result = msg(ps, "fa021f7c-4f46-4adb-8f1b-09a1a5b70b1b");
  CHECK(read_result.role == Role::Tool);
  REQUIRE(read_result.tool_results.size() == 1);
  CHECK(read_result.tool_results[0].file_path == "/Users/user/project/test-file.txt");  // toolUseResult.file.filePath
  CHECK(read_result.text.find("This is a test file created by Claude.") != std::string::npos);

  const Message& a = msg(ps, "6f9a0631-cba2-41c8-9451-ec4c018ee610");
  CHECK(a.type == "assistant");
  CHECK(a.role == Role::Assistant);
  CHECK(a.model == "claude-opus-4-5-20251101");
  CHECK(a.api_message_id == "msg_01HYxV61KmsvMq5Lhfg1zV96");

  // No user/assistant line of the file is ever classified as a tool result unless it holds one.
  for (const auto& p : ps) {
    if (!p.rec.is_message) continue;
    const Message& m = p.rec.message;
    INFO(m.uuid);
    CHECK((m.role == Role::Tool) == !m.tool_results.empty());
    if (m.type == "assistant") CHECK(m.role == Role::Assistant);
  }

  SECTION("is_error tool results (real, sample-project)") {
    auto cjk = parse_file(kCjk);
    const Message& err = msg(cjk, "59877bc0-adeb-4b9a-a6b7-9c2ba717d102");
    CHECK(err.role == Role::Tool);
    REQUIRE(err.tool_results.size() == 1);
    CHECK(err.tool_results[0].tool_use_id == "toolu_019ctBEHhLKehUi4xPDkYwvc");
    CHECK(err.tool_results[0].is_error);
    CHECK(err.text.find("File has not been read yet") != std::string::npos);
  }

  SECTION("tool_result lines that carry <system-reminder> text are still tool output") {
    auto ab = parse_file("-Users-cjm-repos-ai-blame-test/2c965cfd-41e4-4e31-8339-2986ebced03c.jsonl");
    const Message& m = msg(ab, "b6fc03dc-5ea3-4e34-93a3-573919190d21");
    CHECK(m.role == Role::Tool);
    CHECK(m.content_type == ContentType::ToolResult);
    CHECK(m.text.find("shorter than the provided offset") != std::string::npos);
  }
}

TEST_CASE("claude: meta classification of isMeta and caveats and reminders and notifications and stdout and compact summaries",
          "[claude]") {
  SECTION("caveat without tags (2.0.74): meta by flag, and by text alone") {
    auto ps = parse_file(kClear);
    const Parsed& p = by_uuid(ps, "9404845c-0ed5-4b24-976b-b4c261010c48");
    CHECK(p.rec.message.is_meta);
    REQUIRE(p.raw.find("\"isMeta\":true,") != std::string::npos);
    One stripped = parse_one(erase_all(p.raw, "\"isMeta\":true,"));
    REQUIRE(stripped.kept);
    CHECK(stripped.rec.message.is_meta);
    CHECK(stripped.rec.message.role == Role::User);
  }

  SECTION("caveat with <local-command-caveat> tags (2.1.29)") {
    auto ps = parse_file(kCaveat);
    const Parsed& p = by_uuid(ps, "fd5db652-2aab-4fc9-ad56-9f14aca58e1a");
    CHECK(p.rec.message.is_meta);
    One stripped = parse_one(erase_all(p.raw, "\"isMeta\":true,"));
    REQUIRE(stripped.kept);
    CHECK(stripped.rec.message.is_meta);
  }

  SECTION("<local-command-stdout> without any isMeta flag (real)") {
    auto ps = parse_file(kClear);
    const Parsed& p = by_uuid(ps, "e8e28ecc-d6c5-431d-9476-b173b0540bda");
    CHECK(p.raw.find("isMeta") == std::string::npos);
    CHECK(p.rec.message.is_meta);
    auto compact = parse_file(kCompact);
    CHECK(msg(compact, "4dfab873-c508-4f36-b9e2-71c1e7c416f7").is_meta);  // <local-command-stdout>Bye!
  }

  SECTION("<system-reminder> hook text in a user line") {
    auto ps = parse_file(kHookAgent);
    const Parsed& p = by_uuid(ps, "04690b45-7d5f-4fe9-adcf-5ca3d8d26207");
    CHECK(p.rec.message.is_meta);
    CHECK(p.rec.message.role == Role::User);
    One stripped = parse_one(erase_all(p.raw, ",\"isMeta\":true"));
    REQUIRE(stripped.kept);
    CHECK(stripped.rec.message.is_meta);
  }

  SECTION("<task-notification> (synthetic fixture)") {
    auto ps = parse_file(kTaskNotification);
    const Message& m = msg(ps, "11111111-0000-4000-8000-000000000006");
    CHECK(m.is_meta);
    CHECK(m.role == Role::User);
    CHECK_FALSE(msg(ps, "11111111-0000-4000-8000-000000000001").is_meta);  // the real prompt
  }

  SECTION("isCompactSummary: ContentType::Summary and meta") {
    auto ps = parse_file(kCompact);
    const Message& m = msg(ps, "1cb2a467-8a62-4e97-917e-85d905d1c39c");
    CHECK(m.content_type == ContentType::Summary);
    CHECK(m.is_meta);
    CHECK(m.text.find("This session is being continued from a previous conversation") != std::string::npos);
    const Message& q = msg(ps, "a6e20ffd-9e9c-429e-8db3-884f99acbe1c");
    CHECK(q.text == "what is 2 + 2?");
    CHECK_FALSE(q.is_meta);
    CHECK(q.content_type == ContentType::Text);
  }

  SECTION("classifier functions") {
    CHECK(is_meta_user_text("<local-command-caveat>Caveat: x</local-command-caveat>"));
    CHECK(is_meta_user_text("Caveat: The messages below were generated by the user while running local commands."));
    CHECK(is_meta_user_text("\n  <system-reminder>\nhook</system-reminder>"));
    CHECK(is_meta_user_text("<task-notification>\n<task-id>x</task-id>"));
    CHECK(is_meta_user_text("<local-command-stdout>ok</local-command-stdout>"));
    CHECK(is_meta_user_text("<local-command-stderr>bad</local-command-stderr>"));
    CHECK_FALSE(is_meta_user_text("Please explain <system-reminder> tags to me"));
    CHECK_FALSE(is_meta_user_text("what is 2 + 2?"));
    CHECK_FALSE(is_meta_user_text(""));
  }
}

TEST_CASE("claude: slash command envelopes are ContentType::Command", "[claude]") {
  auto clear = parse_file(kClear);
  const Message& c = msg(clear, "b981afe9-3796-4b6f-a5c5-ed8c6dafdbc3");
  CHECK(c.content_type == ContentType::Command);
  CHECK(c.role == Role::User);
  CHECK(c.text.find("/clear") != std::string::npos);

  auto compact = parse_file(kCompact);
  CHECK(msg(compact, "a0ec881d-2f8a-44ac-96da-7a05321e8cc2").content_type == ContentType::Command);  // /compact
  CHECK(msg(compact, "2809e8eb-ac38-4ff5-adc6-158d6fe0f7df").content_type == ContentType::Command);  // /exit

  // <command-message> first (the other tag order seen in real files), in a text block array.
  One blocks = parse_one(
      R"({"type":"user","uuid":"u-cmd","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":[{"type":"text","text":"<command-message>init is analyzing…</command-message>\n<command-name>/init</command-name>"}]}})");
  REQUIRE(blocks.kept);
  CHECK(blocks.rec.message.content_type == ContentType::Command);

  // Ordinary text that merely mentions the tag is a prompt.
  One mention = parse_one(
      R"({"type":"user","uuid":"u-txt","sessionId":"s","message":{"role":"user","content":"why does <command-name> appear in my logs?"}})");
  REQUIRE(mention.kept);
  CHECK(mention.rec.message.content_type == ContentType::Text);
  CHECK_FALSE(mention.rec.message.is_meta);

  CHECK(is_command_envelope("  <command-name>/mcp</command-name>"));
  CHECK(is_command_envelope("<command-message>mcp</command-message>\n<command-name>/mcp</command-name>"));
  CHECK_FALSE(is_command_envelope("/mcp"));
}

TEST_CASE("claude: thinking and text and CJK content and a Windows cwd", "[claude]") {
  auto ps = parse_file(kCompact);
  const Message& t = msg(ps, "7b6b7814-d899-41ed-92fb-5f8d9e32b34b");
  CHECK(t.role == Role::Assistant);
  CHECK(t.content_type == ContentType::Thinking);
  CHECK(t.text.find("The user is asking a simple math question") != std::string::npos);
  const Message& answer = msg(ps, "95a5e4b1-d4fb-4f94-9243-1260f7cb427b");
  CHECK(answer.content_type == ContentType::Text);
  CHECK(answer.text == "2 + 2 = 4");

  auto cjk = parse_file(kCjk);
  const Message& ja = msg(cjk, "e9bd5ce8-d37d-49a1-868c-8281d0d0a32b");
  CHECK(ja.role == Role::Assistant);
  CHECK(ja.text.find("CLAUDE.md\xe3\x83\x95\xe3\x82\xa1\xe3\x82\xa4\xe3\x83\xab\xe3\x82\x92\xe6\x9c\x80\xe6\x96\xb0"
                     "\xe3\x81\xae\xe7\x8a\xb6\xe6\x85\x8b") != std::string::npos);  // CLAUDE.mdファイルを最新の状態

  // \u escapes are decoded to UTF-8.
  One esc = parse_one(
      R"({"type":"user","uuid":"u-esc","sessionId":"s","message":{"role":"user","content":"\u6700\u65b0 \ud83d\ude00 \"q\" \\ end"}})");
  REQUIRE(esc.kept);
  CHECK(esc.rec.message.text == "\xe6\x9c\x80\xe6\x96\xb0 \xf0\x9f\x98\x80 \"q\" \\ end");

  // The 2.1.205+ Windows transcript: cwd decoded with a single backslash.
  auto win = parse_file(kWindows);
  const Message& w = msg(win, "b0e5a82d-a277-4241-a280-e98bd76c88cb");
  CHECK(w.cwd == "D:\\oh-my-posh");
  // A thinking block with empty text (signature only): the signature is never text.
  const Message& wt = msg(win, "75f84dc6-e4e4-40f9-80ec-089a0fd44132");
  CHECK(wt.text.empty());
  CHECK(wt.content_type != ContentType::Text);
}

TEST_CASE("claude: tool_use blocks become ToolCalls with id and name and input JSON and file path", "[claude]") {
  auto ps = parse_file(kUserProject);

  const Message& edit = msg(ps, "a58f23f4-4db5-4b42-b14a-122863d4d37e");
  CHECK(edit.content_type == ContentType::ToolUse);
  REQUIRE(edit.tool_calls.size() == 1);
  const ToolCall& e = edit.tool_calls[0];
  CHECK(e.id == "toolu_01PczEZy4Cy2U8iVdjJhNC7d");
  CHECK(e.name == "Edit");
  CHECK(e.file_path == "/Users/user/project/test-file.txt");
  {
    simdjson::dom::parser p;
    simdjson::dom::element input;
    REQUIRE(p.parse(e.input_json).get(input) == simdjson::SUCCESS);
    std::string_view old_string;
    REQUIRE(input["old_string"].get_string().get(old_string) == simdjson::SUCCESS);
    CHECK(old_string == "Hello from the conversation!");
  }
  // Tool input strings are searchable text.
  CHECK(edit.text.find("Edit") != std::string::npos);
  CHECK(edit.text.find("/Users/user/project/test-file.txt") != std::string::npos);
  CHECK(edit.text.find("Here is some additional content:") != std::string::npos);

  const Message& read = msg(ps, "6f9a0631-cba2-41c8-9451-ec4c018ee610");
  REQUIRE(read.tool_calls.size() == 1);
  CHECK(read.tool_calls[0].name == "Read");
  CHECK(read.tool_calls[0].id == "toolu_014ry89HuJqs7aowEu4Sm3Jg");
  CHECK(read.tool_calls[0].file_path == "/Users/user/project/test-file.txt");
  CHECK(read.tool_calls[0].input_json == R"({"file_path":"/Users/user/project/test-file.txt"})");

  auto tool_of = [](const std::string& name, const std::string& input) {
    One o = parse_one(R"({"type":"assistant","uuid":"a-)" + name +
                      R"(","sessionId":"s","message":{"id":"msg_x","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_)" +
                      name + R"(","name":")" + name + R"(","input":)" + input + "}]}}");
    REQUIRE(o.kept);
    REQUIRE(o.rec.message.tool_calls.size() == 1);
    return o.rec.message.tool_calls[0];
  };
  CHECK(tool_of("NotebookEdit", R"({"notebook_path":"/w/nb.ipynb","new_source":"x=1"})").file_path == "/w/nb.ipynb");
  CHECK(tool_of("Grep", R"({"pattern":"TODO","path":"/w/src"})").file_path == "/w/src");
  CHECK(tool_of("Glob", R"({"pattern":"**/*.md","path":"/w/docs"})").file_path == "/w/docs");
  CHECK(tool_of("Write", R"({"file_path":"/w/a.txt","content":"hi"})").file_path == "/w/a.txt");
  CHECK(tool_of("MultiEdit", R"({"file_path":"/w/b.txt","edits":[]})").file_path == "/w/b.txt");
  CHECK(tool_of("Bash", R"({"command":"ls /w","path":"/not/a/file/arg"})").file_path.empty());
  ToolCall empty_input = tool_of("TodoWrite", "{}");
  CHECK(empty_input.input_json == "{}");
  CHECK(empty_input.file_path.empty());

  SECTION("Task tool result carries the spawned agent facts") {
    auto ef = parse_file(kExperiments);
    bool found = false;
    for (const auto& p : ef) {
      if (!p.rec.is_message || p.rec.message.spawned_agent_id.empty()) continue;
      found = true;
      CHECK(p.rec.message.role == Role::Tool);
      CHECK(p.raw.find(p.rec.message.spawned_agent_id) != std::string::npos);
    }
    CHECK(found);
  }
}

TEST_CASE("claude: usage and model and message id of assistant lines", "[claude]") {
  auto ps = parse_file(kUserProject);
  const Message& a = msg(ps, "6f9a0631-cba2-41c8-9451-ec4c018ee610");
  CHECK(a.usage.input == 10);
  CHECK(a.usage.output == 104);
  CHECK(a.usage.cache_creation == 63);
  CHECK(a.usage.cache_read == 20323);

  // Streamed chunks of one API message repeat its usage on every line; the adapter reports it as
  // written (the store counts it once per message id).
  auto win = parse_file(kWindows);
  const Message& c1 = msg(win, "75f84dc6-e4e4-40f9-80ec-089a0fd44132");
  const Message& c2 = msg(win, "9e9672f9-4a39-4a11-91a8-f1e64f0fcfb5");
  CHECK(c1.api_message_id == "msg_011CcunR73xG5XGwyxvnzP7S");
  CHECK(c2.api_message_id == c1.api_message_id);
  CHECK(c1.usage.input == 11325);
  CHECK(c1.usage.output == 576);
  CHECK(c1.usage.cache_creation == 5360);
  CHECK(c1.usage.cache_read == 24962);
  CHECK(c2.usage.output == c1.usage.output);

  // User lines carry no usage.
  CHECK_FALSE(msg(ps, "48ce81b2-770b-410c-a183-8ee03eadb473").usage.any());
}

TEST_CASE("claude: images are never part of the searchable text", "[claude]") {
  size_t image_blocks = 0;
  for (const std::string& rel : {kImage}) {
    auto ps = parse_file(rel);
    for (const auto& p : ps) {
      if (p.raw.find("\"type\":\"image\"") == std::string::npos) continue;
      // Every base64 payload on the line must be absent from the text.
      simdjson::dom::parser parser;
      simdjson::dom::element doc;
      REQUIRE(parser.parse(p.raw).get(doc) == simdjson::SUCCESS);
      std::vector<std::string> payloads;
      std::function<void(simdjson::dom::element)> walk = [&](simdjson::dom::element e) {
        simdjson::dom::object obj;
        simdjson::dom::array arr;
        if (e.get_object().get(obj) == simdjson::SUCCESS) {
          std::string_view type, data;
          if (obj["type"].get_string().get(type) == simdjson::SUCCESS && type == "base64" &&
              obj["data"].get_string().get(data) == simdjson::SUCCESS)
            payloads.emplace_back(data);
          for (auto f : obj) walk(f.value);
        } else if (e.get_array().get(arr) == simdjson::SUCCESS) {
          for (auto c : arr) walk(c);
        }
      };
      walk(doc);
      for (const auto& data : payloads) {
        if (data.size() < 1000) continue;
        ++image_blocks;
        INFO(rel << " line at " << p.line_offset);
        if (p.rec.is_message) CHECK(p.rec.message.text.find(data.substr(0, std::min<size_t>(64, data.size()))) == std::string::npos);
      }
    }
  }
  CHECK(image_blocks >= 1);

  auto ps = parse_file(kImage);
  const Parsed& p = by_uuid(ps, "ddfcb7df-9278-429e-8360-837444af6358");
  CHECK(p.raw.size() > 500000);
  CHECK(p.rec.message.text.size() < 20000);
  CHECK_FALSE(p.rec.message.text.empty());  // the text block next to the image is kept
}

TEST_CASE("claude: session facts custom-title ai-title summary last-prompt turn_duration away_summary",
          "[claude]") {
  auto find_fact = [](const std::vector<Parsed>& ps, SessionFact::Kind kind) -> std::vector<SessionFact> {
    std::vector<SessionFact> out;
    for (const auto& p : ps)
      for (const auto& f : p.rec.facts)
        if (f.kind == kind) out.push_back(f);
    return out;
  };

  auto win = parse_file(kWindows);
  auto titles = find_fact(win, SessionFact::Kind::CustomTitle);
  REQUIRE(titles.size() == 1);
  CHECK(titles[0].text == "Remove phantom nul file");
  auto prompts = find_fact(win, SessionFact::Kind::LastPrompt);
  REQUIRE(prompts.size() == 2);
  CHECK(prompts[0].text.rfind("There is a file called nul in the work tree", 0) == 0);
  for (const auto& p : win)
    if (!p.rec.facts.empty()) CHECK(p.rec.session_id_field == "88e16f61-d1b7-47a3-84f1-057e0f96521a");

  auto summary_only = parse_file("-Users-user-project/a751b8dd-6b29-4eed-8cb9-64bc9a916a39.jsonl");
  auto sums = find_fact(summary_only, SessionFact::Kind::Summary);
  REQUIRE(sums.size() == 3);
  CHECK(sums[0].text == "Claude Code CLI Session Started");
  CHECK(sums[0].ref_uuid == "e8e28ecc-d6c5-431d-9476-b173b0540bda");
  for (const auto& p : summary_only) CHECK_FALSE(p.rec.is_message);

  auto glued = parse_file(kGlued);
  auto gsum = find_fact(glued, SessionFact::Kind::Summary);
  REQUIRE_FALSE(gsum.empty());
  bool glued_summary = false;
  for (const auto& s : gsum)
    glued_summary = glued_summary || (s.text == "Add agent name to logging context automatically" &&
                                      s.ref_uuid == "cbd0e4b0-4666-4450-af41-f0544047abf7");
  CHECK(glued_summary);
  CHECK(msg(glued, "3252495b-f5ee-4004-9370-21c6d432eb59").role == Role::Assistant);  // its glued neighbour

  auto ef = parse_file(kExperiments);
  auto durations = find_fact(ef, SessionFact::Kind::TurnDuration);
  REQUIRE(durations.size() == 2);
  CHECK(durations[0].value == 247515);
  CHECK(durations[0].ref_uuid == "cd995d50-71a2-4d8e-86ab-e99a5ab79728");
  auto away = find_fact(ef, SessionFact::Kind::AwaySummary);
  REQUIRE(away.size() == 2);
  CHECK(away[0].text.rfind("Running a teammate experiment", 0) == 0);
  auto last = find_fact(ef, SessionFact::Kind::LastPrompt);
  REQUIRE(last.size() == 7);
  CHECK(last.back().text == "Well, the subagents seem to be either stuck or done... can you check?");

  auto fx = parse_file(kAiTitle);
  auto ai = find_fact(fx, SessionFact::Kind::AiTitle);
  REQUIRE(ai.size() == 1);
  CHECK(ai[0].text == "Stage0 AI title");

  // Records that carry nothing searchable are dropped.
  size_t dropped = 0;
  for (const auto& p : ef) {
    if (p.raw.find("\"type\":\"attachment\"") == 0 || p.raw.find("\"type\":\"permission-mode\"") != std::string::npos ||
        p.raw.rfind("{\"type\":\"file-history-snapshot\"", 0) == 0) {
      CHECK_FALSE(p.kept);
      CHECK_FALSE(p.rec.is_message);
      ++dropped;
    }
  }
  CHECK(dropped > 0);
  for (const char* line : {R"({"type":"progress","data":{"type":"hook_progress"},"uuid":"p1","sessionId":"s"})",
                           R"({"type":"queue-operation","operation":"enqueue","content":"hi","sessionId":"s"})",
                           R"({"type":"summary","summary":"","leafUuid":"x"})",
                           R"({"type":"user","message":{"role":"user","content":"no uuid"}})"}) {
    INFO(line);
    CHECK_FALSE(parse_one(line).kept);
  }
}

TEST_CASE("claude: discover_claude classifies main and root agent and nested and workflow agent files", "[claude]") {
  DiscoveryResult d = discover_claude(claude_data_dir());
  CHECK(d.errors.empty());
  std::map<std::string, SourceFile> by_rel;
  const std::string root = claude_data_dir() + "/";
  for (const auto& f : d.files) {
    REQUIRE(f.path.rfind(root, 0) == 0);
    by_rel[f.path.substr(root.size())] = f;
  }
  // Exactly the .jsonl files of the tree; .meta.json sidecars and PROVENANCE.md are not transcripts.
  size_t jsonl = 0;
  for (const auto& rel : list_files(claude_data_dir())) {
    bool is_jsonl = rel.size() > 6 && rel.substr(rel.size() - 6) == ".jsonl";
    jsonl += is_jsonl;
    INFO(rel);
    CHECK(by_rel.count(rel) == (is_jsonl ? 1u : 0u));
  }
  CHECK(d.files.size() == jsonl);
  CHECK(std::is_sorted(d.files.begin(), d.files.end(),
                       [](const SourceFile& a, const SourceFile& b) { return a.path < b.path; }));

  const SourceFile& main = by_rel.at(kUserProject);
  CHECK(main.kind == SourceKind::ClaudeMain);
  CHECK(main.session_id == "b3edadab-bca0-4054-9b41-f7ffa6941260");
  CHECK(main.project == "-Users-user-project");
  CHECK(main.agent == "claude");
  CHECK(main.agent_id.empty());
  CHECK(main.size == file_size(main.path));
  CHECK(main.ino != 0);
  CHECK(main.mtime_ns > 0);

  const SourceFile& empty = by_rel.at("-Users-user-project/0f13eeba-e6ed-42ea-ad8c-d8db37e1304e.jsonl");
  CHECK(empty.kind == SourceKind::ClaudeMain);
  CHECK(empty.size == 0);

  const SourceFile& root_agent = by_rel.at("-Users-user-project/agent-a434715.jsonl");
  CHECK(root_agent.kind == SourceKind::ClaudeRootAgent);
  CHECK(root_agent.agent_id == "a434715");
  CHECK(root_agent.session_id.empty());  // known only from its lines' sessionId

  const SourceFile& orphan = by_rel.at("-Users-dain-workspace-claude-code-log-sample/agent-41b9470d.jsonl");
  CHECK(orphan.kind == SourceKind::ClaudeRootAgent);
  CHECK(orphan.agent_id == "41b9470d");

  const SourceFile& nested =
      by_rel.at("-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-a36efb2a1231c41e2.jsonl");
  CHECK(nested.kind == SourceKind::ClaudeNestedAgent);
  CHECK(nested.session_id == "ef958aa1-0e93-49f0-bb71-150f63befcd1");
  CHECK(nested.agent_id == "a36efb2a1231c41e2");
  CHECK(nested.project == "-experiments-worktrees");

  const SourceFile& suggestion = by_rel.at(
      "-private-var-folders-t5-6tq8cxtj20z035rv8hsnzwvh0000gn-T-capture-vyPJVq/8aa54c1d-5030-4491-be42-e0c416424b8a/"
      "subagents/agent-aprompt_suggestion-029c25.jsonl");
  CHECK(suggestion.kind == SourceKind::ClaudeNestedAgent);
  CHECK(suggestion.agent_id == "aprompt_suggestion-029c25");

  const SourceFile& nested_orphan = by_rel.at(
      "-home-marco-projects-spotter-worktrees-spotter-0rt/6c2214d7-b87e-4432-8e41-22ba294ea584/subagents/"
      "agent-afc096d.jsonl");
  CHECK(nested_orphan.kind == SourceKind::ClaudeNestedAgent);
  CHECK(nested_orphan.session_id == "6c2214d7-b87e-4432-8e41-22ba294ea584");

  const SourceFile& wf = by_rel.at(
      "-fixture-claude-code-log-test-data/11110000-0000-4000-8000-000000000001/subagents/workflows/wf_demo01/"
      "agent-ag000001.jsonl");
  CHECK(wf.kind == SourceKind::ClaudeWorkflowAgent);
  CHECK(wf.session_id == "11110000-0000-4000-8000-000000000001");
  CHECK(wf.workflow_run == "wf_demo01");
  CHECK(wf.agent_id == "ag000001");

  // Every file's kind follows from its place in the tree alone.
  std::map<SourceKind, size_t> kinds, expected;
  for (const auto& f : d.files) ++kinds[f.kind];
  for (const auto& [rel, f] : by_rel) {
    size_t depth = std::count(rel.begin(), rel.end(), '/');
    std::string name = rel.substr(rel.rfind('/') + 1);
    if (rel.find("/subagents/workflows/") != std::string::npos)
      ++expected[SourceKind::ClaudeWorkflowAgent];
    else if (rel.find("/subagents/") != std::string::npos)
      ++expected[SourceKind::ClaudeNestedAgent];
    else if (depth == 1 && name.rfind("agent-", 0) == 0)
      ++expected[SourceKind::ClaudeRootAgent];
    else if (depth == 1)
      ++expected[SourceKind::ClaudeMain];
  }
  CHECK(kinds == expected);
  CHECK(kinds[SourceKind::ClaudeMain] >= 22);
  CHECK(kinds[SourceKind::ClaudeRootAgent] >= 22);
  CHECK(kinds[SourceKind::ClaudeNestedAgent] >= 11);
  CHECK(kinds[SourceKind::ClaudeWorkflowAgent] == 1);

  SECTION("sidecar meta of a nested subagent") {
    CHECK(subagent_meta_path(nested.path) ==
          claude_data_dir() +
              "/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-a36efb2a1231c41e2.meta.json");
    auto meta = read_subagent_meta(subagent_meta_path(nested.path));
    REQUIRE(meta.has_value());
    CHECK(meta->agent_type == "general-purpose");
    CHECK(meta->description == "Round 2: alice comparison");
    CHECK_FALSE(read_subagent_meta(subagent_meta_path(root_agent.path)).has_value());
  }

  SECTION("a missing root yields nothing and no error; a file as root too") {
    TempDir tmp("discover");
    DiscoveryResult none = discover_claude(tmp / "does-not-exist");
    CHECK(none.files.empty());
    CHECK(none.errors.empty());
    write_file(tmp / "file-root", "x");
    CHECK(discover_claude(tmp / "file-root").files.empty());
    // Stray files at the top level and non-jsonl files inside a project are ignored.
    write_file(tmp / "root/stray.jsonl", "{}\n");
    write_file(tmp / "root/-p/notes.txt", "x");
    write_file(tmp / "root/-p/s1.jsonl", "{}\n");
    fs::create_directories(tmp / "root/-p/s1/subagents");
    DiscoveryResult small = discover_claude(tmp / "root");
    REQUIRE(small.files.size() == 1);
    CHECK(small.files[0].session_id == "s1");
  }
}
