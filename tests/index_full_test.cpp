// `index --full` builds beside the live generation and switches atomically: readers keep the old
// index until the switch, kill -9 anywhere leaves it working, memories and archived sessions are
// carried over, and a damaged store is started over from the sources (saying what was lost).
#include "tests/index_fixture.h"
#include "tests/sweep.h"

#include <fcntl.h>
#include <unistd.h>

#include "engine/index/index_parts.h"

namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

const Entries kMemories = {{std::string("mem\0\x01", 5), "remember the \xff bytes"}, {"m2", "second memory"}};

void put_memories(const std::string& idx) {
  Store store(idx, Store::Mode::Write);
  LmdbTxn txn(store.env(), false);
  for (const auto& [k, v] : kMemories) txn.put(store.db().memories, k, v);
  txn.commit();
}

Entries memories_of(const std::string& idx) {
  IndexReader r(idx);
  Entries out;
  LmdbCursor cur(r.txn(), r.db().memories);
  for (bool ok = cur.first(); ok; ok = cur.next()) out.emplace_back(cur.key(), cur.value());
  return out;
}

Entries sorted(Entries e) {
  std::sort(e.begin(), e.end());
  return e;
}

// Entries of the index dir that the live env does not name (leftovers of an old generation or an
// interrupted rebuild).
std::vector<std::string> unnamed_entries(const std::string& idx) {
  const std::string env = current_records_name(idx);
  IndexReader r(idx);
  const IndexParts parts = read_parts(r.txn(), r.db());
  std::set<std::string> named = {"writer.lock", "records.current", env, parts.text_log + ".log",
                                 parts.text_log + ".idx", parts.layout.titles,
                                 "xapian-" + std::to_string(parts.layout.generation)};
  for (const auto& s : parts.layout.shards) named.insert(s);
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(idx))
    if (!named.count(e.path().filename().string())) out.push_back(e.path().filename().string());
  return out;
}

// An index of tests/data/claude whose kWindows session is archived (its only file deleted and
// that noticed by a run) and which holds memories; `ref_fp` is what a sound --full must keep.
struct ArchiveFixture {
  TempDir tmp{"full"};
  std::string src = tmp / "src";
  std::string idx = tmp / "idx";
  std::vector<std::string> with_archive_fp;

  ArchiveFixture() {
    copy_tree(claude_data_dir(), src);
    index_tree(idx, src);
    put_memories(idx);
    fs::remove(src + "/" + kWindows);
    index_tree(idx, src);
    REQUIRE(all_sessions(idx).at(kWindowsSid).source_deleted);
    with_archive_fp = fingerprint(idx);
  }
  // A clean build of what the sources hold now (no archive).
  std::vector<std::string> clean_fp(const std::string& name = "clean") {
    const std::string ref = tmp / name;
    index_tree(ref, src);
    return fingerprint(ref);
  }
};

// New sessions of a project of their own: an incremental run and a rebuild agree on them.
void add_new_sessions(const std::string& src, int n) {
  fs::create_directories(src + "/-w-newproj");
  for (int i = 0; i < n; ++i) {
    const std::string sid = "00000000-0000-4000-8000-0000000000" + std::to_string(10 + i);
    write_file(src + "/-w-newproj/" + sid + ".jsonl",
               user_line(sid, sid + "-u", "new question " + std::to_string(i)) +
                   assistant_line(sid, sid + "-a", "new answer " + std::to_string(i), "msg-" + sid, 5, 7));
  }
}

}  // namespace

