// `index --compact` under kill -9, a stop request and a failure (the old or the new index, whole),
// and the rule by which `osearch index` compacts by itself after a big re-read, never after a normal
// run or in a query's refresh (issue 13).
#include "tests/compact_fixture.h"
#include "tests/sweep.h"

#include <unistd.h>

TEST_CASE("compact: kill -9 at any point of a compaction leaves the old or the new index, whole",
          "[compact]") {
  for (const std::string point : sweep<const char*>({"compact-commit", "salvaged", "built", "switched"}, {"built", "switched"})) {
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
    std::string key;
    std::optional<MessageRec> m;
    {  // (a write transaction's cursor must go before the transaction ends)
      LmdbCursor cur(txn, store.db().messages);
      REQUIRE(cur.first());
      key = std::string(cur.key());
      m = MessageRec::decode(cur.key(), cur.value());
    }
    REQUIRE(m.has_value());
    m->text_len += 1;
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
  refresh.count_unknown_garbage = false;
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

TEST_CASE("compact: readers see the old index until the switch and the same answers after it", "[compact]") {
  GarbageFixture fx;
  const auto fp = fingerprint(fx.idx);
  const auto before = answers(fx.idx, fx.src, kQueries);
  // Opened while the run waits (no env open across the fork): keeps its snapshot after the old
  // generation is removed.
  std::optional<IndexReader> opened_before;

  int to_parent[2], to_child[2];
  REQUIRE(::pipe(to_parent) == 0);
  REQUIRE(::pipe(to_child) == 0);
  pid_t pid = fork_child([&] {
    ::close(to_parent[0]);
    ::close(to_child[1]);
    IndexOptions o = compact_options();
    o.at_point = [&](std::string_view p) {  // the parent queries while the run waits here
      const char what = p == "compact-commit" ? 'c' : p == "salvaged" ? 's' : p == "built" ? 'b' : 0;
      char go = 0;
      if (what && (::write(to_parent[1], &what, 1) != 1 || ::read(to_child[0], &go, 1) != 1)) ::_exit(5);
    };
    return run_index(fx.idx, roots_of(fx.src), o).compacted ? 0 : 3;
  });
  ::close(to_parent[1]);
  ::close(to_child[0]);
  std::string points;
  for (char what; ::read(to_parent[0], &what, 1) == 1;) {
    points.push_back(what);
    if (!opened_before) opened_before.emplace(fx.idx);
    CHECK_SAME_INDEX(fx.idx, fp);
    CHECK_SAME_ANSWERS(answers(fx.idx, fx.src, kQueries), before);
    CHECK(counters_of(fx.idx).text_bytes > uint64_t{0});  // still the old generation
    const char go = 'g';
    if (::write(to_child[1], &go, 1) != 1) break;
  }
  ::close(to_parent[0]);
  ::close(to_child[1]);
  ChildStatus st = wait_child(pid);
  CHECK((st.exited && st.exit_code == 0));
  CHECK(points == "csb");
  CHECK(counters_of(fx.idx).text_bytes == uint64_t{0});
  CHECK_SAME_INDEX(fx.idx, fp);
  CHECK_SAME_ANSWERS(answers(fx.idx, fx.src, kQueries), before);
  // The reader opened before still answers from its snapshot: records, texts and documents.
  REQUIRE(opened_before.has_value());
  CHECK(opened_before->counts().messages == counts_of(fx.idx).messages);
  const auto msgs = session_messages(fx.idx, kWindowsSid);
  REQUIRE_FALSE(msgs.empty());
  auto m = opened_before->message(msgs.front().rec.key);
  REQUIRE(m.has_value());
  CHECK(opened_before->message_text(*m) == msgs.front().text);
  Xapian::Enquire enq(opened_before->xapian());
  enq.set_query(Xapian::Query(boolean_term(prefix::kSession, kWindowsSid)));
  CHECK(enq.get_mset(0, 100).size() > 0);
}
