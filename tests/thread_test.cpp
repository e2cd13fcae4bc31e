// `osearch thread SESSION` through the built binary: message counts against the raw JSONL, id
// prefixes and their ambiguity, paging by offset/limit and around a message, --max-chars, tool calls
// joined with their results, subagent messages, a 1,200-message session, omp/pi/Codex sessions.
#include "tests/thread_fixture.h"

#include "tests/agents_e2e_fixture.h"

using namespace thread_test;

namespace {

const std::string kUserProjectDir = "-Users-user-project";

std::vector<std::string> blame_files(const Cli& cli) {
  return {cli.path(kBlameDir + "/" + kBlameId + ".jsonl"), cli.path(kBlameDir + "/agent-ad47cca.jsonl"),
          cli.path(kBlameDir + "/agent-ae9a854.jsonl")};
}

}  // namespace

TEST_CASE("thread: message counts equal the raw JSONL's, meta hidden unless asked", "[thread]") {
  Cli cli({kAlex, kSoph, kPosh, kCompactRel, kBlameDir});
  const std::vector<std::pair<std::string, std::vector<std::string>>> sessions = {
      {kAlexId, {cli.path(kAlex)}},
      {kSophId, {cli.path(kSoph)}},
      {kPoshId, {cli.path(kPosh)}},
      {kCompactId, {cli.path(kCompactRel)}},
      {kBlameId, blame_files(cli)},
  };
  for (const auto& [sid, files] : sessions) {
    INFO("session " << sid);
    const auto expected = message_uuids(files);
    const Json all = cli.json({"thread", sid, "--include-meta"});
    CHECK(all["action"].s == "thread");
    CHECK(all["session"]["session_id"].s == sid);
    CHECK(all["session"]["resume_hint"].s.find("claude --resume " + sid) != std::string::npos);
    CHECK(static_cast<size_t>(all["total"].i) == expected.size());
    CHECK(static_cast<size_t>(all["returned"].i) == expected.size());
    CHECK_FALSE(all["truncated"].b);
    const auto got = uuids_of(all["messages"]);
    CHECK(std::set<std::string>(got.begin(), got.end()) == expected);

    // Without --include-meta: exactly the messages not flagged is_meta, in the same order; every
    // line the transcript marks isMeta is among the hidden ones.
    std::vector<std::string> shown;
    std::set<std::string> flagged;
    for (const auto& m : all["messages"].a) (m["is_meta"].b ? flagged.insert(m["uuid"].s), void() : shown.push_back(m["uuid"].s));
    for (const auto& f : files)
      for (const auto& r : raw_lines(f))
        if (is_message(r) && r.is_meta) CHECK(flagged.count(r.uuid) == 1);
    const Json visible = cli.json({"thread", sid});
    CHECK(static_cast<size_t>(visible["total"].i) == shown.size());
    CHECK(uuids_of(visible["messages"]) == shown);

    // In order: time, then file order.
    std::string last;
    for (const auto& m : all["messages"].a) {
      if (!m["time"].is_str()) continue;
      CHECK(m["time"].s >= last);
      last = m["time"].s;
    }
  }
}

