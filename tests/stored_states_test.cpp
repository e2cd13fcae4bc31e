// A plan reads the stored file states in place (engine/index/stored_states.h): the view must say
// what the decoded state says, and a damaged state is still named whichever plan meets it.
#include "tests/index_fixture.h"

#include "engine/index/stored_states.h"
#include "engine/store/index_damage.h"
#include "engine/store/store.h"

namespace {

FileState full_state() {
  FileState f;
  f.path = "/home/u/.claude/projects/-p/5b1c.jsonl";
  f.kind = SourceKind::CodexRollout;
  f.agent = "codex";
  f.project = "-p";
  f.session_id = "5b1c";
  f.agent_id = "a1";
  f.dev = 2049;
  f.ino = 77;
  f.size = 123456;
  f.mtime_ns = -5;  // (zigzag)
  f.offset = 120000;
  f.lines = 10;
  f.bad_lines = 1;
  f.repaired_lines = 2;
  f.oversized_lines = 3;
  f.deleted = true;
  f.carry.cwd = "/w";
  f.carry.git_branch = "main";
  f.carry.version = "1.2";
  f.carry.model = "m";
  f.carry.last_entry_id = "e9";
  f.carry.usage_total = TokenUsage{1, 2, 3, 4};
  f.carry.header_seen = true;
  f.carry.pending_user_text = 99;
  f.carry.last_timestamp_ms = 1700000000000;
  return f;
}

void overwrite_state(const std::string& idx, const std::string& path, std::string_view bytes) {
  Store store(idx, Store::Mode::Write);
  LmdbTxn w(store.env(), false);
  REQUIRE(w.get(store.db().files, file_key(path)));
  w.put(store.db().files, file_key(path), bytes);
  w.commit();
}

}  // namespace

TEST_CASE("a file state's view says what its decode says", "[index][plan]") {
  const FileState f = full_state();
  const std::string bytes = f.encode();
  const auto v = FileStateView::parse(bytes);
  REQUIRE(v);
  CHECK(v->path == f.path);
  CHECK(v->session_id == f.session_id);
  CHECK(v->dev == f.dev);
  CHECK(v->ino == f.ino);
  CHECK(v->size == f.size);
  CHECK(v->offset == f.offset);
  CHECK(v->mtime_ns == f.mtime_ns);
  CHECK(v->deleted == f.deleted);
  const auto decoded = FileState::decode(file_key(f.path), bytes);
  REQUIRE(decoded);
  CHECK(v->state().encode() == decoded->encode());
  CHECK(decoded->encode() == bytes);
  CHECK(decoded->links_unread);
  // Cut inside the path (a field every version wrote): neither reads it.
  const std::string cut = bytes.substr(0, bytes.find(f.path) + 4);
  CHECK_FALSE(FileStateView::parse(cut));
  CHECK_FALSE(FileState::decode("k", cut));
}

TEST_CASE("StoredStates finds every stored state by path, and only those asked for", "[index][plan]") {
  TempDir tmp("stored-states");
  const std::string src = tmp / "src";
  copy_tree(claude_data_dir(), src);
  const std::string idx = tmp / "idx";
  index_tree(idx, src);
  const auto files = all_files(idx);
  REQUIRE(files.size() > 3);
  Store store(idx, Store::Mode::Write);
  const StoredStates every(store);
  REQUIRE(every.all().size() == files.size());
  for (const auto& [path, st] : files) {
    const FileStateView* v = every.find(path);
    REQUIRE(v);
    CHECK(v->state().encode() == st.encode());
  }
  CHECK(every.find(src + "/no-such.jsonl") == nullptr);
  const std::vector<std::string> two = {files.begin()->first, src + "/no-such.jsonl"};
  const StoredStates some(store, &two);
  CHECK(some.all().size() == 1);
  CHECK(some.find(files.begin()->first) != nullptr);
  CHECK(some.find(std::next(files.begin())->first) == nullptr);
}

TEST_CASE("a damaged file state is named by the full plan and by the targeted one", "[index][plan][hardening]") {
  TempDir tmp("damaged-state");
  const std::string src = tmp / "src";
  make_tree(src, {"-Users-user-project", kWindows});
  age_directories(src, 600);
  const std::string idx = tmp / "idx";
  IndexOptions quick;
  quick.quick_check = true;
  index_tree(idx, src, quick);
  const std::string path = src + "/" + kB3;
  REQUIRE(all_files(idx).count(path));
  int line = 0;
  auto append_one = [&] {
    append_file(path, user_line(kB3Sid, "0c1d2e3f-0000-4000-8000-00000000000" + std::to_string(++line), "one more line"));
  };
  append_one();
  REQUIRE(index_tree(idx, src, quick).plan == "targeted");  // (what the second section relies on)
  overwrite_state(idx, path, "\x05\xff\xff");
  SECTION("full plan") { CHECK_THROWS_AS(index_tree(idx, src), IndexDamaged); }
  SECTION("targeted plan") {
    append_one();
    CHECK_THROWS_AS(index_tree(idx, src, quick), IndexDamaged);
  }
}
