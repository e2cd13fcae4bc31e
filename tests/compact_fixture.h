// Shared helpers of the garbage and compaction tests ([compact]): the counters, the text log and
// Xapian counted by hand, the CLI's answers, and an index with garbage, an archive, a partly deleted
// session and memories.
#pragma once

#include "tests/index_fixture.h"

#include <signal.h>

#include <cstring>

#include "engine/index/garbage.h"
#include "engine/index/index_parts.h"
#include "engine/query/pattern_cache.h"
#include "tests/json_scrub.h"

namespace {

const std::string kPartSub =
    "-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-a4ca7529859c158c2.jsonl";

IndexOptions compact_options(Compact c = Compact::Always) {
  IndexOptions o;
  o.compact = c;
  return o;
}

GarbageCounts counters_of(const std::string& idx) {
  IndexReader r(idx);
  return read_garbage_counts(r.txn(), r.db());
}

// The text log bytes of the dropped sessions, computed apart from the index's counters: every
// entry the log holds that no live message points at, found by walking the log file itself.
uint64_t dead_entry_bytes(const std::string& idx) {
  IndexReader r(idx);
  const IndexParts parts = read_parts(r.txn(), r.db());
  std::set<uint64_t> live;
  LmdbCursor cur(r.txn(), r.db().messages);
  for (bool ok = cur.first(); ok; ok = cur.next()) {
    auto m = MessageRec::decode(cur.key(), cur.value());
    REQUIRE(m.has_value());
    live.insert(m->text_offset);
  }
  const std::string log = read_file(idx + "/" + parts.text_log + ".log");
  REQUIRE(log.size() == parts.text_bytes);
  auto u32 = [&](size_t at) {
    uint32_t v;
    std::memcpy(&v, log.data() + at, 4);
    return v;
  };
  uint64_t dead = 0;
  for (size_t at = 0; at < log.size();) {
    const size_t entry = 4 + u32(at) + 1;
    const size_t size = entry + 4 + u32(at + entry);
    if (!live.count(at)) dead += size;
    at += size;
  }
  return dead;
}

// Message documents (of every epoch) minus live messages, counted in Xapian itself.
uint64_t dead_documents(const std::string& idx) {
  IndexReader r(idx);
  const uint64_t docs = open_index_databases(idx, read_parts(r.txn(), r.db()).layout).message_docs;
  return docs - r.counts().messages;
}

// The bytes of every entry of `sid` as the log stores them, summed from its messages.
uint64_t session_entry_bytes(const std::string& idx, const std::string& sid, uint64_t* messages = nullptr) {
  uint64_t n = 0;
  const auto msgs = session_messages(idx, sid);
  for (const auto& m : msgs) n += 9 + m.rec.key.size() + m.text.size();
  if (messages) *messages = msgs.size();
  return n;
}

uint64_t tree_size(const std::string& dir) {
  uint64_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) n += e.file_size();
  return n;
}

// Entries of the index dir the live env does not name (an old or an unfinished generation's).
std::vector<std::string> unnamed_entries(const std::string& idx) {
  const std::string env = current_records_name(idx);
  IndexReader r(idx);
  const IndexParts parts = read_parts(r.txn(), r.db());
  std::set<std::string> named = {"writer.lock", "records.current", env, parts.text_log + ".log", parts.text_log + ".idx",
                                 parts.layout.titles, "xapian-" + std::to_string(parts.layout.generation),
                                 "memories", "memories.lock", "memories-text", "memories-text.lock",
                                 kPatternCacheDir};
  for (const auto& s : parts.layout.shards) named.insert(s);
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(idx))
    if (!named.count(e.path().filename().string())) out.push_back(e.path().filename().string());
  return out;
}

// ---------------------------------------------------------------------------------------------
// The CLI

std::vector<std::string> cli(const std::string& idx, const std::string& src, std::vector<std::string> args) {
  std::vector<std::string> out = {"--index", idx, "--source", "claude=" + src, "--format", "json"};
  out.insert(out.end(), args.begin(), args.end());
  return out;
}