TEST_CASE("thread: subagent messages carry their agent id; tool calls carry input and result", "[thread]") {
  Cli cli({kBlameDir});
  const Json j = cli.json({"thread", kBlameId, "--include-meta"});
  std::set<std::string> agents;
  for (const auto& m : j["messages"].a)
    if (m["agent_id"].is_str()) agents.insert(m["agent_id"].s);
  // The root agent files name their agent on every line (agentId).
  std::set<std::string> raw_agents;
  for (const char* f : {"agent-ad47cca.jsonl", "agent-ae9a854.jsonl"}) {
    simdjson::dom::parser p;
    for (const auto& line : lines_of(read_file(cli.path(kBlameDir + "/" + f)))) {
      simdjson::dom::element o;
      std::string_view a;
      if (p.parse(line).get(o) == simdjson::SUCCESS && o["agentId"].get_string().get(a) == simdjson::SUCCESS)
        raw_agents.insert(std::string(a));
    }
  }
  CHECK(agents == raw_agents);
  CHECK_FALSE(agents.empty());

  // Every tool_use block of the raw JSONL is a call with its input, joined with its tool_result.
  std::map<std::string, bool> raw_results;  // tool_use_id -> is_error
  std::set<std::string> raw_calls;
  simdjson::dom::parser p;
  for (const auto& line : lines_of(read_file(cli.path(kBlameDir + "/" + kBlameId + ".jsonl")))) {
    simdjson::dom::element o;
    simdjson::dom::array blocks;
    if (p.parse(line).get(o) != simdjson::SUCCESS || o["message"]["content"].get_array().get(blocks) != simdjson::SUCCESS)
      continue;
    for (auto b : blocks) {
      std::string_view type, id;
      if (b["type"].get_string().get(type) != simdjson::SUCCESS) continue;
      if (type == "tool_use" && b["id"].get_string().get(id) == simdjson::SUCCESS) raw_calls.insert(std::string(id));
      bool err = false;
      if (type == "tool_result" && b["tool_use_id"].get_string().get(id) == simdjson::SUCCESS) {
        if (b["is_error"].get_bool().get(err) != simdjson::SUCCESS) err = false;
        raw_results[std::string(id)] = err;
      }
    }
  }
  REQUIRE_FALSE(raw_calls.empty());
  size_t seen = 0;
  for (const auto& m : j["messages"].a) {
    if (m["agent_id"].is_str()) continue;
    for (const auto& c : m["tool_calls"].a) {
      if (!raw_calls.count(c["id"].s)) continue;
      ++seen;
      INFO("call " << c["id"].s);
      CHECK_FALSE(c["name"].s.empty());
      CHECK(parse(c["input_json"].s).is_obj());
      if (raw_results.count(c["id"].s)) {
        REQUIRE(c["result"].is_obj());
        CHECK(c["result"]["is_error"].b == raw_results[c["id"].s]);
        CHECK(c["result"]["message_uuid"].is_str());
      } else {
        CHECK(c["result"].is_null());
      }
    }
    for (const auto& r : m["tool_results"].a) CHECK(raw_results.count(r["tool_use_id"].s) == 1);
  }
  CHECK(seen == raw_calls.size());
}

TEST_CASE("thread: an id prefix names one session; an ambiguous or unknown one is exit 2", "[thread]") {
  // Two sessions of the project start with "0" (one of them only through its subagent files).
  Cli cli({kUserProjectDir, kAlex});
  CHECK(cli.json({"thread", kAlexId.substr(0, 8)})["session"]["session_id"].s == kAlexId);
  CHECK(cli.json({"thread", kAlexId})["session"]["session_id"].s == kAlexId);
  CHECK(cli.json({"thread", "0d3b"})["session"]["session_id"].s == "0d3b22c1-ba90-4fd3-b8d2-056ffc626725");

  RunResult amb = cli.run({"thread", "0"});
  CHECK(amb.exit_code == 2);
  CHECK(amb.out.empty());
  const Json err = parse(amb.err);
  CHECK(err["error"]["kind"].s == "ambiguous-session");
  CHECK(err["error"]["message"].s.find("0d3b22c1-ba90-4fd3-b8d2-056ffc626725") != std::string::npos);
  CHECK(err["error"]["message"].s.find("0f13eeba-e6ed-42ea-ad8c-d8db37e1304e") != std::string::npos);

  RunResult none = cli.run({"thread", "ffff"});
  CHECK(none.exit_code == 2);
  CHECK(parse(none.err)["error"]["kind"].s == "unknown-session");

  RunResult text = cli.run({"thread", "0"}, "text");
  CHECK(text.exit_code == 2);
  CHECK(text.err.find("0f13eeba") != std::string::npos);
}

