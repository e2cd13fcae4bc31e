// The index (run_index + IndexReader) against SPEC §2 and §7: exact counts on the shared corpus,
// idempotent re-runs, incremental reads of appended bytes only, half-written lines, shrunk /
// replaced / deleted / re-created files, orphan subagents, titles, message and token totals,
// kill -9 recovery compared with a clean build, a concurrent second indexer, file modes, --full
// and bad input. Source trees are built in temp dirs from tests/data/claude (real transcripts)
// plus synthetic files written here.
#include "engine/indexer.h"

#include <catch2/catch.hpp>

#include "tests/utf8_check.h"

#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine/reader.h"
#include "engine/records_store.h"
#include "engine/store.h"
#include "ingest/jsonl_reader.h"
#include "test_util.h"

using namespace osearch;
using namespace osearch_test;

// Xapian errors do not derive from std::exception: name them in failure reports.
CATCH_TRANSLATE_EXCEPTION(const Xapian::Error& e) { return std::string("Xapian::") + e.get_type() + ": " + e.get_msg(); }

namespace {

// ---------------------------------------------------------------------------------------------
// Running the indexer

std::vector<SourceRoot> roots_of(const std::string& src) { return {SourceRoot{"claude", src}}; }

IndexSummary index_tree(const std::string& idx, const std::string& src, IndexOptions opt = {}) {
  return run_index(idx, roots_of(src), opt);
}

IndexOptions full_options() {
  IndexOptions o;
  o.full = true;
  return o;
}

// ---------------------------------------------------------------------------------------------
// Reading the index back

std::string hex(std::string_view s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(d[c >> 4]);
    out.push_back(d[c & 15]);
  }
  return out;
}

std::string tokens_str(const TokenUsage& t) {
  return std::to_string(t.input) + "/" + std::to_string(t.output) + "/" + std::to_string(t.cache_creation) + "/" +
         std::to_string(t.cache_read);
}

std::map<std::string, SessionRec> all_sessions(const std::string& idx) {
  IndexReader r(idx);
  std::map<std::string, SessionRec> out;
  LmdbCursor cur(r.txn(), r.db().sessions);
  for (bool ok = cur.first(); ok; ok = cur.next())
    if (auto s = SessionRec::decode(cur.value())) out.emplace(std::string(cur.key()), std::move(*s));
  return out;
}

std::map<std::string, FileState> all_files(const std::string& idx) {
  IndexReader r(idx);
  std::map<std::string, FileState> out;
  LmdbCursor cur(r.txn(), r.db().files);
  for (bool ok = cur.first(); ok; ok = cur.next())
    if (auto st = FileState::decode(cur.key(), cur.value())) out.emplace(st->path, std::move(*st));
  return out;
}

IndexCounts counts_of(const std::string& idx) { return IndexReader(idx).counts(); }

// Messages of one session, in key order, with their text.
struct StoredMessage {
  MessageRec rec;
  std::string text;
};
std::vector<StoredMessage> session_messages(const std::string& idx, const std::string& sid) {
  IndexReader r(idx);
  std::vector<StoredMessage> out;
  LmdbCursor cur(r.txn(), r.db().messages);
  const std::string pfx = sid + '\0';
  for (bool ok = cur.seek(pfx); ok && cur.key().substr(0, pfx.size()) == pfx; ok = cur.next()) {
    auto m = MessageRec::decode(cur.key(), cur.value());
    REQUIRE(m.has_value());
    StoredMessage sm{*m, std::string(r.message_text(*m))};
    out.push_back(std::move(sm));
  }
  return out;
}

std::optional<StoredMessage> message_by_uuid(const std::string& idx, const std::string& sid, const std::string& uuid) {
  IndexReader r(idx);
  auto key = r.txn().get(r.db().msg_uuid, pair_key(uuid, sid));
  if (!key) return std::nullopt;
  auto m = r.message(*key);
  if (!m) return std::nullopt;
  return StoredMessage{*m, std::string(r.message_text(*m))};
}

// A canonical description of everything a query can see: sessions (title, counts, tokens, flags),
// every message (key, fields, text hash), every tool call key, file offsets and the number of
// Xapian documents. Two indexes of the same sources must have equal fingerprints, however they
// were built (one shot, incrementally, after kill -9, with --full).
std::vector<std::string> fingerprint(const std::string& idx) {
  std::vector<std::string> fp;
  IndexReader r(idx);
  {
    LmdbCursor cur(r.txn(), r.db().sessions);
    for (bool ok = cur.first(); ok; ok = cur.next()) {
      auto s = SessionRec::decode(cur.value());
      REQUIRE(s.has_value());
      std::vector<std::string> sorted_models = s->models;  // a set: its order is not specified
      std::sort(sorted_models.begin(), sorted_models.end());
      std::string models;
      for (const auto& m : sorted_models) models += m + ",";
      // Titles on lines of their own, so a title difference is reported apart from the records.
      fp.push_back("TITLE " + s->id + " title=" + s->title() + " summary=" + s->summary_title);
      fp.push_back("S " + s->id + " project=" + s->project + " path=" + s->jsonl_path +
                   " cwd=" + s->cwd + " mc=" + std::to_string(s->message_count) +
                   " tc=" + std::to_string(s->tool_call_count) + " sub=" + std::to_string(s->subagent_count) +
                   " tok=" + tokens_str(s->tokens) + " main=" + std::to_string(s->has_main) +
                   " del=" + std::to_string(s->source_deleted) + " t=" + std::to_string(s->started_at) + ".." +
                   std::to_string(s->ended_at) + " models=" + models + " custom=" + s->custom_title +
                   " ai=" + s->ai_title + " last=" + s->last_prompt + " first=" + s->first_prompt.substr(0, 200));
    }
  }
  {
    LmdbCursor cur(r.txn(), r.db().messages);
    for (bool ok = cur.first(); ok; ok = cur.next()) {
      auto m = MessageRec::decode(cur.key(), cur.value());
      REQUIRE(m.has_value());
      std::string text(r.message_text(*m));
      std::string ids;
      for (const auto& t : m->tool_call_ids) ids += t + ",";
      fp.push_back("M " + hex(m->key) + " " + m->uuid + " " + m->type + " r=" + role_name(m->role) +
                   " ct=" + content_type_name(m->content_type) + " meta=" + std::to_string(m->is_meta) +
                   " side=" + std::to_string(m->is_sidechain) + " agent=" + m->agent_id +
                   " tok=" + tokens_str(m->usage) + " dur=" + std::to_string(m->turn_duration_ms) +
                   " len=" + std::to_string(text.size()) + " h=" + std::to_string(std::hash<std::string>{}(text)) +
                   " tools=" + ids);
    }
  }
  {
    LmdbCursor cur(r.txn(), r.db().tool_calls);
    for (bool ok = cur.first(); ok; ok = cur.next()) fp.push_back("T " + hex(cur.key()));
  }
  {
    LmdbCursor cur(r.txn(), r.db().files);
    for (bool ok = cur.first(); ok; ok = cur.next()) {
      auto st = FileState::decode(cur.key(), cur.value());
      REQUIRE(st.has_value());
      // (FileState::lines is bookkeeping: a glued line read in two runs counts as two.)
      fp.push_back("F " + st->path + " off=" + std::to_string(st->offset) +
                   " bad=" + std::to_string(st->bad_lines) + " del=" + std::to_string(st->deleted) +
                   " sid=" + st->session_id);
    }
  }
  fp.push_back("X docs=" + std::to_string(r.xapian().get_doccount()));
  return fp;
}

// First differences between two fingerprints, for the failure message ("" when equal).
std::string fingerprint_diff(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::set<std::string> sa(a.begin(), a.end()), sb(b.begin(), b.end());
  std::string out;
  int shown = 0;
  for (const auto& x : sa)
    if (!sb.count(x) && shown++ < 8) out += "  only in got:      " + x.substr(0, 400) + "\n";
  for (const auto& x : sb)
    if (!sa.count(x) && shown++ < 16) out += "  only in expected: " + x.substr(0, 400) + "\n";
  if (out.empty() && a != b) out = "  same lines, different order or multiplicity (" + std::to_string(a.size()) + " vs " +
                                   std::to_string(b.size()) + ")\n";
  return out;
}

// Splits a fingerprint into its title lines and everything else.
std::pair<std::vector<std::string>, std::vector<std::string>> split_titles(const std::vector<std::string>& fp) {
  std::pair<std::vector<std::string>, std::vector<std::string>> out;
  for (const auto& l : fp) (l.rfind("TITLE ", 0) == 0 ? out.first : out.second).push_back(l);
  return out;
}

