// Index: the LMDB repack (engine/store/store_repack.h): same records in a smaller env under a new
// records-<n> named by records.current, user data and unknown databases kept byte for byte,
// readers of the old env unharmed, leftovers of an interrupted repack removed, kill -9 anywhere.
#include "tests/index_fixture.h"

#include "engine/store/codec.h"
#include "engine/store/store_repack.h"

namespace {

IndexOptions repack_options(Repack r) {
  IndexOptions o;
  o.repack = r;
  return o;
}

std::string env_dir_of(const std::string& idx) { return idx + "/" + current_records_name(idx); }
uint64_t data_bytes(const std::string& idx) { return file_size(env_dir_of(idx) + "/data.mdb"); }

// The entries of the index dir that belong to LMDB (env dirs, pointer, leftovers), sorted.
std::vector<std::string> records_entries(const std::string& idx) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(idx)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("records", 0) == 0) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

using Entries = std::vector<std::pair<std::string, std::string>>;

// Every key/value of the named database, duplicates included, in order.
Entries dump_db(const std::string& idx, const char* name) {
  Store store(idx, Store::Mode::Read);
  LmdbTxn txn(store.env(), true);
  MDB_dbi dbi = txn.open_db(name);
  Entries out;
  MDB_cursor* cur = nullptr;
  REQUIRE(mdb_cursor_open(txn.get(), dbi, &cur) == MDB_SUCCESS);
  MDB_val k, v;
  for (int rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == MDB_SUCCESS; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
    out.emplace_back(std::string(from_val(k)), std::string(from_val(v)));
  mdb_cursor_close(cur);
  return out;
}

std::string be64_key(uint64_t i) {
  std::string k;
  put_be64(k, i);
  return k;
}

// Memories a user saved: binary keys, an empty value, one on an overflow page.
Entries sample_memories() {
  Entries m;
  m.emplace_back(std::string("mem\0\x01\xff", 6), "first memory");
  m.emplace_back("mem-empty", "");
  std::string big(20000, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 131) & 0xff);
  m.emplace_back("mem-big", big);
  return m;
}

void put_memories(const std::string& idx, const Entries& mems) {
  WriterLock lock(idx, true);
  Store store(idx, Store::Mode::Write);
  LmdbTxn txn(store.env(), false);
  for (const auto& [k, v] : mems) txn.put(store.db().memories, k, v);
  txn.commit();
}

// A small index (two projects) built without a repack, for a test to repack.
struct SmallIndex {
  TempDir tmp;
  std::string src = tmp / "src";
  std::string idx = tmp / "idx";
  explicit SmallIndex(std::string_view tag) : tmp(tag) {
    make_tree(src, {"-Users-user-project", kWindows});
    index_tree(idx, src, repack_options(Repack::Never));
  }
};

}  // namespace

