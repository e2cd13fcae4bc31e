// Claude Code 2.1.12–2.1.63 repeat a running subagent's messages in the parent's `progress` lines
// (data.type agent_progress). Copies of a project often lack the subagent's own transcript (the
// shared corpus: 7 of the 13 subagents such transcripts name), and then those lines are the only
// record of what it did and read: they are its messages, so `content` finds what `rg` finds in the
// file. Where its transcript exists they change nothing, and they never add tokens.
#include "engine/query/orient.h"
#include "engine/query/search.h"
#include "ingest/claude.h"
#include "ingest/jsonl_reader.h"
#include "tests/index_fixture.h"

namespace {

const std::string kSid = "491e126e-1e71-469c-ade2-fcc8af567c74";
const std::string kProject = "-home-marco-projects-spotter";
const std::string kAgent = "afb92ff";

// A real 2.1.38 transcript whose Task subagent left no transcript (tests/data/claude-progress).
std::string progress_transcript() {
  return std::string(OSEARCH_TEST_DATA) + "/claude-progress/" + kProject + "/" + kSid + ".jsonl";
}

struct Lines {
  std::string without_progress;  // the transcript without its progress lines
  std::string subagent;          // the progress copies as the subagent's own transcript holds them
};

Lines split_progress() {
  Lines out;
  std::string previous;
  const std::string data = read_file(progress_transcript());
  simdjson::dom::parser parser;
  for (size_t at = 0, end; at < data.size(); at = end + 1) {
    end = data.find('\n', at);
    if (end == std::string::npos) end = data.size();
    const std::string line = data.substr(at, end - at);
    simdjson::dom::element obj;
    REQUIRE(parser.parse(line).get(obj) == simdjson::SUCCESS);
    std::string_view type, data_type, inner_json;
    simdjson::dom::element inner;
    if (obj["type"].get_string().get(type) != simdjson::SUCCESS || type != "progress") {
      out.without_progress += line + "\n";
      continue;
    }
    if (obj["data"]["type"].get_string().get(data_type) != simdjson::SUCCESS || data_type != "agent_progress") continue;
    REQUIRE(obj["data"]["message"].get(inner) == simdjson::SUCCESS);
    std::string uuid(inner["uuid"].get_string().value());
    std::string copy = simdjson::minify(inner);
    copy.pop_back();  // '}'
    copy += R"(,"sessionId":")" + kSid + R"(","isSidechain":true,"agentId":")" + kAgent + R"(","parentUuid":)" +
            (previous.empty() ? std::string("null") : "\"" + previous + "\"") + "}";
    out.subagent += copy + "\n";
    previous = uuid;
  }
  return out;
}

std::set<std::string> content_sessions(const std::string& idx, const std::string& word) {
  IndexReader reader(idx);
  Filters f;
  f.limit = 100;
  ContentOptions o;
  o.patterns = {word};
  o.fixed = true;
  std::set<std::string> out;
  for (const auto& h : run_content(reader, f, o).hits) out.insert(h.session.id);
  return out;
}

// What a session's messages say, whichever file and line they were read from.
std::multiset<std::string> described(const std::string& idx) {
  std::multiset<std::string> out;
  for (const auto& m : session_messages(idx, kSid))
    out.insert(m.rec.uuid + "|" + m.rec.agent_id + "|" + role_name(m.rec.role) + "|" + (m.rec.is_sidechain ? "s" : "") +
               "|" + m.text);
  return out;
}

}  // namespace