// The records (sessions, messages, texts, tool calls, file offsets, Xapian documents) and, checked
// apart, the session titles must be those of `expected_fp`.
#define CHECK_SAME_INDEX(got_idx, expected_fp)                                           \
  do {                                                                                   \
    const auto got_parts_ = split_titles(fingerprint(got_idx));                          \
    const auto want_parts_ = split_titles(expected_fp);                                  \
    {                                                                                    \
      const std::string diff_ = fingerprint_diff(got_parts_.second, want_parts_.second); \
      INFO("index records differ from the expected (clean) build:\n" << diff_);          \
      CHECK(diff_.empty());                                                              \
    }                                                                                    \
    {                                                                                    \
      const std::string tdiff_ = fingerprint_diff(got_parts_.first, want_parts_.first);  \
      INFO("session titles differ from the expected (clean) build:\n" << tdiff_);        \
      CHECK(tdiff_.empty());                                                             \
    }                                                                                    \
  } while (0)

// ---------------------------------------------------------------------------------------------
// Source trees

const std::string kB3 = "-Users-user-project/b3edadab-bca0-4054-9b41-f7ffa6941260.jsonl";
const std::string kB3Sid = "b3edadab-bca0-4054-9b41-f7ffa6941260";
const std::string kGlued = "-Users-soph-Work-entire-devenv-cli/130d7b7e-5801-4345-9bd6-f32fd9b8429b.jsonl";
const std::string kWindows = "D--oh-my-posh/88e16f61-d1b7-47a3-84f1-057e0f96521a.jsonl";
const std::string kWindowsSid = "88e16f61-d1b7-47a3-84f1-057e0f96521a";
const std::string kExperimentsSid = "ef958aa1-0e93-49f0-bb71-150f63befcd1";

// Copies the given tests/data/claude entries (files or dirs) into `dst`.
void make_tree(const std::string& dst, const std::vector<std::string>& rels) {
  fs::create_directories(dst);
  for (const auto& rel : rels) copy_subtree(claude_data_dir(), rel, dst);
}

// Copies every project dir of tests/data/claude into `dst`, renamed <slug><suffix>. With a
// `sid_prefix`, main transcripts and session dirs are renamed <prefix><sid> so the copy holds
// sessions of its own (root agent files still name their original sessionId).
void copy_projects(const std::string& dst, const std::string& suffix, const std::string& sid_prefix = "") {
  for (const auto& e : fs::directory_iterator(claude_data_dir())) {
    if (!e.is_directory()) continue;
    const std::string to = dst + "/" + e.path().filename().string() + suffix;
    copy_tree(e.path().string(), to);
    if (sid_prefix.empty()) continue;
    std::vector<fs::path> entries;
    for (const auto& c : fs::directory_iterator(to)) entries.push_back(c.path());
    for (const auto& c : entries) {
      const std::string name = c.filename().string();
      if (name.rfind("agent-", 0) == 0) continue;
      fs::rename(c, c.parent_path() / (sid_prefix + name));
    }
  }
}

std::string json_escape(std::string_view s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      default: o.push_back(c);
    }
  }
  return o;
}

// Synthetic lines in the Claude Code shape.
std::string user_line(const std::string& sid, const std::string& uuid, const std::string& text,
                      const std::string& ts = "2026-03-01T10:00:00.000Z", const std::string& extra = "") {
  return R"({"parentUuid":null,"isSidechain":false,"type":"user","cwd":"/w/proj","sessionId":")" + sid +
         R"(","version":"2.1.29","gitBranch":"main",)" + extra + R"("message":{"role":"user","content":")" +
         json_escape(text) + R"("},"uuid":")" + uuid + R"(","timestamp":")" + ts + "\"}\n";
}
std::string assistant_line(const std::string& sid, const std::string& uuid, const std::string& text,
                           const std::string& msg_id, int in, int out, const std::string& ts = "2026-03-01T10:00:01.000Z") {
  return R"({"parentUuid":null,"isSidechain":false,"type":"assistant","cwd":"/w/proj","sessionId":")" + sid +
         R"(","message":{"id":")" + msg_id + R"(","model":"claude-test","role":"assistant","content":[{"type":"text","text":")" +
         json_escape(text) + R"("}],"usage":{"input_tokens":)" + std::to_string(in) + R"(,"output_tokens":)" +
         std::to_string(out) + R"(,"cache_creation_input_tokens":1,"cache_read_input_tokens":2}},"uuid":")" + uuid +
         R"(","timestamp":")" + ts + "\"}\n";
}
std::string fact_line(const std::string& type, const std::string& field, const std::string& text, const std::string& sid) {
  return R"({"type":")" + type + R"(",")" + field + R"(":")" + json_escape(text) + R"(","sessionId":")" + sid + "\"}\n";
}
std::string summary_line(const std::string& text, const std::string& leaf) {
  return R"({"type":"summary","summary":")" + json_escape(text) + R"(","leafUuid":")" + leaf + "\"}\n";
}

// Offsets just past each '\n' (the starts of the following lines).
std::vector<size_t> line_ends(const std::string& data) {
  std::vector<size_t> out;
  for (size_t p = data.find('\n'); p != std::string::npos; p = data.find('\n', p + 1)) out.push_back(p + 1);
  return out;
}

// ---------------------------------------------------------------------------------------------
// An independent reference for message counts and token totals, from the raw JSON:
// a message is a user/assistant object with a uuid, stored once per (session, uuid); its session is
// the file name (main), the directory (nested/workflow agents) or the first sessionId its lines
// carry (root agent files); usage is counted once per (session, message.id).
struct ExpectedSession {
  uint64_t messages = 0;
  TokenUsage tokens;
  std::set<std::string> uuids, api_ids;
};

std::map<std::string, ExpectedSession> expected_sessions(const std::string& root) {
  std::map<std::string, ExpectedSession> out;
  for (const auto& rel : list_files(root)) {
    if (rel.size() < 6 || rel.substr(rel.size() - 6) != ".jsonl") continue;
    std::vector<std::string> parts;
    for (size_t s = 0, e; s <= rel.size(); s = e + 1) {
      e = rel.find('/', s);
      if (e == std::string::npos) e = rel.size();
      parts.push_back(rel.substr(s, e - s));
    }
    std::string sid;
    bool root_agent = false;
    if (parts.size() == 2) {
      root_agent = parts[1].rfind("agent-", 0) == 0;
      if (!root_agent) sid = parts[1].substr(0, parts[1].size() - 6);
    } else if (parts.size() == 4 && parts[2] == "subagents") {
      sid = parts[1];
    } else if (parts.size() == 6 && parts[2] == "subagents" && parts[3] == "workflows") {
      sid = parts[1];
    } else {
      continue;
    }
    JsonlReader reader;
    reader.read(root + "/" + rel, 0, [&](simdjson::dom::element obj, uint64_t) {
      std::string_view type, uuid, line_sid;
      if (root_agent && sid.empty() && obj["sessionId"].get_string().get(line_sid) == simdjson::SUCCESS)
        sid = std::string(line_sid);
      if (sid.empty()) return;
      if (obj["type"].get_string().get(type) != simdjson::SUCCESS || (type != "user" && type != "assistant")) return;
      if (obj["uuid"].get_string().get(uuid) != simdjson::SUCCESS || uuid.empty()) return;
      ExpectedSession& e = out[sid];
      if (!e.uuids.insert(std::string(uuid)).second) return;
      ++e.messages;
      simdjson::dom::element usage;
      if (type != "assistant" || obj["message"]["usage"].get(usage) != simdjson::SUCCESS || !usage.is_object()) return;
      std::string_view api_id;
      if (obj["message"]["id"].get_string().get(api_id) == simdjson::SUCCESS && !api_id.empty() &&
          !e.api_ids.insert(std::string(api_id)).second)
        return;
      auto num = [&](const char* k) -> int64_t {
        int64_t v = 0;
        uint64_t u = 0;
        if (usage[k].get_int64().get(v) == simdjson::SUCCESS) return v;
        if (usage[k].get_uint64().get(u) == simdjson::SUCCESS) return static_cast<int64_t>(u);
        return 0;
      };
      e.tokens.input += num("input_tokens");
      e.tokens.output += num("output_tokens");
      e.tokens.cache_creation += num("cache_creation_input_tokens");
      e.tokens.cache_read += num("cache_read_input_tokens");
    });
  }
  return out;
}

// Whether the shared corpus is here; on CI its absence is a failure, elsewhere a warning.
bool corpus_present() {
  if (fs::is_directory(corpus_claude_dir())) return true;
  if (std::getenv("CI") != nullptr) {
    FAIL("shared corpus missing at " << corpus_claude_dir() << " (CI is set)");
  }
  WARN("shared corpus missing at " << corpus_claude_dir() << "; skipping the full-corpus checks");
  return false;
}

using osearch_test::valid_utf8;

}  // namespace

