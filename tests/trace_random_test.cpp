// Random parent chains walked by `trace`: Claude sessions whose messages link to earlier ones (a chain
// with branches), through lines that are not messages (compaction boundaries linking back by their
// logicalParentUuid, progress lines), sometimes to a uuid no line has. The files are read in several
// runs cut at random lines, so the links of lines that are not messages are carried between runs.
// Each walk must give the messages the links give, root first, how each was reached, and why it ended.
#include <random>

#include "tests/synthetic_index.h"

#include "engine/query/thread.h"
#include "tests/test_seed.h"

using namespace osearch;
using namespace osearch_test;

namespace {

struct TraceLine {
  enum Kind { Message, Boundary, Progress } kind = Message;
  std::string uuid, parent;  // a boundary's parent is its logicalParentUuid
};

std::string trace_line_json(const std::string& sid, const TraceLine& l, int second) {
  const std::string ts = iso_second(second);
  const std::string head = R"({"cwd":"/w/t","sessionId":")" + sid + R"(","uuid":")" + l.uuid + R"(","timestamp":")" + ts + "\",";
  const std::string parent = l.parent.empty() ? "null" : "\"" + l.parent + "\"";
  switch (l.kind) {
    case TraceLine::Boundary:
      return head + R"("type":"system","subtype":"compact_boundary","parentUuid":null,"logicalParentUuid":)" + parent +
             R"(,"content":"Conversation compacted"})" + "\n";
    case TraceLine::Progress:
      return head + R"("type":"progress","parentUuid":)" + parent + R"(,"data":{"type":"hook_progress"}})" + "\n";
    case TraceLine::Message:
      break;
  }
  return claude_user_line(sid, "/w/t", l.uuid, ts, "say " + l.uuid, R"("parentUuid":)" + parent + ",");
}

struct ExpectedChain {
  std::vector<std::pair<std::string, ChainLink>> steps;  // root first; the link to the step before
  ChainEnd end = ChainEnd::Root;
};

// Walks back from message `uuid` by the lines' own links.
ExpectedChain walk_links(const std::map<std::string, const TraceLine*>& by_uuid, const std::string& uuid) {
  ExpectedChain e;
  std::vector<std::pair<std::string, ChainLink>> nearest_first = {{uuid, ChainLink::Parent}};
  std::string at = uuid;
  for (;;) {
    std::string next = by_uuid.at(at)->parent;
    ChainLink via = ChainLink::Parent;
    // Lines that are not messages are passed through: the message reached that way is a logical parent.
    while (!next.empty()) {
      auto it = by_uuid.find(next);
      if (it == by_uuid.end() || it->second->kind == TraceLine::Message) break;
      next = it->second->parent;
      via = ChainLink::LogicalParent;
    }
    // Lines that are not messages and lead nowhere: the walk stops at the first one, as at any line
    // that is not stored (ChainEnd::MissingParent), not at a root.
    if (next.empty() && via == ChainLink::LogicalParent) {
      e.end = ChainEnd::MissingParent;
      break;
    }
    if (next.empty()) break;
    if (!by_uuid.count(next)) {
      e.end = ChainEnd::MissingParent;
      break;
    }
    nearest_first.back().second = via;  // how `at` was reached from `next`
    nearest_first.push_back({next, ChainLink::Parent});
    at = next;
  }
  e.steps.assign(nearest_first.rbegin(), nearest_first.rend());
  return e;
}

}  // namespace

TEST_CASE("trace: random chains through compaction boundaries and progress lines, read in pieces", "[thread][hardening]") {
  const uint32_t seed = osearch_test::test_seed(20261207);
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  TempDir tmp{"trace-random"};
  const std::string src = tmp / "claude";
  std::vector<std::string> sids;
  std::vector<std::vector<TraceLine>> sessions;
  for (int s = 0; s < 8; ++s) {
    const std::string sid = random_session_id(rng, s);
    sids.push_back(sid);
    std::vector<TraceLine> lines;
    for (int i = 0, n = 10 + static_cast<int>(rng() % 50); i < n; ++i) {
      TraceLine l;
      l.uuid = sid.substr(0, 4) + "-" + std::to_string(i);
      const unsigned k = rng() % 10;
      l.kind = i == 0 || k < 7 ? TraceLine::Message : k < 9 ? TraceLine::Progress : TraceLine::Boundary;
      if (i > 0) {
        const unsigned p = rng() % 10;
        if (p < 6) l.parent = lines.back().uuid;                 // the line before
        else if (p < 9) l.parent = lines[rng() % i].uuid;        // an earlier one: a branch
        else if (p == 9 && rng() % 3 == 0) l.parent = "gone-" + std::to_string(i);  // no line has it
      }
      lines.push_back(std::move(l));
    }
    sessions.push_back(std::move(lines));
  }
  // Written in pieces cut at random lines, an index run after each.
  std::vector<size_t> written(sessions.size(), 0);
  int clock = 0;
  for (int piece = 0; piece < 4; ++piece) {
    for (size_t s = 0; s < sessions.size(); ++s) {
      const size_t upto = piece == 3 ? sessions[s].size() : std::max(written[s], rng() % (sessions[s].size() + 1));
      std::string out;
      for (; written[s] < upto; ++written[s]) out += trace_line_json(sids[s], sessions[s][written[s]], ++clock);
      append_file(src + "/-w-t/" + sids[s] + ".jsonl", out);
    }
    REQUIRE(run_index(tmp / "index", {{"claude", src}}, IndexOptions{}).bad_lines == 0);
  }
  IndexReader reader(tmp / "index");

  size_t walked = 0, logical = 0, missing = 0;
  for (size_t s = 0; s < sessions.size(); ++s) {
    std::map<std::string, const TraceLine*> by_uuid;
    for (const TraceLine& l : sessions[s]) by_uuid[l.uuid] = &l;
    for (const TraceLine& l : sessions[s]) {
      if (l.kind != TraceLine::Message) continue;
      INFO("session " << s << " message " << l.uuid);
      const ExpectedChain want = walk_links(by_uuid, l.uuid);
      const TraceResult r = run_trace(reader, l.uuid, ContextOptions{sids[s], 0, 100});
      REQUIRE(r.matches.size() == 1);
      const Chain& chain = r.matches[0].chain;
      std::vector<std::string> got_steps, want_steps;
      for (size_t i = 0; i < chain.steps.size(); ++i)
        got_steps.push_back(chain.steps[i].message.rec.uuid +
                            (i == 0 ? "" : chain.steps[i].via == ChainLink::LogicalParent ? " (logical)" : " (parent)"));
      for (size_t i = 0; i < want.steps.size(); ++i)
        want_steps.push_back(want.steps[i].first +
                             (i == 0 ? "" : want.steps[i].second == ChainLink::LogicalParent ? " (logical)" : " (parent)"));
      CHECK(got_steps == want_steps);
      CHECK(chain_end_name(chain.end) == std::string(chain_end_name(want.end)));
      ++walked;
      logical += std::count_if(want.steps.begin(), want.steps.end(),
                               [](const auto& st) { return st.second == ChainLink::LogicalParent; });
      missing += want.end == ChainEnd::MissingParent;
    }
  }
  // (The draw reached each kind of step: bounds that hold for other seeds too, OSEARCH_TEST_SEED.)
  CHECK(walked > 80);
  CHECK(logical > 5);
  CHECK(missing > 0);
}
