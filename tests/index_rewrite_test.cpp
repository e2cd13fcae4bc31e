// A transcript rewritten in place (same inode, no rename) and grown past the stored offset is not an
// append: pi's SessionManager migrates an older session file so (writeFileSync over it, the entries
// given ids). The bytes before the offset tell (FileState::tail_crc): the file is read whole again,
// as a clean build would read it. An append keeps them, and still reads only its new bytes. A file
// whose mtime moved without growing was changed in place wherever: it is read whole too.
#include "tests/index_fixture.h"

#include "engine/store/codec.h"

namespace {

std::string lines(const std::string& sid, const std::string& word, int n, int first_minute = 0) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    char ts[40];
    std::snprintf(ts, sizeof ts, "2026-03-01T10:%02d:00.000Z", first_minute + i);
    out += user_line(sid, word + "-" + std::to_string(i), word + " says line " + std::to_string(i), ts);
  }
  return out;
}

// Every stored file state as an index written before tails were kept holds it: without its last two
// fields (FileState::tail_len and tail_crc are encoded last).
void forget_tails(const std::string& idx) {
  Store store(idx, Store::Mode::Write);
  LmdbTxn txn(store.env(), false);
  std::vector<std::pair<std::string, std::string>> old;
  {
    LmdbCursor c(txn, store.db().files);
    for (bool ok = c.first(); ok; ok = c.next()) {
      const auto st = FileState::decode(c.key(), c.value());
      REQUIRE(st);
      Encoder tail;
      tail.u64(st->tail_len);
      tail.u64(st->tail_crc);
      std::string bytes = st->encode();
      REQUIRE(bytes.ends_with(tail.bytes()));
      bytes.resize(bytes.size() - tail.bytes().size());
      old.emplace_back(std::string(c.key()), std::move(bytes));
    }
  }
  REQUIRE(!old.empty());
  for (const auto& [key, bytes] : old) {
    REQUIRE(FileStateView::parse(bytes));
    CHECK(!FileStateView::parse(bytes)->tail_kept);
    txn.put(store.db().files, key, bytes);
  }
  txn.commit();
}

}  // namespace

