// `osearch context UUID` and `osearch trace UUID` through the built binary: chains against the raw
// JSONL's parent links (across a real compaction boundary and across lines that are not messages),
// cycles, a uuid held by two sessions, subagents, unknown uuids.
#include "tests/thread_fixture.h"

using namespace thread_test;

namespace {

std::vector<std::string> chain_uuids(const Json& match) {
  std::vector<std::string> out;
  for (const auto& m : match["chain"].a) out.push_back(m["uuid"].s);
  return out;
}

}  // namespace

TEST_CASE("trace: the chain root first equals the raw parent links, across a compaction", "[thread]") {
  Cli cli({kCompactRel});
  const auto raw = raw_lines(cli.path(kCompactRel));
  // The last message of the file, and the message right after the boundary.
  std::string last, after_boundary, boundary;
  for (const auto& r : raw) {
    if (r.type == "system" && !r.logical_parent.empty()) boundary = r.uuid;
    if (is_message(r)) last = r.uuid;
    if (is_message(r) && !boundary.empty() && r.parent == boundary) after_boundary = r.uuid;
  }
  REQUIRE_FALSE(boundary.empty());
  REQUIRE_FALSE(after_boundary.empty());
  const auto expected = reference_chain(cli.path(kCompactRel), last);
  REQUIRE(expected.size() > 8);

  const Json j = cli.json({"trace", last});
  CHECK(j["action"].s == "trace");
  REQUIRE(j["matches"].a.size() == 1);
  const Json& m = j["matches"][0];
  CHECK(m["session"]["session_id"].s == kCompactId);
  CHECK(chain_uuids(m) == expected);
  CHECK(m["chain_end"].s == "root");
  // The step after the boundary reached its parent through the logical link.
  for (const auto& step : m["chain"].a)
    if (step["uuid"].s == after_boundary) CHECK(step["via"].s == "logical_parent");
  CHECK_FALSE(m["chain"][0].has("via"));

  // context: the same ancestors, nearest first.
  const Json c = cli.json({"context", last});
  REQUIRE(c["matches"].a.size() == 1);
  std::vector<std::string> ancestors;
  for (const auto& a : c["matches"][0]["ancestors"].a) ancestors.push_back(a["uuid"].s);
  std::vector<std::string> want(expected.rbegin() + 1, expected.rend());
  CHECK(ancestors == want);
  CHECK(c["matches"][0]["message"]["uuid"].s == last);
  CHECK(c["matches"][0]["session"]["resume_hint"].s.find(kCompactId) != std::string::npos);
  CHECK(c["matches"][0]["subagent"].is_null());
}

TEST_CASE("trace: lines that are not messages (attachments, progress, system) do not cut the chain", "[thread]") {
  Cli cli({}, false);
  const std::string sid = "7ace0000-0000-4000-8000-000000000001";
  std::string lines = claude_user(sid, "u1", "", "first question", ts_at(1));
  lines += R"({"type":"attachment","uuid":"att1","parentUuid":"u1","sessionId":")" + sid + "\"}\n";
  lines += R"({"type":"progress","uuid":"prog1","parentUuid":"att1","sessionId":")" + sid + "\"}\n";
  lines += claude_assistant(sid, "a1", "prog1", R"([{"type":"text","text":"an answer"}])", ts_at(2));
  lines += R"({"type":"system","subtype":"compact_boundary","uuid":"cb1","parentUuid":null,"logicalParentUuid":"a1","sessionId":")" +
           sid + "\"}\n";
  lines += claude_user(sid, "u2", "cb1", "after the compaction", ts_at(3));
  lines += R"({"type":"system","subtype":"session_start","uuid":"ss1","parentUuid":null,"sessionId":")" + sid + "\"}\n";
  lines += claude_user(sid, "u3", "ss1", "a chain that starts at a system line", ts_at(4));
  const std::string path = cli.src + "/-w-proj/" + sid + ".jsonl";
  write_file(path, lines);
  cli.index();
  const Json j = cli.json({"trace", "u2"});
  CHECK(chain_uuids(j["matches"][0]) == reference_chain(path, "u2"));
  CHECK(chain_uuids(j["matches"][0]) == std::vector<std::string>{"u1", "a1", "u2"});
  CHECK(j["matches"][0]["chain_end"].s == "root");
  // u3's parent chain ends at a line that is not a message: said, not hidden.
  const Json k = cli.json({"trace", "u3"});
  CHECK(chain_uuids(k["matches"][0]) == std::vector<std::string>{"u3"});
  CHECK(k["matches"][0]["chain_end"].s == "missing-parent");
  CHECK(k["matches"][0]["chain_end_uuid"].s == "ss1");
}