std::string run_ok(const std::string& idx, const std::string& src, const std::vector<std::string>& args) {
  RunResult r = run_osearch(cli(idx, src, args));
  INFO("osearch " << args.front() << ": " << r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

// A query's JSON without its timing.
std::string answer(const std::string& idx, const std::string& src, std::vector<std::string> args) {
  args.insert(args.begin(), "--no-refresh");
  return without_timing(run_ok(idx, src, args));
}

const std::vector<std::vector<std::string>> kQueries = {
    {"list", "--limit", "1000"},
    {"thread", kExperimentsSid},
    {"thread", kWindowsSid},
    {"thread", kB3Sid},
    {"content", "-i", "error"},
    {"content", "--by", "message", "--limit", "1000", "TODO"},
    {"stats", "tokens"},
    {"stats", "tools"},
    {"stats", "files"},
    {"stats", "models"},
    {"files", "README.md"},
    {"failures"},
    {"memory", "list"},
};
const std::vector<std::vector<std::string>> kKeywordQueries = {
    {"keyword", "--limit", "1000", "error"},
    {"keyword", "--by", "message", "--limit", "1000", "test"},
    {"keyword", "--sort", "newest", "--limit", "1000", "file"},
    {"keyword", "--by", "message", "--limit", "1000", "agent"},
};

std::map<std::string, std::string> answers(const std::string& idx, const std::string& src,
                                           const std::vector<std::vector<std::string>>& queries) {
  std::map<std::string, std::string> out;
  for (const auto& q : queries) {
    std::string name;
    for (const auto& a : q) name += a + " ";
    out[name] = answer(idx, src, q);
  }
  return out;
}

// What a keyword answer found, ranking aside: its total and every hit (session, message).
std::string hits_of(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
  std::set<std::string> hits;
  for (simdjson::dom::element h : doc["results"].get_array()) {
    std::string_view sid, uuid;
    if (h["session_id"].get_string().get(sid) != simdjson::SUCCESS) sid = "?";
    if (h["message_uuid"].get_string().get(uuid) != simdjson::SUCCESS) uuid = "";
    hits.insert(std::string(sid) + "/" + std::string(uuid));
  }
  std::string out = "total=" + std::to_string(uint64_t(doc["total"].get_uint64().value_unsafe()));
  for (const auto& h : hits) out += " " + h;
  return out;
}

std::optional<uint64_t> json_number(const std::string& json, const char* object, const char* key) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
  uint64_t v = 0;
  if (doc[object][key].get_uint64().get(v) != simdjson::SUCCESS) return std::nullopt;
  return v;
}

#define CHECK_SAME_ANSWERS(got, want)           \
  do {                                          \
    const auto got_ = (got);                    \
    const auto want_ = (want);                  \
    for (const auto& [q_, a_] : want_) {        \
      INFO("query: " << q_);                    \
      REQUIRE(got_.count(q_) == 1);             \
      CHECK(got_.at(q_) == a_);                 \
    }                                           \
  } while (0)

// An index of tests/data/claude with garbage (sessions re-read after their transcripts were
// replaced), an archived session (kWindows: its only file deleted), a partly deleted session (one
// of kExperimentsSid's subagent transcripts deleted: its messages live only in the index now), a
// memory and an entry of the legacy memories table.
struct GarbageFixture {
  TempDir tmp{"compact"};
  std::string src = tmp / "src";
  std::string idx = tmp / "idx";
  uint64_t partly_deleted_messages = 0;

  explicit GarbageFixture(bool with_garbage = true) {
    copy_tree(claude_data_dir(), src);
    index_tree(idx, src);
    {
      Store store(idx, Store::Mode::Write);
      LmdbTxn txn(store.env(), false);
      txn.put(store.db().memories, "legacy", "a memory of the records env");
      txn.commit();
    }
    const std::string note = tmp / "note.md";
    write_file(note, "compaction keeps memories\n");
    run_ok(idx, src, {"memory", "remember", "--path", note, "--summary", "kept across --compact"});
    partly_deleted_messages = all_sessions(idx).at(kExperimentsSid).message_count;
    fs::remove(src + "/" + kWindows);
    fs::remove(src + "/" + kPartSub);
    index_tree(idx, src);
    REQUIRE(all_sessions(idx).at(kWindowsSid).source_deleted);
    REQUIRE(all_sessions(idx).at(kExperimentsSid).message_count == partly_deleted_messages);
    if (!with_garbage) return;
    // Every other transcript is replaced (same bytes, new inode): its sessions are read again whole.
    for (const auto& rel : list_files(src))
      if (rel.ends_with(".jsonl") && rel.find(kExperimentsSid) == std::string::npos)
        replace_file(src + "/" + rel, read_file(src + "/" + rel));
    index_tree(idx, src);
    REQUIRE(all_sessions(idx).at(kExperimentsSid).message_count == partly_deleted_messages);
    REQUIRE(counters_of(idx).text_bytes.value_or(0) > 0);
  }
};

}  // namespace
