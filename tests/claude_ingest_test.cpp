// Claude adapter: roles, meta, commands, thinking/CJK/Windows cwd, tool calls.
#include "tests/claude_fixture.h"

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
    if (!!p.rec.messages.empty()) continue;
    const Message& m = p.rec.messages.at(0);
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
    CHECK(p.rec.messages.at(0).is_meta);
    REQUIRE(p.raw.find("\"isMeta\":true,") != std::string::npos);
    One stripped = parse_one(erase_all(p.raw, "\"isMeta\":true,"));
    REQUIRE(stripped.kept);
    CHECK(stripped.rec.messages.at(0).is_meta);
    CHECK(stripped.rec.messages.at(0).role == Role::User);
  }

  SECTION("caveat with <local-command-caveat> tags (2.1.29)") {
    auto ps = parse_file(kCaveat);
    const Parsed& p = by_uuid(ps, "fd5db652-2aab-4fc9-ad56-9f14aca58e1a");
    CHECK(p.rec.messages.at(0).is_meta);
    One stripped = parse_one(erase_all(p.raw, "\"isMeta\":true,"));
    REQUIRE(stripped.kept);
    CHECK(stripped.rec.messages.at(0).is_meta);
  }

  SECTION("<local-command-stdout> without any isMeta flag (real)") {
    auto ps = parse_file(kClear);
    const Parsed& p = by_uuid(ps, "e8e28ecc-d6c5-431d-9476-b173b0540bda");
    CHECK(p.raw.find("isMeta") == std::string::npos);
    CHECK(p.rec.messages.at(0).is_meta);
    auto compact = parse_file(kCompact);
    CHECK(msg(compact, "4dfab873-c508-4f36-b9e2-71c1e7c416f7").is_meta);  // <local-command-stdout>Bye!
  }

  SECTION("<system-reminder> hook text in a user line") {
    auto ps = parse_file(kHookAgent);
    const Parsed& p = by_uuid(ps, "04690b45-7d5f-4fe9-adcf-5ca3d8d26207");
    CHECK(p.rec.messages.at(0).is_meta);
    CHECK(p.rec.messages.at(0).role == Role::User);
    One stripped = parse_one(erase_all(p.raw, ",\"isMeta\":true"));
    REQUIRE(stripped.kept);
    CHECK(stripped.rec.messages.at(0).is_meta);
  }

  SECTION("<task-notification> (synthetic fixture)") {
    auto ps = parse_file(kTaskNotification);
    const Message& m = msg(ps, "11111111-0000-4000-8000-000000000006");
    CHECK(m.is_meta);
    CHECK(m.role == Role::User);
    CHECK_FALSE(msg(ps, "11111111-0000-4000-8000-000000000001").is_meta);  // the real prompt
  }

  SECTION("isCompactSummary: ContentType::Summary, searchable by default (issue 9)") {
    auto ps = parse_file(kCompact);
    const Message& m = msg(ps, "1cb2a467-8a62-4e97-917e-85d905d1c39c");
    CHECK(m.content_type == ContentType::Summary);
    CHECK_FALSE(m.is_meta);
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
  CHECK(blocks.rec.messages.at(0).content_type == ContentType::Command);

  // Ordinary text that merely mentions the tag is a prompt.
  One mention = parse_one(
      R"({"type":"user","uuid":"u-txt","sessionId":"s","message":{"role":"user","content":"why does <command-name> appear in my logs?"}})");
  REQUIRE(mention.kept);
  CHECK(mention.rec.messages.at(0).content_type == ContentType::Text);
  CHECK_FALSE(mention.rec.messages.at(0).is_meta);

  // Hidden unless it carries what the user typed after the command (SPEC §3, issue 9).
  CHECK(c.is_meta);
  CHECK(blocks.rec.messages.at(0).is_meta);
  One with_args = parse_one(
      R"({"type":"user","uuid":"u-args","sessionId":"s","message":{"role":"user","content":"<command-message>handgemacht:create-beads</command-message>\n<command-name>/handgemacht:create-beads</command-name>\n<command-args>fastest credo mix_audit basically</command-args>"}})");
  REQUIRE(with_args.kept);
  CHECK(with_args.rec.messages.at(0).content_type == ContentType::Command);
  CHECK_FALSE(with_args.rec.messages.at(0).is_meta);
  One empty_args = parse_one(
      R"({"type":"user","uuid":"u-noargs","sessionId":"s","message":{"role":"user","content":"<command-name>/clear</command-name>\n<command-args> \n</command-args>"}})");
  REQUIRE(empty_args.kept);
  CHECK(empty_args.rec.messages.at(0).is_meta);
  CHECK(command_args("<command-name>/x</command-name><command-args>  a b </command-args>") == "a b");
  CHECK(command_args("<command-name>/x</command-name><command-args>unclosed") == "unclosed");
  CHECK(command_args("<command-name>/x</command-name>").empty());

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
  CHECK(esc.rec.messages.at(0).text == "\xe6\x9c\x80\xe6\x96\xb0 \xf0\x9f\x98\x80 \"q\" \\ end");

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
    REQUIRE(o.rec.messages.at(0).tool_calls.size() == 1);
    return o.rec.messages.at(0).tool_calls[0];
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
      if (!!p.rec.messages.empty() || p.rec.messages.at(0).spawned_agent_id.empty()) continue;
      found = true;
      CHECK(p.rec.messages.at(0).role == Role::Tool);
      CHECK(p.raw.find(p.rec.messages.at(0).spawned_agent_id) != std::string::npos);
    }
    CHECK(found);
  }
}