TEST_CASE("full: memories and archived sessions survive --full, documents and titles included", "[hardening][full]") {
  ArchiveFixture fx;
  for (int round = 0; round < 2; ++round) {  // the second salvages from a rebuilt generation's names
    IndexSummary s = index_tree(fx.idx, fx.src, full_options());
    INFO("round " << round << ", lost: " << s.lost);
    CHECK(s.rebuilt);
    CHECK(s.lost.empty());
    CHECK(s.salvaged_memories == kMemories.size());
    CHECK(s.salvaged_sessions == 1);
    CHECK(sorted(memories_of(fx.idx)) == sorted(kMemories));
    auto sessions = all_sessions(fx.idx);
    REQUIRE(sessions.count(kWindowsSid) == 1);
    CHECK(sessions.at(kWindowsSid).source_deleted);
    CHECK(session_messages(fx.idx, kWindowsSid).size() == 7);
    CHECK_SAME_INDEX(fx.idx, fx.with_archive_fp);
    CHECK(unnamed_entries(fx.idx).empty());
  }
  CHECK(current_records_name(fx.idx) != "records");

  // The archived session is found by keyword through its re-created documents.
  RunResult r = run_osearch({"--index", fx.idx, "--source", "claude=" + fx.src, "--format", "json", "--no-refresh",
                             "keyword", "--session", kWindowsSid, "gotcha"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find(kWindowsSid) != std::string::npos);

  // Deleted after the last run and never noticed: --full still keeps it, marked source_deleted.
  TempDir tmp2("full-unnoticed");
  const std::string src2 = tmp2 / "src", idx2 = tmp2 / "idx";
  copy_tree(claude_data_dir(), src2);
  index_tree(idx2, src2);
  fs::remove(src2 + "/" + kWindows);
  IndexSummary s2 = index_tree(idx2, src2, full_options());
  CHECK(s2.salvaged_sessions == 1);
  CHECK(all_sessions(idx2).at(kWindowsSid).source_deleted);
  CHECK(session_messages(idx2, kWindowsSid).size() == 7);
}

TEST_CASE("full: readers see the old index until the switch and the new one after, never less", "[hardening][full]") {
  TempDir tmp("full-readers");
  const std::string src = tmp / "src", idx = tmp / "idx";
  copy_projects(src, "-a");
  index_tree(idx, src);
  const IndexCounts before = counts_of(idx);
  const auto before_fp = fingerprint(idx);
  const Xapian::doccount before_docs = IndexReader(idx).xapian().get_doccount();
  copy_projects(src, "-b", "b-");  // more sessions for the rebuild to find
  const std::string ref = tmp / "ref";
  const IndexSummary clean = index_tree(ref, src);
  REQUIRE(clean.sessions > before.sessions);

  int to_parent[2], to_child[2];
  REQUIRE(::pipe(to_parent) == 0);
  REQUIRE(::pipe(to_child) == 0);
  pid_t pid = fork_child([&] {
    ::close(to_parent[0]);
    ::close(to_child[1]);
    // Each handshake lets the parent query while the run is stopped at that point.
    auto handshake = [&](char what) {
      char c = 0;
      if (::write(to_parent[1], &what, 1) != 1 || ::read(to_child[0], &c, 1) != 1) ::_exit(5);
    };
    IndexOptions o = full_options();
    o.flush_bytes = 64 << 10;  // many batches
    o.progress = [&](const IndexProgress& p) {
      if (p.files_done % 8 == 0) handshake('p');
    };
    o.at_point = [&](std::string_view point) {
      if (point == "salvaged") handshake('s');
      if (point == "built") handshake('b');
    };
    return run_index(idx, roots_of(src), o).busy ? 3 : 0;
  });
  ::close(to_parent[1]);
  ::close(to_child[0]);
  int polls = 0;
  std::string points;
  for (char what; ::read(to_parent[0], &what, 1) == 1;) {
    ++polls;
    points.push_back(what);
    const IndexCounts c = counts_of(idx);
    CHECK(c.sessions == before.sessions);
    CHECK(c.messages == before.messages);
    CHECK(c.tool_calls == before.tool_calls);
    CHECK(IndexReader(idx).xapian().get_doccount() == before_docs);
    if (what == 'b') CHECK_SAME_INDEX(idx, before_fp);  // every record, text and document
    const char go = 'g';
    if (::write(to_child[1], &go, 1) != 1) break;
  }
  ::close(to_parent[0]);
  ::close(to_child[1]);
  ChildStatus st = wait_child(pid);
  INFO("points: " << points);
  CHECK((st.exited && st.exit_code == 0));
  CHECK(polls >= 4);
  CHECK(points.find('b') != std::string::npos);
  const IndexCounts after = counts_of(idx);
  CHECK(after.sessions == clean.sessions);
  CHECK(after.messages == clean.messages);
  CHECK_SAME_INDEX(idx, fingerprint(ref));
  CHECK(unnamed_entries(idx).empty());
}

TEST_CASE("full: kill -9 at any point leaves the old index answering, and the next run ends clean",
          "[hardening][full]") {
  for (const std::string point : sweep<const char*>({"file:1", "file:30", "salvaged", "built", "switched"}, {"file:30", "switched"})) {
    INFO("killed at " << point);
    ArchiveFixture fx;
    add_new_sessions(fx.src, 3);
    // What the next plain run must end with: the old index plus the new sources.
    const std::string ref = fx.tmp / "ref";
    copy_tree(fx.idx, ref);
    index_tree(ref, fx.src);
    const auto ref_fp = fingerprint(ref);

    pid_t pid = fork_child([&] {
      IndexOptions o = full_options();
      o.flush_bytes = 64 << 10;
      if (point.rfind("file:", 0) == 0) {
        const size_t at = std::stoul(point.substr(5));
        o.progress = [at](const IndexProgress& p) {
          if (p.files_done == at) ::raise(SIGKILL);
        };
      } else {
        o.at_point = [&](std::string_view p) {
          if (p == point) ::raise(SIGKILL);
        };
      }
      run_index(fx.idx, roots_of(fx.src), o);
      return 0;
    });
    ChildStatus st = wait_child(pid);
    CHECK(st.term_signal == SIGKILL);
    if (point == "switched") {
      CHECK_SAME_INDEX(fx.idx, ref_fp);  // the new generation is complete and live
    } else {
      CHECK_SAME_INDEX(fx.idx, fx.with_archive_fp);  // the old one, untouched
    }
    CHECK(sorted(memories_of(fx.idx)) == sorted(kMemories));

    IndexSummary s = index_tree(fx.idx, fx.src);
    CHECK_FALSE(s.busy);
    CHECK_SAME_INDEX(fx.idx, ref_fp);
    CHECK(sorted(memories_of(fx.idx)) == sorted(kMemories));
    const auto left = unnamed_entries(fx.idx);
    INFO("left over: " << (left.empty() ? "" : left.front()));
    CHECK(left.empty());
  }
}

TEST_CASE("full: starts over from the sources when a part of the store is damaged", "[hardening][full]") {
  for (const std::string damage : {"data.mdb truncated", "data.mdb random bytes", "records.current garbage",
                                   "text log deleted", "xapian generation deleted"}) {
    INFO("damage: " << damage);
    ArchiveFixture fx;
    const std::string env = fx.idx + "/" + current_records_name(fx.idx);
    const std::string data = env + "/data.mdb";
    if (damage == "data.mdb truncated") {
      fs::resize_file(data, fs::file_size(data) / 2);
    } else if (damage == "data.mdb random bytes") {
      std::string bytes = read_file(data);
      std::mt19937 rng(7);
      for (size_t i = 2 * 4096; i < bytes.size(); ++i) bytes[i] = static_cast<char>(rng());
      write_file(data, bytes);
    } else if (damage == "records.current garbage") {
      write_file(fx.idx + "/records.current", std::string("\x01garbage/../x\n", 14));
    } else if (damage == "text log deleted") {
      fs::remove(fx.idx + "/text.log");
    } else {
      for (const auto& e : fs::directory_iterator(fx.idx))
        if (e.path().filename().string().rfind("xapian-", 0) == 0) fs::remove_all(e.path());
    }

    IndexSummary s = index_tree(fx.idx, fx.src, full_options());
    INFO("lost: " << s.lost);
    CHECK(s.rebuilt);
    const bool archive_salvageable = damage == "records.current garbage" || damage == "xapian generation deleted";
    if (archive_salvageable) {
      CHECK(s.lost.empty());
      CHECK(s.salvaged_sessions == 1);
      CHECK(sorted(memories_of(fx.idx)) == sorted(kMemories));
      CHECK_SAME_INDEX(fx.idx, fx.with_archive_fp);
    } else if (s.salvaged_sessions == 1) {
      CHECK_SAME_INDEX(fx.idx, fx.with_archive_fp);  // LMDB happened to read it all back
    } else {
      CHECK_FALSE(s.lost.empty());  // a loss is always said
      CHECK(s.salvaged_sessions == 0);
      CHECK_SAME_INDEX(fx.idx, fx.clean_fp());
    }
    if (damage == "text log deleted") CHECK(sorted(memories_of(fx.idx)) == sorted(kMemories));
    if (s.salvaged_memories < kMemories.size()) CHECK_FALSE(s.lost.empty());
    CHECK(unnamed_entries(fx.idx).empty());

    // The rebuilt index answers, and the next run changes nothing.
    IndexSummary again = index_tree(fx.idx, fx.src);
    CHECK(again.new_messages == 0);
    RunResult r = run_osearch({"--index", fx.idx, "--source", "claude=" + fx.src, "--format", "json", "status"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
  }
}

TEST_CASE("full: the CLI reports what it salvaged and what was lost", "[hardening][full]") {
  ArchiveFixture fx;
  RunResult ok = run_osearch({"--index", fx.idx, "--source", "claude=" + fx.src, "--format", "json", "index", "--full"});
  INFO(ok.err);
  REQUIRE(ok.exit_code == 0);
  CHECK(ok.out.find("\"salvaged\":{\"memories\":2,\"sessions\":1}") != std::string::npos);
  CHECK(ok.out.find("\"lost\"") == std::string::npos);

  const std::string env = fx.idx + "/" + current_records_name(fx.idx);
  fs::resize_file(env + "/data.mdb", 8192 + 100);
  RunResult bad = run_osearch({"--index", fx.idx, "--source", "claude=" + fx.src, "--format", "json", "index", "--full"});
  INFO(bad.err);
  REQUIRE(bad.exit_code == 0);
  CHECK(bad.out.find("\"lost\":") != std::string::npos);
  CHECK(bad.err.find("not carried over") != std::string::npos);
}

TEST_CASE("full: a reader that opened the old generation keeps answering from it after the switch",
          "[hardening][full]") {
  ArchiveFixture fx;
  add_new_sessions(fx.src, 2);
  IndexReader before(fx.idx);
  const IndexCounts c = before.counts();
  const Xapian::doccount docs = before.xapian().get_doccount();
  IndexSummary s = index_tree(fx.idx, fx.src, full_options());
  REQUIRE(s.rebuilt);
  REQUIRE(s.sessions == c.sessions + 2);
  // The old env, Xapian generation and text log are removed, but this reader's files stay open.
  CHECK(before.counts().sessions == c.sessions);
  CHECK(before.xapian().get_doccount() == docs);
  Xapian::Enquire enq(before.xapian());
  enq.set_query(Xapian::Query("gotcha"));
  CHECK(enq.get_mset(0, 10).size() > 0);
  const auto msgs = session_messages(fx.idx, kWindowsSid);
  REQUIRE_FALSE(msgs.empty());
  auto m = before.message(msgs.front().rec.key);
  REQUIRE(m.has_value());
  CHECK(before.message_text(*m) == msgs.front().text);
  CHECK(counts_of(fx.idx).sessions == c.sessions + 2);  // a new reader sees the new generation
}

TEST_CASE("full: an index of another schema version is rebuilt beside it, memories kept, the archive's loss said",
          "[hardening][full]") {
  ArchiveFixture fx;
  {
    Store store(fx.idx, Store::Mode::Write);
    LmdbTxn txn(store.env(), false);
    Store::put_meta_u64(txn, store.db(), meta_key::kSchema, 3);
    txn.commit();
  }
  IndexSummary s = index_tree(fx.idx, fx.src);  // a plain run notices
  INFO("lost: " << s.lost);
  CHECK(s.rebuilt);
  CHECK(sorted(memories_of(fx.idx)) == sorted(kMemories));
  CHECK(s.salvaged_sessions == 0);
  CHECK(s.lost.find("another version") != std::string::npos);
  CHECK_SAME_INDEX(fx.idx, fx.clean_fp());
  CHECK(unnamed_entries(fx.idx).empty());
}

TEST_CASE("full: a session whose file lies outside every source root is kept as archive", "[hardening][full]") {
  ArchiveFixture fx;
  // The project of kB3 moves out of the roots: its file still exists, but no run will read it.
  const std::string outside = fx.tmp / "outside";
  fs::create_directories(outside);
  const std::string project = kB3.substr(0, kB3.find('/'));
  fs::rename(fx.src + "/" + project, outside + "/" + project);
  const auto before = all_sessions(fx.idx);
  REQUIRE(before.count(kB3Sid) == 1);
  IndexSummary s = index_tree(fx.idx, fx.src, full_options());
  INFO("lost: " << s.lost);
  CHECK(s.lost.empty());
  CHECK(s.salvaged_sessions >= 2);  // kWindows and kB3 at least
  const auto after = all_sessions(fx.idx);
  REQUIRE(after.count(kB3Sid) == 1);
  CHECK(after.at(kB3Sid).message_count == before.at(kB3Sid).message_count);
  CHECK(session_messages(fx.idx, kB3Sid).size() == before.at(kB3Sid).message_count);
}

TEST_CASE("full: readers opened at any moment of a --full run see the old or the new index, whole",
          "[hardening][full]") {
  ArchiveFixture fx;
  const IndexCounts old_counts = counts_of(fx.idx);
  add_new_sessions(fx.src, 4);
  pid_t pid = fork_child([&] {
    IndexOptions o = full_options();
    o.flush_bytes = 64 << 10;
    return run_index(fx.idx, roots_of(fx.src), o).busy ? 3 : 0;
  });
  int polls = 0, old_seen = 0, new_seen = 0;
  std::string errors;
  for (;;) {
    int status = 0;
    const bool done = ::waitpid(pid, &status, WNOHANG) == pid;
    try {
      IndexReader r(fx.idx);
      const IndexCounts c = r.counts();
      const bool is_old = c.sessions == old_counts.sessions && c.messages == old_counts.messages;
      const bool is_new = c.sessions == old_counts.sessions + 4 && c.messages == old_counts.messages + 8;
      if (!is_old && !is_new) errors += "counts " + std::to_string(c.sessions) + "/" + std::to_string(c.messages) + "; ";
      // Every message the reader lists has its text and its document.
      Xapian::Enquire enq(r.xapian());
      enq.set_query(Xapian::Query(boolean_term(prefix::kSession, kWindowsSid)));
      if (enq.get_mset(0, 100).size() != 7 + 1) errors += "archived session documents; ";
      (is_new ? new_seen : old_seen)++;
    } catch (const std::exception& e) {
      errors += std::string(e.what()) + "; ";
    } catch (const Xapian::Error& e) {
      errors += e.get_msg() + "; ";
    }
    ++polls;
    if (done) {
      CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
      break;
    }
  }
  INFO("polls " << polls << ", old " << old_seen << ", new " << new_seen);
  CHECK(errors.empty());
  CHECK(old_seen > 0);
  CHECK(new_seen > 0);
}

TEST_CASE("full: a part name in LMDB meta outside its form is refused, and --full repairs it", "[hardening][full]") {
  ArchiveFixture fx;
  index_tree(fx.idx, fx.src, full_options());
  const std::string outside = fx.tmp / "victim";
  write_file(outside + ".log", "do not touch");
  {
    Store store(fx.idx, Store::Mode::Write);
    LmdbTxn txn(store.env(), false);
    txn.put(store.db().meta, meta_key::kTextLogName, "../victim");
    txn.commit();
  }
  CHECK_THROWS(index_tree(fx.idx, fx.src));
  CHECK_THROWS(IndexReader(fx.idx));
  CHECK(read_file(outside + ".log") == "do not touch");
  IndexSummary s = index_tree(fx.idx, fx.src, full_options());
  CHECK(read_file(outside + ".log") == "do not touch");
  CHECK_FALSE(s.lost.empty());  // the archive's text could not be located
  CHECK(sorted(memories_of(fx.idx)) == sorted(kMemories));
  CHECK_SAME_INDEX(fx.idx, fx.clean_fp());
}

TEST_CASE("full: documents of older epochs are gone after --full", "[hardening][full]") {
  ArchiveFixture fx;
  auto live_docs = [&] {
    size_t n = 0;
    for (const auto& line : fingerprint(fx.idx)) n += line.rfind("X ", 0) == 0;
    return n;
  };
  fs::resize_file(fx.src + "/" + kB3, fs::file_size(fx.src + "/" + kB3) / 2);  // re-read whole: epoch 1
  index_tree(fx.idx, fx.src);
  REQUIRE(IndexReader(fx.idx).xapian().get_doccount() > live_docs());
  index_tree(fx.idx, fx.src, full_options());
  CHECK(IndexReader(fx.idx).xapian().get_doccount() == live_docs());
  CHECK(IndexReader(fx.idx).epochs().empty());
}

TEST_CASE("full: a rebuild of no sessions at all is a readable index", "[hardening][full]") {
  TempDir tmp("full-empty");
  const std::string src = tmp / "src", idx = tmp / "idx";
  fs::create_directories(src);
  IndexSummary s = index_tree(idx, src, full_options());
  CHECK(s.rebuilt);
  CHECK(s.sessions == 0);
  CHECK(counts_of(idx).sessions == 0);
  RunResult r = run_osearch({"--index", idx, "--source", "claude=" + src, "--format", "json", "--no-refresh", "list"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
}