TEST_CASE("claude: a subagent's messages from its parent's progress lines", "[claude][progress]") {
  JsonlReader reader;
  FileCarry carry;
  std::vector<Message> copies, main;
  std::set<std::string> progress_uuids;  // the progress lines' own
  REQUIRE(reader.read(progress_transcript(), 0, [&](simdjson::dom::element obj, uint64_t) {
                  std::string_view type, uuid;
                  if (obj["type"].get_string().get(type) == simdjson::SUCCESS && type == "progress" &&
                      obj["uuid"].get_string().get(uuid) == simdjson::SUCCESS)
                    progress_uuids.insert(std::string(uuid));
                  LineRecords rec;
                  parse_claude_object(obj, rec, carry);
                  for (auto& m : rec.messages) (m.from_progress ? copies : main).push_back(std::move(m));
                }).ok);
  REQUIRE(copies.size() == 19);
  CHECK(main.size() == 48);
  std::set<std::string> uuids;
  for (const Message& m : copies) {
    CHECK(m.agent_id == kAgent);
    CHECK(m.is_sidechain);
    CHECK(m.timestamp_ms > 0);
    CHECK_FALSE(m.usage.any());  // ccusage counts none of these lines
    CHECK(m.api_message_id.empty());
    CHECK(progress_uuids.count(m.uuid) == 0);  // the subagent's message's uuid, not the line's
    uuids.insert(m.uuid);
  }
  CHECK(uuids.size() == 19);
  CHECK(copies[0].role == Role::User);
  CHECK(copies[0].text.starts_with("Draft bead content for setting up Credo"));
  CHECK(copies[1].role == Role::Assistant);
  REQUIRE(copies[1].tool_calls.size() == 1);
  CHECK(copies[1].tool_calls[0].name == "Read");
  CHECK(copies[2].content_type == ContentType::ToolResult);
  CHECK(copies[2].text.find("EISDIR") != std::string::npos);
  // A main message whose parent is a progress line links past it (to nothing at the session's start).
  size_t linked = 0, to_message = 0;
  for (const Message& m : main)
    if (progress_uuids.count(m.parent_uuid)) {
      ++linked;
      to_message += !m.logical_parent_uuid.empty();
      CHECK(progress_uuids.count(m.logical_parent_uuid) == 0);
    }
  CHECK(linked == 2);
  CHECK(to_message == 1);
  {
    // An agent_progress line between two messages of the main thread is a link too.
    FileCarry c;
    simdjson::dom::parser parser;
    std::vector<Message> got;
    for (const std::string& line : std::vector<std::string>{
             std::string(R"({"type":"assistant","uuid":"a-1","sessionId":"s","timestamp":"2026-02-12T16:02:40.000Z","message":{"role":"assistant","content":[{"type":"text","text":"go"}]}})"),
          std::string(R"({"type":"progress","uuid":"p-1","parentUuid":"a-1","sessionId":"s","timestamp":"2026-02-12T16:02:41.000Z","data":{"type":"agent_progress","agentId":"a9","message":{"type":"user","uuid":"i-1","timestamp":"2026-02-12T16:02:41.000Z","message":{"role":"user","content":"sub prompt"}}}})"),
          std::string(R"({"type":"user","uuid":"u-1","parentUuid":"p-1","sessionId":"s","timestamp":"2026-02-12T16:02:42.000Z","message":{"role":"user","content":"next"}})")}) {
      simdjson::dom::element obj;
      REQUIRE(parser.parse(line).get(obj) == simdjson::SUCCESS);
      LineRecords rec;
      parse_claude_object(obj, rec, c);
      for (auto& m : rec.messages) got.push_back(std::move(m));
    }
    REQUIRE(got.size() == 3);
    CHECK(got[1].from_progress);
    CHECK(got[1].parent_uuid.empty());
    CHECK(got[1].logical_parent_uuid.empty());
    CHECK(got[2].parent_uuid == "p-1");
    CHECK(got[2].logical_parent_uuid == "a-1");
  }

  // Not a subagent's message: other progress, no agent id, no inner message, an inner line of
  // another type.
  const auto kept = [](const std::string& data) {
    LineRecords rec;
    simdjson::dom::parser parser;
    const std::string line = R"({"type":"progress","uuid":"p-1","sessionId":"s","timestamp":"2026-02-12T16:02:48.183Z","data":)" + data + "}";
    simdjson::dom::element obj;
    REQUIRE(parser.parse(line).get(obj) == simdjson::SUCCESS);
    return parse_claude_object(obj, rec) && !rec.messages.empty();
  };
  const std::string inner = R"({"type":"user","uuid":"i-1","timestamp":"2026-02-12T16:02:48.183Z","message":{"role":"user","content":"hello"}})";
  CHECK(kept(R"({"type":"agent_progress","agentId":"a1","message":)" + inner + "}"));
  CHECK_FALSE(kept(R"({"type":"hook_progress","agentId":"a1","message":)" + inner + "}"));
  CHECK_FALSE(kept(R"({"type":"agent_progress","message":)" + inner + "}"));
  CHECK_FALSE(kept(R"({"type":"agent_progress","agentId":"a1"})"));
  CHECK_FALSE(kept(R"({"type":"agent_progress","agentId":"a1","message":{"type":"system","uuid":"i-1"}})"));
}