// Found by the claude_line fuzz target: durationMs 1.5e80 was cast to int64_t (undefined).
TEST_CASE("claude: a number outside int64's range reads as unknown, never a cast", "[claude][hardening][fuzz]") {
  JsonlReader reader;
  std::vector<int64_t> durations;
  JsonlReadResult res =
      reader.read(std::string(OSEARCH_TEST_DATA) + "/fuzz-regressions/claude_line-huge-duration.jsonl", 0,
                  [&](simdjson::dom::element obj, uint64_t) {
                    LineRecords rec;
                    parse_claude_object(obj, rec);
                    for (const auto& f : rec.facts)
                      if (f.kind == SessionFact::Kind::TurnDuration) durations.push_back(f.value);
                  });
  REQUIRE(res.ok);
  REQUIRE(durations.size() == 1);
  CHECK(durations[0] == 0);
}

TEST_CASE("claude: a persisted tool result keeps its whole output after the preview", "[claude]") {
  // A real Grep result of 42.8 KB: the model got a 2 KB "<persisted-output>" preview, the whole
  // output is in toolUseResult.content (and in a file Claude Code deletes with the transcript).
  auto ps = parse_file("-Users-soph-Work-entire-devenv-cli/97007e37-53bd-4456-9a49-c0f8081081a7.jsonl");
  bool found = false;
  for (const auto& p : ps) {
    if (p.rec.messages.empty() || p.raw.find("<persisted-output>") == std::string::npos) continue;
    found = true;
    const Message& m = p.rec.messages.at(0);
    CHECK(m.role == Role::Tool);
    CHECK(m.text.starts_with("<persisted-output>"));  // the preview first, as the model saw it
    // Past the preview: words only the whole output holds.
    CHECK(m.text.find("TestShadow_ShadowBranchNaming") != std::string::npos);
    CHECK(m.text.find("GetCheckpointIDFromCommitMessage") != std::string::npos);
    CHECK(m.text.size() > 44000);
  }
  CHECK(found);

  auto result_of = [](const std::string& content, const std::string& tool_use_result) {
    One o = parse_one(R"({"type":"user","uuid":"u-1","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":)" +
                      content + R"(}]},"toolUseResult":)" + tool_use_result + "}");
    REQUIRE(o.kept);
    return o.rec.messages.at(0).text;
  };
  const std::string preview = R"("<persisted-output>\nOutput too large (99KB). Full output saved to: /h/x.txt\n\nPreview (first 2KB):\nhead\n</persisted-output>")";
  // Bash: stdout and stderr.
  std::string bash = result_of(preview, R"({"stdout":"head and bashtail","stderr":"warnword","interrupted":false,"persistedOutputPath":"/h/x.txt"})");
  CHECK(bash.find("bashtail") != std::string::npos);
  CHECK(bash.find("warnword") != std::string::npos);
  CHECK(bash.find("persistedOutputPath") == std::string::npos);
  // Read: file.content; and the preview as an array of text blocks.
  std::string read = result_of(R"([{"type":"text","text":)" + preview + "}]",
                               R"({"type":"text","file":{"filePath":"/w/a.ts","content":"readtail"}})");
  CHECK(read.starts_with("<persisted-output>"));
  CHECK(read.find("readtail") != std::string::npos);
  // A result that is not a preview keeps only its own text: toolUseResult repeats it.
  CHECK(result_of(R"("short output")", R"({"stdout":"short output copy"})") == "short output");
  // A preview whose toolUseResult is not an object (an error string) keeps the preview alone.
  CHECK(result_of(preview, R"("Error: failed")").starts_with("<persisted-output>"));
}