TEST_CASE("index: a file rewritten in place and grown is read whole again; an append is read alone", "[index]") {
  TempDir tmp("rewrite");
  const std::string src = tmp / "src", idx = tmp / "idx";
  const std::string sid = "5e55a0e1-0000-4000-8000-000000000001";
  const std::string f = src + "/-w-proj/" + sid + ".jsonl";
  write_file(f, lines(sid, "walrusold", 6));
  write_file(src + "/-w-proj/5e55a0e1-0000-4000-8000-000000000002.jsonl",
             lines("5e55a0e1-0000-4000-8000-000000000002", "bystander", 3));
  index_tree(idx, src);
  int n = 0;
  auto clean_fp = [&]() {
    const std::string ref = tmp / ("ref" + std::to_string(n++));
    index_tree(ref, src);
    return fingerprint(ref);
  };

  SECTION("longer, other content through the same inode") {
    rewrite_in_place(f, lines(sid, "okapinew", 9));
    const IndexSummary s = index_tree(idx, src);
    CHECK(s.bad_lines == 0);
    CHECK(s.new_messages == 9);
    CHECK(session_messages(idx, sid).size() == 9);
    CHECK(keyword_sessions(idx, "walrusold").empty());
    CHECK(keyword_sessions(idx, "okapinew") == std::set<std::string>{sid});
    CHECK_SAME_INDEX(idx, clean_fp());
  }

  SECTION("the same size, other content, a newer mtime") {
    std::string same = read_file(f);
    for (size_t at = same.find("walrusold"); at != std::string::npos; at = same.find("walrusold", at + 1))
      same.replace(at, 9, "narwhalxx");
    rewrite_in_place(f, same);
    const IndexSummary s = index_tree(idx, src);
    CHECK(s.new_messages == 6);
    CHECK(keyword_sessions(idx, "walrusold").empty());
    CHECK(keyword_sessions(idx, "narwhalxx") == std::set<std::string>{sid});
    CHECK_SAME_INDEX(idx, clean_fp());
  }

  SECTION("the same size, one word changed far before the end (past the tail the state keeps)") {
    std::string same = read_file(f);
    const size_t first = same.find("walrusold");
    REQUIRE(first < same.size() / 2);
    same.replace(first, 9, "narwhalxx");
    rewrite_in_place(f, same);
    const IndexSummary s = index_tree(idx, src);
    CHECK(s.bytes_read == same.size());
    CHECK(keyword_sessions(idx, "narwhalxx") == std::set<std::string>{sid});
    CHECK_SAME_INDEX(idx, clean_fp());
  }

  SECTION("touched, its bytes the same: read whole, and the index is as before") {
    rewrite_in_place(f, read_file(f));
    const IndexSummary s = index_tree(idx, src);
    CHECK(s.bytes_read == file_size(f));
    CHECK(session_messages(idx, sid).size() == 6);
    CHECK_SAME_INDEX(idx, clean_fp());
  }

  SECTION("appended, short and then long: only the new bytes are read, each time") {
    for (int round = 0; round < 3; ++round) {
      // A line shorter than the kept tail, then lines longer than it: either way the bytes before
      // the offset are those read last.
      const std::string more = round == 0 ? "\n" : lines(sid, std::string(40 * round, 'z'), round, 10 * round);
      append_file(f, more);
      const IndexSummary s = index_tree(idx, src);
      CHECK(s.bytes_read == more.size());
      CHECK(s.new_messages == static_cast<uint64_t>(round));
    }
    CHECK(keyword_sessions(idx, "walrusold") == std::set<std::string>{sid});
    CHECK_SAME_INDEX(idx, clean_fp());
  }

  SECTION("rewritten again after an append: the tail the append left is the one checked") {
    append_file(f, lines(sid, "walrusmore", 2, 20));
    CHECK(index_tree(idx, src).new_messages == 2);
    rewrite_in_place(f, lines(sid, "okapinew", 12));
    const IndexSummary s = index_tree(idx, src);
    CHECK(s.new_messages == 12);
    CHECK(keyword_sessions(idx, "walrusold").empty());
    CHECK(keyword_sessions(idx, "walrusmore").empty());
    CHECK_SAME_INDEX(idx, clean_fp());
  }

  SECTION("a state written before tails were kept: the file is read whole once, then appends alone") {
    forget_tails(idx);
    SECTION("rewritten in place, longer") {
      rewrite_in_place(f, lines(sid, "okapinew", 9));
      CHECK(index_tree(idx, src).new_messages == 9);
      CHECK(keyword_sessions(idx, "walrusold").empty());
    }
    SECTION("appended: the whole file is read, and the next append alone") {
      const std::string more = lines(sid, "walrusmore", 2, 20);
      append_file(f, more);
      const IndexSummary s = index_tree(idx, src);
      CHECK(s.bytes_read == read_file(f).size());
      CHECK(s.new_messages == 8);
      const std::string again = lines(sid, "walruslast", 1, 30);
      append_file(f, again);
      CHECK(index_tree(idx, src).bytes_read == again.size());
      CHECK(keyword_sessions(idx, "walrusold") == std::set<std::string>{sid});
    }
    SECTION("untouched: nothing is read") { CHECK(index_tree(idx, src).bytes_read == 0); }
    CHECK_SAME_INDEX(idx, clean_fp());
  }
}

TEST_CASE("index: a pi session migrated by pi's own code (rewritten in place, longer) equals a clean build", "[index]") {
  // tests/data/pi-migration: the first lines of a real version-1 session, and the same file after pi
  // 0.73.1 opened it (its PROVENANCE.md).
  const std::string data = test_data_dir() + "/pi-migration";
  TempDir tmp("pi-migration");
  const std::string src = tmp / "sessions", idx = tmp / "idx";
  const std::string f =
      src + "/--Users-badlogic-workspaces-pi-mono--/2025-11-20T23-33-50-805Z_d703a1a9-1b7b-4fb1-b512-c9738b1fe617.jsonl";
  const std::vector<SourceRoot> roots = {{"pi", src}};
  write_file(f, read_file(data + "/v1.jsonl"));
  REQUIRE(run_index(idx, roots, IndexOptions{}).new_messages > 0);
  const std::string migrated = read_file(data + "/migrated.jsonl");
  REQUIRE(migrated.size() > read_file(f).size());
  rewrite_in_place(f, migrated);
  const IndexSummary s = run_index(idx, roots, IndexOptions{});
  CHECK(s.bad_lines == 0);
  run_index(tmp / "ref", roots, IndexOptions{});
  CHECK_SAME_INDEX(idx, fingerprint(tmp / "ref"));
}

