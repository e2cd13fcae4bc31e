// Shared fixtures and helpers of the index tests (split out of one long file).
#pragma once

// The index (run_index + IndexReader) against SPEC §2 and §7: exact counts on the shared corpus,
// idempotent re-runs, incremental reads of appended bytes only, half-written lines, shrunk /
// replaced / deleted / re-created files, orphan subagents, titles, message and token totals,
// kill -9 recovery compared with a clean build, a concurrent second indexer, file modes, --full
// and bad input. Source trees are built in temp dirs from tests/data/claude (real transcripts)
// plus synthetic files written here.
#include "engine/index/indexer.h"

#include <catch2/catch.hpp>

#include "tests/utf8_check.h"

#include <sys/stat.h>
#include <time.h>

#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine/query/check.h"
#include "engine/query/reader.h"
#include "engine/query/search.h"
#include "engine/store/records_store.h"
#include "engine/store/session_numbers.h"
#include "engine/store/store.h"
#include "ingest/claude.h"
#include "ingest/jsonl_reader.h"
#include "tests/corpus_sessions.h"
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
  auto key = find_message_key(r.txn(), r.db(), sid, uuid);
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
      std::string models;  // (kept sorted: index_misc_test)
      for (const auto& m : s->models) models += m + ",";
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
  // Every live Xapian document, once: one per message key, one per title (older epochs are dead).
  std::vector<std::string> live;
  Xapian::Database& x = r.xapian();
  for (auto it = x.postlist_begin(""); it != x.postlist_end(""); ++it) {
    Xapian::Document doc = x.get_document(*it);
    if (!is_live(doc, r.epochs())) continue;
    std::string key = doc.get_value(kSlotKey);
    live.push_back(key.empty() ? "X title " + r.session_of_value(doc.get_value(kSlotSession)).value_or("(no session)")
                                : "X doc " + hex(key));
  }
  std::sort(live.begin(), live.end());
  fp.insert(fp.end(), live.begin(), live.end());
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
const std::string kWindowsSid = "88e16f61-d1b7-47a3-84f1-057e0f96521a";
const std::string kExperimentsSid = "ef958aa1-0e93-49f0-bb71-150f63befcd1";

// Sets a directory's mtime to a time in the past no other call used: what an entry added long ago
// leaves behind, without waiting for the two seconds a fresh mtime is distrusted.
class PastMtimes {
 public:
  void settle(const std::string& dir) {
    struct timespec times[2];
    ::clock_gettime(CLOCK_REALTIME, &times[0]);
    times[0].tv_sec -= 600;
    times[0].tv_nsec = static_cast<long>(++tick_ * 1000);
    times[1] = times[0];
    REQUIRE(::utimensat(AT_FDCWD, dir.c_str(), times, 0) == 0);
  }
  void settle_tree(const std::string& root) {
    for (const auto& e : fs::recursive_directory_iterator(root))
      if (e.is_directory()) settle(e.path().string());
    settle(root);
  }

 private:
  long tick_ = 0;
};

// Copies the given tests/data/claude entries (files or dirs) into `dst`.
void make_tree(const std::string& dst, const std::vector<std::string>& rels) {
  fs::create_directories(dst);
  for (const auto& rel : rels) copy_subtree(claude_data_dir(), rel, dst);
}

// A tree of every agent's sources from tests/data (two Claude projects, tests/data/mixed's omp, pi
// and Codex), every directory's mtime settled in the past.
struct FourAgentTree {
  TempDir tmp;
  std::string claude = tmp / "claude";
  std::string omp = tmp / "omp";
  std::string pi = tmp / "pi";
  std::string codex = tmp / "codex";
  PastMtimes clock;

  explicit FourAgentTree(const std::string& name) : tmp(name) {
    make_tree(claude, {"-Users-user-project", "D--oh-my-posh"});
    copy_tree(test_data_dir() + "/mixed/omp", omp);
    copy_tree(test_data_dir() + "/mixed/pi", pi);
    copy_tree(test_data_dir() + "/mixed/codex", codex);
    for (const auto& d : {claude, omp, pi, codex}) clock.settle_tree(d);
  }
  std::vector<SourceRoot> roots() const { return {{"claude", claude}, {"omp", omp}, {"pi", pi}, {"codex", codex}}; }
};

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

std::string json_string_body(std::string_view s) {
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
         json_string_body(text) + R"("},"uuid":")" + uuid + R"(","timestamp":")" + ts + "\"}\n";
}
std::string assistant_line(const std::string& sid, const std::string& uuid, const std::string& text,
                           const std::string& msg_id, int in, int out, const std::string& ts = "2026-03-01T10:00:01.000Z") {
  return R"({"parentUuid":null,"isSidechain":false,"type":"assistant","cwd":"/w/proj","sessionId":")" + sid +
         R"(","message":{"id":")" + msg_id + R"(","model":"claude-test","role":"assistant","content":[{"type":"text","text":")" +
         json_string_body(text) + R"("}],"usage":{"input_tokens":)" + std::to_string(in) + R"(,"output_tokens":)" +
         std::to_string(out) + R"(,"cache_creation_input_tokens":1,"cache_read_input_tokens":2}},"uuid":")" + uuid +
         R"(","timestamp":")" + ts + "\"}\n";
}
std::string fact_line(const std::string& type, const std::string& field, const std::string& text, const std::string& sid) {
  return R"({"type":")" + type + R"(",")" + field + R"(":")" + json_string_body(text) + R"(","sessionId":")" + sid + "\"}\n";
}
std::string summary_line(const std::string& text, const std::string& leaf) {
  return R"({"type":"summary","summary":")" + json_string_body(text) + R"(","leafUuid":")" + leaf + "\"}\n";
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
// carry (root agent files); usage is counted once per (session, message.id), its largest (by the
// sum of the four counts), cache creation from the `cache_creation` object when there is one.
struct ExpectedSession {
  uint64_t messages = 0;
  TokenUsage tokens;
  std::set<std::string> uuids;
  std::map<std::string, TokenUsage> api_usage;  // message.id -> the usage counted for it
  std::map<std::string, std::string> first_text;  // uuid -> the words of its first line
};

