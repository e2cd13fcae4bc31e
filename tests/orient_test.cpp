// `subagents`, `workflows`, `workflow RUN_ID` and `overview` through the built binary. Expected
// answers are computed here from the raw JSONL of tests/data (agent files, meta sidecars), never
// by the code under test. No real workflow run file exists in the corpus: the one written below
// follows the run-file fields of ../shared/notes/obelisk.md §2g (runId, workflowName, status,
// workflowProgress[] of type workflow_agent with agentId, phaseTitle, label, model, state …).
#include "tests/agents_e2e_fixture.h"

#include "engine/store/lmdb.h"
#include "engine/store/records_store.h"
#include "engine/store/store.h"
#include "ingest/timeutil.h"

namespace {

using agents_e2e::Mixed;

const std::string kWorktrees = "-experiments-worktrees";
const std::string kWorktreesId = "ef958aa1-0e93-49f0-bb71-150f63befcd1";
const std::string kFixtureDir = "-fixture-claude-code-log-test-data";
const std::string kWorkflowSid = "11110000-0000-4000-8000-000000000001";

// What an agent file says about its agent, read line by line with simdjson: user/assistant lines
// with a uuid (each uuid once), their time span, and usage counted once per message.id, its largest
// chunk (as the session counts it: stats_test).
struct AgentFacts {
  int64_t messages = 0, first = 0, last = 0, tokens = 0;
  std::string model;
};

AgentFacts facts_of(const std::string& path) {
  AgentFacts f;
  std::set<std::string> uuids;
  std::map<std::string, int64_t> api_ids;  // message.id -> its largest usage
  simdjson::dom::parser parser;
  for (const auto& line : lines_of(read_file(path))) {
    simdjson::dom::element e;
    if (parser.parse(line).get(e) != simdjson::SUCCESS) continue;
    std::string_view type, uuid, ts;
    if (e["type"].get(type) != simdjson::SUCCESS || (type != "user" && type != "assistant")) continue;
    if (e["uuid"].get(uuid) != simdjson::SUCCESS || uuid.empty() || !uuids.insert(std::string(uuid)).second) continue;
    ++f.messages;
    if (e["timestamp"].get(ts) == simdjson::SUCCESS)
      if (auto ms = osearch::parse_iso8601_ms(ts)) {
        if (f.first == 0 || *ms < f.first) f.first = *ms;
        f.last = std::max(f.last, *ms);
      }
    std::string_view model, id;
    if (e["message"]["model"].get(model) == simdjson::SUCCESS && model != "<synthetic>") f.model = model;
    simdjson::dom::object usage;
    if (e["message"]["usage"].get(usage) != simdjson::SUCCESS) continue;
    int64_t total = 0;
    for (const char* k : {"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"}) {
      int64_t v = 0;
      if (usage[k].get(v) == simdjson::SUCCESS) total += v;
    }
    if (e["message"]["id"].get(id) != simdjson::SUCCESS) {
      f.tokens += total;
      continue;
    }
    int64_t& largest = api_ids[std::string(id)];
    largest = std::max(largest, total);
  }
  for (const auto& [id, total] : api_ids) f.tokens += total;
  return f;
}

std::string meta_field(const std::string& meta_path, const char* key) {
  simdjson::dom::parser parser;
  simdjson::padded_string json(read_file(meta_path));
  std::string_view v;
  if (parser.parse(json)[key].get(v) != simdjson::SUCCESS) return {};
  return std::string(v);
}

const Json* find_by(const Json& rows, const std::string& key, const std::string& value) {
  for (const auto& r : rows.a)
    if (r[key].is_str() && r[key].s == value) return &r;
  return nullptr;
}

// A run file for the synthetic workflow session: its one transcript agent (ag000001) and one agent
// that has no transcript (ag000002).
const char* kRunFile = R"json({"runId":"wf_demo01","taskId":"task_demo01","workflowName":"demo-review","status":"completed",
"script":"phase('Map')","timestamp":"2026-06-04T10:05:00.000Z","durationMs":300000,"totalTokens":4321,
"result":{"summary":"glob misses workflows","findings":[1,2]},
"workflowProgress":[
 {"type":"workflow_phase","title":"Map"},
 {"type":"workflow_agent","agentId":"ag000001","phaseTitle":"Map","label":"review:loader","model":"claude-sonnet-4-6","state":"done","durationMs":1200,"tokens":20,"toolCalls":1},
 {"type":"workflow_agent","agentId":"ag000002","phaseTitle":"Synthesize","label":"merge","model":"claude-opus-4-8","state":"failed","durationMs":800,"tokens":7,"toolCalls":0}]})json";

