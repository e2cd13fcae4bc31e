// Issue 7, the ingest part, end to end through the built CLI: lines with repairable defects are
// indexed (and counted as repaired), over-long identifiers and paths never become unbounded keys,
// big files are committed in bounded batches, and over-long lines are skipped and reported.
#include <algorithm>
#include <string>
#include <vector>

#include "engine/index/indexer.h"
#include "engine/index/ingest_batch.h"
#include "engine/index/parse_ahead.h"
#include "tests/cli_fixture.h"

using namespace osearch;

namespace {

// A Claude Code user line whose content is `raw_text`, inserted as is (already JSON-escaped, or
// deliberately not).
std::string raw_user(const std::string& sid, const std::string& uuid, const std::string& raw_text,
                     const std::string& extra = "", const std::string& parent = "") {
  return R"({"parentUuid":)" + (parent.empty() ? std::string("null") : "\"" + parent + "\"") +
         R"(,"isSidechain":false,"type":"user","cwd":"/w/proj","sessionId":")" + sid + R"(",)" + extra +
         R"("message":{"role":"user","content":")" + raw_text + R"("},"uuid":")" + uuid +
         R"(","timestamp":"2026-03-01T10:00:00.000Z"})" + "\n";
}

std::string tool_use_line(const std::string& sid, const std::string& uuid, const std::string& msg_id,
                          const std::string& tool_id, const std::string& raw_command, const std::string& extra = "") {
  return R"({"parentUuid":null,"isSidechain":false,"type":"assistant","cwd":"/w/proj","sessionId":")" + sid +
         R"(",)" + extra + R"("message":{"id":")" + msg_id +
         R"(","model":"claude-test","role":"assistant","content":[{"type":"tool_use","id":")" + tool_id +
         R"(","name":"Bash","input":{"command":")" + raw_command +
         R"("}}],"usage":{"input_tokens":10,"output_tokens":5}},"uuid":")" + uuid +
         R"(","timestamp":"2026-03-01T10:00:01.000Z"})" + "\n";
}

std::string tool_result_line(const std::string& sid, const std::string& uuid, const std::string& tool_id,
                             const std::string& output) {
  return R"({"parentUuid":null,"isSidechain":false,"type":"user","cwd":"/w/proj","sessionId":")" + sid +
         R"(","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":")" + tool_id +
         R"(","content":")" + output + R"("}]},"uuid":")" + uuid + R"(","timestamp":"2026-03-01T10:00:02.000Z"})" + "\n";
}

// An empty source tree and its index (cli_fixture.h's Cli; each test indexes when it is ready).
struct Tree : Cli {
  Tree() : Cli({}, false) {}
  size_t sessions_found(const std::vector<std::string>& args) const { return json(args)["results"].a.size(); }
};

}  // namespace

