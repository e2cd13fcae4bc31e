// Garbage and `index --compact` (issue 13): the text log entries and Xapian documents that dropped
// sessions leave behind are counted exactly as they are made, `status` reports them, and a compaction
// builds a new generation from the index itself: nothing only the index holds is lost, every answer
// stays. Crashes, stops and the automatic rule: index_compact_crash_test.cpp.
#include "tests/compact_fixture.h"

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
  IndexOptions refresh;  // as cli/query_index.cpp runs it
  refresh.quick_check = true;
  refresh.count_unknown_garbage = false;
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