struct WorkflowIndex : Cli {
  WorkflowIndex() : Cli({kFixtureDir}, false) {
    write_file(path(kFixtureDir + "/" + kWorkflowSid + "/workflows/wf_demo01.json"), kRunFile);
    index();
  }
};

}  // namespace

TEST_CASE("orient: subagents of a real session equal its agent files", "[orient]") {
  Cli cli({kWorktrees});
  const std::string dir = cli.path(kWorktrees + "/" + kWorktreesId + "/subagents");
  Json j = cli.json({"subagents", "--session", kWorktreesId.substr(0, 8), "--limit", "100"});
  CHECK(j["action"].s == "subagents");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".jsonl") files.push_back(e.path().string());
  REQUIRE(files.size() == 6);
  CHECK(j["total"].i == 6);
  CHECK(j["returned"].i == 6);
  CHECK_FALSE(j["truncated"].b);
  int64_t previous = INT64_MAX;
  for (const auto& r : j["results"].a) {  // newest spawn first
    REQUIRE(is_iso_ms(r["spawned_at"]));
    const int64_t t = *osearch::parse_iso8601_ms(r["spawned_at"].s);
    CHECK(t <= previous);
    previous = t;
  }
  for (const auto& file : files) {
    const std::string stem = fs::path(file).stem().string();  // agent-<id>
    INFO(stem);
    const Json* r = find_by(j["results"], "agent_id", stem.substr(6));
    REQUIRE(r);
    const AgentFacts f = facts_of(file);
    CHECK((*r)["message_count"].i == f.messages);
    CHECK((*r)["duration_ms"].i == f.last - f.first);
    CHECK((*r)["total_tokens"].i == f.tokens);
    CHECK((*r)["model"].s == f.model);
    CHECK((*r)["first_time"].s == osearch::format_iso8601_ms(f.first));
    const std::string meta = dir + "/" + stem + ".meta.json";
    CHECK((*r)["agent_type"].s == meta_field(meta, "agentType"));
    CHECK((*r)["description"].s == meta_field(meta, "description"));
    CHECK((*r)["session_id"].s == kWorktreesId);
    CHECK((*r)["resume_hint"].s.find("claude --resume " + kWorktreesId) != std::string::npos);
    CHECK((*r)["transcript_path"].s == file);
    CHECK((*r)["workflow_run_id"].is_null());
    // The spawning Task call: its result names this agent, and its id is the parent tool use.
    CHECK((*r)["parent_tool_use_id"].s.rfind("toolu_", 0) == 0);
  }
}

