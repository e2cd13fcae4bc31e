// Mixed-agent end to end (issue 8): Claude, omp, pi and Codex in one index through the `osearch`
// binary. Every word of tests/data/mixed is found by keyword and content, in its own session first,
// with the right agent, cwd, title and resume hint; filters and meta select the right messages.
#include "tests/agents_e2e_fixture.h"

using namespace agents_e2e;

namespace {

Expect omp_main(const Mixed& fx) {
  (void)fx;
  return {kOmpId, "omp", kOmpCwd, omp_hint(kOmpCwd, kOmpId), "Zebraslot title"};
}
Expect pi_main(const Mixed& fx) { return {kPiId, "pi", kPiCwd, pi_hint(kPiCwd, fx.pi_path()), "Pititleword name"}; }
Expect codex_main(const Mixed&) {
  return {kCodexId, "codex", kCodexCwd, codex_hint(kCodexCwd, kCodexId), "Codexthreadword thread"};
}

std::vector<std::string> ids_of(const Json& j) {
  std::vector<std::string> out;
  for (const auto& h : j["results"].a) out.push_back(h["session_id"].s);
  return out;
}

}  // namespace

TEST_CASE("agents: status counts sessions per agent, one per session file", "[agents]") {
  Mixed fx;
  const Json st = fx.json({"status"});
  for (const auto& [agent, n] : kSessionCounts) {
    INFO("agent " << agent);
    CHECK(st["agents"][agent].i == n);
  }
  CHECK(st["sessions"].i == 12);
}

TEST_CASE("agents: list mixes agents newest first and --agent keeps one agent", "[agents]") {
  Mixed fx;
  const Json all = fx.json({"list"});
  CHECK(all["total"].i == 12);
  CHECK(agents_of(all["results"]) == std::set<std::string>{"claude", "omp", "pi", "codex"});
  const auto& rs = all["results"].a;
  for (size_t i = 1; i < rs.size(); ++i) {
    INFO("list position " << i);
    CHECK(rs[i - 1]["ended_at"].s >= rs[i]["ended_at"].s);
  }
  CHECK(ids_of(all).front() == kCodex2Id);
  for (const auto& [agent, n] : kSessionCounts) {
    INFO("--agent " << agent);
    const Json one = fx.json({"list", "--agent", agent});
    CHECK(one["total"].i == n);
    CHECK(agents_of(one["results"]) == std::set<std::string>{agent});
  }
  // Same-millisecond siblings are two sessions; the subagent is not a session of its own.
  const auto omp_ids = ids_of(fx.json({"list", "--agent", "omp"}));
  CHECK(std::count(omp_ids.begin(), omp_ids.end(), kOmpId) == 1);
  CHECK(std::count(omp_ids.begin(), omp_ids.end(), kOmp2Id) == 1);
  CHECK(std::count(omp_ids.begin(), omp_ids.end(), kOmpOutsideId) == 1);
}

TEST_CASE("agents: list shows each agent's session fields", "[agents]") {
  Mixed fx;
  std::map<std::string, Json> by_id;
  const Json list = fx.json({"list"});
  for (const auto& h : list["results"].a) by_id[h["session_id"].s + "@" + h["agent"].s] = h;
  const Json& omp = by_id.at(kOmpId + "@omp");
  CHECK(omp["title"].s == "Zebraslot title");
  CHECK(omp["resume_hint"].s == omp_hint(kOmpCwd, kOmpId));
  CHECK(omp["project_path"].s == kOmpCwd);
  CHECK(omp["path"].s == fx.omp_path());
  CHECK(omp["tokens"]["input"].i == 100 + 200 + 10);  // the subagent's turn counts for its parent
  const Json& omp2 = by_id.at(kOmp2Id + "@omp");
  CHECK(omp2["title"].s == "Tapirchange title");
  const Json& pi = by_id.at(kPiId + "@pi");
  CHECK(pi["title"].s == "Pititleword name");
  CHECK(pi["resume_hint"].s == pi_hint(kPiCwd, fx.pi_path()));
  CHECK(pi["tokens"]["input"].i == 300);
  CHECK(pi["tokens"]["output"].i == 50);
  const Json& cx = by_id.at(kCodexId + "@codex");
  CHECK(cx["title"].s == "Codexthreadword thread");
  CHECK(cx["git_branch"].s == "feat/codex-branch");
  CHECK(cx["project_path"].s == kCodexCwd);
  CHECK(cx["resume_hint"].s == codex_hint(kCodexCwd, kCodexId));
  CHECK(cx["tokens"]["input"].i == 600);
  CHECK(cx["tokens"]["output"].i == 50);
  CHECK(by_id.count(kCodexParentId + "@codex") == 0);
  CHECK(by_id.at(kCodex2Id + "@codex")["title"].s == "Codexindexword title");
  CHECK(by_id.at(kCodexLegacyId + "@codex")["agent"].s == "codex");
  CHECK(by_id.at(kClaudeId + "@claude")["resume_hint"].s.find("claude --resume " + kClaudeId) != std::string::npos);
}