// =============================================================================================

TEST_CASE("index: the shared corpus gives exactly 160 sessions 17161 messages 5662 tool calls and a re-run changes nothing",
          "[index][corpus]") {
  if (!corpus_present()) return;
  TempDir tmp("corpus");
  const std::string idx = tmp / "idx";
  IndexSummary s1 = index_tree(idx, corpus_claude_dir());
  CHECK_FALSE(s1.busy);
  CHECK(s1.sessions == 160);
  CHECK(s1.messages == 17161);
  CHECK(s1.tool_calls == 5662);
  CHECK(s1.new_messages == 17161);
  CHECK(s1.new_tool_calls == 5662);
  CHECK(s1.files_unreadable == 0);
  CHECK(s1.files_changed == s1.files_seen);
  CHECK(s1.files_seen >= 260);
  // The only problems are the files with bad lines (named for --verbose), e.g. the synthetic edge cases.
  for (const auto& p : s1.problems) {
    INFO("problem: " << p);
    CHECK(p.find("bad line") != std::string::npos);
  }

  IndexCounts c = counts_of(idx);
  CHECK(c.sessions == 160);
  CHECK(c.messages == 17161);
  CHECK(c.tool_calls == 5662);
  CHECK(c.last_indexed_at > 0);

  IndexSummary s2 = index_tree(idx, corpus_claude_dir());
  CHECK(s2.files_seen == s1.files_seen);
  CHECK(s2.files_changed == 0);
  CHECK(s2.files_skipped == s1.files_seen);
  CHECK(s2.files_deleted == 0);
  CHECK(s2.bytes_read == 0);
  CHECK(s2.new_messages == 0);
  CHECK(s2.new_tool_calls == 0);
  CHECK(s2.bad_lines == 0);
  CHECK(s2.sessions == 160);
  CHECK(s2.messages == 17161);
  CHECK(s2.tool_calls == 5662);
}

TEST_CASE("index: a second run over unchanged sources changes nothing at all", "[index]") {
  TempDir tmp("rerun");
  const std::string src = tmp / "src";
  copy_tree(claude_data_dir(), src);
  const std::string idx = tmp / "idx";
  IndexSummary s1 = index_tree(idx, src);
  const auto fp1 = fingerprint(idx);
  IndexSummary s2 = index_tree(idx, src);
  CHECK(s2.files_changed == 0);
  CHECK(s2.files_skipped == s1.files_seen);
  CHECK(s2.bytes_read == 0);
  CHECK(s2.new_messages == 0);
  CHECK(s2.sessions == s1.sessions);
  CHECK(s2.messages == s1.messages);
  CHECK(s2.tool_calls == s1.tool_calls);
  CHECK_SAME_INDEX(idx, fp1);

  // Touching a file without changing its bytes does not duplicate anything either.
  const std::string f = src + "/" + kB3;
  fs::last_write_time(f, fs::last_write_time(f) + std::chrono::seconds(5));
  IndexSummary s3 = index_tree(idx, src);
  CHECK(s3.new_messages == 0);
  CHECK(s3.messages == s1.messages);
  CHECK(s3.sessions == s1.sessions);
  CHECK(s3.bytes_read == 0);

  // A reader on a missing index says so.
  CHECK_THROWS_AS(IndexReader(tmp / "no-index"), StoreMissing);
}

TEST_CASE("index: message counts and token totals match the raw transcripts with usage once per message id", "[index]") {
  TempDir tmp("totals");
  const std::string idx = tmp / "idx";
  IndexSummary s = index_tree(idx, claude_data_dir());
  CHECK(s.bad_lines == 0);
  CHECK(s.files_unreadable == 0);

  auto expected = expected_sessions(claude_data_dir());
  auto sessions = all_sessions(idx);
  std::set<std::string> want_ids, got_ids;
  uint64_t want_messages = 0;
  for (const auto& [sid, e] : expected) {
    want_ids.insert(sid);
    want_messages += e.messages;
  }
  for (const auto& [sid, rec] : sessions) got_ids.insert(sid);
  CHECK(got_ids == want_ids);
  CHECK(s.messages == want_messages);
  CHECK(s.sessions == expected.size());
  for (const auto& [sid, e] : expected) {
    INFO("session " << sid);
    auto it = sessions.find(sid);
    REQUIRE(it != sessions.end());
    CHECK(it->second.message_count == e.messages);
    CHECK(tokens_str(it->second.tokens) == tokens_str(e.tokens));
    CHECK(session_messages(idx, sid).size() == e.messages);
  }

  // Hand-checked: the Windows session streams one API message over three lines with the same usage.
  const SessionRec& win = sessions.at(kWindowsSid);
  CHECK(win.message_count == 7);
  CHECK(win.tokens.input == 11325 + 2);
  CHECK(win.tokens.output == 576 + 238);
  CHECK(win.tokens.cache_creation == 5360 + 11923);
  CHECK(win.tokens.cache_read == 24962 + 30322);
  CHECK(win.cwd == "D:\\oh-my-posh");
  CHECK(win.tool_call_count == 1);
  uint64_t with_usage = 0;
  for (const auto& m : session_messages(idx, kWindowsSid)) with_usage += m.rec.usage.any();
  CHECK(with_usage == 2);  // the repeated chunks carry zero usage

  // Every tool call is stored once, under its session.
  IndexReader r(idx);
  uint64_t sum_tc = 0;
  for (const auto& [sid, rec] : sessions) sum_tc += rec.tool_call_count;
  CHECK(sum_tc == r.counts().tool_calls);
}

TEST_CASE("index: incremental appends read only the new bytes and equal a one-shot build", "[index]") {
  TempDir tmp("append");
  const std::vector<std::string> growing = {kB3, "-Users-user-project/agent-a434715.jsonl", kGlued,
                                            "-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"};
  const std::vector<std::string> projects = {"-Users-user-project", "-Users-soph-Work-entire-devenv-cli",
                                             "-experiments-worktrees"};
  const std::string src = tmp / "src";
  make_tree(src, projects);
  // Reference: a one-shot build of the complete files, at the same paths.
  const std::string ref_idx = tmp / "ref";
  index_tree(ref_idx, src);
  const auto ref_fp = fingerprint(ref_idx);

  // Growing copy: each file is written in 5 pieces cut at awkward places (mid-line, right after a
  // complete object without its newline, between glued objects), indexing after each piece.
  std::map<std::string, std::string> content;
  std::map<std::string, std::vector<size_t>> cuts;
  for (const auto& rel : growing) {
    content[rel] = read_file(claude_data_dir() + "/" + rel);
    const std::string& d = content[rel];
    auto ends = line_ends(d);
    REQUIRE(ends.size() >= 5);
    std::vector<size_t> c;
    c.push_back(ends[ends.size() / 5] - 40);                     // mid-line
    c.push_back(ends[2 * ends.size() / 5] - 1);                  // complete JSON, newline missing
    c.push_back(ends[3 * ends.size() / 5] - 1 - 15);             // mid-line, near the end
    c.push_back(ends[4 * ends.size() / 5]);                      // exactly at a line end
    const size_t g = d.find("\"timestamp\":\"2026-01-20T15:07:58.839Z\"}{\"type\":\"summary\"");
    if (g != std::string::npos) c[2] = g + std::strlen("\"timestamp\":\"2026-01-20T15:07:58.839Z\"}");  // between glued objects
    std::sort(c.begin(), c.end());
    c.push_back(d.size());
    cuts[rel] = c;
    write_file(src + "/" + rel, d.substr(0, c[0]));
  }
  // The path FileStates are stored under.
  auto abs = [&](const std::string& rel) { return src + "/" + rel; };

  const std::string idx = tmp / "idx";
  IndexSummary first = index_tree(idx, src);
  CHECK(first.bad_lines == 0);
  uint64_t total_new = first.new_messages;
  for (size_t step = 1; step < 5; ++step) {
    auto before = all_files(idx);
    uint64_t expect_bytes = 0;
    for (const auto& rel : growing) {
      const auto& c = cuts[rel];
      append_file(abs(rel), content[rel].substr(c[step - 1], c[step] - c[step - 1]));
      REQUIRE(before.count(abs(rel)));
      expect_bytes += c[step] - before.at(abs(rel)).offset;
    }
    IndexSummary s = index_tree(idx, src);
    INFO("step " << step);
    CHECK(s.files_changed == growing.size());
    CHECK(s.bytes_read == expect_bytes);  // only what lies past each stored offset
    CHECK(s.bad_lines == 0);
    CHECK(s.files_skipped == s.files_seen - growing.size());
    total_new += s.new_messages;
    // A half-written line is never consumed: the stored offset is at a line boundary or at EOF
    // after complete JSON.
    for (const auto& rel : growing) {
      const uint64_t off = all_files(idx).at(abs(rel)).offset;
      const std::string& d = content[rel];
      const bool at_boundary = off == 0 || d[off - 1] == '\n' || off == cuts[rel][step];
      CHECK(at_boundary);
    }
  }
  for (const auto& rel : growing) CHECK(all_files(idx).at(abs(rel)).offset == content[rel].size());

  // Same records as the one-shot build.
  CHECK_SAME_INDEX(idx, ref_fp);
  CHECK(total_new == counts_of(ref_idx).messages);
  CHECK(counts_of(idx).messages == counts_of(ref_idx).messages);
  CHECK(counts_of(idx).tool_calls == counts_of(ref_idx).tool_calls);
  CHECK(counts_of(idx).sessions == counts_of(ref_idx).sessions);
}