TEST_CASE("claude: a prompt queued while the agent was busy is the user's message", "[claude]") {
  // 2.1.219, real: seven prompts the user typed mid-turn reach the model as queued_command
  // attachments and are nowhere else in the file.
  JsonlReader reader;
  std::vector<Message> queued;
  REQUIRE(reader.read(corpus_claude_dir() + "/D--oh-my-posh/6b6f4218-0b12-4d55-b930-462903683bea.jsonl", 0,
                      [&](simdjson::dom::element obj, uint64_t) {
                        LineRecords rec;
                        std::string_view type;
                        if (obj["type"].get_string().get(type) == simdjson::SUCCESS && type == "attachment" &&
                            parse_claude_object(obj, rec))
                          for (auto& m : rec.messages) queued.push_back(std::move(m));
                      })
              .ok);
  REQUIRE(queued.size() == 7);
  for (const Message& m : queued) {
    CHECK(m.role == Role::User);
    CHECK(m.content_type == ContentType::Text);
    CHECK_FALSE(m.is_meta);
    CHECK_FALSE(m.uuid.empty());
    CHECK_FALSE(m.parent_uuid.empty());
    CHECK(m.timestamp_ms > 0);
    CHECK(m.cwd == "D:\\oh-my-posh");
  }
  CHECK(queued[1].uuid == "7b7da269-566e-480d-a44a-a9d16d8b84a4");
  CHECK(queued[1].text.starts_with("why do we have three flavors of the website coloring?"));

  auto attachment = [](const std::string& att) {
    return parse_one(R"({"type":"attachment","uuid":"a-1","parentUuid":"p-1","sessionId":"s","timestamp":"2026-07-29T05:06:14.216Z","attachment":)" +
                     att + "}");
  };
  // Text blocks of a prompt with an image; never the image's bytes.
  One blocks = attachment(R"({"type":"queued_command","prompt":[{"type":"image","source":{"type":"base64","data":"QUJD"}},{"type":"text","text":"look at this"}],"origin":{"kind":"human"}})");
  REQUIRE(blocks.kept);
  CHECK(blocks.rec.messages.at(0).text == "look at this");
  CHECK_FALSE(blocks.rec.messages.at(0).is_meta);
  // Not typed by a person, or marked meta: meta. A slash command: a command envelope.
  One from_task = attachment(R"({"type":"queued_command","prompt":"task says hi","origin":{"kind":"task","senderTaskId":"t1"}})");
  REQUIRE(from_task.kept);
  CHECK(from_task.rec.messages.at(0).is_meta);
  One meta = attachment(R"({"type":"queued_command","prompt":"hidden","isMeta":true})");
  REQUIRE(meta.kept);
  CHECK(meta.rec.messages.at(0).is_meta);
  One command = attachment(R"({"type":"queued_command","prompt":"<command-name>/compact</command-name>"})");
  REQUIRE(command.kept);
  CHECK(command.rec.messages.at(0).content_type == ContentType::Command);
  // Other attachments are injected context, not messages; an empty prompt is nothing.
  CHECK_FALSE(attachment(R"({"type":"nested_memory","content":"# CLAUDE.md"})").kept);
  CHECK_FALSE(attachment(R"({"type":"queued_command","prompt":""})").kept);
  CHECK_FALSE(attachment(R"("not an object")").kept);
}
