// Garbage and `index --compact` (issue 13): the text log entries and Xapian documents that dropped
// sessions leave behind are counted exactly as they are made, `status` reports them, a compaction
// builds a new generation from the index itself (nothing only the index holds is lost, every answer
// stays), a kill -9 anywhere leaves the old or the new index whole, and `osearch index` compacts by
// itself after a big re-read, never after a normal one.
#include "tests/index_fixture.h"

#include <signal.h>

#include <cstring>
#include <regex>

#include "engine/index/garbage.h"
#include "engine/index/index_parts.h"

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
                                 "memories", "memories.lock", "memories-text", "memories-text.lock"};
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
  static const std::regex took("\"took_ms\":[-+.eE0-9]+");
  return std::regex_replace(run_ok(idx, src, args), took, "\"took_ms\":0");
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

TEST_CASE("compact: garbage is counted exactly as it is made, by re-reads and by prune", "[compact]") {
  TempDir tmp("garbage");
  const std::string src = tmp / "src", idx = tmp / "idx";
  copy_tree(claude_data_dir(), src);
  index_tree(idx, src);
  CHECK(counters_of(idx).text_bytes == uint64_t{0});
  CHECK(counters_of(idx).hidden_documents == uint64_t{0});

  uint64_t want_bytes = 0, want_docs = 0;
  auto expect_drop = [&](const std::string& sid) {
    uint64_t n = 0;
    want_bytes += session_entry_bytes(idx, sid, &n);
    want_docs += n;
    REQUIRE(n > 0);
  };
  auto check_counts = [&](const char* step) {
    INFO("after " << step);
    const GarbageCounts c = counters_of(idx);
    CHECK(c.text_bytes == want_bytes);
    CHECK(c.hidden_documents == want_docs);
    CHECK(dead_entry_bytes(idx) == want_bytes);  // the log read by hand
    CHECK(dead_documents(idx) == want_docs);     // Xapian's own count
    const std::string status = run_ok(idx, src, {"status"});
    CHECK(json_number(status, "garbage", "text_bytes") == want_bytes);
    CHECK(json_number(status, "garbage", "hidden_documents") == want_docs);
    CHECK(json_number(status, "garbage", "bytes") > want_bytes);  // plus the documents' share
  };

  // A transcript cut to half its lines: its session is dropped and read again.
  expect_drop(kB3Sid);
  const std::string b3 = read_file(src + "/" + kB3);
  const auto ends = line_ends(b3);
  REQUIRE(ends.size() > 4);
  write_file(src + "/" + kB3, b3.substr(0, ends[ends.size() / 2]));
  index_tree(idx, src);
  check_counts("a shrunk transcript");

  // A transcript replaced by a copy (new inode): dropped and read again, adding to the count.
  const std::string glued_sid = kGlued.substr(kGlued.find('/') + 1, 36);
  expect_drop(glued_sid);
  replace_file(src + "/" + kGlued, read_file(src + "/" + kGlued));
  index_tree(idx, src);
  check_counts("a replaced transcript");

  // prune drops an archived session through the same path.
  expect_drop(kWindowsSid);
  fs::remove(src + "/" + kWindows);
  index_tree(idx, src);
  run_ok(idx, src, {"prune"});
  CHECK(all_sessions(idx).count(kWindowsSid) == 0);
  check_counts("prune");

  // The text line of status names it.
  RunResult text = run_osearch({"--index", idx, "--source", "claude=" + src, "--format", "text", "status"});
  CHECK(text.out.find("garbage:") != std::string::npos);
  CHECK(text.out.find(std::to_string(want_docs) + " hidden documents") != std::string::npos);
}

TEST_CASE("compact: an index of before the counters says unknown, and osearch index counts it exactly",
          "[compact]") {
  GarbageFixture fx;
  const GarbageCounts known = counters_of(fx.idx);
  REQUIRE(known.text_bytes > uint64_t{0});
  {
    Store store(fx.idx, Store::Mode::Write);
    LmdbTxn txn(store.env(), false);
    txn.del(store.db().meta, meta_key::kGarbageTextBytes);
    txn.del(store.db().meta, meta_key::kGarbageDocuments);
    txn.commit();
  }
  const std::string status = run_ok(fx.idx, fx.src, {"status"});
  CHECK(status.find("\"garbage\":{\"bytes\":null,\"text_bytes\":null,\"hidden_documents\":null}") != std::string::npos);
  RunResult text = run_osearch({"--index", fx.idx, "--source", "claude=" + fx.src, "--format", "text", "status"});
  CHECK(text.out.find("garbage:      unknown") != std::string::npos);

  // A query's refresh does not pay for the count; a re-read while unknown keeps it unknown.
  IndexOptions refresh;
  refresh.quick_check = true;
  replace_file(fx.src + "/" + kB3, read_file(fx.src + "/" + kB3));
  run_index(fx.idx, roots_of(fx.src), refresh);
  CHECK_FALSE(counters_of(fx.idx).text_bytes.has_value());

  // `osearch index` counts both, exactly.
  run_ok(fx.idx, fx.src, {"index"});
  const GarbageCounts counted = counters_of(fx.idx);
  CHECK(counted.text_bytes == dead_entry_bytes(fx.idx));
  CHECK(counted.hidden_documents == dead_documents(fx.idx));
  CHECK(counted.text_bytes > known.text_bytes);  // kB3's re-read added to it
}