TEST_CASE("index: a half-written last line is not consumed until it is completed", "[index]") {
  TempDir tmp("half");
  const std::string src = tmp / "src";
  const std::string f = src + "/-w-proj/s-half.jsonl";
  const std::string l1 = user_line("s-half", "h1", "first question about zebras");
  const std::string l2 = assistant_line("s-half", "h2", "first answer", "msg_h2", 10, 20);
  const std::string l3 = user_line("s-half", "h3", "second question about giraffes", "2026-03-01T10:00:02.000Z");
  write_file(f, l1 + l2 + l3.substr(0, l3.size() / 2));
  const std::string idx = tmp / "idx";

  IndexSummary s1 = index_tree(idx, src);
  CHECK(s1.messages == 2);
  CHECK(s1.bad_lines == 0);
  CHECK(all_files(idx).at(f).offset == l1.size() + l2.size());
  CHECK_FALSE(message_by_uuid(idx, "s-half", "h3").has_value());

  // Nothing new: nothing read, nothing added.
  IndexSummary s2 = index_tree(idx, src);
  CHECK(s2.messages == 2);
  CHECK(s2.new_messages == 0);

  // A few more bytes, still not the whole line: still nothing.
  const size_t cut = l3.size() / 2;
  append_file(f, l3.substr(cut, 7));
  IndexSummary s2b = index_tree(idx, src);
  CHECK(s2b.new_messages == 0);
  CHECK(s2b.bad_lines == 0);
  CHECK(all_files(idx).at(f).offset == l1.size() + l2.size());
  append_file(f, l3.substr(cut + 7));
  REQUIRE(read_file(f) == l1 + l2 + l3);
  IndexSummary s3 = index_tree(idx, src);
  CHECK(s3.new_messages == 1);
  CHECK(s3.messages == 3);
  CHECK(s3.bytes_read == l3.size());
  auto h3 = message_by_uuid(idx, "s-half", "h3");
  REQUIRE(h3.has_value());
  CHECK(h3->text == "second question about giraffes");
  CHECK(all_sessions(idx).at("s-half").message_count == 3);

  // A final line without newline that is complete JSON is taken; the next append starts cleanly.
  const std::string l4 = assistant_line("s-half", "h4", "second answer", "msg_h4", 1, 2, "2026-03-01T10:00:03.000Z");
  append_file(f, l4.substr(0, l4.size() - 1));
  IndexSummary s4 = index_tree(idx, src);
  CHECK(s4.new_messages == 1);
  CHECK(s4.messages == 4);
  append_file(f, "\n" + user_line("s-half", "h5", "third", "2026-03-01T10:00:04.000Z"));
  IndexSummary s5 = index_tree(idx, src);
  CHECK(s5.new_messages == 1);
  CHECK(s5.messages == 5);
  CHECK(s5.bad_lines == 0);
  CHECK(all_sessions(idx).at("s-half").message_count == 5);
  CHECK(session_messages(idx, "s-half").size() == 5);
}

TEST_CASE("index: a file that shrinks or is replaced is re-read whole with its old records replaced", "[index]") {
  TempDir tmp("shrink");
  const std::vector<std::string> rels = {"-Users-user-project", kWindows};
  const std::string src = tmp / "src";
  make_tree(src, rels);
  const std::string idx = tmp / "idx";
  index_tree(idx, src);
  const std::string f = src + "/" + kB3;
  const std::string original = read_file(f);
  auto ends = line_ends(original);

  // Clean build of whatever `src` holds now, in a fresh index dir: the expected state.
  int n = 0;
  auto clean_fp = [&]() {
    const std::string ref = tmp / ("ref" + std::to_string(n++));
    index_tree(ref, src);
    auto fp = fingerprint(ref);
    return fp;
  };

  SECTION("truncated in place (same inode, smaller than the stored offset)") {
    const std::string half = original.substr(0, ends[ends.size() / 2]);
    fs::resize_file(f, half.size());
    REQUIRE(read_file(f) == half);
    IndexSummary s = index_tree(idx, src);
    CHECK(s.files_changed >= 1);
    CHECK_SAME_INDEX(idx, clean_fp());
    // No message of the cut part survives.
    for (const auto& m : session_messages(idx, kB3Sid))
      if (!m.rec.is_sidechain) CHECK(half.find(m.rec.uuid) != std::string::npos);

    // Growing back (appending the rest) is a plain append again.
    append_file(f, original.substr(half.size()));
    IndexSummary s2 = index_tree(idx, src);
    CHECK(s2.bytes_read == original.size() - half.size());
    CHECK_SAME_INDEX(idx, clean_fp());
  }

  SECTION("replaced by a new inode with other content (rename over it)") {
    // Keep the first third, then new lines: the old tail must disappear.
    std::string other = original.substr(0, ends[ends.size() / 3]) +
                        user_line(kB3Sid, "new-1", "replacement line about otters", "2025-12-21T10:00:00.000Z") +
                        assistant_line(kB3Sid, "new-2", "otters are fine", "msg_new2", 5, 6, "2025-12-21T10:00:01.000Z");
    replace_file(f, other);
    IndexSummary s = index_tree(idx, src);
    CHECK(s.files_changed >= 1);
    CHECK_SAME_INDEX(idx, clean_fp());
    CHECK(message_by_uuid(idx, kB3Sid, "new-1").has_value());

    // Replaced again, this time larger than before: still a full re-read, no duplicates.
    replace_file(f, original + user_line(kB3Sid, "new-3", "one more", "2025-12-22T10:00:00.000Z"));
    index_tree(idx, src);
    CHECK_SAME_INDEX(idx, clean_fp());
    CHECK_FALSE(message_by_uuid(idx, kB3Sid, "new-1").has_value());
  }

  SECTION("a root agent file of the session shrinks") {
    const std::string agent = src + "/-Users-user-project/agent-a434715.jsonl";
    const std::string a = read_file(agent);
    auto aends = line_ends(a);
    REQUIRE(aends.size() >= 4);
    fs::resize_file(agent, aends[1]);
    index_tree(idx, src);
    CHECK_SAME_INDEX(idx, clean_fp());
  }

  SECTION("shrunk to zero bytes") {
    fs::resize_file(f, 0);
    index_tree(idx, src);
    CHECK_SAME_INDEX(idx, clean_fp());
  }
}

