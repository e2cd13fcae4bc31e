// Claude adapter: usage, images, session facts, discovery of the directory layout.
#include "tests/claude_fixture.h"

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
        if (!p.rec.messages.empty()) CHECK(p.rec.messages.at(0).text.find(data.substr(0, std::min<size_t>(64, data.size()))) == std::string::npos);
      }
    }
  }
  CHECK(image_blocks >= 1);

  auto ps = parse_file(kImage);
  const Parsed& p = by_uuid(ps, "ddfcb7df-9278-429e-8360-837444af6358");
  CHECK(p.raw.size() > 500000);
  CHECK(p.rec.messages.at(0).text.size() < 20000);
  CHECK_FALSE(p.rec.messages.at(0).text.empty());  // the text block next to the image is kept
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
  for (const auto& p : summary_only) CHECK_FALSE(!p.rec.messages.empty());

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
      CHECK_FALSE(!p.rec.messages.empty());
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