TEST_CASE("compact: --compact keeps every answer, the archive, partly deleted sessions and memories",
          "[compact]") {
  GarbageFixture fx;
  const auto fp = fingerprint(fx.idx);
  const auto before = answers(fx.idx, fx.src, kQueries);
  std::map<std::string, std::string> keyword_hits;
  for (const auto& [q, a] : answers(fx.idx, fx.src, kKeywordQueries)) keyword_hits[q] = hits_of(a);
  const std::string env_before = current_records_name(fx.idx);
  const uint64_t size_before = tree_size(fx.idx);

  const std::string out = run_ok(fx.idx, fx.src, {"index", "--compact"});
  INFO(out);
  CHECK(out.find("\"compact\":true") != std::string::npos);
  CHECK(out.find("\"new_messages\":0") != std::string::npos);
  const auto bytes_before = json_number(out, "compacted", "bytes_before");
  const auto bytes_after = json_number(out, "compacted", "bytes_after");
  REQUIRE(bytes_before.has_value());
  REQUIRE(bytes_after.has_value());
  CHECK(*bytes_after < *bytes_before);
  CHECK(tree_size(fx.idx) < size_before);
  CHECK(json_number(out, "compacted", "text_bytes") > uint64_t{0});
  CHECK(json_number(out, "compacted", "hidden_documents") > uint64_t{0});

  CHECK(current_records_name(fx.idx) != env_before);
  CHECK(unnamed_entries(fx.idx).empty());
  CHECK(counters_of(fx.idx).text_bytes == uint64_t{0});
  CHECK(counters_of(fx.idx).hidden_documents == uint64_t{0});
  CHECK(dead_entry_bytes(fx.idx) == 0);
  CHECK(dead_documents(fx.idx) == 0);
  CHECK(IndexReader(fx.idx).epochs().empty());
  const std::string status = run_ok(fx.idx, fx.src, {"status"});
  CHECK(status.find("\"garbage\":{\"bytes\":0,\"text_bytes\":0,\"hidden_documents\":0}") != std::string::npos);

  // Every record, text and live document as before; the archive and the partly deleted session whole.
  CHECK_SAME_INDEX(fx.idx, fp);
  const auto sessions = all_sessions(fx.idx);
  CHECK(sessions.at(kWindowsSid).source_deleted);
  CHECK(session_messages(fx.idx, kWindowsSid).size() == 7);
  CHECK(sessions.at(kExperimentsSid).message_count == fx.partly_deleted_messages);
  CHECK(session_messages(fx.idx, kExperimentsSid).size() == fx.partly_deleted_messages);
  {
    IndexReader r(fx.idx);
    CHECK(r.txn().get(r.db().memories, "legacy") == std::optional<std::string_view>("a memory of the records env"));
  }
  // Every answer as before. Keyword finds the same hits; its scores change, since the hidden
  // documents no longer count in the BM25 statistics (the next test compares them with a clean build).
  CHECK_SAME_ANSWERS(answers(fx.idx, fx.src, kQueries), before);
  for (const auto& [q, a] : answers(fx.idx, fx.src, kKeywordQueries)) {
    INFO("query: " << q);
    CHECK(hits_of(a) == keyword_hits.at(q));
  }
  RunResult check = run_osearch(cli(fx.idx, fx.src, {"check"}));
  INFO(check.out << check.err);
  CHECK(check.exit_code == 0);

  // The file states came along: the next run reads nothing, and a query's refresh stats only.
  const std::string again = run_ok(fx.idx, fx.src, {"index"});
  CHECK(again.find("\"files_changed\":0") != std::string::npos);
  CHECK(again.find("\"compacted\"") == std::string::npos);
  CHECK(run_ok(fx.idx, fx.src, {"list"}).find("\"refreshed_files\":0") != std::string::npos);
  CHECK_SAME_INDEX(fx.idx, fp);

  // Text output says what it reclaimed.
  RunResult text = run_osearch({"--index", fx.idx, "--source", "claude=" + fx.src, "--format", "text", "index", "--compact"});
  CHECK(text.exit_code == 0);
  CHECK(text.out.find("compacted: ") != std::string::npos);
  // --full and --compact are two ways to a new generation: one at a time.
  CHECK(run_osearch(cli(fx.idx, fx.src, {"index", "--full", "--compact"})).exit_code != 0);
}

