// Codex adapter, one rule at a time on small inline lines: session_meta and forks, turn_context,
// every ResponseItem kind, events, token growth, compaction and legacy bare files.
#include "codex_fixture.h"

#include "ingest/bounded_id.h"
#include "ingest/codex_items.h"

using namespace osearch;
using namespace codex_test;

TEST_CASE("codex session_meta: the first names the session, later ones change nothing", "[codex]") {
  CodexRun run = run_lines({meta("019a-parent"), turn_context("gpt-5"),
                       item(R"({"type":"message","role":"assistant","content":[{"type":"output_text","text":"hi"}]})"),
                       meta("019b-forked-child", R"(,"forked_from_id":"019a-parent")"),
                       R"({"timestamp":"x","type":"session_meta","payload":{"id":"019c","cwd":"/elsewhere","cli_version":"9"}})",
                       item(R"({"type":"message","role":"assistant","content":"after"})")});
  CHECK(run.lines[0].kept);
  CHECK(run.lines[0].rec.session_id_field == "019a-parent");
  CHECK(run.lines[0].rec.session_id_full.empty());
  CHECK_FALSE(run.lines[1].kept);  // turn_context: carry only
  CHECK_FALSE(run.lines[3].kept);
  CHECK(run.lines[3].rec.session_id_field.empty());
  CHECK(run.lines[4].rec.session_id_field.empty());
  CHECK(run.session_id() == "019a-parent");
  const Message& after = run.lines[5].rec.messages.at(0);
  CHECK(after.cwd == "/home/u/proj");
  CHECK(after.git_branch == "feat/x");
  CHECK(after.version == "0.146.0");
  CHECK(after.model == "gpt-5");
  CHECK(after.text == "after");
  CHECK(run.carry.header_seen);
}

TEST_CASE("codex session_meta: a long id is bounded, instructions are not indexed", "[codex]") {
  std::string id(300, 'a');
  FileCarry carry;
  ParsedLine p = parse_line(
      R"({"type":"session_meta","payload":{"id":")" + id +
          R"(","instructions":"SECRET RULES","base_instructions":{"text":"BASE"},"cwd":7,"git":"main"}})",
      carry);
  CHECK(p.kept);
  CHECK(p.rec.session_id_field.size() <= kMaxIdBytes);
  CHECK(p.rec.session_id_full == id);
  CHECK(p.rec.messages.empty());
  CHECK(carry.cwd.empty());
  CHECK(carry.git_branch.empty());
}

TEST_CASE("codex turn_context: model and cwd carried, an empty cwd keeps the last", "[codex]") {
  CodexRun run = run_lines({meta("s"), turn_context("gpt-5.1", "/a"), turn_context("gpt-5.2"),
                       item(R"({"type":"function_call","name":"shell","arguments":"{}","call_id":"c"})"),
                       event(R"({"type":"user_message","message":"go"})")});
  CHECK(run.carry.model == "gpt-5.2");
  CHECK(run.carry.cwd == "/a");
  const Message& call = run.lines[3].rec.messages.at(0);
  CHECK(call.model == "gpt-5.2");
  CHECK(call.cwd == "/a");
  CHECK(run.lines[4].rec.messages.at(0).model.empty());  // user text carries no model
}