TEST_CASE("orient: subagents filters, pages and formats", "[orient]") {
  Cli cli({kWorktrees, kFixtureDir, kAlex});
  Json all = cli.json({"subagents"});
  CHECK(all["total"].i == 8);  // six real, one async agent, one workflow agent
  SECTION("project and session filters") {
    CHECK(cli.json({"subagents", "--project", "fixture-claude"})["total"].i == 2);
    CHECK(cli.json({"subagents", "--session", "eb000000"})["total"].i == 1);
    CHECK(cli.json({"subagents", "--session", kAlexId})["total"].i == 0);
    CHECK(cli.json({"subagents", "--agent", "codex"})["total"].i == 0);
    Json wf = cli.json({"subagents", "--session", kWorkflowSid});
    REQUIRE(wf["returned"].i == 1);
    CHECK(wf["results"][0]["workflow_run_id"].s == "wf_demo01");
    CHECK(wf["results"][0]["agent_id"].s == "ag000001");
  }
  SECTION("time range: activity overlapping it") {
    const Json& newest = all["results"][0];
    Json since = cli.json({"subagents", "--since", newest["last_time"].s});
    CHECK(since["total"].i >= 1);
    CHECK(find_by(since["results"], "agent_id", newest["agent_id"].s));
    CHECK(cli.json({"subagents", "--until", "2000-01-01"})["total"].i == 0);
  }
  SECTION("limit and offset") {
    Json page = cli.json({"subagents", "--limit", "3", "--offset", "2"});
    CHECK(page["total"].i == 8);
    CHECK(page["returned"].i == 3);
    CHECK(page["truncated"].b);
    for (int i = 0; i < 3; ++i) CHECK(page["results"][i]["agent_id"].s == all["results"][i + 2]["agent_id"].s);
    CHECK_FALSE(cli.json({"subagents", "--offset", "5"})["truncated"].b);
  }
  SECTION("jsonl and text") {
    RunResult r = cli.run({"subagents"}, "jsonl");
    REQUIRE(r.exit_code == 0);
    auto lines = lines_of(r.out);
    REQUIRE(lines.size() == 9);
    CHECK(parse(lines.back())["summary"]["total"].i == 8);
    CHECK(parse(lines[0])["agent_id"].s == all["results"][0]["agent_id"].s);
    RunResult t = cli.run({"subagents"}, "text");
    REQUIRE(t.exit_code == 0);
    CHECK(t.out.find("8 of 8 subagents") != std::string::npos);
    CHECK(t.out.find("claude --resume " + kWorktreesId) != std::string::npos);
  }
  SECTION("a bad limit is exit 2") { CHECK(cli.run({"subagents", "--limit", "0"}).exit_code == 2); }
}

TEST_CASE("orient: workflows and one run's agent tree", "[orient]") {
  WorkflowIndex cli;
  const std::string agent_file =
      cli.path(kFixtureDir + "/" + kWorkflowSid + "/subagents/workflows/wf_demo01/agent-ag000001.jsonl");
  Json list = cli.json({"workflows"});
  REQUIRE(list["total"].i == 1);
  const Json& row = list["results"][0];
  CHECK(row["run_id"].s == "wf_demo01");
  CHECK(row["name"].s == "demo-review");
  CHECK(row["status"].s == "completed");
  CHECK(row["session_id"].s == kWorkflowSid);
  CHECK(row["agent_count"].i == 2);
  CHECK(row["duration_ms"].i == 300000);
  CHECK(row["total_tokens"].i == 4321);
  CHECK(row["time"].s == "2026-06-04T10:05:00.000Z");
  CHECK(row["parent_tool_use_id"].s == "toolu_wf01");  // the Workflow call whose result named the run
  CHECK(row["task_id"].s == "task_demo01");
  CHECK(row["resume_hint"].s.find("claude --resume " + kWorkflowSid) != std::string::npos);

  Json tree = cli.json({"workflow", "wf_demo"});  // a unique prefix
  CHECK(tree["action"].s == "workflow");
  const Json& run = tree["run"];
  CHECK(run["run_id"].s == "wf_demo01");
  CHECK(run["result"]["summary"].s == "glob misses workflows");
  CHECK(run["result"]["findings"].a.size() == 2);
  REQUIRE(run["phases"].a.size() == 2);
  CHECK(run["phases"][0]["title"].s == "Map");  // the phase of the agent that ran first
  CHECK(run["phases"][1]["title"].s == "Synthesize");
  const Json& mapper = run["phases"][0]["agents"][0];
  const AgentFacts f = facts_of(agent_file);
  CHECK(mapper["agent_id"].s == "ag000001");
  CHECK(mapper["label"].s == "review:loader");
  CHECK(mapper["model"].s == "claude-sonnet-4-6");
  CHECK(mapper["state"].s == "done");
  CHECK(mapper["tokens"].i == 20);
  CHECK(mapper["tool_calls"].i == 1);
  CHECK(mapper["message_count"].i == f.messages);
  REQUIRE(mapper["transcript"].is_obj());
  CHECK(mapper["transcript"]["path"].s == agent_file);
  CHECK(mapper["transcript"]["message_count"].i == f.messages);
  CHECK(mapper["transcript"]["total_tokens"].i == f.tokens);
  CHECK(mapper["transcript"]["model"].s == f.model);
  const Json& merger = run["phases"][1]["agents"][0];
  CHECK(merger["agent_id"].s == "ag000002");
  CHECK(merger["state"].s == "failed");
  CHECK(merger["message_count"].i == 0);
  CHECK(merger["transcript"].is_null());

  RunResult text = cli.run({"workflow", "wf_demo01"}, "text");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("review:loader") != std::string::npos);
  RunResult jl = cli.run({"workflow", "wf_demo01"}, "jsonl");
  REQUIRE(jl.exit_code == 0);
  CHECK(lines_of(jl.out).size() == 4);  // the run, two agents, the summary
}