TEST_CASE("agents: every omp word is found by keyword and content in its session", "[agents]") {
  Mixed fx;
  const Expect e = omp_main(fx);
  for (const char* w : {"ompuserword", "ompassistword", "ompthinkword", "ompargword", "ompresultword", "ompbashword",
                        "ompcompactword", "ompbranchword", "ompsiblingone", "ompsiblingtwo", "ompimageword",
                        "ompsecondword", "Zebraslot"})
    check_found(fx, w, e);
  // A subagent transcript in the artifacts dir belongs to its parent session.
  check_found(fx, "ompsubagentword", e);
  check_found(fx, "omptwouserword", {kOmp2Id, "omp", "/work/omp-two", omp_hint("/work/omp-two", kOmp2Id), "Tapirchange title"});
  check_found(fx, "Tapirchange", {kOmp2Id, "omp", "/work/omp-two", omp_hint("/work/omp-two", kOmp2Id), "Tapirchange title"});
  check_found(fx, "ompoutsideword",
              {kOmpOutsideId, "omp", "/work/omp-outside", omp_hint("/work/omp-outside", kOmpOutsideId), ""});
}

TEST_CASE("agents: every pi word is found by keyword and content in its session", "[agents]") {
  Mixed fx;
  const Expect e = pi_main(fx);
  for (const char* w : {"piuserword", "piassistword", "pithinkword", "piargword", "piresultword", "pibashword",
                        "picompactword", "pibranchword", "pisiblingone", "pisiblingtwo", "piimageword", "pisecondword",
                        "Pititleword"})
    check_found(fx, w, e);
  check_found(fx, "pivoneword", {kPiV1Id, "pi", kPiCwd, pi_hint(kPiCwd, fx.pi_path(kPiV1Rel)), ""});
}

TEST_CASE("agents: every Codex word is found by keyword and content in its session", "[agents]") {
  Mixed fx;
  const Expect e = codex_main(fx);
  for (const char* w : {"codexuserword", "codexassistword", "codexreasonword", "codexargword", "codexresultword",
                        "codexpatchword", "codexpatchoutword", "codexlocalword", "codexlocaloutword",
                        "codexcompactword", "codexresumeword", "Codexthreadword"})
    check_found(fx, w, e);
  check_found(fx, "Codexindexword",
              {kCodex2Id, "codex", "/work/codex-two", codex_hint("/work/codex-two", kCodex2Id), "Codexindexword title"});
  check_found(fx, "codextwouserword",
              {kCodex2Id, "codex", "/work/codex-two", codex_hint("/work/codex-two", kCodex2Id), "Codexindexword title"});
  check_found(fx, "codexnonewlineword",
              {kCodexNoNewlineId, "codex", "/work/codex-nl", codex_hint("/work/codex-nl", kCodexNoNewlineId), ""});
  // The legacy file names no cwd: found, with a hint that still resumes by id.
  for (const char* action : {"keyword", "content"}) {
    const Json j = fx.json({action, "codexlegacyword"});
    REQUIRE(j["results"].a.size() == 1);
    CHECK(j["results"][0]["session_id"].s == kCodexLegacyId);
    CHECK(j["results"][0]["agent"].s == "codex");
    CHECK(j["results"][0]["resume_hint"].s.find("codex resume " + kCodexLegacyId) != std::string::npos);
  }
}

