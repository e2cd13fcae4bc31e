// Random `failures` calls against a model of the generated sessions: main transcripts and subagent
// transcripts (the parent's session, their own agent id) of tool calls whose results fail at random,
// with meta lines between. Each failure must come newest first with its call's tool, its error text
// and the next three messages of the same agent (meta left out unless asked), under --since, --until,
// --tool, --session, --project and pages.
#include <random>

#include "tests/synthetic_index.h"

#include "engine/query/files.h"
#include "tests/test_seed.h"

using namespace osearch;
using namespace osearch_test;

namespace {

struct FailLine {
  int second = 0;
  std::string agent;  // "" for the main thread
  std::string text;   // what the message's text is
  bool meta = false;
  std::string failed_tool;  // set on a failed tool result
  std::string result_id;
};

struct Session {
  std::string sid, cwd, slug;
  std::vector<FailLine> lines;  // in time order, every agent's
};

}  // namespace

TEST_CASE("failures: random sessions and filters give each failed result newest first with what followed",
          "[files][hardening]") {
  const uint32_t seed = osearch_test::test_seed(20261207);
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  TempDir tmp{"failures-random"};
  const std::string src = tmp / "claude";
  const std::vector<std::pair<std::string, std::string>> projects = {{"-w-alpha", "/w/alpha"}, {"-w-beta", "/w/beta"}};
  const std::vector<std::string> tools = {"Bash", "Read", "Edit", "Grep"};
  std::vector<Session> sessions;
  int clock = 0, ids = 0;
  for (int s = 0; s < 16; ++s) {
    Session ses;
    ses.sid = random_session_id(rng, s);
    std::tie(ses.slug, ses.cwd) = projects[rng() % projects.size()];
    // Files: the main transcript and up to two subagents', their lines interleaved in time.
    std::map<std::string, std::string> files;
    std::vector<std::string> agents = {""};
    for (size_t k = rng() % 3; k > 0; --k) agents.push_back("a" + std::to_string(1000000 + rng() % 9000000));
    for (int step = 0; step < 40; ++step) {
      const std::string agent = agents[rng() % agents.size()];
      const std::string common = R"("cwd":")" + ses.cwd + R"(","sessionId":")" + ses.sid + R"(",)" +
                                 (agent.empty() ? "" : R"("isSidechain":true,"agentId":")" + agent + R"(",)");
      std::string& out = files[agent];
      const auto add = [&](FailLine l, const std::string& json_tail) {
        l.second = ++clock * 7 + static_cast<int>(rng() % 5);
        l.agent = agent;
        out += "{" + common + R"("uuid":"u)" + std::to_string(++ids) + R"(","timestamp":")" + iso_second(l.second) + "\"," +
               json_tail + "}\n";
        ses.lines.push_back(std::move(l));
      };
      const unsigned kind = rng() % 4;
      if (kind == 0) {
        FailLine l;
        l.text = "note " + std::to_string(ids);
        add(l, R"("type":"user","message":{"role":"user","content":")" + l.text + "\"}");
      } else if (kind == 1) {
        FailLine l;
        l.meta = true;
        l.text = "meta " + std::to_string(ids);
        add(l, R"("type":"user","isMeta":true,"message":{"role":"user","content":")" + l.text + "\"}");
      } else {
        const std::string tool = tools[rng() % tools.size()], call = "toolu_" + std::to_string(++ids);
        FailLine c;
        c.text = tool + "\nrun " + std::to_string(ids);
        add(c, R"("type":"assistant","message":{"role":"assistant","id":"m)" + std::to_string(ids) +
                   R"(","content":[{"type":"tool_use","id":")" + call + R"(","name":")" + tool +
                   R"(","input":{"command":"run )" + std::to_string(ids) + R"("}}]})");
        FailLine r;
        const bool failed = rng() % 3 == 0;
        r.text = (failed ? "error " : "ok ") + std::to_string(ids);
        if (failed) r.failed_tool = tool;
        r.result_id = call;
        add(r, R"("type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":")" + call +
                   R"(","content":")" + r.text + R"(")" + (failed ? R"(,"is_error":true)" : "") + "}]}");
      }
    }
    for (const auto& [agent, body] : files)
      write_file(src + "/" + ses.slug + "/" + (agent.empty() ? ses.sid + ".jsonl"
                                                               : ses.sid + "/subagents/agent-" + agent + ".jsonl"),
                 body);
    sessions.push_back(std::move(ses));
  }
  REQUIRE(run_index(tmp / "index", {{"claude", src}}, IndexOptions{}).bad_lines == 0);
  IndexReader reader(tmp / "index");

  struct Want {
    const Session* s;
    size_t line;
  };
  for (int round = 0; round < 200; ++round) {
    FilterArgs args;
    const int span = clock * 7 + 5;
    if (round % 4 == 1) args.since = iso_second(static_cast<int>(rng() % span));
    if (round % 5 == 2) args.until = iso_second(static_cast<int>(rng() % span));
    if (round % 3 == 0) args.tool = {tools[rng() % tools.size()]};
    if (round % 7 == 3) args.session = {sessions[rng() % sessions.size()].sid.substr(0, 2)};
    if (round % 6 == 4) args.project = {"beta"};
    args.include_meta = round % 8 == 5;
    std::vector<Want> want;
    for (const Session& s : sessions)
      for (size_t i = 0; i < s.lines.size(); ++i) {
        const FailLine& l = s.lines[i];
        if (l.failed_tool.empty()) continue;
        if (!args.since.empty() && iso_second(l.second) < args.since) continue;
        if (!args.until.empty() && iso_second(l.second) >= args.until) continue;
        if (!args.tool.empty() && ascii_lower(args.tool[0]) != ascii_lower(l.failed_tool)) continue;
        if (!args.session.empty() && !s.sid.starts_with(args.session[0])) continue;
        if (!args.project.empty() && s.cwd.find(args.project[0]) == std::string::npos) continue;
        want.push_back({&s, i});
      }
    std::sort(want.begin(), want.end(), [](const Want& a, const Want& b) {
      return a.s->lines[a.line].second > b.s->lines[b.line].second;
    });
    INFO("round " << round << " since " << args.since << " until " << args.until << " tool "
                  << (args.tool.empty() ? "-" : args.tool[0]) << " session " << (args.session.empty() ? "-" : args.session[0])
                  << " project " << (args.project.empty() ? "-" : args.project[0]) << " meta " << args.include_meta);
    size_t seen = 0;
    for (size_t offset = 0, limit = 3;; offset += limit) {
      if (offset == 6) limit = 1000;
      args.limit = limit;
      args.offset = offset;
      const FailuresResult r = run_failures(reader, parse_filters(args, 0, 1000), FailuresOptions{});
      CHECK(r.total == want.size());
      for (const Failure& f : r.hits) {
        REQUIRE(seen < want.size());
        const Want& w = want[seen++];
        const FailLine& l = w.s->lines[w.line];
        CHECK(f.result.tool_use_id == l.result_id);
        CHECK(f.session.id == w.s->sid);
        CHECK(f.result_message.text == l.text);
        REQUIRE(f.call.has_value());
        CHECK(f.call->name == l.failed_tool);
        std::vector<std::string> next_want, next_got;
        for (size_t j = w.line + 1; j < w.s->lines.size() && next_want.size() < 3; ++j) {
          const FailLine& n = w.s->lines[j];
          if (n.agent == l.agent && (!n.meta || args.include_meta)) next_want.push_back(n.text);
        }
        for (const ShownMessage& m : f.next) next_got.push_back(m.text);
        CHECK(next_got == next_want);
      }
      if (r.hits.size() < limit) break;
    }
    CHECK(seen == want.size());
  }
}