TEST_CASE("thread: --offset/--limit and --around/--window page the same order", "[thread]") {
  Cli cli({kSoph});
  const Json all = cli.json({"thread", kSophId});
  const auto order = uuids_of(all["messages"]);
  REQUIRE(order.size() > 20);

  const Json page = cli.json({"thread", kSophId, "--offset", "5", "--limit", "7"});
  CHECK(uuids_of(page["messages"]) == std::vector<std::string>(order.begin() + 5, order.begin() + 12));
  CHECK(page["total"].i == static_cast<int64_t>(order.size()));
  CHECK(page["offset"].i == 5);
  CHECK(page["truncated"].b);

  const Json around = cli.json({"thread", kSophId, "--around", order[10], "--window", "3"});
  CHECK(uuids_of(around["messages"]) == std::vector<std::string>(order.begin() + 7, order.begin() + 14));
  CHECK(around["offset"].i == 7);
  const Json first = cli.json({"thread", kSophId, "--around", order[1], "--window", "4"});
  CHECK(uuids_of(first["messages"]) == std::vector<std::string>(order.begin(), order.begin() + 6));
  const Json last = cli.json({"thread", kSophId, "--around", order.back(), "--window", "2"});
  CHECK(uuids_of(last["messages"]) == std::vector<std::string>(order.end() - 3, order.end()));

  CHECK(cli.run({"thread", kSophId, "--around", "no-such-uuid"}).exit_code == 2);
  CHECK(cli.run({"thread", kSophId, "--around", order[3], "--offset", "2"}).exit_code == 2);
  CHECK(cli.run({"thread", kSophId, "--window", "2"}).exit_code == 2);
  CHECK(cli.run({"thread", kSophId, "--limit", "0"}).exit_code == 2);
  CHECK(cli.run({"thread", kSophId, "--max-chars", "-1"}).exit_code == 2);
}

TEST_CASE("thread: --max-chars cuts each text on a character boundary and says so", "[thread]") {
  Cli cli({kSoph});
  const Json full = cli.json({"thread", kSophId});
  const Json cut = cli.json({"thread", kSophId, "--max-chars", "10"});
  REQUIRE(full["messages"].a.size() == cut["messages"].a.size());
  size_t cut_count = 0;
  for (size_t i = 0; i < full["messages"].a.size(); ++i) {
    const std::string& whole = full["messages"][i]["text"].s;
    const Json& m = cut["messages"][i];
    CHECK_FALSE(full["messages"][i]["truncated"].b);  // JSON: whole texts by default
    CHECK(valid_utf8(m["text"].s));
    const bool longer = code_points(whole) > 10;
    CHECK(m["truncated"].b == longer);
    CHECK(code_points(m["text"].s) == std::min<size_t>(10, code_points(whole)));
    CHECK(whole.rfind(m["text"].s, 0) == 0);
    cut_count += longer;
  }
  CHECK(cut_count > 0);
}

TEST_CASE("thread: a 1,200-message session in order, paged", "[thread]") {
  Cli cli({}, false);
  const std::string sid = "5e55a0b1-0000-4000-8000-000000001200";
  std::string lines, parent;
  std::vector<std::string> uuids;
  for (int i = 0; i < 1200; ++i) {
    const std::string uuid = "m-" + std::to_string(10000 + i);
    lines += i % 2 ? claude_assistant(sid, uuid, parent, R"([{"type":"text","text":"reply )" + std::to_string(i) + "\"}]", ts_at(i))
                   : claude_user(sid, uuid, parent, "question " + std::to_string(i), ts_at(i));
    uuids.push_back(uuid);
    parent = uuid;
  }
  write_file(cli.src + "/-w-proj/" + sid + ".jsonl", lines);
  cli.index();
  const Json all = cli.json({"thread", sid.substr(0, 6)});
  CHECK(all["total"].i == 1200);
  CHECK(uuids_of(all["messages"]) == uuids);
  const Json page = cli.json({"thread", sid, "--offset", "1190", "--limit", "50"});
  CHECK(uuids_of(page["messages"]) == std::vector<std::string>(uuids.begin() + 1190, uuids.end()));
  const Json trace = cli.json({"trace", uuids[1199], "--depth", "5000"});
  CHECK(trace["matches"][0]["chain"].a.size() == 1200);
  CHECK(trace["matches"][0]["chain_end"].s == "root");
  const Json capped = cli.json({"trace", uuids[1199], "--depth", "10"});
  CHECK(capped["matches"][0]["chain"].a.size() == 11);
  CHECK(capped["matches"][0]["chain_end"].s == "depth-limit");
}