TEST_CASE("orient: a workflow known only from its launch and transcripts", "[orient]") {
  Cli cli({kFixtureDir});  // no run file: the Workflow tool result and the agent transcript
  Json list = cli.json({"workflows"});
  REQUIRE(list["total"].i == 1);
  const Json& row = list["results"][0];
  CHECK(row["status"].s == "async_launched");
  CHECK(row["agent_count"].i == 1);
  CHECK(row["duration_ms"].is_null());  // never guessed without the run file
  CHECK(row["total_tokens"].is_null());
  CHECK(row["run_file"].is_null());
  CHECK(row["time"].s == "2026-06-04T10:00:00.000Z");  // the launching call's time
  Json tree = cli.json({"workflow", "wf_demo01"});
  REQUIRE(tree["run"]["phases"].a.size() == 1);
  CHECK(tree["run"]["phases"][0]["title"].is_null());
  CHECK(tree["run"]["phases"][0]["agents"][0]["model"].s == "claude-sonnet-4-6");  // from its transcript
}

TEST_CASE("orient: workflow ids: unknown and ambiguous are exit 2", "[orient]") {
  WorkflowIndex cli;
  std::string second = kRunFile;
  second.replace(second.find("wf_demo01"), 9, "wf_demo02");
  write_file(cli.path(kFixtureDir + "/" + kWorkflowSid + "/workflows/wf_demo02.json"), second);
  CHECK(cli.json({"workflows"})["total"].i == 2);
  CHECK(cli.json({"workflow", "wf_demo02"})["run"]["run_id"].s == "wf_demo02");
  RunResult unknown = cli.run({"workflow", "wf_nothing"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("unknown-workflow") != std::string::npos);
  RunResult ambiguous = cli.run({"workflow", "wf_demo"});
  CHECK(ambiguous.exit_code == 2);
  CHECK(ambiguous.err.find("ambiguous-workflow") != std::string::npos);
  CHECK(ambiguous.err.find("wf_demo01") != std::string::npos);
  CHECK(ambiguous.err.find("wf_demo02") != std::string::npos);
}

TEST_CASE("orient: overview totals count all four agents", "[orient]") {
  Mixed m;
  Json o = m.json({"overview", "--cwd", "/nowhere/at/all"});
  CHECK(o["action"].s == "overview");
  CHECK(o["current"].is_null());
  const Json& agents = o["totals"]["agents"];
  REQUIRE(agents.a.size() >= 4);
  int64_t sessions = 0, messages = 0;
  for (const auto& [name, count] : agents_e2e::kSessionCounts) {
    INFO(name);
    const Json* a = find_by(agents, "agent", name);
    REQUIRE(a);
    CHECK((*a)["sessions"].i == count);
    // Each agent's messages are the sum over its sessions as `list` reports them.
    int64_t listed = 0;
    const Json list = m.json({"list", "--agent", name, "--limit", "1000"});  // kept: the loop reads into it
    for (const auto& s : list["results"].a) listed += s["message_count"].i;
    CHECK((*a)["messages"].i == listed);
    sessions += count;
    messages += listed;
  }
  CHECK(o["totals"]["sessions"].i == sessions);
  CHECK(o["totals"]["messages"].i == messages);
  CHECK(o["projects"]["total"].i >= 4);
}

TEST_CASE("orient: overview finds the project of the working directory", "[orient]") {
  TempDir tmp{"orient"};
  const std::string proj = tmp / "proj";
  fs::create_directories(proj + "/src/deep");
  fs::create_directories(tmp / "elsewhere");
  const std::string src = tmp / "claude";
  auto line = [&](const std::string& uuid, const std::string& ts, const std::string& text) {
    return R"({"type":"user","uuid":")" + uuid + R"(","sessionId":"S","timestamp":")" + ts + R"(","cwd":")" + proj +
           R"(","message":{"role":"user","content":")" + text + "\"}}\n";
  };
  for (int i = 0; i < 7; ++i) {
    const std::string sid = "5e550000-0000-4000-8000-00000000000" + std::to_string(i);
    std::string body;
    for (int k = 0; k <= i; ++k)
      body += line("u" + std::to_string(i) + std::to_string(k), "2026-03-0" + std::to_string(i + 1) + "T10:00:0" +
                   std::to_string(k) + ".000Z", "task number " + std::to_string(i));
    write_file(src + "/-tmp-proj/" + sid + ".jsonl", body);
  }
  copy_subtree(claude_data_dir(), kAlex, src);
  const std::string idx = tmp / "index";
  REQUIRE(run_osearch({"index", "--index", idx, "--source", "claude=" + src}).exit_code == 0);
  auto overview = [&](const std::string& cwd, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"overview", "--index", idx, "--source", "claude=" + src, "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    RunOptions opt;
    opt.cwd = cwd;
    RunResult r = run_osearch(args, "", opt);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.size() < 4096);  // small by default: meant for a context window
    return parse(r.out);
  };

  Json inside = overview(proj + "/src/deep");
  REQUIRE(inside["current"].is_obj());
  const Json& cur = inside["current"];
  CHECK(cur["matched_by"].s == "cwd");
  CHECK(cur["project_path"].s == proj);
  CHECK(cur["sessions"].i == 7);
  CHECK(cur["messages"].i == 28);  // 1 + 2 + … + 7
  CHECK(cur["memories"].is_arr());
  CHECK(cur["memories"].a.empty());
  REQUIRE(cur["recent_sessions"].a.size() == 5);  // the default
  CHECK(cur["recent_sessions"][0]["title"].s == "task number 6");  // newest first
  CHECK(cur["recent_sessions"][0]["message_count"].i == 7);
  CHECK(cur["recent_sessions"][4]["title"].s == "task number 2");
  CHECK(cur["recent_sessions"][0]["resume_hint"].s.find("cd " + proj) == 0);
  CHECK(inside["projects"]["total"].i == 2);
  CHECK(inside["totals"]["sessions"].i == 8);

  Json outside = overview(tmp / "elsewhere");
  CHECK(outside["current"].is_null());
  CHECK(outside["projects"]["total"].i == 2);

  Json named = overview(tmp / "elsewhere", {"--project", "alex-workspace", "--sessions", "1", "--projects", "1"});
  REQUIRE(named["current"].is_obj());
  CHECK(named["current"]["matched_by"].s == "project");
  CHECK(named["current"]["project"].s == "-Users-alex-workspace-cli");
  CHECK(named["current"]["recent_sessions"].a.size() == 1);
  CHECK(named["projects"]["returned"].i == 1);
  CHECK(named["projects"]["truncated"].b);
}