TEST_CASE("repack: same fingerprint in a smaller env, and later runs still equal a clean build", "[index][repack]") {
  TempDir tmp("repack");
  const std::string src = tmp / "src";
  copy_tree(claude_data_dir(), src);
  const std::string idx = tmp / "idx";
  IndexSummary first = index_tree(idx, src, repack_options(Repack::Never));
  REQUIRE(records_entries(idx) == std::vector<std::string>{"records"});
  const auto fp = fingerprint(idx);
  const uint64_t before = data_bytes(idx);

  // Nothing changed: the run only repacks.
  IndexSummary s = index_tree(idx, src, repack_options(Repack::Always));
  INFO("problems: " << (s.problems.empty() ? "" : s.problems.front()));
  CHECK(s.problems.empty());
  CHECK(s.new_messages == 0);
  CHECK(s.messages == first.messages);
  CHECK(records_entries(idx) == std::vector<std::string>{"records-1", "records.current"});
  CHECK(current_records_name(idx) == "records-1");
  CHECK(data_bytes(idx) <= before);
  CHECK_SAME_INDEX(idx, fp);

  // An incremental run writes into the new env and equals a clean build of the same sources.
  append_file(src + "/" + kB3, user_line(kB3Sid, "repack-new", "appended after the repack", "2025-12-21T00:00:00.000Z"));
  IndexSummary inc = index_tree(idx, src);
  CHECK(inc.new_messages == 1);
  CHECK(current_records_name(idx) == "records-1");  // one message: Auto leaves the env alone
  const std::string ref = tmp / "ref";
  IndexSummary clean = index_tree(ref, src, repack_options(Repack::Never));
  CHECK(inc.messages == clean.messages);
  const auto ref_fp = fingerprint(ref);
  CHECK_SAME_INDEX(idx, ref_fp);

  // A second repack goes on to records-2; a --full run after it still matches.
  index_tree(idx, src, repack_options(Repack::Always));
  CHECK(records_entries(idx) == std::vector<std::string>{"records-2", "records.current"});
  CHECK_SAME_INDEX(idx, ref_fp);
  IndexOptions full = full_options();
  full.repack = Repack::Always;
  IndexSummary f = index_tree(idx, src, full);
  CHECK(f.messages == clean.messages);
  // --full builds records-3 beside records-2 and switches to it; the repack then makes records-4.
  CHECK(records_entries(idx) == std::vector<std::string>{"records-4", "records.current"});
  CHECK_SAME_INDEX(idx, ref_fp);

  // The CLI's status counts the live env (it sums the index dir).
  RunResult st = run_osearch({"--index", idx, "--source", "claude=" + src, "--format", "json", "status"});
  REQUIRE(st.exit_code == 0);
  CHECK(st.out.find("\"messages\":" + std::to_string(clean.messages)) != std::string::npos);
  const size_t at = st.out.find("\"size_bytes\":");
  REQUIRE(at != std::string::npos);
  CHECK(std::stoull(st.out.substr(at + 13)) > data_bytes(idx));
}

TEST_CASE("repack: memories and every other database survive byte for byte, flags and duplicates too",
          "[index][repack]") {
  SmallIndex small("repack-mem");
  const std::string& src = small.src;
  const std::string& idx = small.idx;
  const Entries mems = sample_memories();
  put_memories(idx, mems);

  // Databases this version does not name: a DUPSORT one whose duplicate runs cross the repack's
  // commit boundaries, and a plain one of 120k entries (several commits).
  Entries dups, many;
  {
    WriterLock lock(idx, true);
    Store store(idx, Store::Mode::Write);
    LmdbTxn txn(store.env(), false);
    MDB_dbi d = txn.open_db("test_dups", MDB_CREATE | MDB_DUPSORT);
    MDB_dbi m = txn.open_db("test_many", MDB_CREATE);
    for (uint64_t key = 0; key < 3; ++key)
      for (uint64_t i = 0; i < 30000; ++i) {
        dups.emplace_back("k" + std::to_string(key), be64_key(i * 7 + key));
        txn.put(d, dups.back().first, dups.back().second);
      }
    for (uint64_t i = 0; i < 120000; ++i) {
      many.emplace_back(be64_key(i * 3), std::to_string(i));
      txn.put(m, many.back().first, many.back().second);
    }
    txn.commit();
  }
  std::sort(dups.begin(), dups.end());
  const Entries sorted_mems = dump_db(idx, "memories");
  REQUIRE(sorted_mems.size() == mems.size());
  std::map<std::string, Entries> all_before;
  for (const char* name : {"meta", "files", "sessions", "messages", "msg_uuid", "tool_calls", "tool_results", "tc_by_path",
                           "sess_by_time", "sess_by_project", "usage_seen", "leaf_summary", "subagents", "session_files",
                           "workflows", "workflow_agents", "epochs", "usage_agg", "tool_agg", "file_agg", "file_links"})
    all_before[name] = dump_db(idx, name);
  const auto fp = fingerprint(idx);

  RepackResult res;
  {
    WriterLock lock(idx, true);
    Store store(idx, Store::Mode::Write);
    res = repack_records(store);
    // The store now works on the new env: it can write there.
    CHECK(store.env_dir() == idx + "/records-1");
    LmdbTxn txn(store.env(), false);
    txn.put(store.db().memories, "mem-after", "written after the repack");
    txn.commit();
  }
  // 25 of the store (failed_results, usage_agg, tool_agg, file_agg, file_links since 14/16, the session
  // numbers since 19) + 2 of the test
  CHECK(res.databases == 25 + 2);
  CHECK(res.bytes_after <= res.bytes_before);
  CHECK(records_entries(idx) == std::vector<std::string>{"records-1", "records.current"});
  Entries mems_after = dump_db(idx, "memories");
  CHECK(mems_after.size() == sorted_mems.size() + 1);
  mems_after.erase(std::remove_if(mems_after.begin(), mems_after.end(), [](const auto& e) { return e.first == "mem-after"; }),
                   mems_after.end());
  CHECK(mems_after == sorted_mems);
  CHECK(dump_db(idx, "test_dups") == dups);
  CHECK(dump_db(idx, "test_many") == many);
  for (const auto& [name, entries] : all_before) {
    INFO("database " << name);
    CHECK(dump_db(idx, name.c_str()) == entries);
  }
  {
    Store store(idx, Store::Mode::Read);
    LmdbTxn txn(store.env(), true);
    unsigned flags = 0;
    REQUIRE(mdb_dbi_flags(txn.get(), txn.open_db("test_dups"), &flags) == MDB_SUCCESS);
    CHECK((flags & MDB_DUPSORT) != 0);
  }
  CHECK_SAME_INDEX(idx, fp);

  // --full and a later forced repack keep the memories too.
  IndexOptions full = full_options();
  full.repack = Repack::Always;
  index_tree(idx, src, full);
  CHECK(current_records_name(idx) == "records-3");  // built as records-2 beside records-1, then repacked
  CHECK(dump_db(idx, "memories").size() == sorted_mems.size() + 1);
  CHECK(counts_of(idx).memories == sorted_mems.size() + 1);
}