TEST_CASE("index: a subagent without a transcript is found through its parent's progress lines", "[index][progress]") {
  TempDir tmp("progress");
  const std::string src = tmp / "src", idx = tmp / "idx", bare_src = tmp / "bare", bare = tmp / "bare-idx";
  const Lines lines = split_progress();
  write_file(src + "/" + kProject + "/" + kSid + ".jsonl", read_file(progress_transcript()));
  write_file(bare_src + "/" + kProject + "/" + kSid + ".jsonl", lines.without_progress);
  index_tree(idx, src);
  index_tree(bare, bare_src);

  const auto messages = session_messages(idx, kSid);
  CHECK(messages.size() == 48 + 19);
  CHECK(std::count_if(messages.begin(), messages.end(), [](const StoredMessage& m) {
          return m.rec.agent_id == kAgent && m.rec.is_sidechain;
        }) == 19);
  // What only the subagent read: found, as rg finds it in the file.
  CHECK(content_sessions(idx, "EISDIR") == std::set<std::string>{kSid});
  CHECK(content_sessions(idx, "Sibling tool call errored") == std::set<std::string>{kSid});
  CHECK(content_sessions(bare, "EISDIR").empty());
  // No tokens: the same as without the progress lines.
  const auto with = all_sessions(idx), without = all_sessions(bare);
  REQUIRE(with.count(kSid));
  REQUIRE(without.count(kSid));
  CHECK(tokens_str(with.at(kSid).tokens) == tokens_str(without.at(kSid).tokens));
  CHECK(with.at(kSid).message_count == without.at(kSid).message_count + 19);
  CHECK(index_ok(idx));
  // The subagent lists its messages, and no token count: the copies carry none.
  {
    IndexReader reader(idx);
    Filters f;
    const SubagentList agents = run_subagents(reader, f);
    REQUIRE(agents.rows.size() == 1);
    CHECK(agents.rows[0].agent.agent_id == kAgent);
    CHECK(agents.rows[0].agent.message_count == 19);
    CHECK(agents.rows[0].duration_ms().has_value());
    CHECK_FALSE(agents.rows[0].total_tokens().has_value());
  }

  // A second run reads nothing again.
  IndexSummary again = index_tree(idx, src);
  CHECK(again.new_messages == 0);
  CHECK(session_messages(idx, kSid).size() == 48 + 19);
}

TEST_CASE("index: a subagent's transcript read after its parent's progress copies counts its tokens", "[index][progress]") {
  // The copies were stored first (the transcript written later, or copied in later): its lines are
  // the same messages, and their usage still counts, once per API message.
  TempDir tmp("progress-late");
  const Lines lines = split_progress();
  const std::string src = tmp / "src", idx = tmp / "idx", bare_src = tmp / "bare", bare = tmp / "bare-idx";
  const std::string layout = "/" + kSid + "/subagents/agent-" + kAgent + ".jsonl";
  write_file(src + "/" + kProject + "/" + kSid + ".jsonl", read_file(progress_transcript()));
  index_tree(idx, src);
  const auto before = all_sessions(idx).at(kSid).tokens;
  write_file(src + "/" + kProject + layout, lines.subagent);
  index_tree(idx, src);
  write_file(bare_src + "/" + kProject + "/" + kSid + ".jsonl", lines.without_progress);
  write_file(bare_src + "/" + kProject + layout, lines.subagent);
  index_tree(bare, bare_src);
  CHECK(described(idx) == described(bare));
  const auto with = all_sessions(idx), without = all_sessions(bare);
  CHECK(tokens_str(with.at(kSid).tokens) == tokens_str(without.at(kSid).tokens));
  CHECK(tokens_str(with.at(kSid).tokens) != tokens_str(before));
  // Read again from scratch: the same.
  const std::string again = tmp / "again";
  index_tree(again, src);
  CHECK(tokens_str(all_sessions(again).at(kSid).tokens) == tokens_str(with.at(kSid).tokens));
  CHECK(index_ok(idx));
}

TEST_CASE("index: with the subagent's transcript, its parent's progress lines change nothing", "[index][progress]") {
  TempDir tmp("progress-both");
  const Lines lines = split_progress();
  // Its transcript in each layout: nested (2.1.17 on) and beside the parent (older).
  for (const std::string& layout : std::vector<std::string>{"/" + kSid + "/subagents/agent-" + kAgent + ".jsonl", "/agent-" + kAgent + ".jsonl"}) {
    INFO("subagent transcript at <project>" << layout);
    const std::string src = tmp / ("src" + std::to_string(layout.size())), idx = src + "-idx";
    const std::string bare_src = src + "-bare", bare = src + "-bare-idx";
    write_file(src + "/" + kProject + "/" + kSid + ".jsonl", read_file(progress_transcript()));
    write_file(src + "/" + kProject + layout, lines.subagent);
    write_file(bare_src + "/" + kProject + "/" + kSid + ".jsonl", lines.without_progress);
    write_file(bare_src + "/" + kProject + layout, lines.subagent);
    index_tree(idx, src);
    index_tree(bare, bare_src);
    // The same messages as without the progress lines: the transcript's, each once.
    CHECK(described(idx) == described(bare));
    CHECK(session_messages(idx, kSid).size() == 48 + 19);
    const auto with = all_sessions(idx), without = all_sessions(bare);
    CHECK(tokens_str(with.at(kSid).tokens) == tokens_str(without.at(kSid).tokens));
    CHECK(content_sessions(idx, "EISDIR") == std::set<std::string>{kSid});
    IndexReader reader(idx);
    const SubagentList agents = run_subagents(reader, Filters{});
    REQUIRE(agents.rows.size() == 1);
    CHECK(agents.rows[0].agent.message_count == 19);
    CHECK(agents.rows[0].total_tokens().has_value());  // its transcript's usage
  }
}
