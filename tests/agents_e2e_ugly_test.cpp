// Mixed-agent end to end, ugly inputs (issue 8): 500 KB tool outputs, empty files, garbage and
// unknown lines, base64 images, files without a final newline — each read or skipped and counted,
// never a crash, through the `osearch` binary.
#include "tests/agents_e2e_fixture.h"

using namespace agents_e2e;

namespace {

std::string big_output(size_t bytes, const std::string& tail_word) {
  std::string s;
  s.reserve(bytes + 64);
  for (size_t i = 0; s.size() < bytes; ++i) s += "line " + std::to_string(i) + " of a long build log\\n";
  s += "the end " + tail_word;
  return s;
}

std::string entry_line(const std::string& id, const std::string& parent, const std::string& message) {
  return R"({"type":"message","id":")" + id + R"(","parentId":")" + parent +
         R"(","timestamp":"2026-11-05T10:00:01.000Z","message":)" + message + "}\n";
}

}  // namespace

TEST_CASE("agents: 500 KB tool outputs are found by a word at their end", "[agents]") {
  Mixed fx(false);
  const std::string pi_big = fx.pi + "/sessions/--work-big--/2026-11-05T10-00-00-000Z_01a0b1c2-0000-7000-8000-00000000e001.jsonl";
  write_file(pi_big,
             R"({"type":"session","version":3,"id":"01a0b1c2-0000-7000-8000-00000000e001","timestamp":"2026-11-05T10:00:00.000Z","cwd":"/work/big"})"
             "\n" +
                 entry_line("b0000001", "", R"({"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"make"}}],"provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2},"stopReason":"toolUse","timestamp":1})") +
                 entry_line("b0000002", "b0000001",
                            R"({"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":")" +
                                big_output(600 * 1024, "pibigtailword") + R"("}],"isError":false,"timestamp":2})"));
  const std::string omp_big = fx.omp + "/sessions/-work-big/2026-11-05T10-00-00-000Z_01a0b1c2-0000-7000-8000-00000000e002.jsonl";
  write_file(omp_big,
             R"({"type":"session","version":3,"id":"01a0b1c2-0000-7000-8000-00000000e002","timestamp":"2026-11-05T10:00:00.000Z","cwd":"/work/big"})"
             "\n" +
                 entry_line("b0000001", "", R"({"role":"bashExecution","command":"make","output":")" +
                                                big_output(500 * 1000, "ompbigtailword") +
                                                R"(","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1})"));
  const std::string cx_big = fx.codex + "/sessions/2026/11/05/rollout-2026-11-05T10-00-00-01a0b1c2-0000-7000-8000-00000000e003.jsonl";
  write_file(cx_big,
             R"({"timestamp":"2026-11-05T10:00:00.000Z","type":"session_meta","payload":{"id":"01a0b1c2-0000-7000-8000-00000000e003","cwd":"/work/big"}})"
             "\n"
             R"({"timestamp":"2026-11-05T10:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"k1"}})"
             "\n"
             R"({"timestamp":"2026-11-05T10:00:02.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"k1","output":")" +
                 big_output(550 * 1024, "codexbigtailword") + "\"}}\n");
  fx.index();
  for (const auto& [word, agent] : std::vector<std::pair<std::string, std::string>>{
           {"pibigtailword", "pi"}, {"ompbigtailword", "omp"}, {"codexbigtailword", "codex"}}) {
    for (const char* action : {"keyword", "content"}) {
      INFO(action << " " << word);
      const Json j = fx.json({action, word});
      REQUIRE(j["total"].i == 1);
      CHECK(j["results"][0]["agent"].s == agent);
      CHECK(j["results"][0]["project_path"].s == "/work/big");
    }
  }
}