TEST_CASE("repack: a reader of the old env keeps answering and a new reader sees the same", "[index][repack]") {
  SmallIndex small("repack-reader");
  const std::string& src = small.src;
  const std::string& idx = small.idx;
  put_memories(idx, sample_memories());
  const IndexCounts want = counts_of(idx);

  // The reader lives in a child (one process must not open the same LMDB env twice).
  int to_parent[2], to_child[2];
  REQUIRE(::pipe(to_parent) == 0);
  REQUIRE(::pipe(to_child) == 0);
  pid_t pid = fork_child([&] {
    ::close(to_parent[0]);
    ::close(to_child[1]);
    auto describe = [](IndexReader& r) {
      IndexCounts c = r.counts();
      std::string d = std::to_string(c.sessions) + " " + std::to_string(c.messages) + " " + std::to_string(c.tool_calls) +
                      " " + std::to_string(c.memories);
      auto s = r.session(kWindowsSid);
      d += s ? " " + s->title() : " no-session";
      auto msgs = r.txn().get(r.db().memories, "mem-big");
      d += " mem-big=" + std::to_string(msgs ? msgs->size() : 0);
      // A message's text: the old env's record still points into the (unchanged) text log.
      LmdbCursor cur(r.txn(), r.db().messages);
      if (cur.first())
        if (auto m = MessageRec::decode(cur.key(), cur.value())) d += " text=" + std::to_string(r.message_text(*m).size());
      return d + "\n";
    };
    IndexReader old_reader(idx);
    std::string out = describe(old_reader);
    char c = 0;
    (void)!::write(to_parent[1], out.data(), out.size());
    (void)!::read(to_child[0], &c, 1);  // the parent repacks
    out = describe(old_reader);
    IndexReader new_reader(idx);
    out += describe(new_reader) + new_reader.dir() + "\n";
    (void)!::write(to_parent[1], out.data(), out.size());
    ::close(to_parent[1]);
    return 0;
  });
  ::close(to_parent[1]);
  ::close(to_child[0]);
  auto read_lines = [&](size_t n) {
    std::string got;
    char buf[512];
    while (static_cast<size_t>(std::count(got.begin(), got.end(), '\n')) < n) {
      pollfd pfd{to_parent[0], POLLIN, 0};
      if (::poll(&pfd, 1, 30000) != 1) break;
      ssize_t k = ::read(to_parent[0], buf, sizeof buf);
      if (k <= 0) break;
      got.append(buf, static_cast<size_t>(k));
    }
    return got;
  };
  const std::string opened = read_lines(1);
  IndexSummary s = index_tree(idx, src, repack_options(Repack::Always));
  const bool old_gone = !fs::exists(idx + "/records");
  char go = 'g';
  (void)!::write(to_child[1], &go, 1);
  const std::string after = read_lines(3);
  ::close(to_child[1]);
  ::close(to_parent[0]);
  ChildStatus cs = wait_child(pid);
  CHECK(cs.exited);
  CHECK(cs.exit_code == 0);
  CHECK(s.problems.empty());
  CHECK(old_gone);  // the old reader's env was removed under it
  REQUIRE_FALSE(opened.empty());
  CHECK(opened.find("no-session") == std::string::npos);
  CHECK(opened.find("mem-big=20000") != std::string::npos);
  CHECK(opened.rfind(std::to_string(want.sessions) + " " + std::to_string(want.messages) + " ", 0) == 0);
  // The old reader answers as before, and a new reader (on records-1) sees the same.
  CHECK(after == opened + opened + idx + "\n");
  const IndexCounts now = counts_of(idx);
  CHECK(now.sessions == want.sessions);
  CHECK(now.messages == want.messages);
  CHECK(now.tool_calls == want.tool_calls);
  CHECK(now.memories == want.memories);
}