TEST_CASE("orient: a spawn without a transcript is dated by its call, its own numbers are null", "[orient]") {
  TempDir tmp{"orient"};
  const std::string src = tmp / "claude";
  const std::string sid = "5e551000-0000-4000-8000-000000000001";
  write_file(src + "/-work-app/" + sid + ".jsonl",
             R"({"type":"user","uuid":"u1","sessionId":"S","timestamp":"2026-05-01T09:00:00.000Z","cwd":"/work/app","message":{"role":"user","content":"review it"}})"
             "\n"
             R"({"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"S","timestamp":"2026-05-01T09:00:05.000Z","cwd":"/work/app","message":{"id":"msg_1","role":"assistant","model":"claude-opus-4-8","content":[{"type":"tool_use","id":"toolu_task1","name":"Task","input":{"description":"review","prompt":"look"}}],"usage":{"input_tokens":3,"output_tokens":4}}})"
             "\n"
             R"({"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"S","timestamp":"2026-05-01T09:07:00.000Z","cwd":"/work/app","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_task1","content":"done"}]},"toolUseResult":{"status":"completed","agentId":"deadbeef","totalDurationMs":415000,"totalTokens":1234}})"
             "\n");
  const std::string idx = tmp / "index";
  REQUIRE(run_osearch({"index", "--index", idx, "--source", "claude=" + src}).exit_code == 0);
  RunResult r = run_osearch({"subagents", "--index", idx, "--source", "claude=" + src, "--format", "json"});
  REQUIRE(r.exit_code == 0);
  Json j = parse(r.out);
  REQUIRE(j["total"].i == 1);
  const Json& a = j["results"][0];
  CHECK(a["agent_id"].s == "deadbeef");
  CHECK(a["parent_tool_use_id"].s == "toolu_task1");
  CHECK(a["spawned_at"].s == "2026-05-01T09:00:05.000Z");  // the Task call, not its result
  CHECK(a["message_count"].i == 0);
  CHECK(a["duration_ms"].is_null());
  CHECK(a["total_tokens"].is_null());
  CHECK(a["tokens"].is_null());
  CHECK(a["reported"]["duration_ms"].i == 415000);
  CHECK(a["reported"]["total_tokens"].i == 1234);
  CHECK(a["resume_hint"].s == "cd /work/app && claude --resume " + sid);
}