TEST_CASE("thread: omp, pi and Codex sessions by the id as written", "[thread]") {
  using namespace agents_e2e;
  Mixed fx;
  const Json list = fx.json({"list", "--limit", "100"});
  std::map<std::string, Json> by_id;
  for (const auto& s : list["results"].a) by_id[s["session_id"].s + "@" + s["agent"].s] = s;
  for (const auto& [id, agent] : std::vector<std::pair<std::string, std::string>>{
           {kOmpId, "omp"}, {kPiId, "pi"}, {kPiV1Id, "pi"}, {kCodexId, "codex"}, {kCodexLegacyId, "codex"}}) {
    INFO(agent << " " << id);
    const Json j = fx.json({"thread", id, "--include-meta"});
    CHECK(j["session"]["agent"].s == agent);
    CHECK(j["session"]["session_id"].s == id);
    CHECK(j["session"]["resume_hint"].s == by_id[id + "@" + agent]["resume_hint"].s);
    CHECK(j["total"].i == by_id[id + "@" + agent]["message_count"].i);
    CHECK(j["total"].i > 0);
  }
  // The omp subagent's messages are marked with its agent.
  bool sub = false;
  const Json omp = fx.json({"thread", kOmpId});  // kept alive for the loop (a temporary's member would dangle)
  for (const auto& m : omp["messages"].a) sub = sub || m["agent_id"].is_str();
  CHECK(sub);
  // Codex tool calls are joined with their outputs.
  size_t joined = 0;
  const Json codex = fx.json({"thread", kCodexId});
  for (const auto& m : codex["messages"].a)
    for (const auto& c : m["tool_calls"].a) joined += c["result"].is_obj();
  CHECK(joined > 0);
  // One id, two agents: ambiguous as written, one session with its @agent.
  RunResult amb = fx.run({"thread", kSharedId});
  CHECK(amb.exit_code == 2);
  CHECK(parse(amb.err)["error"]["kind"].s == "ambiguous-session");
  CHECK(fx.json({"thread", kSharedId + "@pi"})["session"]["agent"].s == "pi");
  CHECK(fx.json({"thread", kSharedId + "@omp"})["session"]["agent"].s == "omp");
}

TEST_CASE("thread: JSONL is one message per line and a summary; text prints the session and hint", "[thread]") {
  Cli cli({kAlex});
  RunResult r = cli.run({"thread", kAlexId}, "jsonl");
  REQUIRE(r.exit_code == 0);
  const auto lines = lines_of(r.out);
  REQUIRE(lines.size() >= 2);
  const Json summary = parse(lines.back());
  CHECK(static_cast<size_t>(summary["summary"]["returned"].i) == lines.size() - 1);
  CHECK(summary["summary"]["session"]["session_id"].s == kAlexId);
  for (size_t i = 0; i + 1 < lines.size(); ++i) CHECK(parse(lines[i]).has("uuid"));
  RunResult t = cli.run({"thread", kAlexId}, "text");
  REQUIRE(t.exit_code == 0);
  CHECK(t.out.find("claude --resume " + kAlexId) != std::string::npos);
  CHECK(valid_utf8(t.out));
}