std::map<std::string, ExpectedSession> expected_sessions(const std::string& root) {
  std::map<std::string, ExpectedSession> out;
  const auto files = list_files(root);
  const std::set<std::string> present(files.begin(), files.end());
  for (const auto& rel : files) {
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
      if (obj["type"].get_string().get(type) != simdjson::SUCCESS) return;
      // Messages: user and assistant lines, and prompts queued mid-turn (queued_command attachments).
      std::string_view attachment_type;
      const bool queued = type == "attachment" &&
                          obj["attachment"]["type"].get_string().get(attachment_type) == simdjson::SUCCESS &&
                          attachment_type == "queued_command";
      // A subagent's message its parent's progress line repeats (agent_progress), where the
      // subagent has no transcript of its own in the tree: its uuid is the inner message's.
      simdjson::dom::element message_obj = obj, data;
      std::string_view data_type, agent, inner_type;
      const bool copy = type == "progress" && parts.size() == 2 && !root_agent &&
                        obj["data"].get(data) == simdjson::SUCCESS &&
                        data["type"].get_string().get(data_type) == simdjson::SUCCESS && data_type == "agent_progress" &&
                        data["agentId"].get_string().get(agent) == simdjson::SUCCESS && !agent.empty() &&
                        data["message"].get(message_obj) == simdjson::SUCCESS && message_obj.is_object() &&
                        message_obj["type"].get_string().get(inner_type) == simdjson::SUCCESS &&
                        (inner_type == "user" || inner_type == "assistant") &&
                        !present.count(parts[0] + "/" + sid + "/subagents/agent-" + std::string(agent) + ".jsonl") &&
                        !present.count(parts[0] + "/agent-" + std::string(agent) + ".jsonl");
      if (type != "user" && type != "assistant" && !queued && !copy) return;
      if (message_obj["uuid"].get_string().get(uuid) != simdjson::SUCCESS || uuid.empty()) return;
      ExpectedSession& e = out[sid];
      // A uuid seen before is a new message only with other, non-empty words than its first line
      // (engine/index/ingest_batch.cpp); the words are what the adapter reads.
      LineRecords rec;
      std::string text;
      if (parse_claude_object(obj, rec) && !rec.messages.empty()) text = rec.messages[0].text;
      auto [first, fresh] = e.first_text.emplace(std::string(uuid), text);
      if (!fresh && (text.empty() || text == first->second)) return;
      if (queued && text.empty()) return;  // a queued prompt without words is no message
      e.uuids.insert(std::string(uuid));
      ++e.messages;
      simdjson::dom::element usage;
      // (A copy carries no usage: ccusage counts none of those lines.)
      if (copy || type != "assistant" || obj["message"]["usage"].get(usage) != simdjson::SUCCESS || !usage.is_object()) return;
      auto num = [](simdjson::dom::element o, const char* k) -> int64_t {
        int64_t v = 0;
        uint64_t u = 0;
        if (o[k].get_int64().get(v) == simdjson::SUCCESS) return v;
        if (o[k].get_uint64().get(u) == simdjson::SUCCESS) return static_cast<int64_t>(u);
        return 0;
      };
      TokenUsage t;
      t.input = num(usage, "input_tokens");
      t.output = num(usage, "output_tokens");
      simdjson::dom::element breakdown;
      t.cache_creation = usage["cache_creation"].get(breakdown) == simdjson::SUCCESS && breakdown.is_object()
                             ? num(breakdown, "ephemeral_5m_input_tokens") + num(breakdown, "ephemeral_1h_input_tokens")
                             : num(usage, "cache_creation_input_tokens");
      t.cache_read = num(usage, "cache_read_input_tokens");
      auto sum = [](const TokenUsage& x) { return x.input + x.output + x.cache_creation + x.cache_read; };
      std::string_view api_id;
      if (obj["message"]["id"].get_string().get(api_id) != simdjson::SUCCESS || api_id.empty()) {
        e.tokens.add(t);
        return;
      }
      auto [counted, fresh_id] = e.api_usage.try_emplace(std::string(api_id), TokenUsage{});
      if (!fresh_id && sum(t) <= sum(counted->second)) return;
      e.tokens.input += t.input - counted->second.input;
      e.tokens.output += t.output - counted->second.output;
      e.tokens.cache_creation += t.cache_creation - counted->second.cache_creation;
      e.tokens.cache_read += t.cache_read - counted->second.cache_read;
      counted->second = t;
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

// ---------------------------------------------------------------------------------------------
// Asking the index

// Whether `check` finds the index whole; the parts it does not are named in the failure's report.
bool index_ok(const std::string& idx) {
  CheckReport r = check_index(idx);
  for (const auto& p : r.parts)
    if (!p.ok) UNSCOPED_INFO(p.part << ": " << p.problem);
  return r.ok;
}

// The sessions `keyword q` answers (up to 1,000).
std::set<std::string> keyword_sessions(const std::string& idx, const std::string& q) {
  IndexReader reader(idx);
  Filters f;
  f.limit = 1000;
  std::set<std::string> out;
  for (const auto& h : run_keyword(reader, q, f, KeywordOptions{}).hits) out.insert(h.session.id);
  return out;
}

}  // namespace

// =============================================================================================