TEST_CASE("orient: appended agent lines add to the subagent, a streamed chunk's usage once", "[orient]") {
  Cli cli({kWorktrees});
  const std::string stem = "agent-a36efb2a1231c41e2";
  const std::string file = cli.path(kWorktrees + "/" + kWorktreesId + "/subagents/" + stem + ".jsonl");
  const AgentFacts before = facts_of(file);
  auto line = [](const std::string& uuid, const std::string& ts) {
    return R"({"type":"assistant","uuid":")" + uuid + R"(","isSidechain":true,"sessionId":")" + kWorktreesId +
           R"(","timestamp":")" + ts + R"(","message":{"id":"msg_orient_appended","role":"assistant","model":"claude-orient-test","content":[{"type":"text","text":"more"}],"usage":{"input_tokens":100,"output_tokens":50,"cache_read_input_tokens":7}}})" "\n";
  };
  append_file(file, line("orient-appended-1", "2026-04-18T16:00:00.000Z") + line("orient-appended-2", "2026-04-18T16:00:01.000Z"));
  const AgentFacts after = facts_of(file);
  REQUIRE(after.messages == before.messages + 2);
  REQUIRE(after.tokens == before.tokens + 157);
  Json j = cli.json({"subagents", "--session", kWorktreesId});
  const Json* a = find_by(j["results"], "agent_id", stem.substr(6));
  REQUIRE(a);
  CHECK((*a)["message_count"].i == after.messages);
  CHECK((*a)["total_tokens"].i == after.tokens);
  CHECK((*a)["duration_ms"].i == after.last - after.first);
  CHECK((*a)["model"].s == "claude-orient-test");
  CHECK((*a)["last_time"].s == "2026-04-18T16:00:01.000Z");
}