TEST_CASE("trace/context: a chain that loops is cut and says so", "[thread]") {
  Cli cli({}, false);
  const std::string sid = "c7c1e000-0000-4000-8000-000000000001";
  std::string lines = claude_user(sid, "x1", "x3", "one", ts_at(1));
  lines += claude_assistant(sid, "x2", "x1", R"([{"type":"text","text":"two"}])", ts_at(2));
  lines += claude_user(sid, "x3", "x2", "three", ts_at(3));
  lines += claude_user(sid, "self", "self", "its own parent", ts_at(4));
  write_file(cli.src + "/-w-proj/" + sid + ".jsonl", lines);
  cli.index();
  const Json t = cli.json({"trace", "x3"});
  CHECK(chain_uuids(t["matches"][0]) == std::vector<std::string>{"x1", "x2", "x3"});
  CHECK(t["matches"][0]["chain_end"].s == "cycle");
  CHECK(t["matches"][0]["chain_end_uuid"].s == "x3");
  const Json c = cli.json({"context", "x2"});
  CHECK(c["matches"][0]["ancestors"].a.size() == 2);
  CHECK(c["matches"][0]["chain_end"].s == "cycle");
  const Json s = cli.json({"trace", "self"});
  CHECK(chain_uuids(s["matches"][0]) == std::vector<std::string>{"self"});
  CHECK(s["matches"][0]["chain_end"].s == "cycle");
  for (const char* f : {"jsonl", "text"}) CHECK(cli.run({"trace", "x3"}, f).exit_code == 0);
}

TEST_CASE("context: a uuid in two sessions lists both; --session picks one; unknown is exit 2", "[thread]") {
  // A resumed session copies history: the same lines under another session file.
  Cli cli({kAlex});
  const std::string copy_id = "1b3e6441-0000-4000-8000-00000000c0b1";
  copy_file_to(cli.path(kAlex), cli.src + "/-Users-alex-workspace-cli/" + copy_id + ".jsonl");
  cli.index();
  std::string uuid;
  for (const auto& r : raw_lines(cli.path(kAlex)))
    if (is_message(r)) uuid = r.uuid;
  const Json both = cli.json({"context", uuid});
  REQUIRE(both["matches"].a.size() == 2);
  std::set<std::string> sids;
  for (const auto& m : both["matches"].a) sids.insert(m["session"]["session_id"].s);
  CHECK(sids == std::set<std::string>{kAlexId, copy_id});
  const Json one = cli.json({"context", uuid, "--session", copy_id.substr(0, 14)});
  REQUIRE(one["matches"].a.size() == 1);
  CHECK(one["matches"][0]["session"]["session_id"].s == copy_id);
  CHECK(cli.json({"trace", uuid})["matches"].a.size() == 2);

  RunResult none = cli.run({"context", "00000000-dead-beef-0000-000000000000"});
  CHECK(none.exit_code == 2);
  CHECK(parse(none.err)["error"]["kind"].s == "unknown-message");
  CHECK(cli.run({"trace", "00000000-dead-beef-0000-000000000000"}).exit_code == 2);
  CHECK(cli.run({"context", uuid, "--session", "ffff"}).exit_code == 2);
}

TEST_CASE("context: a subagent's message names its subagent", "[thread]") {
  Cli cli({kBlameDir});
  const std::string agent_file = cli.path(kBlameDir + "/agent-ad47cca.jsonl");
  std::string uuid;
  for (const auto& r : raw_lines(agent_file))
    if (is_message(r)) uuid = r.uuid;
  REQUIRE_FALSE(uuid.empty());
  const Json j = cli.json({"context", uuid});
  REQUIRE(j["matches"].a.size() == 1);
  const Json& m = j["matches"][0];
  CHECK(m["session"]["session_id"].s == kBlameId);
  CHECK(m["message"]["agent_id"].s == "ad47cca");
  REQUIRE(m["subagent"].is_obj());
  CHECK(m["subagent"]["agent_id"].s == "ad47cca");
  CHECK(m["subagent"]["message_count"].i > 0);
  // Its ancestors are the agent file's own chain.
  std::vector<std::string> ancestors;
  for (const auto& a : m["ancestors"].a) ancestors.push_back(a["uuid"].s);
  auto ref = reference_chain(agent_file, uuid);
  std::vector<std::string> want(ref.rbegin() + 1, ref.rend());
  CHECK(ancestors == want);
}

TEST_CASE("trace: a message appended in a later run links across the skipped lines the first run read",
          "[thread]") {
  // The second run reads on from where the first stopped: the links of the attachment and progress
  // lines reach it through the file's stored carry, loaded only for files read again.
  Cli cli({}, false);
  const std::string sid = "7ace0000-0000-4000-8000-000000000002";
  std::string first = claude_user(sid, "v1", "", "first question", ts_at(1));
  first += R"({"type":"attachment","uuid":"vatt","parentUuid":"v1","sessionId":")" + sid + "\"}\n";
  first += R"({"type":"progress","uuid":"vprog","parentUuid":"vatt","sessionId":")" + sid + "\"}\n";
  const std::string path = cli.src + "/-w-proj/" + sid + ".jsonl";
  write_file(path, first);
  cli.index();
  write_file(path, first + claude_assistant(sid, "va1", "vprog", R"([{"type":"text","text":"later answer"}])", ts_at(2)));
  cli.index();
  const Json j = cli.json({"trace", "va1"});
  CHECK(chain_uuids(j["matches"][0]) == std::vector<std::string>{"v1", "va1"});
  CHECK(chain_uuids(j["matches"][0]) == reference_chain(path, "va1"));
}