TEST_CASE("agents: meta blocks are hidden by default and found with --include-meta", "[agents]") {
  Mixed fx;
  const std::vector<std::pair<std::string, Expect>> meta = {
      {"codexdevword", codex_main(fx)},   {"codexagentsword", codex_main(fx)}, {"codexenvword", codex_main(fx)},
      {"ompcustomword", omp_main(fx)},    {"ompcustommsgword", omp_main(fx)},  {"picustomword", pi_main(fx)},
      {"picustommsgword", pi_main(fx)},
  };
  for (const auto& [word, e] : meta) {
    check_not_found(fx, word);
    check_found(fx, word, e, {"--include-meta"});
  }
  // Never text at all: encrypted reasoning, credential pins, agent plumbing, image bytes.
  for (const char* w : {"gAAAAABencryptedcodexsecret", "secretpinword", "codexworldword"})
    check_not_found(fx, w, {"--include-meta"});
  CHECK(fx.json({"content", "-F", "iVBORw0KGgoAAAANSUhEUg", "--include-meta"})["total"].i == 0);
  const Json blob = fx.json({"content", "-F", "blob:sha256:abab", "--include-meta"});
  CHECK(blob["total"].i == 0);
}

TEST_CASE("agents: --agent and agent: keep one agent on keyword and content", "[agents]") {
  Mixed fx;
  // "please" is in the omp, pi and Codex sessions.
  CHECK(agents_of(fx.json({"keyword", "please", "--limit", "50"})["results"]).size() >= 3);
  for (const char* agent : {"omp", "pi", "codex"}) {
    INFO("agent " << agent);
    const Json kw = fx.json({"keyword", "please", "--agent", agent});
    CHECK(kw["total"].i >= 1);
    CHECK(agents_of(kw["results"]) == std::set<std::string>{agent});
    const Json field = fx.json({"keyword", std::string("please agent:") + agent});
    CHECK(field["total"].i >= 1);
    CHECK(agents_of(field["results"]) == std::set<std::string>{agent});
    const Json ct = fx.json({"content", "-F", "please", "--agent", agent});
    CHECK(ct["total"].i >= 1);
    CHECK(agents_of(ct["results"]) == std::set<std::string>{agent});
  }
  CHECK(fx.json({"keyword", "codexuserword", "--agent", "pi"})["total"].i == 0);
  CHECK(fx.json({"keyword", "codexuserword agent:omp"})["total"].i == 0);
  CHECK(fx.json({"content", "codexuserword", "--agent", "claude"})["total"].i == 0);
}

TEST_CASE("agents: keyword --agent is the agent: field, alone, repeated and beside session filters", "[agents]") {
  Mixed fx;
  size_t sum = 0;
  for (const char* agent : {"claude", "omp", "pi", "codex"}) {
    INFO("agent " << agent);
    for (const char* by : {"session", "message"}) {
      INFO("by " << by);
      const Json flag = fx.json({"keyword", "please", "--agent", agent, "--by", by, "--limit", "50"});
      const Json field = fx.json({"keyword", std::string("please agent:") + agent, "--by", by, "--limit", "50"});
      CHECK(ids_of(flag) == ids_of(field));
      CHECK(flag["total"].i == field["total"].i);
      CHECK(flag["total_exact"].b == field["total_exact"].b);
      if (std::string(by) == "session") sum += static_cast<size_t>(flag["total"].i);
    }
  }
  const Json all = fx.json({"keyword", "please", "--limit", "50"});
  CHECK(static_cast<size_t>(all["total"].i) == sum);  // (no memories in this tree)
  const Json two = fx.json({"keyword", "please", "--agent", "omp", "--agent", "pi", "--limit", "50"});
  CHECK(agents_of(two["results"]) == std::set<std::string>{"omp", "pi"});
  const Json omp = fx.json({"keyword", "please", "--agent", "omp"}), pi = fx.json({"keyword", "please", "--agent", "pi"});
  CHECK(two["total"].i == omp["total"].i + pi["total"].i);
  CHECK(ids_of(fx.json({"keyword", "please", "--agent", "codex", "--project", "codex proj"})) ==
        std::vector<std::string>{kCodexId});
  CHECK(fx.json({"keyword", "please", "--agent", "pi", "--project", "codex proj"})["total"].i == 0);
  CHECK(fx.json({"keyword", "please", "--agent", "codex", "--session", kCodexId})["total"].i == 1);
  CHECK(fx.json({"keyword", "please", "--agent", "omp", "--session", kCodexId})["total"].i == 0);
}