TEST_CASE("codex messages: uuid, timestamp, roles and meta", "[codex]") {
  FileCarry carry;
  ParsedLine p = parse_line(
      item(R"({"type":"message","role":"assistant","content":[{"type":"output_text","text":"one"},{"type":"input_image","image_url":"data:image/png;base64,AAAA"},{"type":"text","text":"two"}]})"),
      carry, 1234);
  REQUIRE(p.rec.messages.size() == 1);
  const Message& m = p.rec.messages[0];
  CHECK(m.uuid == "@1234");
  CHECK(m.parent_uuid.empty());
  CHECK(m.type == "assistant");
  CHECK(m.role == Role::Assistant);
  CHECK(m.content_type == ContentType::Text);
  CHECK(m.text == "one\ntwo");
  CHECK(m.timestamp_ms == 1767323045678);  // 2026-01-02T03:04:05.678Z
  CHECK_FALSE(m.is_meta);

  for (const char* role : {"user", "developer", "system"}) {
    Message u = only_message(item(std::string(R"({"type":"message","role":")") + role +
                                  R"(","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}]})"));
    CHECK(u.role == Role::User);
    CHECK(u.type == "user");
    CHECK(u.is_meta);
  }
  // A plain user response_item is the user's words (old rollouts have no user_message copy).
  CHECK_FALSE(only_message(item(R"({"type":"message","role":"user","content":"fix it"})")).is_meta);

  FileCarry c2;
  CHECK_FALSE(parse_line(item(R"({"type":"message","role":"tool","content":"x"})"), c2).kept);
  CHECK_FALSE(parse_line(item(R"({"type":"message","role":"assistant","content":[]})"), c2).kept);
  CHECK_FALSE(parse_line(item(R"({"type":"message","role":"assistant","content":[{"type":"input_image","image_url":"data:x"}]})"), c2).kept);
}

TEST_CASE("codex reasoning: summary and content text, never encrypted_content", "[codex]") {
  Message m = only_message(item(
      R"({"type":"reasoning","summary":[{"type":"summary_text","text":"**Plan**"}],"content":[{"type":"reasoning_text","text":"think hard"}],"encrypted_content":"gAAAAENCRYPTED"})"));
  CHECK(m.role == Role::Assistant);
  CHECK(m.content_type == ContentType::Thinking);
  CHECK(m.text == "**Plan**\nthink hard");
  FileCarry carry;
  CHECK_FALSE(parse_line(item(R"({"type":"reasoning","summary":[],"content":null,"encrypted_content":"gAAA"})"), carry).kept);
}