TEST_CASE("index: a deleted main file keeps its session as source_deleted and a re-created one is re-read", "[index]") {
  TempDir tmp("deleted");
  const std::string src = tmp / "src";
  make_tree(src, {"-Users-user-project", kWindows});
  const std::string idx = tmp / "idx";
  IndexSummary s1 = index_tree(idx, src);
  const auto fp_full = fingerprint(idx);
  const std::string f = src + "/" + kWindows;
  const std::string bytes = read_file(f);
  const SessionRec before = all_sessions(idx).at(kWindowsSid);
  CHECK_FALSE(before.source_deleted);
  CHECK(before.jsonl_path == f);

  fs::remove(f);
  IndexSummary s2 = index_tree(idx, src);
  CHECK(s2.files_deleted == 1);
  CHECK(s2.sessions == s1.sessions);
  CHECK(s2.messages == s1.messages);
  CHECK(s2.tool_calls == s1.tool_calls);
  const SessionRec after = all_sessions(idx).at(kWindowsSid);
  CHECK(after.source_deleted);
  CHECK(after.message_count == before.message_count);
  CHECK(after.title() == "Remove phantom nul file");
  auto msgs = session_messages(idx, kWindowsSid);
  CHECK(msgs.size() == before.message_count);
  bool texts = false;
  for (const auto& m : msgs) texts = texts || m.text.find("nul") != std::string::npos;
  CHECK(texts);  // the text is still there to search
  // Other sessions untouched.
  CHECK_FALSE(all_sessions(idx).at(kB3Sid).source_deleted);

  // A run with nothing new keeps the state and counts the deletion once.
  IndexSummary s3 = index_tree(idx, src);
  CHECK(s3.files_deleted == 0);
  CHECK(all_sessions(idx).at(kWindowsSid).source_deleted);

  SECTION("re-created with the same bytes") {
    write_file(f, bytes);
    IndexSummary s4 = index_tree(idx, src);
    CHECK(s4.messages == s1.messages);
    CHECK(s4.sessions == s1.sessions);
    CHECK_FALSE(all_sessions(idx).at(kWindowsSid).source_deleted);
    CHECK_SAME_INDEX(idx, fp_full);
  }

  SECTION("re-created with fewer lines") {
    auto ends = line_ends(bytes);
    write_file(f, bytes.substr(0, ends[ends.size() / 2]));
    index_tree(idx, src);
    const std::string ref = tmp / "ref";
    index_tree(ref, src);
    CHECK_SAME_INDEX(idx, fingerprint(ref));
    CHECK_FALSE(all_sessions(idx).at(kWindowsSid).source_deleted);
  }

  SECTION("a deleted subagent file does not mark the session deleted") {
    fs::remove(src + "/-Users-user-project/agent-a434715.jsonl");
    IndexSummary s5 = index_tree(idx, src);
    CHECK(s5.files_deleted == 1);
    CHECK(s5.messages == s1.messages);
    CHECK_FALSE(all_sessions(idx).at(kB3Sid).source_deleted);
  }

  SECTION("a whole project directory removed") {
    fs::remove_all(src + "/-Users-user-project");
    IndexSummary s6 = index_tree(idx, src);
    CHECK(s6.files_deleted >= 20);
    CHECK(s6.sessions == s1.sessions);
    CHECK(s6.messages == s1.messages);
    CHECK(all_sessions(idx).at(kB3Sid).source_deleted);
  }
}

TEST_CASE("index: orphan subagent files make sessions of their own", "[index]") {
  TempDir tmp("orphan");
  const std::string idx = tmp / "idx";
  index_tree(idx, claude_data_dir());
  auto sessions = all_sessions(idx);

  // Old layout: root agent file whose main session file does not exist.
  const std::string root_orphan = "14653a8a-9a1b-4299-8e64-c0aa4b772c1d";
  REQUIRE(sessions.count(root_orphan));
  const SessionRec& r = sessions.at(root_orphan);
  CHECK_FALSE(r.has_main);
  CHECK(r.message_count == 2);
  CHECK(r.jsonl_path == claude_data_dir() + "/-Users-dain-workspace-claude-code-log-sample/agent-41b9470d.jsonl");
  CHECK(r.project == "-Users-dain-workspace-claude-code-log-sample");
  for (const auto& m : session_messages(idx, root_orphan)) {
    CHECK(m.rec.is_sidechain);
    CHECK(m.rec.agent_id == "41b9470d");
  }

  // New layout: nested subagent whose <session>.jsonl is missing.
  const std::string nested_orphan = "6c2214d7-b87e-4432-8e41-22ba294ea584";
  REQUIRE(sessions.count(nested_orphan));
  const SessionRec& n = sessions.at(nested_orphan);
  CHECK_FALSE(n.has_main);
  CHECK(n.message_count > 100);
  CHECK(n.jsonl_path.find("/subagents/agent-afc096d.jsonl") != std::string::npos);
  CHECK(n.subagent_count == 1);

  // A real session with six nested subagents (+ .meta.json sidecars).
  const SessionRec& ex = sessions.at(kExperimentsSid);
  CHECK(ex.has_main);
  CHECK(ex.subagent_count == 6);
  CHECK(ex.jsonl_path == claude_data_dir() + "/-experiments-worktrees/" + kExperimentsSid + ".jsonl");
  {
    IndexReader rd(idx);
    auto v = rd.txn().get(rd.db().subagents, pair_key(kExperimentsSid, "a36efb2a1231c41e2"));
    REQUIRE(v.has_value());
    auto sa = SubagentRec::decode(*v);
    REQUIRE(sa.has_value());
    CHECK(sa->agent_type == "general-purpose");
    CHECK(sa->description == "Round 2: alice comparison");
    CHECK(sa->message_count > 0);
  }
  // Sidechain messages of the nested agents belong to the parent session.
  uint64_t side = 0;
  for (const auto& m : session_messages(idx, kExperimentsSid)) side += m.rec.is_sidechain;
  CHECK(side > 50);

  // Workflow agent (synthetic fixture) belongs to its session.
  CHECK(sessions.count("11110000-0000-4000-8000-000000000001"));
  // Empty main file + root agent files: the agents' session exists.
  REQUIRE(sessions.count("0f13eeba-e6ed-42ea-ad8c-d8db37e1304e"));
  CHECK_FALSE(sessions.at("0f13eeba-e6ed-42ea-ad8c-d8db37e1304e").has_main);
}

TEST_CASE("index: titles follow custom-title then ai-title then summary by leafUuid then last-prompt then first prompt", "[index]") {
  TempDir tmp("titles");
  const std::string src = tmp / "src";
  const std::string p = src + "/-w-proj/";
  // Each session offers every title source below its expected winner.
  write_file(p + "s-custom.jsonl", user_line("s-custom", "c1", "first prompt c") +
                                       assistant_line("s-custom", "c2", "reply", "m-c2", 1, 1) +
                                       fact_line("custom-title", "customTitle", "Custom C", "s-custom") +
                                       fact_line("ai-title", "aiTitle", "AI C", "s-custom") +
                                       fact_line("last-prompt", "lastPrompt", "last c", "s-custom"));
  write_file(p + "s-ai.jsonl", fact_line("ai-title", "aiTitle", "AI A", "s-ai") +  // before the first message
                                   user_line("s-ai", "a1", "first prompt a") +
                                   assistant_line("s-ai", "a2", "reply", "m-a2", 1, 1) +
                                   fact_line("last-prompt", "lastPrompt", "last a", "s-ai"));
  write_file(p + "s-sum.jsonl", user_line("s-sum", "s1", "first prompt s") +
                                    assistant_line("s-sum", "sum-leaf", "reply", "m-s2", 1, 1) +
                                    fact_line("last-prompt", "lastPrompt", "last s", "s-sum"));
  write_file(p + "s-last.jsonl", user_line("s-last", "l1", "first prompt l") +
                                     assistant_line("s-last", "last-leaf", "reply", "m-l2", 1, 1) +
                                     fact_line("last-prompt", "lastPrompt", "last L", "s-last"));
  write_file(p + "s-first.jsonl",
             user_line("s-first", "f0", "<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>", "2026-03-01T09:59:00.000Z", R"("isMeta":true,)") +
                 user_line("s-first", "f1", "<command-name>/clear</command-name>\n<command-message>clear</command-message>", "2026-03-01T09:59:01.000Z") +
                 user_line("s-first", "f2", "   \n  the real first prompt\nsecond line", "2026-03-01T10:00:00.000Z") +
                 assistant_line("s-first", "f3", "reply", "m-f3", 1, 1) +
                 user_line("s-first", "f4", "a later prompt", "2026-03-01T10:00:02.000Z"));
  std::string cjk;
  for (int i = 0; i < 100; ++i) cjk += "\xe6\x9c\x80";  // 最 x100 = 300 bytes
  write_file(p + "s-long.jsonl", user_line("s-long", "g1", cjk) + assistant_line("s-long", "g2", "ok", "m-g2", 1, 1));
  // Summary-only file of the project: titles s-custom/s-ai (ignored, higher sources win) and s-sum.
  write_file(p + "summaries.jsonl", summary_line("Summary for custom", "c2") + summary_line("Summary for ai", "a2") +
                                        summary_line("Summary S", "sum-leaf"));
  // Another project's summary naming a leaf of this project does not apply.
  write_file(src + "/-w-other/other.jsonl", summary_line("Wrong project summary", "last-leaf"));

  const std::string idx = tmp / "idx";
  index_tree(idx, src);
  auto s = all_sessions(idx);
  CHECK(s.at("s-custom").title() == "Custom C");
  CHECK(s.at("s-ai").title() == "AI A");
  CHECK(s.at("s-sum").title() == "Summary S");
  CHECK(s.at("s-last").title() == "last L");
  CHECK(s.at("s-first").title() == "the real first prompt");
  const std::string long_title = s.at("s-long").title();
  CHECK(long_title.size() <= 200);
  CHECK(long_title.size() >= 150);
  CHECK(long_title.size() % 3 == 0);  // cut on a character boundary
  CHECK(cjk.rfind(long_title, 0) == 0);
  CHECK(s.count("summaries") == 0);  // a summary-only file is not a session
  CHECK(s.count("other") == 0);

  // The same tree built again from scratch in another order of arrival: summaries first, then the
  // sessions they title, in a later run.
  TempDir tmp2("titles2");
  const std::string src2 = tmp2 / "src";
  fs::create_directories(src2 + "/-w-proj");
  copy_file_to(p + "summaries.jsonl", src2 + "/-w-proj/summaries.jsonl");
  copy_tree(src + "/-w-other", src2 + "/-w-other");
  const std::string idx2 = tmp2 / "idx";
  index_tree(idx2, src2);
  for (const char* name : {"s-custom", "s-ai", "s-sum", "s-last", "s-first", "s-long"})
    copy_file_to(p + name + ".jsonl", src2 + "/-w-proj/" + name + ".jsonl");
  index_tree(idx2, src2);
  auto s2 = all_sessions(idx2);
  for (const char* name : {"s-custom", "s-ai", "s-sum", "s-last", "s-first", "s-long"}) {
    INFO(name);
    CHECK(s2.at(name).title() == s.at(name).title());
  }

  // And the other way round: the session first, its summary in a later run.
  TempDir tmp3("titles3");
  const std::string src3 = tmp3 / "src";
  copy_file_to(p + "s-sum.jsonl", src3 + "/-w-proj/s-sum.jsonl");
  const std::string idx3 = tmp3 / "idx";
  index_tree(idx3, src3);
  CHECK(all_sessions(idx3).at("s-sum").title() == "last s");
  copy_file_to(p + "summaries.jsonl", src3 + "/-w-proj/summaries.jsonl");
  index_tree(idx3, src3);
  CHECK(all_sessions(idx3).at("s-sum").title() == "Summary S");

  SECTION("real transcripts") {
    TempDir t("titles-real");
    const std::string ridx = t / "idx";
    index_tree(ridx, claude_data_dir());
    auto rs = all_sessions(ridx);
    CHECK(rs.at(kWindowsSid).title() == "Remove phantom nul file");  // custom-title over last-prompt
    // Summary-only file a751b8dd titles the /clear session 0d3b22c1 through leafUuid e8e28ecc.
    CHECK(rs.at("0d3b22c1-ba90-4fd3-b8d2-056ffc626725").title() == "Claude Code CLI Session Started");
    CHECK(rs.at(kExperimentsSid).title() == "Well, the subagents seem to be either stuck or done... can you check?");
    CHECK(rs.at("8aa54c1d-5030-4491-be42-e0c416424b8a").title() == "what is 2 + 2?");
    CHECK(rs.at(kB3Sid).title() == rs.at(kB3Sid).summary_title);
    CHECK_FALSE(rs.at(kB3Sid).summary_title.empty());
  }
}