TEST_CASE("compact: after a compaction keyword answers exactly as a clean build of the same records", "[compact]") {
  TempDir tmp("compact-rank");
  const std::string src = tmp / "src", idx = tmp / "idx", ref = tmp / "ref";
  copy_tree(claude_data_dir(), src);
  index_tree(idx, src);
  for (const auto& rel : list_files(src))
    if (rel.ends_with(".jsonl")) replace_file(src + "/" + rel, read_file(src + "/" + rel));
  index_tree(idx, src);  // every session read again: half the documents are hidden
  index_tree(ref, src);
  REQUIRE(counters_of(idx).hidden_documents == counts_of(idx).messages);
  const auto want = answers(ref, src, kKeywordQueries);
  const auto with_garbage = answers(idx, src, kKeywordQueries);
  CHECK(with_garbage != want);  // hidden documents weigh in the BM25 statistics until they go

  IndexSummary s = index_tree(idx, src, compact_options());
  CHECK(s.compacted);
  CHECK_SAME_ANSWERS(answers(idx, src, kKeywordQueries), want);
  CHECK_SAME_ANSWERS(answers(idx, src, kQueries), answers(ref, src, kQueries));
}

TEST_CASE("compact: kill -9 at any point of a compaction leaves the old or the new index, whole",
          "[compact]") {
  for (const std::string point : {"compact-commit", "salvaged", "built", "switched"}) {
    INFO("killed at " << point);
    GarbageFixture fx;
    const auto fp = fingerprint(fx.idx);
    const auto before = answers(fx.idx, fx.src, kQueries);
    const std::string env_before = current_records_name(fx.idx);
    const GarbageCounts garbage = counters_of(fx.idx);

    pid_t pid = fork_child([&] {
      IndexOptions o = compact_options();
      o.at_point = [&](std::string_view p) {
        if (p == point) ::raise(SIGKILL);
      };
      run_index(fx.idx, roots_of(fx.src), o);
      return 0;
    });
    ChildStatus st = wait_child(pid);
    CHECK(st.term_signal == SIGKILL);
    const bool switched = point == "switched";
    CHECK((current_records_name(fx.idx) != env_before) == switched);
    CHECK(counters_of(fx.idx).text_bytes == (switched ? uint64_t{0} : *garbage.text_bytes));
    // Whichever generation is live answers whole, and check finds nothing wrong.
    CHECK_SAME_INDEX(fx.idx, fp);
    CHECK_SAME_ANSWERS(answers(fx.idx, fx.src, kQueries), before);
    RunResult check = run_osearch(cli(fx.idx, fx.src, {"check"}));
    INFO(check.out << check.err);
    CHECK(check.exit_code == 0);

    // The next writer removes the other generation's parts; a compaction then ends the job.
    index_tree(fx.idx, fx.src);
    CHECK(unnamed_entries(fx.idx).empty());
    CHECK_SAME_INDEX(fx.idx, fp);
    IndexSummary s = index_tree(fx.idx, fx.src, compact_options());
    CHECK(s.compacted);
    CHECK(counters_of(fx.idx).text_bytes == uint64_t{0});
    CHECK_SAME_INDEX(fx.idx, fp);
    CHECK_SAME_ANSWERS(answers(fx.idx, fx.src, kQueries), before);
    CHECK(unnamed_entries(fx.idx).empty());
  }
}