TEST_CASE("index: each kind of repaired line is indexed, counted and searchable", "[hardening][ingest][repair]") {
  Tree t;
  const std::string sid = "11111111-2222-3333-4444-555555555555";
  const std::string path = t.src + "/-w-proj/" + sid + ".jsonl";
  fs::create_directories(t.src + "/-w-proj");
  std::string l3 = raw_user(sid, "u3", "gammanul end");
  l3.insert(l3.size() - 1, std::string(4, '\0'));  // NUL padding before the newline
  const std::string data =
      raw_user(sid, "u1", "alphasurrogate here \\ud800 end") +                       // (b) lone surrogate
      raw_user(sid, "u2", "betalatin caf\xE9 end") +                                  // (a) raw invalid UTF-8
      l3 +                                                                            // (c) NULs
      raw_user(sid, "u4", "deltanumber end", R"("costUSD":1e999,)") +                 // (d) 1e999
      raw_user(sid, "u5", "epsilonbigint end", R"("n":123456789012345678901234567890,)") +  // (d) > 64 bits
      tool_use_line(sid, "u6", "msg_6", "toolu_rep6", "zetacommand \\udc00 --flag") +  // a tool call survives
      R"({"type":"user","message":)" "\n" +                                           // still bad
      std::string(32, '\0');                                                          // NUL-only tail
  write_file(path, data);

  RunResult r = t.run({"index", "--verbose"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  Json s = parse(r.out);
  CHECK(s["repaired_lines"].i == 6);
  CHECK(s["bad_lines"].i == 1);
  CHECK(s["oversized_lines"].i == 0);
  CHECK(s["messages"].i == 6);
  CHECK(s["tool_calls"].i == 1);
  bool named = false;
  for (const auto& p : s["problems"].a) named |= p.s.find(path) != std::string::npos && p.s.find("6 repaired lines") != std::string::npos;
  CHECK(named);
  CHECK(r.err.find("6 repaired lines") != std::string::npos);

  for (const char* word : {"alphasurrogate", "betalatin", "gammanul", "deltanumber", "epsilonbigint", "zetacommand"}) {
    INFO(word);
    CHECK(t.sessions_found({"keyword", word}) == 1);
    CHECK(t.sessions_found({"content", word}) == 1);
  }
  // The replacement character is in the stored text, next to the words.
  Json hit = t.json({"content", "betalatin caf\xEF\xBF\xBD end", "--by", "message"});
  CHECK(hit["results"].a.size() == 1);

  // The text summary says it too; a second run reads nothing again.
  RunResult text = t.run({"index"}, "text");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("0 repaired lines") != std::string::npos);
  CHECK(t.json({"list"})["results"].a.size() == 1);
}

TEST_CASE("index: over-long ids and a deep path never make an unbounded key", "[hardening][ingest][keys]") {
  Tree t;
  // A path over 511 bytes under a deep root: nested directories of 200 bytes each.
  std::string root = t.src + "/" + std::string(200, 'd') + "/" + std::string(200, 'e');
  t.src = root;  // the source root itself is deep
  const std::string project = "-w-" + std::string(200, 'p');
  const std::string sid = std::string(200, 's');  // a file name: at most 255 bytes
  fs::create_directories(root + "/" + project);
  const std::string main_path = root + "/" + project + "/" + sid + ".jsonl";
  REQUIRE(main_path.size() > 700);
  const std::string long_uuid = std::string(600, 'u');
  const std::string long_parent = std::string(600, 'v');
  const std::string long_msg_id = "msg_" + std::string(600, 'm');
  const std::string long_tool_id = "toolu_" + std::string(600, 't');
  const std::string long_agent = std::string(600, 'a');
  const std::string long_leaf = std::string(599, 'u') + "x";  // differs only at the end from long_uuid
  std::string data = raw_user(sid, long_uuid, "longidprompt words", R"("agentId":")" + long_agent + "\",", long_parent) +
                     tool_use_line(sid, long_uuid + "2", long_msg_id, long_tool_id, "longidcommand") +
                     tool_use_line(sid, long_uuid + "3", long_msg_id, long_tool_id + "b", "secondchunk") +
                     tool_result_line(sid, long_uuid + "4", long_tool_id, "longidoutput") +
                     R"({"type":"summary","summary":"Long leaf title","leafUuid":")" + long_uuid + "4\"}\n" +
                     R"({"type":"summary","summary":"Wrong leaf title","leafUuid":")" + long_leaf + "\"}\n";
  write_file(main_path, data);
  // A subagent with a long id, and a root agent file whose lines name a 600-byte session.
  fs::create_directories(root + "/" + project + "/" + sid + "/subagents");
  write_file(root + "/" + project + "/" + sid + "/subagents/agent-" + std::string(200, 'g') + ".jsonl",
             raw_user(sid, long_uuid + "5", "longidsubagent words"));
  const std::string long_sid = std::string(600, 'S');
  write_file(root + "/" + project + "/agent-root.jsonl", raw_user(long_sid, long_uuid + "6", "longidrootagent words"));

  auto check_all = [&] {
    for (const char* word : {"longidprompt", "longidcommand", "longidoutput", "longidsubagent", "longidrootagent"}) {
      INFO(word);
      CHECK(t.sessions_found({"keyword", word}) == 1);
      CHECK(t.sessions_found({"content", word}) == 1);
    }
    CHECK(t.json({"list"})["results"].a.size() == 2);
    // Filters on the full ids (bounded alike on the query side) match exactly.
    CHECK(t.sessions_found({"list", "--session", sid}) == 1);
    CHECK(t.sessions_found({"list", "--session", long_sid}) == 1);
    CHECK(t.sessions_found({"keyword", "longidrootagent", "--session", long_sid}) == 1);
    CHECK(t.sessions_found({"keyword", "longidrootagent", "--session", sid}) == 0);
    CHECK(t.sessions_found({"keyword", "session:" + long_sid + " longidrootagent"}) == 1);
    CHECK(t.sessions_found({"keyword", "session:" + long_sid + " longidprompt"}) == 0);
    CHECK(t.sessions_found({"content", "longidprompt", "--project", std::string(200, 'p')}) == 1);
    CHECK(t.sessions_found({"keyword", "longidcommand", "--tool", "Bash"}) == 1);
    Json main = t.json({"list", "--session", sid});
    REQUIRE(main["results"].a.size() == 1);
    CHECK(main["results"][0]["title"].s == "Long leaf title");  // leafUuid resolved, the near miss not
  };
  Json first = t.json({"index"});
  CHECK(first["messages"].i == 6);
  CHECK(first["tool_calls"].i == 2);
  check_all();
  Json again = t.json({"index"});
  CHECK(again["new_messages"].i == 0);
  // Appending to the deep file continues from its stored offset.
  append_file(main_path, raw_user(sid, long_uuid + "7", "longidappended words"));
  Json more = t.json({"index"});
  CHECK(more["new_messages"].i == 1);
  CHECK(t.sessions_found({"keyword", "longidappended"}) == 1);
  Json full = t.json({"index", "--full"});
  CHECK(full["messages"].i == 7);
  check_all();
}