TEST_CASE("repack: readers opening while the env is switched again and again never fail", "[index][repack]") {
  SmallIndex small("repack-race");
  const std::string& src = small.src;
  const std::string& idx = small.idx;
  const IndexCounts want = counts_of(idx);

  // A child opens readers in a loop (following records.current when its dir has just gone) until
  // the parent closes the pipe; exit 5 on any failure or wrong count.
  int stop[2];
  REQUIRE(::pipe(stop) == 0);
  pid_t pid = fork_child([&] {
    ::close(stop[1]);
    int opens = 0;
    for (;;) {
      pollfd pfd{stop[0], POLLIN, 0};
      if (::poll(&pfd, 1, 0) == 1 && opens > 0) break;
      try {
        IndexReader r(idx);
        IndexCounts c = r.counts();
        if (c.messages != want.messages || c.sessions != want.sessions) return 5;
      } catch (...) {
        return 5;
      }
      ++opens;
    }
    return 0;
  });
  ::close(stop[0]);
  for (int i = 0; i < 20; ++i) {
    IndexSummary s = index_tree(idx, src, repack_options(Repack::Always));
    CHECK(s.problems.empty());
  }
  ::close(stop[1]);
  ChildStatus cs = wait_child(pid);
  CHECK(cs.exited);
  CHECK(cs.exit_code == 0);
  CHECK(current_records_name(idx) == "records-20");
}