namespace {

// A source tree three times the size of tests/data/claude (copies 1 and 2 with sessions of their
// own), its clean build, and a child indexer that can be SIGKILLed mid-run.
struct KillFixture {
  TempDir tmp{"kill"};
  std::string src = tmp / "src";
  IndexOptions small_batches;
  IndexSummary clean;
  std::vector<std::string> ref_fp;
  double batched_ms = 0;

  explicit KillFixture(bool check_batches, bool measure = true) {
    for (int k = 0; k < 3; ++k)
      copy_projects(src, "-copy" + std::to_string(k), k == 0 ? "" : "c" + std::to_string(k) + "-");
    small_batches.flush_bytes = 256 << 10;  // many commits, so kills land between and inside them
    const std::string ref = tmp / "ref";
    clean = index_tree(ref, src);
    ref_fp = fingerprint(ref);
    REQUIRE(clean.messages > 2000);
    REQUIRE(clean.sessions > 40);
    // How long a small-batch run takes (delays are fractions of it); batch boundaries alone must
    // not change the result either.
    if (!measure) return;
    const std::string batched = tmp / "batched";
    auto t0 = std::chrono::steady_clock::now();
    index_tree(batched, src, small_batches);
    batched_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (check_batches) CHECK_SAME_INDEX(batched, ref_fp);
  }

  // Starts a child indexing `idx`, SIGKILLs it after `delay`; true when the kill landed mid-run.
  // A child that finished first must have finished cleanly (exit 0: no exception, not busy).
  std::string outcomes;
  bool kill_after(const std::string& idx, std::chrono::microseconds delay) {
    pid_t pid = fork_child([&] {
      IndexSummary s = run_index(idx, roots_of(src), small_batches);
      return s.busy ? 3 : 0;
    });
    std::this_thread::sleep_for(delay);
    ::kill(pid, SIGKILL);
    ChildStatus st = wait_child(pid);
    outcomes += std::to_string(delay.count() / 1000) + "ms:" +
                (st.term_signal ? "killed" : "exit " + std::to_string(st.exit_code)) + " ";
    INFO("child outcomes: " << outcomes);
    CHECK((st.term_signal == SIGKILL || (st.exited && st.exit_code == 0)));
    return st.term_signal == SIGKILL;
  }
  std::chrono::microseconds fraction(double f) const {
    return std::chrono::microseconds(static_cast<int64_t>(batched_ms * 1000 * f));
  }
  void check_recovered(const std::string& idx) {
    IndexSummary s = index_tree(idx, src);
    CHECK_FALSE(s.busy);
    CHECK(s.messages == clean.messages);
    CHECK(s.sessions == clean.sessions);
    CHECK(s.tool_calls == clean.tool_calls);
    CHECK_SAME_INDEX(idx, ref_fp);
  }
};

}  // namespace

TEST_CASE("index: kill -9 at several delays into a fresh build then one more run equals a clean build",
          "[index][crash]") {
  KillFixture fx(true);
  INFO("small-batch build takes " << fx.batched_ms << " ms");
  int killed = 0;
  for (double f : {0.02, 0.1, 0.3, 0.55, 0.8}) {
    const std::string idx = fx.tmp / ("k" + std::to_string(static_cast<int>(f * 100)));
    killed += fx.kill_after(idx, fx.fraction(f));
    INFO("killed after " << fx.fraction(f).count() / 1000 << " ms");
    fx.check_recovered(idx);
  }
  INFO("child outcomes: " << fx.outcomes);
  CHECK(killed >= 3);
}

TEST_CASE("index: kill -9 again and again on one index and while adding to an index", "[index][crash]") {
  KillFixture fx(false);
  int killed = 0;
  // The same index killed at growing delays, then finished.
  const std::string idx = fx.tmp / "kk";
  for (double f : {0.03, 0.08, 0.15, 0.3, 0.5}) killed += fx.kill_after(idx, fx.fraction(f));
  INFO("child outcomes: " << fx.outcomes);
  CHECK(killed >= 2);
  fx.check_recovered(idx);

  // Only the -copy0 projects indexed first; copies 1 and 2 appear and that update is killed.
  TempDir hidden("kill-hidden");
  for (const auto& e : fs::directory_iterator(fx.src)) {
    const std::string name = e.path().filename().string();
    if (name.find("-copy0") == std::string::npos) fs::rename(e.path(), hidden / name);
  }
  const std::string grow = fx.tmp / "grow";
  index_tree(grow, fx.src);
  for (const auto& e : fs::directory_iterator(hidden.path()))
    fs::rename(e.path(), fx.src + "/" + e.path().filename().string());
  CHECK(fx.kill_after(grow, fx.fraction(0.3)));
  fx.check_recovered(grow);
}

TEST_CASE("index: kill -9 at exact points right after file N is handed to the batch", "[index][crash]") {
  KillFixture fx(false, false);
  for (size_t at : {1u, 7u, 40u, 120u}) {
    const std::string idx = fx.tmp / ("p" + std::to_string(at));
    IndexOptions o = fx.small_batches;
    o.progress = [at](const IndexProgress& p) {
      if (p.files_done == at) ::raise(SIGKILL);
    };
    pid_t pid = fork_child([&] {
      run_index(idx, roots_of(fx.src), o);
      return 0;
    });
    ChildStatus st = wait_child(pid);
    INFO("killed after file " << at);
    CHECK(st.term_signal == SIGKILL);
    fx.check_recovered(idx);
  }
}