TEST_CASE("index: a session read again whole re-reads its omp file that holds only its title slot so far", "[index]") {
  // tests/data/mixed/omp: a session file whose first line is omp's title slot, and its subagent's
  // transcript in the session's artifacts directory. The session file has no header yet, so no line
  // has tied it to its session: only its name does (85c0a1d).
  const std::string data = test_data_dir() + "/mixed/omp/sessions/-work-omp-proj";
  const std::string stem = "2026-11-01T10-00-00-000Z_01a0b1c2-0000-7000-8000-00000000a001";
  TempDir tmp("omp-title-only");
  const std::string src = tmp / "sessions", idx = tmp / "idx";
  const std::vector<SourceRoot> roots = {{"omp", src}};
  const std::string main_bytes = read_file(data + "/" + stem + ".jsonl");
  REQUIRE(main_bytes.starts_with(R"({"type":"title")"));
  write_file(src + "/-work-omp-proj/" + stem + ".jsonl", main_bytes.substr(0, main_bytes.find('\n') + 1));
  const std::string sub = src + "/-work-omp-proj/" + stem + "/0-Explore.jsonl";
  const std::string sub_bytes = read_file(data + "/" + stem + "/0-Explore.jsonl");
  write_file(sub, sub_bytes);
  REQUIRE(run_index(idx, roots, IndexOptions{}).new_messages > 0);
  // The subagent's transcript rewritten in place and grown, its last line's end moved too (the
  // bytes before the offset tell a rewrite from an append): its session is read again whole.
  std::string rewritten = sub_bytes;
  const size_t at = rewritten.find("ompsubagentword");
  REQUIRE(at != std::string::npos);
  rewritten.replace(at, 15, "ompsubagentWORD");
  REQUIRE(rewritten.ends_with("}\n"));
  rewritten.insert(rewritten.size() - 2, " ");
  rewrite_in_place(sub, rewritten + sub_bytes.substr(0, sub_bytes.find('\n') + 1));
  REQUIRE(run_index(idx, roots, IndexOptions{}).files_unreadable == 0);
  run_index(tmp / "ref", roots, IndexOptions{});
  CHECK_SAME_INDEX(idx, fingerprint(tmp / "ref"));
}

TEST_CASE("index: a pi session touched in place without growing is read whole; omp's title slot alone is read again", "[index]") {
  TempDir tmp("pi-touched");
  const std::string src = tmp / "sessions", idx = tmp / "idx";
  SECTION("pi: a word changed far before the end") {
    const std::string f =
        src + "/--Users-badlogic-workspaces-pi-mono--/2025-11-20T23-33-50-805Z_d703a1a9-1b7b-4fb1-b512-c9738b1fe617.jsonl";
    const std::vector<SourceRoot> roots = {{"pi", src}};
    std::string bytes = read_file(test_data_dir() + "/pi-migration/migrated.jsonl");
    write_file(f, bytes);
    REQUIRE(run_index(idx, roots, IndexOptions{}).new_messages > 0);
    const size_t at = bytes.find("horizontal");
    REQUIRE(at < bytes.size() / 2);
    bytes.replace(at, 10, "zorizontal");
    rewrite_in_place(f, bytes);
    CHECK(run_index(idx, roots, IndexOptions{}).bytes_read == bytes.size());
    CHECK(keyword_sessions(idx, "zorizontal").size() == 1);
    run_index(tmp / "ref", roots, IndexOptions{});
    CHECK_SAME_INDEX(idx, fingerprint(tmp / "ref"));
  }
  SECTION("omp: the title slot rewritten, the file not read again whole") {
    const std::string name = "/-work-omp-proj/2026-11-01T10-00-00-000Z_01a0b1c2-0000-7000-8000-00000000a001.jsonl";
    const std::string f = src + name;
    const std::vector<SourceRoot> roots = {{"omp", src}};
    std::string bytes = read_file(test_data_dir() + "/mixed/omp/sessions" + name);
    write_file(f, bytes);
    REQUIRE(run_index(idx, roots, IndexOptions{}).new_messages > 0);
    bytes.replace(bytes.find("Zebraslot title"), 15, "Quaggslot title");
    rewrite_in_place(f, bytes);
    CHECK(run_index(idx, roots, IndexOptions{}).bytes_read < bytes.size());
    CHECK(keyword_sessions(idx, "quaggslot").size() == 1);
    std::vector<std::string> titles;
    for (const auto& [key, session] : all_sessions(idx)) titles.push_back(session.title());
    CHECK(titles == std::vector<std::string>{"Quaggslot title"});
  }
}