TEST_CASE("index: over-long branch, model and tool names make bounded terms that filters still match",
          "[hardening][ingest][keys]") {
  Tree t;
  const std::string sid = "44444444-2222-3333-4444-555555555555";
  fs::create_directories(t.src + "/-w-proj");
  const std::string branch = "Feature/" + std::string(600, 'B');
  const std::string model = "claude-" + std::string(600, 'M');
  const std::string tool = "mcp__" + std::string(600, 'T');
  std::string line = R"({"parentUuid":null,"isSidechain":false,"type":"assistant","cwd":"/w/proj","sessionId":")" + sid +
                     R"(","gitBranch":")" + branch + R"(","message":{"id":"m1","model":")" + model +
                     R"(","role":"assistant","content":[{"type":"text","text":"longtermprose"},{"type":"tool_use","id":"toolu_x","name":")" +
                     tool + R"(","input":{"q":"longtermtool"}}]},"uuid":"a1","timestamp":"2026-03-01T10:00:01.000Z"})" + "\n";
  write_file(t.src + "/-w-proj/" + sid + ".jsonl", raw_user(sid, "u1", "longtermprompt") + line);
  Json s = t.json({"index"});
  CHECK(s["messages"].i == 2);
  CHECK(t.sessions_found({"keyword", "longtermprose", "--branch", branch}) == 1);
  CHECK(t.sessions_found({"keyword", "longtermprose", "--branch", branch + "x"}) == 0);
  CHECK(t.sessions_found({"keyword", "longtermtool", "--tool", tool}) == 1);
  CHECK(t.sessions_found({"keyword", "longtermtool", "--tool", tool + "x"}) == 0);
  CHECK(t.sessions_found({"keyword", "longtermprose", "--model", model}) == 1);
  CHECK(t.sessions_found({"list", "--branch", branch}) == 1);
}

TEST_CASE("index: a file of many tiny lines is committed in batches, every line once", "[hardening][ingest][memory]") {
  Tree t;
  const std::string sid = "22222222-2222-3333-4444-555555555555";
  fs::create_directories(t.src + "/-w-proj");
  const size_t n = IngestBatch::kMaxBatchLines * 2 + 345;
  std::string data;
  for (size_t i = 0; i < n; ++i)
    data += R"({"type":"user","sessionId":")" + sid + R"(","message":{"role":"user","content":"w)" + std::to_string(i) +
            R"("},"uuid":"u)" + std::to_string(i) + "\"}\n";
  write_file(t.src + "/-w-proj/" + sid + ".jsonl", data);
  IndexSummary s = run_index(t.idx, {SourceRoot{"claude", t.src}}, IndexOptions{});
  CHECK(s.new_messages == n);
  CHECK(s.messages == n);
  CHECK(s.bad_lines == 0);
  IndexSummary again = run_index(t.idx, {SourceRoot{"claude", t.src}}, IndexOptions{});
  CHECK(again.new_messages == 0);
  CHECK(again.files_skipped == 1);
  CHECK(t.sessions_found({"keyword", "w" + std::to_string(n - 1)}) == 1);
}