TEST_CASE("orient: a subagent record of schema 13 decodes without the transcript fields", "[orient]") {
  osearch::SubagentRec r;
  r.agent_id = "a1";
  r.session_id = "s1";
  r.parent_tool_use_id = "toolu_1";
  r.first_ts = 5;
  r.last_ts = 9;
  r.message_count = 3;
  std::string bytes = r.encode();
  // Schema 14 appended four varint zeros (usage), two empty strings (model, workflow run) and a flag.
  auto old = osearch::SubagentRec::decode(std::string_view(bytes).substr(0, bytes.size() - 7));
  REQUIRE(old);
  CHECK_FALSE(old->usage_complete);  // its tokens are no answer: total_tokens is null
  CHECK(old->agent_id == "a1");
  CHECK(old->message_count == 3);
  CHECK(old->last_ts == 9);
  CHECK_FALSE(old->tokens.any());
  r.tokens.output = 42;
  r.model = "m";
  r.workflow_run_id = "wf";
  auto now = osearch::SubagentRec::decode(r.encode());
  REQUIRE(now);
  CHECK(now->usage_complete);
  CHECK(now->tokens.output == 42);
  CHECK(now->model == "m");
  CHECK(now->workflow_run_id == "wf");
}

TEST_CASE("orient: a schema-13 index upgrades keeping archived subagents, their token totals unknown", "[orient]") {
  Cli cli({kWorktrees});
  const Json before = cli.json({"subagents", "--session", kWorktreesId});
  REQUIRE(before["total"].i == 6);
  fs::remove_all(cli.path(kWorktrees));
  cli.index();  // the session is archived: its sources are gone
  {
    // Rewrite its subagent records as schema 13 stored them (without the fields 14 appends).
    osearch::Store store(cli.idx, osearch::Store::Mode::Write);
    osearch::LmdbTxn txn(store.env(), false);
    std::vector<std::pair<std::string, std::string>> old;
    {  // the cursor closes before the commit (LMDB frees a write transaction's cursors there)
      osearch::LmdbCursor cur(txn, store.db().subagents);
      for (bool ok = cur.first(); ok; ok = cur.next()) {
        auto rec = osearch::SubagentRec::decode(cur.value());
        REQUIRE(rec);
        rec->tokens = {};  // then the new fields take 7 bytes: 4 zero varints, 2 empty strings, a flag
        rec->model.clear();
        rec->workflow_run_id.clear();
        const std::string bytes = rec->encode();
        old.emplace_back(std::string(cur.key()), bytes.substr(0, bytes.size() - 7));
      }
    }
    REQUIRE(old.size() == 6);
    for (const auto& [k, v] : old) txn.put(store.db().subagents, k, v);
    osearch::Store::put_meta_u64(txn, store.db(), osearch::meta_key::kSchema, 13);
    txn.commit();
  }
  RunResult up = run_osearch({"index", "--index", cli.idx, "--source", "claude=" + cli.src, "--format", "json"});
  INFO(up.out << up.err);
  REQUIRE(up.exit_code == 0);
  CHECK(up.out.find("lost") == std::string::npos);
  const Json after = cli.json({"subagents", "--session", kWorktreesId});
  REQUIRE(after["total"].i == 6);
  for (const auto& r : after["results"].a) {
    const Json* b = find_by(before["results"], "agent_id", r["agent_id"].s);
    REQUIRE(b);
    CHECK(r["message_count"].i == (*b)["message_count"].i);
    CHECK(r["duration_ms"].i == (*b)["duration_ms"].i);
    CHECK(r["total_tokens"].is_null());  // never a silent 0: schema 13 did not count them
    CHECK(r["tokens"].is_null());
  }
}