TEST_CASE("agents: --project, --cwd, --since and --model select each agent's sessions", "[agents]") {
  Mixed fx;
  auto ids = [&](std::vector<std::string> args) {
    const Json j = fx.json(args);
    auto v = ids_of(j);
    return std::set<std::string>(v.begin(), v.end());
  };
  CHECK(ids({"list", "--project", "pi-proj"}) == std::set<std::string>{kPiId, kPiV1Id});
  CHECK(ids({"list", "--project", "omp proj"}) == std::set<std::string>{kOmpId});
  CHECK(ids({"list", "--cwd", kCodexCwd}) == std::set<std::string>{kCodexId});
  CHECK(ids({"list", "--cwd", kOmpCwd}) == std::set<std::string>{kOmpId});
  CHECK(ids({"list", "--since", "2026-11-02"}) == std::set<std::string>{kPiId, kCodexId, kCodex2Id});
  CHECK(ids({"keyword", "please", "--project", "codex proj"}) == std::set<std::string>{kCodexId});
  CHECK(ids({"content", "-F", "please", "--cwd", kPiCwd}) == std::set<std::string>{kPiId});
  CHECK(ids({"keyword", "please", "--since", "2026-11-02"}) == std::set<std::string>{kPiId, kCodexId});
  CHECK(ids({"keyword", "assistword OR piassistword OR ompassistword OR codexassistword", "--model", "codex-x"}) ==
        std::set<std::string>{kCodexId});
  CHECK(ids({"keyword", "piassistword OR ompassistword OR codexassistword", "--model", "pi-model-x"}) ==
        std::set<std::string>{kPiId});
  CHECK(ids({"list", "--model", "omp-model-x"}).count(kOmpId) == 1);
}

TEST_CASE("agents: --role and --type pick the right message of each agent", "[agents]") {
  Mixed fx;
  struct Case {
    std::string word, type, role, other_type;
  };
  const std::vector<Case> cases = {
      {"ompthinkword", "thinking", "assistant", "text"},      {"pithinkword", "thinking", "assistant", "text"},
      {"codexreasonword", "thinking", "assistant", "text"},   {"ompargword", "tool_use", "assistant", "text"},
      {"piargword", "tool_use", "assistant", "text"},         {"codexargword", "tool_use", "assistant", "text"},
      {"ompresultword", "tool_result", "tool", "text"},       {"piresultword", "tool_result", "tool", "text"},
      {"codexresultword", "tool_result", "tool", "text"},     {"ompbashword", "tool_result", "tool", "text"},
      {"pibashword", "tool_result", "tool", "text"},          {"ompcompactword", "summary", "assistant", "text"},
      {"pibranchword", "summary", "assistant", "text"},       {"codexcompactword", "summary", "assistant", "text"},
      {"ompuserword", "text", "user", "tool_result"},         {"codexuserword", "text", "user", "tool_result"},
      {"piassistword", "text", "assistant", "thinking"},
  };
  for (const auto& c : cases) {
    INFO(c.word << " --type " << c.type << " --role " << c.role);
    for (const char* action : {"keyword", "content"}) {
      INFO(action);
      const Json hit = fx.json({action, c.word, "--type", c.type, "--role", c.role, "--by", "message"});
      REQUIRE(hit["total"].i >= 1);
      CHECK(hit["results"][0]["content_type"].s == c.type);
      CHECK(hit["results"][0]["role"].s == c.role);
      CHECK(fx.json({action, c.word, "--type", c.other_type})["total"].i == 0);
    }
  }
  CHECK(fx.json({"keyword", "ompresultword", "--role", "user"})["total"].i == 0);
}

TEST_CASE("agents: entries on an abandoned branch are found next to the current one", "[agents]") {
  Mixed fx;
  for (const auto& [one, two, id] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"ompsiblingone", "ompsiblingtwo", kOmpId}, {"pisiblingone", "pisiblingtwo", kPiId}}) {
    const Json j = fx.json({"keyword", one + " OR " + two, "--by", "message"});
    CHECK(j["total"].i == 2);
    CHECK(field_set(j["results"], "session_id") == std::set<std::string>{id});
  }
}

TEST_CASE("agents: a pi session and its omp copy with the same id are two sessions", "[agents]") {
  Mixed fx;
  const Json j = fx.json({"keyword", "sharedidword"});
  REQUIRE(j["total"].i == 2);
  CHECK(agents_of(j["results"]) == std::set<std::string>{"pi", "omp"});
  CHECK(field_set(j["results"], "session_id") == std::set<std::string>{kSharedId});
  for (const auto& h : j["results"].a) {
    if (h["agent"].s == "omp") CHECK(h["resume_hint"].s == omp_hint("/work/shared-proj", kSharedId));
    else CHECK(h["resume_hint"].s.find(" && pi --session " + fx.pi + "/sessions/--work-shared-proj--/") != std::string::npos);
  }
  CHECK(fx.json({"content", "sharedidword"})["total"].i == 2);
}