TEST_CASE("compact: a stop request or a failure before the switch leaves the index as it was", "[compact]") {
  GarbageFixture fx;
  const auto fp = fingerprint(fx.idx);
  const std::string env_before = current_records_name(fx.idx);
  IndexOptions o = compact_options();
  bool stop = false;
  o.at_point = [&](std::string_view p) {
    if (p == "compact-commit") stop = true;
  };
  o.should_stop = [&] { return stop; };
  IndexSummary s = index_tree(fx.idx, fx.src, o);
  CHECK(s.interrupted);
  CHECK_FALSE(s.compacted);
  CHECK(current_records_name(fx.idx) == env_before);
  CHECK(unnamed_entries(fx.idx).empty());  // the new parts are removed at once
  CHECK(counters_of(fx.idx).text_bytes > uint64_t{0});
  CHECK_SAME_INDEX(fx.idx, fp);

  // A text the log does not hold whole: nothing is switched, the problem is said.
  {
    Store store(fx.idx, Store::Mode::Write);
    LmdbTxn txn(store.env(), false);
    LmdbCursor cur(txn, store.db().messages);
    REQUIRE(cur.first());
    auto m = MessageRec::decode(cur.key(), cur.value());
    REQUIRE(m.has_value());
    m->text_len += 1;
    const std::string key(cur.key());
    txn.put(store.db().messages, key, m->encode());
    txn.commit();
  }
  IndexSummary bad = index_tree(fx.idx, fx.src, compact_options());
  CHECK_FALSE(bad.compacted);
  CHECK(current_records_name(fx.idx) == env_before);
  CHECK(unnamed_entries(fx.idx).empty());
  bool said = false;
  for (const auto& p : bad.problems) said = said || p.find("compaction failed, the index is unchanged") != std::string::npos;
  CHECK(said);
}

TEST_CASE("compact: osearch index compacts by itself after a big re-read, not after a normal run", "[compact]") {
  TempDir tmp("compact-auto");
  const std::string src = tmp / "src", idx = tmp / "idx";
  copy_tree(claude_data_dir(), src);
  IndexOptions autom = compact_options(Compact::Auto);
  autom.compact_min_bytes = 1;  // the fixture's garbage is far below the default 16 MB
  CHECK_FALSE(index_tree(idx, src, autom).compacted);  // a cold build: no garbage

  // A normal incremental run: a transcript grew.
  const std::string sid = "00000000-0000-4000-8000-00000000aa01";
  write_file(src + "/-w-proj/" + sid + ".jsonl", user_line(sid, sid + "-u", "first words"));
  CHECK_FALSE(index_tree(idx, src, autom).compacted);
  append_file(src + "/-w-proj/" + sid + ".jsonl", assistant_line(sid, sid + "-a", "an answer", "msg-1", 3, 4));
  CHECK_FALSE(index_tree(idx, src, autom).compacted);

  // A small re-read: garbage, but a small share of the index.
  replace_file(src + "/-w-proj/" + sid + ".jsonl", read_file(src + "/-w-proj/" + sid + ".jsonl"));
  CHECK_FALSE(index_tree(idx, src, autom).compacted);
  {
    IndexReader r(idx);
    const GarbageReport g = garbage_report(idx, r.txn(), r.db());
    REQUIRE(g.counts.hidden_documents == uint64_t{2});
    CHECK_FALSE(worth_compacting(g, CompactRule{1}));
  }

  // A big re-read (every transcript replaced): a query's refresh leaves it, osearch index compacts.
  for (const auto& rel : list_files(src))
    if (rel.ends_with(".jsonl")) replace_file(src + "/" + rel, read_file(src + "/" + rel));
  IndexOptions refresh;  // what a query runs: Compact::Never
  refresh.quick_check = true;
  refresh.wait_for_lock = false;
  CHECK_FALSE(run_index(idx, roots_of(src), refresh).compacted);
  CHECK(counters_of(idx).hidden_documents > counts_of(idx).messages / 2);
  CHECK_FALSE(index_tree(idx, src, compact_options(Compact::Auto)).compacted);  // under the default 16 MB
  const auto fp = fingerprint(idx);
  IndexSummary s = index_tree(idx, src, autom);
  CHECK(s.compacted);
  CHECK(s.compact_bytes_after < s.compact_bytes_before);
  CHECK(counters_of(idx).hidden_documents == uint64_t{0});
  CHECK_SAME_INDEX(idx, fp);
  // Not again right after it.
  CHECK_FALSE(index_tree(idx, src, autom).compacted);
  // A run stopped by a signal leaves it for the next run.
  for (const auto& rel : list_files(src))
    if (rel.ends_with(".jsonl")) replace_file(src + "/" + rel, read_file(src + "/" + rel));
  IndexOptions stopped = autom;
  size_t files = 0;
  stopped.should_stop = [&] { return ++files > 3; };
  IndexSummary st = index_tree(idx, src, stopped);
  CHECK(st.interrupted);
  CHECK_FALSE(st.compacted);
  CHECK(index_tree(idx, src, autom).compacted);
}