TEST_CASE("codex function_call: arguments parsed, truncated, file path", "[codex]") {
  std::string big(1000, 'x');
  Message m = only_message(item(R"({"type":"function_call","name":"read_file","call_id":"call_9","arguments":"{\"path\":\"src/a.rs\",\"body\":\")" +
                                big + R"(\",\"n\":3}"})"));
  CHECK(m.role == Role::Assistant);
  CHECK(m.type == "assistant");
  CHECK(m.content_type == ContentType::ToolUse);
  REQUIRE(m.tool_calls.size() == 1);
  const ToolCall& c = m.tool_calls[0];
  CHECK(c.id == "call_9");
  CHECK(c.name == "read_file");
  CHECK(c.file_path == "src/a.rs");
  CHECK(m.text == "read_file\nsrc/a.rs\n" + big);
  CHECK(contains(c.input_json, R"("path":"src/a.rs")"));
  CHECK(contains(c.input_json, "…[truncated]"));
  CHECK(c.input_json.size() < 400);
  CHECK(contains(c.input_json, R"("n":3)"));

  for (const char* key : {"file_path", "filePath"}) {
    Message k = only_message(item(std::string(R"({"type":"function_call","name":"edit","call_id":"c","arguments":"{\")") +
                                  key + R"(\":\"/x/y.py\"}"})"));
    CHECK(k.tool_calls.at(0).file_path == "/x/y.py");
  }
}

TEST_CASE("codex function_call: arguments that do not parse, null or an object", "[codex]") {
  std::string raw = "{\\\"cmd\\\": \\\"ls -la";  // unterminated JSON; the cut falls inside a 2-byte é
  for (int i = 0; i < 300; ++i) raw += "é";
  Message m = only_message(item(R"({"type":"function_call","name":"shell","call_id":"c1","arguments":")" + raw + R"("})"));
  CHECK(m.text.rfind("shell\n{\"cmd\": \"ls -la", 0) == 0);
  const std::string& json = m.tool_calls.at(0).input_json;
  CHECK(json.rfind(R"({"arguments":"{\"cmd\": \"ls -la)", 0) == 0);
  CHECK(contains(json, "…[truncated]"));
  simdjson::dom::parser parser;
  CHECK(parser.parse(json).error() == simdjson::SUCCESS);

  Message null_args = only_message(item(R"({"type":"function_call","name":"noop","call_id":"c2","arguments":null})"));
  CHECK(null_args.text == "noop");
  CHECK(null_args.tool_calls.at(0).input_json == "{}");

  Message obj_args = only_message(item(R"({"type":"function_call","name":"grep","call_id":"c3","arguments":{"pattern":"TODO","path":"src"}})"));
  CHECK(obj_args.text == "grep\nTODO\nsrc");
  CHECK(obj_args.tool_calls.at(0).input_json == R"({"pattern":"TODO","path":"src"})");
  CHECK(obj_args.tool_calls.at(0).file_path == "src");
}

TEST_CASE("codex tool outputs: JSON envelope, plain string, array, object", "[codex]") {
  auto output = [](const std::string& type, const std::string& out) {
    return only_message(item(R"({"type":")" + type + R"(","call_id":"call_1","output":)" + out + "}"));
  };
  Message ok = output("function_call_output",
                      R"("{\"output\":\"total 0\\nfile.txt\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.1}}")");
  CHECK(ok.role == Role::Tool);
  CHECK(ok.type == "tool");
  CHECK(ok.content_type == ContentType::ToolResult);
  CHECK(ok.text == "total 0\nfile.txt\n");
  REQUIRE(ok.tool_results.size() == 1);
  CHECK(ok.tool_results[0].tool_use_id == "call_1");
  CHECK_FALSE(ok.tool_results[0].is_error);
  CHECK(ok.model.empty());

  Message failed = output("function_call_output", R"("{\"output\":\"boom\",\"metadata\":{\"exit_code\":2}}")");
  CHECK(failed.text == "boom");
  CHECK(failed.tool_results.at(0).is_error);

  CHECK(output("function_call_output", R"("plain words")").text == "plain words");
  // JSON that is no envelope stays as written (its keys are searchable words too).
  CHECK(output("function_call_output", R"("{\"files\":[\"a\"]}")").text == R"({"files":["a"]})");
  CHECK(output("function_call_output", R"("{not json")").text == "{not json");

  Message arr = output("custom_tool_call_output",
                       R"([{"type":"input_text","text":"line 1"},{"type":"input_image","image_url":"data:image/png;base64,QQ=="},{"type":"output_text","text":"line 2"}])");
  CHECK(arr.text == "line 1\nline 2");

  CHECK(output("function_call_output", R"({"type":"input_text","text":"from text"})").text == "from text");
  CHECK(output("function_call_output", R"({"content":"from content","success":true})").text == "from content");
  Message unsuccessful = output("function_call_output", R"({"content":[{"type":"input_text","text":"bad"}],"success":false})");
  CHECK(unsuccessful.text == "bad");
  CHECK(unsuccessful.tool_results.at(0).is_error);
  CHECK(output("function_call_output", R"({"output":"o","metadata":{"exit_code":1}})").tool_results.at(0).is_error);
  CHECK(output("function_call_output", R"({"stdout":"s","stderr":"e"})").text == "s\ne");

  Message search = only_message(item(R"({"type":"tool_search_output","call_id":"ts","tools":[{"name":"t"}]})"));
  CHECK(search.tool_results.at(0).tool_use_id == "ts");
}

TEST_CASE("codex custom, local shell, web search and tool search calls", "[codex]") {
  std::string patch = "*** Begin Patch\\n*** Update File: src/main.rs\\n@@\\n-old\\n+new\\n*** End Patch" + std::string(400, 'p');
  Message custom = only_message(item(R"({"type":"custom_tool_call","call_id":"cp","name":"apply_patch","input":")" + patch + R"("})"));
  CHECK(custom.content_type == ContentType::ToolUse);
  CHECK(custom.tool_calls.at(0).id == "cp");
  CHECK(custom.tool_calls.at(0).file_path == "src/main.rs");
  CHECK(custom.text.rfind("apply_patch\n*** Begin Patch\n*** Update File: src/main.rs", 0) == 0);
  CHECK(custom.tool_calls.at(0).input_json.rfind(R"({"input":"*** Begin Patch\n)", 0) == 0);
  CHECK(contains(custom.tool_calls.at(0).input_json, "…[truncated]"));

  Message shell = only_message(item(
      R"({"type":"local_shell_call","call_id":"ls1","status":"completed","action":{"type":"exec","command":["bash","-lc","cargo test"],"workdir":"/repo","timeout_ms":1000}})"));
  CHECK(shell.tool_calls.at(0).name == "local_shell");
  CHECK(shell.tool_calls.at(0).id == "ls1");
  CHECK(shell.text == "local_shell\nbash -lc cargo test\n/repo");
  CHECK(contains(shell.tool_calls.at(0).input_json, R"("command":["bash","-lc","cargo test"])"));
  CHECK(only_message(item(R"({"type":"local_shell_call","id":"old","action":{}})")).tool_calls.at(0).id == "old");
  FileCarry carry;
  ParsedLine no_id = parse_line(item(R"({"type":"local_shell_call","action":{"command":"ls"}})"), carry, 77);
  CHECK(no_id.rec.messages.at(0).tool_calls.at(0).id == "@77");

  Message web = only_message(item(
      R"({"type":"web_search_call","id":"ws","status":"completed","action":{"type":"search","query":"zstd streaming","queries":["zstd streaming","libzstd api"]}})"));
  CHECK(web.tool_calls.at(0).name == "web_search");
  CHECK(web.text == "web_search\nzstd streaming\nlibzstd api");

  Message ts = only_message(item(R"({"type":"tool_search_call","call_id":"t1","arguments":{"query":"calendar"}})"));
  CHECK(ts.tool_calls.at(0).name == "tool_search");
  CHECK(ts.tool_calls.at(0).id == "t1");
  CHECK(ts.text == "tool_search\ncalendar");

  for (const char* other : {R"({"type":"ghost_snapshot","ghost_commit":{"id":"abc"}})",
                            R"({"type":"image_generation_call","result":"iVBORw0KGgo","revised_prompt":"cat"})",
                            R"({"type":"agent_message","content":[{"type":"input_text","text":"hi"}]})",
                            R"({"type":"brand_new_kind","text":"x"})"}) {
    FileCarry c;
    CHECK_FALSE(parse_line(item(other), c).kept);
  }
}

TEST_CASE("codex events: user_message, thread name, the rest nothing", "[codex]") {
  Message user = only_message(event(
      R"({"type":"user_message","message":"please fix the bug","images":["data:image/png;base64,AAAA"],"local_images":["/tmp/a.png"]})"));
  CHECK(user.role == Role::User);
  CHECK(user.type == "user");
  CHECK(user.content_type == ContentType::Text);
  CHECK_FALSE(user.is_meta);
  CHECK(user.text == "please fix the bug");

  FileCarry carry;
  ParsedLine named = parse_line(event(R"({"type":"thread_name_updated","thread_id":"t","thread_name":"Zstd support"})"), carry);
  REQUIRE(named.rec.facts.size() == 1);
  CHECK(named.rec.facts[0].kind == SessionFact::Kind::CustomTitle);
  CHECK(named.rec.facts[0].text == "Zstd support");

  for (const char* other : {R"({"type":"user_message","message":"","images":["data:x"]})",
                            R"({"type":"agent_message","message":"repeat"})", R"({"type":"agent_reasoning","text":"r"})",
                            R"({"type":"exec_command_end","call_id":"c","stdout":"s","exit_code":0})",
                            R"({"type":"task_complete"})", R"({"type":"turn_aborted","reason":"interrupted"})",
                            R"({"type":"error","message":"rate limit"})", R"({"type":"thread_name_updated"})"}) {
    ParsedLine p = parse_line(event(other), carry);
    CHECK_FALSE(p.kept);
  }
}

TEST_CASE("codex token_count: growth over the carried total", "[codex]") {
  CodexRun run = run_lines({turn_context("gpt-5"), token_count(1000, 400, 50), token_count(1000, 400, 50),
                       token_count(1500, 900, 80), event(R"({"type":"token_count","info":null})"),
                       token_count(300, 100, 10), token_count(350, 100, 20)});
  CHECK_FALSE(run.lines[0].kept);
  auto growth = [&](size_t line) {
    REQUIRE(run.lines[line].rec.facts.size() == 1);
    const SessionFact& f = run.lines[line].rec.facts[0];
    CHECK(f.kind == SessionFact::Kind::Usage);
    CHECK(f.text == "gpt-5");
    return f.usage;
  };
  TokenUsage first = growth(1);
  CHECK(first.input == 600);
  CHECK(first.cache_read == 400);
  CHECK(first.output == 50);
  CHECK_FALSE(run.lines[2].kept);  // repeated total: no growth
  TokenUsage third = growth(3);
  CHECK(third.input == 0);
  CHECK(third.cache_read == 500);
  CHECK(third.output == 30);
  CHECK_FALSE(run.lines[4].kept);  // info null
  TokenUsage reset = growth(5);    // the total went down: a fresh start counts whole
  CHECK(reset.input == 200);
  CHECK(reset.cache_read == 100);
  CHECK(reset.output == 10);
  TokenUsage last = growth(6);
  CHECK(last.input == 50);
  CHECK(last.output == 10);
  CHECK(run.carry.usage_total.input == 250);
  CHECK(run.carry.usage_total.cache_read == 100);
  CHECK(run.carry.usage_total.output == 20);
}

TEST_CASE("codex token_count: an all-zero total is no reset", "[codex]") {
  CodexRun run = run_lines({token_count(1000, 400, 50), token_count(0, 0, 0), token_count(1200, 400, 60)});
  CHECK_FALSE(run.lines[1].kept);
  REQUIRE(run.lines[2].rec.facts.size() == 1);
  CHECK(run.lines[2].rec.facts[0].usage.input == 200);  // not 800 again
  CHECK(run.lines[2].rec.facts[0].usage.output == 10);
}

TEST_CASE("codex token_count: hostile numbers never overflow", "[codex]") {
  CodexRun run = run_lines({token_count(-5, 10, -1), token_count(9223372036854775807, 0, 1),
                       event(R"({"type":"token_count","info":{"total_token_usage":{"input_tokens":"9","cached_input_tokens":1e300,"output_tokens":1.5}}})"),
                       event(R"({"type":"token_count","info":{"total_token_usage":[1,2]}})")});
  for (const auto& f : run.facts()) {
    CHECK(f.usage.input >= 0);
    CHECK(f.usage.output >= 0);
    CHECK(f.usage.cache_read >= 0);
  }
  CHECK(run.carry.usage_total.output == 1);
}

TEST_CASE("codex compacted: a summary message and an away summary", "[codex]") {
  FileCarry carry;
  ParsedLine p = parse_line(
      R"({"timestamp":"2026-01-02T03:04:05Z","type":"compacted","payload":{"message":"We fixed the parser.","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"OLD COPY"}]}]}})",
      carry, 9);
  REQUIRE(p.rec.messages.size() == 1);
  const Message& m = p.rec.messages[0];
  CHECK(m.uuid == "@9");
  CHECK(m.role == Role::Assistant);
  CHECK(m.content_type == ContentType::Summary);
  CHECK_FALSE(m.is_meta);
  CHECK(m.text == "We fixed the parser.");
  REQUIRE(p.rec.facts.size() == 1);
  CHECK(p.rec.facts[0].kind == SessionFact::Kind::AwaySummary);
  CHECK(p.rec.facts[0].text == "We fixed the parser.");
  CHECK_FALSE(parse_line(R"({"type":"compacted","payload":{"message":"","replacement_history":[]}})", carry).kept);
  for (const char* other : {R"({"type":"world_state","payload":{"text":"w"}})",
                            R"({"type":"inter_agent_communication","payload":{"message":"m"}})",
                            R"({"type":"inter_agent_communication_metadata","payload":{"trigger_turn":false}})",
                            R"({"type":"future_kind","payload":{"message":"m"}})"})
    CHECK_FALSE(parse_line(other, carry).kept);
}

TEST_CASE("codex legacy bare files", "[codex]") {
  CodexRun run = run_lines({
      R"({"id":"0197-legacy","timestamp":"2025-05-01T10:00:00.000Z","instructions":"be brief","git":{"branch":"dev"}})",
      R"({"record_type":"state"})",
      R"({"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n<cwd>/r</cwd></environment_context>"}]})",
      R"({"type":"message","role":"user","content":[{"type":"input_text","text":"rename the module"}]})",
      R"({"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]})",
      R"({"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"call_a"})",
      R"({"type":"function_call_output","call_id":"call_a","output":"{\"output\":\"x\",\"metadata\":{\"exit_code\":0}}"})",
      R"({"id":"0198-other","timestamp":"2025-05-01T10:00:00.000Z"})",
      R"({"type":"message","role":"developer","content":"dev prompt"})",
  });
  CHECK(run.session_id() == "0197-legacy");
  CHECK(run.lines[0].rec.session_id_field == "0197-legacy");
  CHECK(run.carry.git_branch == "dev");
  CHECK_FALSE(run.lines[1].kept);
  CHECK(run.lines[2].rec.messages.at(0).is_meta);
  const Message& words = run.lines[3].rec.messages.at(0);
  CHECK_FALSE(words.is_meta);
  CHECK(words.text == "rename the module");
  CHECK(words.git_branch == "dev");
  CHECK(words.timestamp_ms == 1746093600000);  // bare items have no timestamp: the meta line's
  CHECK(run.lines[4].rec.messages.at(0).role == Role::Assistant);
  CHECK(run.lines[4].rec.messages.at(0).timestamp_ms == 1746093600000);
  CHECK(run.lines[5].rec.messages.at(0).tool_calls.at(0).id == "call_a");
  CHECK(run.lines[6].rec.messages.at(0).text == "x");
  CHECK_FALSE(run.lines[7].kept);
  CHECK(run.lines[8].rec.messages.at(0).is_meta);
}