TEST_CASE("agents: empty, garbage and odd files are skipped or read, never a crash", "[agents]") {
  Mixed fx(false);
  // Empty files of every agent, compressed and not.
  write_file(fx.omp + "/sessions/-work-empty/2026-11-06T10-00-00-000Z_01a0b1c2-0000-7000-8000-0000000f0001.jsonl", "");
  write_file(fx.pi + "/sessions/--work-empty--/2026-11-06T10-00-00-000Z_01a0b1c2-0000-7000-8000-0000000f0002.jsonl", "");
  write_file(fx.codex + "/sessions/2026/11/06/rollout-2026-11-06T10-00-00-01a0b1c2-0000-7000-8000-0000000f0003.jsonl", "");
  write_file(fx.codex + "/sessions/2026/11/06/rollout-2026-11-06T10-00-01-01a0b1c2-0000-7000-8000-0000000f0004.jsonl.zst", "");
  // A .zst that is not zstd at all.
  write_file(fx.codex + "/sessions/2026/11/06/rollout-2026-11-06T10-00-02-01a0b1c2-0000-7000-8000-0000000f0005.jsonl.zst",
             "this is not a zstd frame\n");
  // Garbage between good lines: the good ones are read, the bad ones counted.
  const std::string pi_odd = fx.pi + "/sessions/--work-odd--/2026-11-06T11-00-00-000Z_01a0b1c2-0000-7000-8000-0000000f0006.jsonl";
  write_file(pi_odd,
             R"({"type":"session","version":3,"id":"01a0b1c2-0000-7000-8000-0000000f0006","timestamp":"2026-11-06T11:00:00.000Z","cwd":"/work/odd"})"
             "\nnot json at all\n[1,2,3]\n{\"type\":123,\"id\":[]}\n"
             R"({"type":"message","id":"x1","parentId":null,"timestamp":"not a time","message":{"role":"user","content":7}})"
             "\n"
             R"({"type":"message","id":"x2","parentId":"x1","timestamp":"2026-11-06T11:00:02.000Z","message":{"role":"nobody-knows","content":[{"type":"text","text":"odd pioddword"}]}})"
             "\n"
             R"({"type":"message","id":"x3","parentId":"x2","timestamp":"2026-11-06T11:00:03.000Z","message":{"role":"user","content":[{"type":"text","text":"fine pifineword"},{"type":"image","data":"AAAA","mimeType":"image/png"}]}})"
             "\n");
  const std::string cx_odd = fx.codex + "/sessions/2026/11/06/rollout-2026-11-06T11-00-00-01a0b1c2-0000-7000-8000-0000000f0007.jsonl";
  write_file(cx_odd,
             R"({"timestamp":"2026-11-06T11:00:00.000Z","type":"session_meta","payload":{"id":"01a0b1c2-0000-7000-8000-0000000f0007","cwd":"/work/odd","source":{"subagent":{"other":1}}}})"
             "\n{\"timestamp\":5,\"type\":\"response_item\",\"payload\":\"a string\"}\n"
             R"({"timestamp":"2026-11-06T11:00:01.000Z","type":"event_msg","payload":{"type":"collab_something_new","x":1}})"
             "\n"
             R"({"timestamp":"2026-11-06T11:00:02.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgoAAAA"}]}})"
             "\n"
             R"({"timestamp":"2026-11-06T11:00:03.000Z","type":"event_msg","payload":{"type":"user_message","message":"fine codexfineword"}})"
             "\n{broken");
  RunResult r = fx.run({"index"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const Json summary = parse(r.out);
  CHECK(summary["bad_lines"].i >= 2);  // "not json at all", [1,2,3]
  for (const auto& [word, agent] : std::vector<std::pair<std::string, std::string>>{
           {"pifineword", "pi"}, {"codexfineword", "codex"}}) {
    for (const char* action : {"keyword", "content"}) {
      INFO(action << " " << word);
      const Json j = fx.json({action, word});
      REQUIRE(j["total"].i == 1);
      CHECK(j["results"][0]["agent"].s == agent);
      CHECK(j["results"][0]["project_path"].s == "/work/odd");
    }
  }
  // A role written after the adapter keeps its words (as meta).
  CHECK(fx.json({"keyword", "pioddword", "--include-meta"})["total"].i == 1);
  CHECK(fx.json({"content", "-F", "iVBORw0KGgoAAAA", "--include-meta"})["total"].i == 0);
  // Empty and undecodable files add no session; the two odd files add one each.
  const Json st = fx.json({"status"});
  CHECK(st["agents"]["omp"].i == kSessionCounts.at("omp"));
  CHECK(st["agents"]["pi"].i == kSessionCounts.at("pi") + 1);
  CHECK(st["agents"]["codex"].i == kSessionCounts.at("codex") + 1);
  // Every command still answers.
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"list"}, {"keyword", "fine"}, {"content", "-F", "fine"}}) {
    RunResult q = fx.run(args);
    INFO(Catch::Detail::stringify(args) << "\n" << q.err);
    CHECK(q.exit_code == 0);
  }
}

TEST_CASE("agents: resume hints quote a cwd and a pi session path with spaces and quotes", "[agents]") {
  Mixed fx(false);
  const std::string cwd = "/work/it's my proj";
  const std::string pi_file =
      fx.pi + "/sessions/--work-it's my proj--/2026-11-07T10-00-00-000Z_01a0b1c2-0000-7000-8000-0000000f0100.jsonl";
  const std::string lines =
      R"({"type":"session","version":3,"id":"01a0b1c2-0000-7000-8000-0000000f0100","timestamp":"2026-11-07T10:00:00.000Z","cwd":"/work/it's my proj"})"
      "\n" +
      entry_line("q0000001", "", R"({"role":"user","content":[{"type":"text","text":"quoted piquoteword"}],"timestamp":1})");
  write_file(pi_file, lines);
  write_file(fx.omp + "/sessions/-work-it-s-my-proj/2026-11-07T10-00-00-000Z_01a0b1c2-0000-7000-8000-0000000f0101.jsonl",
             R"({"type":"session","version":3,"id":"01a0b1c2-0000-7000-8000-0000000f0101","timestamp":"2026-11-07T10:00:00.000Z","cwd":"/work/it's my proj"})"
             "\n" +
                 entry_line("q0000001", "", R"({"role":"user","content":[{"type":"text","text":"quoted ompquoteword"}],"timestamp":1})"));
  fx.index();
  const std::string qcwd = R"('/work/it'\''s my proj')";
  for (const char* action : {"keyword", "content"}) {
    const Json pi = fx.json({action, "piquoteword"});
    REQUIRE(pi["total"].i == 1);
    CHECK(pi["results"][0]["resume_hint"].s ==
          "cd " + qcwd + " && pi --session '" + fx.pi + R"(/sessions/--work-it'\''s my proj--/2026-11-07T10-00-00-000Z_01a0b1c2-0000-7000-8000-0000000f0100.jsonl')");
    const Json omp = fx.json({action, "ompquoteword"});
    REQUIRE(omp["total"].i == 1);
    CHECK(omp["results"][0]["resume_hint"].s == "cd " + qcwd + " && omp --resume 01a0b1c2-0000-7000-8000-0000000f0101");
  }
}