TEST_CASE("parse ahead: chunks end at line boundaries with the counts so far", "[hardening][ingest][memory]") {
  TempDir tmp("hard-ingest");
  const std::string path = tmp / "t.jsonl";
  std::string data;
  std::vector<uint64_t> starts;
  for (int i = 0; i < 10000; ++i) {
    starts.push_back(data.size());
    if (i % 1000 == 7) data += "not json\n";
    starts.push_back(data.size());
    data += R"({"type":"user","sessionId":"s","message":{"role":"user","content":"x"},"uuid":"u)" + std::to_string(i) + "\"}\n";
  }
  write_file(path, data);
  ParseAhead ahead({ParseJob{path, 0, true}}, 1u << 20);
  ParsedChunk chunk;
  size_t chunks = 0, lines = 0;
  uint64_t last_end = 0, last_lines = 0;
  bool last_seen = false;
  while (ahead.next(chunk)) {
    ++chunks;
    lines += chunk.lines.size();
    if (!chunk.lines.empty()) CHECK(chunk.lines.front().offset >= last_end);
    const bool at_line_start = std::find(starts.begin(), starts.end(), chunk.result.end_offset) != starts.end() ||
                               chunk.result.end_offset == data.size();
    CHECK(at_line_start);
    CHECK(chunk.result.end_offset >= last_end);
    CHECK(chunk.result.lines >= last_lines);
    if (!chunk.lines.empty()) CHECK(chunk.lines.back().offset < chunk.result.end_offset);
    last_end = chunk.result.end_offset;
    last_lines = chunk.result.lines;
    last_seen = chunk.last;
  }
  CHECK(last_seen);
  CHECK(chunks > 1);
  CHECK(lines == 10000);
  CHECK(last_end == data.size());
  CHECK(last_lines == 10010);
}

TEST_CASE("index: an oversized line is skipped, counted and named; a big one under the limit is indexed",
          "[hardening][ingest][oversized]") {
  Tree t;
  const std::string sid = "33333333-2222-3333-4444-555555555555";
  const std::string path = t.src + "/-w-proj/" + sid + ".jsonl";
  fs::create_directories(t.src + "/-w-proj");
  // 12 MB of one tool output (more than the reader's 8 MB chunk), between two small lines.
  std::string big_output = "hugeoutputstart " + std::string(12u << 20, 'z') + " hugeoutputend";
  write_file(path, raw_user(sid, "u1", "beforehuge") + tool_result_line(sid, "u2", "toolu_1", big_output) +
                       raw_user(sid, "u3", "afterhuge"));
  {
    IndexOptions small;
    small.max_line_bytes = 1u << 20;
    TempDir other("hard-ingest");
    IndexSummary s = run_index(other / "index", {SourceRoot{"claude", t.src}}, small);
    CHECK(s.oversized_lines == 1);
    CHECK(s.new_messages == 2);
    bool named = false;
    for (const auto& p : s.problems) named |= p.find(path) != std::string::npos && p.find("1 oversized line") != std::string::npos;
    CHECK(named);
  }
  RunResult r = t.run({"index", "--verbose"});
  REQUIRE(r.exit_code == 0);
  Json s = parse(r.out);
  CHECK(s["oversized_lines"].i == 0);
  CHECK(s["messages"].i == 3);
  for (const char* word : {"beforehuge", "hugeoutputstart", "afterhuge"}) {
    INFO(word);
    CHECK(t.sessions_found({"keyword", word}) == 1);
  }
  CHECK(t.sessions_found({"content", "hugeoutputend"}) == 1);
}