TEST_CASE("index: kill -9 while a fresh index is being created then one more run equals a clean build",
          "[index][crash]") {
  // The first milliseconds of a first run create the LMDB environment, the text log and the Xapian
  // database. Kills there (by time, and as soon as a new directory appears in the index dir)
  // must leave an index the next run can finish.
  TempDir tmp("kill-create");
  const std::string src = tmp / "src";
  make_tree(src, {"-Users-user-project", kWindows});
  const std::string ref = tmp / "ref";
  index_tree(ref, src);
  const auto ref_fp = fingerprint(ref);

  auto trial = [&](const std::string& name, const std::function<void(const std::string&)>& wait) {
    const std::string idx = tmp / name;
    pid_t pid = fork_child([&] {
      run_index(idx, roots_of(src), IndexOptions{});
      return 0;
    });
    wait(idx);
    ::kill(pid, SIGKILL);
    wait_child(pid);
    INFO("trial " << name);
    IndexSummary s;
    REQUIRE_NOTHROW(s = index_tree(idx, src));
    CHECK(s.messages == counts_of(ref).messages);
    CHECK_SAME_INDEX(idx, ref_fp);
    fs::remove_all(idx);
  };
  for (int i = 0; i < 10; ++i) {
    // Kill the moment the search database being created in a directory other than records/ has
    // a temporary file (a version file written and synced before its atomic rename), or has files
    // at all for the odd trials.
    trial("d" + std::to_string(i), [i](const std::string& idx) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
      while (std::chrono::steady_clock::now() < deadline) {
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(idx, ec)) {
          if (!e.is_directory(ec) || e.path().filename() == "records") continue;
          for (const auto& f : fs::directory_iterator(e.path(), ec))
            if (i % 2 == 1 || f.path().extension() == ".tmp") return;
        }
      }
    });
  }
  for (int us = 0; us <= 12000; us += 500)
    trial("t" + std::to_string(us), [us](const std::string&) { std::this_thread::sleep_for(std::chrono::microseconds(us)); });
}

TEST_CASE("index: a second indexer is told the index is busy or waits while readers work", "[index][lock]") {
  TempDir tmp("lock");
  const std::string src = tmp / "src";
  make_tree(src, {"-Users-user-project", kWindows});
  const std::string idx = tmp / "idx";
  IndexSummary first = index_tree(idx, src);
  const auto before = counts_of(idx);
  REQUIRE(before.messages == first.messages);

  // New sources for the long-running indexer.
  make_tree(src, {"-experiments-worktrees", "sample-project", kGlued});

  int to_parent[2], to_child[2];
  REQUIRE(::pipe(to_parent) == 0);
  REQUIRE(::pipe(to_child) == 0);
  pid_t pid = fork_child([&] {
    ::close(to_parent[0]);
    ::close(to_child[1]);
    IndexOptions o;
    bool told = false;
    o.progress = [&](const IndexProgress&) {
      if (told) return;
      told = true;
      char c = 'x';
      (void)!::write(to_parent[1], &c, 1);  // holding the writer lock, mid-run
      (void)!::read(to_child[0], &c, 1);    // until the parent has looked
    };
    IndexSummary s = run_index(idx, roots_of(src), o);
    return s.busy ? 3 : 0;
  });
  ::close(to_parent[1]);
  ::close(to_child[0]);
  // Whatever happens below, the child is released and reaped (never left holding the lock).
  struct Release {
    pid_t pid;
    int fd;
    bool done = false;
    ~Release() {
      if (done) return;
      char g = 'g';
      (void)!::write(fd, &g, 1);
      ::kill(pid, SIGKILL);
      wait_child(pid);
    }
  } guard{pid, to_child[1]};
  pollfd pfd{to_parent[0], POLLIN, 0};
  REQUIRE(::poll(&pfd, 1, 30000) == 1);
  char c;
  REQUIRE(::read(to_parent[0], &c, 1) == 1);

  // A second indexer that must not wait.
  IndexOptions nowait;
  nowait.wait_for_lock = false;
  IndexSummary busy = index_tree(idx, src, nowait);
  CHECK(busy.busy);
  CHECK(busy.files_changed == 0);
  CHECK(busy.new_messages == 0);

  // Readers see the last committed state.
  {
    IndexReader r(idx);
    IndexCounts now = r.counts();
    CHECK(now.sessions >= before.sessions);
    CHECK(now.messages >= before.messages);
    auto s = r.session(kWindowsSid);
    CHECK(s.has_value());
    if (s) CHECK(s->title() == "Remove phantom nul file");
    CHECK(r.xapian().get_doccount() > 0);
  }
  RunResult st = run_osearch({"--index", idx, "--source", "claude=" + src, "--format", "json", "status"});
  CHECK(st.exit_code == 0);
  CHECK(st.out.find("\"sessions\"") != std::string::npos);

  // A second indexer that waits: blocks until the first one is done, then has nothing left to do.
  std::jthread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    char go = 'g';
    (void)!::write(to_child[1], &go, 1);
  });
  auto t0 = std::chrono::steady_clock::now();
  IndexSummary waited = index_tree(idx, src);
  const auto waited_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  release.join();
  ChildStatus cs = wait_child(pid);
  guard.done = true;
  ::close(to_parent[0]);
  ::close(to_child[1]);
  CHECK(cs.exited);
  CHECK(cs.exit_code == 0);
  CHECK_FALSE(waited.busy);
  CHECK(waited_ms.count() >= 250);
  CHECK(waited.new_messages == 0);

  const std::string ref = tmp / "ref";
  IndexSummary clean = index_tree(ref, src);
  CHECK(waited.messages == clean.messages);
  CHECK_SAME_INDEX(idx, fingerprint(ref));
}