TEST_CASE("repack: leftovers of an interrupted repack are removed by the next run", "[index][repack]") {
  SmallIndex small("repack-left");
  const std::string& src = small.src;
  const std::string& idx = small.idx;
  put_memories(idx, sample_memories());
  const auto fp = fingerprint(idx);
  const auto mems = dump_db(idx, "memories");

  // A crash before the switch: a half-written records-99 and the pointer's temp file. Readers
  // leave them alone; the next writer removes them and keeps records/ (no pointer names another).
  write_file(idx + "/records-99/data.mdb", "junk that is not an LMDB file");
  write_file(idx + "/records-99/sub/more", "junk");
  write_file(idx + "/records.current.tmp", "records-99");
  CHECK_SAME_INDEX(idx, fp);
  CHECK(fs::exists(idx + "/records-99"));
  IndexSummary s = index_tree(idx, src);
  CHECK_FALSE(s.busy);
  CHECK(records_entries(idx) == std::vector<std::string>{"records"});
  CHECK_SAME_INDEX(idx, fp);

  // A crash after the switch: old envs are still there (with a memory the live one lacks, so using
  // one would show), and a half-removed one renamed for removal. The pointer decides: records-1.
  index_tree(idx, src, repack_options(Repack::Always));
  REQUIRE(current_records_name(idx) == "records-1");
  for (const std::string stale : {"records", "records-2"}) {
    fs::copy(idx + "/records-1", idx + "/" + stale);
    LmdbEnv env;
    env.open(idx + "/" + stale, false, Store::kMaxDbs);
    LmdbTxn txn(env, false);
    txn.put(txn.open_db("memories"), "stale", "must never be seen");
    txn.commit();
  }
  write_file(idx + "/records-0.trash/data.mdb", "junk");
  CHECK(dump_db(idx, "memories") == mems);
  s = index_tree(idx, src);
  CHECK(records_entries(idx) == std::vector<std::string>{"records-1", "records.current"});
  CHECK_SAME_INDEX(idx, fp);
  CHECK(dump_db(idx, "memories") == mems);

  // A pointer naming no valid dir is an error, never a reason to delete anything.
  write_file(idx + "/records.current", "../elsewhere\n");
  CHECK_THROWS(index_tree(idx, src));
  CHECK_THROWS(IndexReader(idx));
  CHECK(fs::exists(idx + "/records-1/data.mdb"));
  write_file(idx + "/records.current", "records-1\n");
  CHECK_SAME_INDEX(idx, fp);
}

TEST_CASE("repack: kill -9 anywhere in a repack, then one more run equals the index before", "[index][repack][crash]") {
  TempDir tmp("repack-kill");
  const std::string src = tmp / "src";
  copy_tree(claude_data_dir(), src);
  const std::string idx = tmp / "idx";
  index_tree(idx, src, repack_options(Repack::Never));
  put_memories(idx, sample_memories());
  const auto fp = fingerprint(idx);
  const auto mems = dump_db(idx, "memories");

  int trials = 0, killed = 0;
  auto trial = [&](const std::string& name, const std::function<void(const std::string& next_dir)>& wait) {
    INFO("trial " << name);
    const std::string cur = current_records_name(idx);
    const uint64_t n = cur == "records" ? 0 : std::stoull(cur.substr(8));
    const std::string next = idx + "/records-" + std::to_string(n + 1);
    pid_t pid = fork_child([&] {
      IndexSummary s = run_index(idx, roots_of(src), repack_options(Repack::Always));
      return s.problems.empty() ? 0 : 4;
    });
    wait(next);
    ::kill(pid, SIGKILL);
    ChildStatus st = wait_child(pid);
    CHECK((st.term_signal == SIGKILL || (st.exited && st.exit_code == 0)));
    killed += st.term_signal == SIGKILL;
    ++trials;
    // Readers cope with whatever the kill left; the next writer cleans up.
    CHECK_SAME_INDEX(idx, fp);
    IndexSummary s = index_tree(idx, src, repack_options(Repack::Never));
    CHECK_FALSE(s.busy);
    std::vector<std::string> want{current_records_name(idx)};
    if (fs::exists(idx + "/records.current")) want.push_back("records.current");
    CHECK(records_entries(idx) == want);
    CHECK_SAME_INDEX(idx, fp);
    CHECK(dump_db(idx, "memories") == mems);
  };
  // As soon as the new dir appears (the copy), and as soon as the pointer moves (the switch).
  for (int i = 0; i < 4; ++i)
    trial("dir" + std::to_string(i), [](const std::string& next) {
      poll_until([&] { return fs::exists(next + "/data.mdb"); }, std::chrono::seconds(5));
    });
  for (int i = 0; i < 4; ++i)
    trial("switch" + std::to_string(i), [&](const std::string& next) {
      const std::string want = fs::path(next).filename().string();
      poll_until(
          [&] {
            try {
              return current_records_name(idx) == want;
            } catch (const std::exception&) {
              return false;
            }
          },
          std::chrono::seconds(5));
    });
  for (int us = 0; us <= 12000; us += 1000)
    trial("t" + std::to_string(us), [us](const std::string&) { std::this_thread::sleep_for(std::chrono::microseconds(us)); });
  INFO(killed << " of " << trials << " runs killed");
  CHECK(killed >= 2);
}