TEST_CASE("codex line builder: several messages of one line get numbered uuids", "[codex]") {
  FileCarry carry;
  carry.model = "m";
  carry.cwd = "/c";
  LineRecords out;
  codex::LineMessages lm(42, 1000, carry, out);
  CHECK(lm.next_uuid() == "@42");
  lm.add(Role::Assistant, ContentType::Thinking);
  CHECK(lm.next_uuid() == "@42#2");
  lm.add(Role::Assistant, ContentType::ToolUse);
  lm.add(Role::Assistant, ContentType::Summary);
  REQUIRE(out.messages.size() == 3);
  CHECK(out.messages[0].uuid == "@42");
  CHECK(out.messages[1].uuid == "@42#2");
  CHECK(out.messages[2].uuid == "@42#3");
  CHECK(out.messages[1].model == "m");
  CHECK(out.messages[2].model.empty());
  CHECK(out.messages[2].cwd == "/c");
  CHECK(out.messages[2].timestamp_ms == 1000);
}

TEST_CASE("codex prompts: the two copies of a prompt count once, in either order", "[codex]") {
  auto ri = [](const std::string& text) {
    return item(R"({"type":"message","role":"user","content":[{"type":"input_text","text":")" + text + R"("}]})");
  };
  auto ev = [](const std::string& text) { return event(R"({"type":"user_message","message":")" + text + R"("})"); };
  // response_item first (current Codex), event first (the 2026 fixture), a prompt typed twice, a
  // prompt only as a response_item (cli 0.106 "Step 1" ...), whitespace at the ends.
  CodexRun run = run_lines({ri("alpha"), ev("alpha"), ev("beta"), ri("beta"), ev("gamma"), ri("gamma"), ev("gamma"),
                       ri("gamma"), ri("step one"), ri("step two"), ev("delta \\n"), ri("delta")});
  std::vector<std::string> shown, hidden;
  for (const auto& m : run.messages()) (m.is_meta ? hidden : shown).push_back(m.text);
  CHECK(shown == std::vector<std::string>{"alpha", "beta", "gamma", "gamma", "step one", "step two", "delta \n"});
  CHECK(hidden == std::vector<std::string>{"beta", "gamma", "gamma", "delta"});
}