TEST_CASE("index: the index dir is 0700 and its files 0600 whatever the umask", "[index][perm]") {
  TempDir tmp("perm");
  const std::string src = tmp / "src";
  make_tree(src, {kWindows, "-Users-user-project"});

  auto bad_modes = [](const std::string& idx) {
    std::vector<std::string> bad;
    if (mode_bits(idx) != 0700) bad.push_back(idx + " " + std::to_string(mode_bits(idx)));
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(idx, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      const std::string p = it->path().string();
      const unsigned want = it->is_directory() ? 0700 : 0600;
      const unsigned got = mode_bits(p);
      if (got != want) {
        char buf[64];
        std::snprintf(buf, sizeof buf, " mode %04o, want %04o", got, want);
        bad.push_back(p + buf);
      }
    }
    return bad;
  };
  auto joined = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += "  " + x + "\n";
    return s;
  };

  const mode_t old = ::umask(022);
  const std::string idx = tmp / "idx";
  index_tree(idx, src);
  // A later incremental run (new text, new index data) under the same umask.
  append_file(src + "/" + kB3, user_line(kB3Sid, "perm-new", "appended under umask 022", "2025-12-21T00:00:00.000Z"));
  index_tree(idx, src);
  // An existing, too-open index dir is tightened.
  const std::string idx2 = tmp / "existing";
  fs::create_directories(idx2);
  ::chmod(idx2.c_str(), 0755);
  index_tree(idx2, src);
  ::umask(old);

  {
    auto bad = bad_modes(idx);
    INFO("in-process run_index under umask 022:\n" << joined(bad));
    CHECK(bad.empty());
  }
  {
    auto bad2 = bad_modes(idx2);
    INFO("pre-existing 0755 index dir, umask 022:\n" << joined(bad2));
    CHECK(bad2.empty());
  }

  // The CLI (which sets its own umask) too.
  const std::string idx3 = tmp / "cli-idx";
  RunResult r = run_osearch({"--index", idx3, "--source", "claude=" + src, "--format", "json", "index"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  append_file(src + "/" + kB3, user_line(kB3Sid, "perm-cli", "appended for the CLI", "2025-12-21T00:00:01.000Z"));
  RunResult r2 = run_osearch({"--index", idx3, "--source", "claude=" + src, "--format", "json", "index"});
  REQUIRE(r2.exit_code == 0);
  auto bad3 = bad_modes(idx3);
  INFO("osearch index:\n" << joined(bad3));
  CHECK(bad3.empty());
}

TEST_CASE("index: --full rebuilds to the same index", "[index]") {
  TempDir tmp("full");
  const std::string src = tmp / "src";
  copy_tree(claude_data_dir(), src);
  const std::string idx = tmp / "idx";
  IndexSummary s1 = index_tree(idx, src);
  const auto fp = fingerprint(idx);

  IndexSummary s2 = index_tree(idx, src, full_options());
  CHECK(s2.files_changed == s1.files_seen);
  CHECK(s2.sessions == s1.sessions);
  CHECK(s2.messages == s1.messages);
  CHECK(s2.tool_calls == s1.tool_calls);
  CHECK_SAME_INDEX(idx, fp);

  // After an incremental change, --full still matches a clean build.
  append_file(src + "/" + kB3, user_line(kB3Sid, "full-new", "added before --full", "2025-12-21T00:00:00.000Z"));
  fs::resize_file(src + "/" + kWindows, file_size(src + "/" + kWindows) / 2);
  index_tree(idx, src);
  IndexSummary s3 = index_tree(idx, src, full_options());
  const std::string ref = tmp / "ref";
  IndexSummary clean = index_tree(ref, src);
  CHECK(s3.messages == clean.messages);
  CHECK(s3.sessions == clean.sessions);
  CHECK_SAME_INDEX(idx, fingerprint(ref));

  // The CLI's `index --full` reports the same counts.
  RunResult r = run_osearch({"--index", idx, "--source", "claude=" + src, "--format", "json", "index", "--full"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("\"messages\":" + std::to_string(clean.messages)) != std::string::npos);
  CHECK(r.out.find("\"sessions\":" + std::to_string(clean.sessions)) != std::string::npos);
  CHECK(r.out.find("\"tool_calls\":" + std::to_string(clean.tool_calls)) != std::string::npos);
  CHECK_SAME_INDEX(idx, fingerprint(ref));
}

TEST_CASE("index: --full keeps the sessions of deleted source files as source_deleted", "[index]") {
  // SPEC §2: the index is a durable archive; sessions of vanished files stay searchable (marked
  // source_deleted) until `osearch prune`. A rebuild is not a prune.
  TempDir tmp("full-deleted");
  const std::string src = tmp / "src";
  make_tree(src, {"-Users-user-project", kWindows});
  const std::string idx = tmp / "idx";
  IndexSummary s1 = index_tree(idx, src);
  fs::remove(src + "/" + kWindows);
  index_tree(idx, src);
  REQUIRE(all_sessions(idx).at(kWindowsSid).source_deleted);

  IndexSummary full = index_tree(idx, src, full_options());
  CHECK(full.sessions == s1.sessions);
  CHECK(full.messages == s1.messages);
  auto sessions = all_sessions(idx);
  REQUIRE(sessions.count(kWindowsSid) == 1);
  CHECK(sessions.at(kWindowsSid).source_deleted);
  CHECK(sessions.at(kWindowsSid).message_count == 7);
  CHECK(session_messages(idx, kWindowsSid).size() == 7);
}

TEST_CASE("index: bad input never stops a run and is counted in bad_lines", "[index]") {
  TempDir tmp("badinput");
  const std::string src = tmp / "src";
  make_tree(src, {kWindows});
  const std::string p = src + "/-bad/";
  std::mt19937 rng(1234);
  std::string junk(64 * 1024, '\0');
  for (auto& ch : junk) ch = static_cast<char>(rng() & 0xff);
  for (size_t i = 1000; i < junk.size(); i += 4000) junk[i] = '\n';  // many "lines"
  junk += "\n";
  write_file(p + "x.jsonl", junk);
  write_file(p + "empty.jsonl", "");
  write_file(p + "s-utf8.jsonl", user_line("s-utf8", "u1", "before the bad bytes") +
                                     user_line("s-utf8", "u2", std::string("bad \xff\xfe\xc0\xaf bytes"), "2026-03-01T10:00:01.000Z") +
                                     assistant_line("s-utf8", "u3", "after the bad bytes", "m-u3", 1, 1, "2026-03-01T10:00:02.000Z"));
  std::string big(2u << 20, 'b');
  for (size_t i = 0; i < big.size(); i += 100) big[i] = ' ';
  write_file(p + "s-big.jsonl", user_line("s-big", "b1", "bigword " + big) +
                                    assistant_line("s-big", "b2", "after big", "m-b2", 1, 1));
  write_file(p + "s-junk.jsonl", "[1,2,3]\n\"a string\"\nnull\n{\"type\":\"user\",oops}\n" +
                                     user_line("s-junk", "j1", "valid after junk") + "{\"type\":\"summary\"}{broken\n");
  const std::string half = user_line("s-half2", "hb", "never finished");
  write_file(p + "s-half2.jsonl", user_line("s-half2", "ha", "finished") + half.substr(0, half.size() / 2));
  fs::create_directories(p + "dir.jsonl");  // a directory with a transcript's name

  const std::string idx = tmp / "idx";
  IndexSummary s;
  REQUIRE_NOTHROW(s = index_tree(idx, src));
  CHECK_FALSE(s.busy);
  CHECK(s.files_unreadable == 0);
  // junk: 4 lines + 1 glued piece (+ the garbage lines); invalid UTF-8: skipped and counted, or repaired.
  CHECK(s.bad_lines >= 5 + 10);
  auto u2 = message_by_uuid(idx, "s-utf8", "u2");
  if (u2) CHECK(valid_utf8(u2->text));
  else CHECK(s.bad_lines >= 5 + 10 + 1);
  CHECK(message_by_uuid(idx, "s-utf8", "u1").has_value());
  CHECK(message_by_uuid(idx, "s-utf8", "u3").has_value());
  auto b1 = message_by_uuid(idx, "s-big", "b1");
  REQUIRE(b1.has_value());
  CHECK(b1->text.size() >= big.size());
  CHECK(message_by_uuid(idx, "s-big", "b2").has_value());
  CHECK(message_by_uuid(idx, "s-junk", "j1").has_value());
  CHECK(message_by_uuid(idx, "s-half2", "ha").has_value());
  CHECK_FALSE(message_by_uuid(idx, "s-half2", "hb").has_value());
  auto sessions = all_sessions(idx);
  CHECK(sessions.count("x") == 0);
  CHECK(sessions.count("empty") == 0);
  CHECK(sessions.at(kWindowsSid).message_count == 7);

  // Nothing changed: nothing re-read, no bad line counted twice.
  IndexSummary again = index_tree(idx, src);
  CHECK(again.bad_lines == 0);
  CHECK(again.new_messages == 0);
  CHECK(again.messages == s.messages);

  // The CLI run succeeds, reports the bad lines, and names the offending files with --verbose.
  const std::string idx2 = tmp / "cli-idx";
  RunResult r = run_osearch({"--index", idx2, "--source", "claude=" + src, "--format", "json", "--verbose", "index"});
  INFO("stdout: " << r.out.substr(0, 2000) << "\nstderr: " << r.err.substr(0, 2000));
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("\"bad_lines\":" + std::to_string(s.bad_lines)) != std::string::npos);
  CHECK((r.out + r.err).find("x.jsonl") != std::string::npos);
  CHECK((r.out + r.err).find("s-junk.jsonl") != std::string::npos);

  if (::geteuid() != 0) {
    // An unreadable file is reported and skipped; the rest is indexed.
    const std::string locked = p + "s-locked.jsonl";
    write_file(locked, user_line("s-locked", "k1", "secret"));
    ::chmod(locked.c_str(), 0);
    IndexSummary u = index_tree(idx, src);
    CHECK(u.files_unreadable == 1);
    bool named = false;
    for (const auto& pr : u.problems) named = named || pr.find(locked) != std::string::npos;
    CHECK(named);
    ::chmod(locked.c_str(), 0600);
  }
}

TEST_CASE("index: test helper run_process captures output and exit status without a shell", "[index][util]") {
  TempDir tmp("util");
  // 3 MB through cat: stdin written while stdout is drained (no pipe deadlock), bytes unchanged.
  std::string big(3u << 20, 'x');
  for (size_t i = 0; i < big.size(); i += 997) big[i] = static_cast<char>('a' + i % 26);
  RunResult cat = run_process("/bin/cat", {}, big, RunOptions{});
  CHECK(cat.exit_code == 0);
  CHECK(cat.out == big);
  CHECK(cat.err.empty());

  // Arguments are passed verbatim (no shell: quotes, $ and ; are plain bytes).
  RunResult echo = run_process("/bin/echo", {"a b", "$HOME;", "'q'"}, "", RunOptions{});
  CHECK(echo.out == "a b $HOME; 'q'\n");

  // Exit codes, stderr, environment and working directory.
  RunOptions opt;
  opt.env["OSEARCH_TEST_VAR"] = "v1";
  opt.env["HOME"] = std::nullopt;
  opt.cwd = tmp.path();
  RunResult env = run_process("/usr/bin/env", {}, "", opt);
  CHECK(env.out.find("OSEARCH_TEST_VAR=v1\n") != std::string::npos);
  CHECK(env.out.find("\nHOME=") == std::string::npos);
  RunResult pwd = run_process("/bin/pwd", {}, "", opt);
  CHECK(pwd.out == fs::canonical(tmp.path()).string() + "\n");
  RunResult ls = run_process("/bin/ls", {tmp / "missing"}, "", RunOptions{});
  CHECK(ls.exit_code != 0);
  CHECK_FALSE(ls.err.empty());

  // A missing program: 127 and a message, never an exception.
  RunResult none = run_process(tmp / "no-such-binary", {}, "", RunOptions{});
  CHECK(none.exit_code == 127);
  CHECK(none.err.find("cannot exec") != std::string::npos);

  // A hung child is killed at the timeout.
  RunOptions quick;
  quick.timeout = std::chrono::milliseconds(200);
  RunResult slow = run_process("/bin/sleep", {"10"}, "", quick);
  CHECK(slow.timed_out);
  CHECK(slow.term_signal == SIGKILL);

  // The CLI itself.
  RunResult v = run_osearch({"--version"});
  CHECK(v.exit_code == 0);
  CHECK_FALSE(v.out.empty());
}
