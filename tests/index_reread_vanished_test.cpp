// A transcript replaced or shrunk makes its session be read again from its files; when one of the
// session's transcripts is gone by then, the index alone holds that transcript's messages, and a
// re-read must not drop them (SPEC: nothing the user cannot re-create is ever lost).
#include "tests/index_fixture.h"

namespace {

const std::string kSubagent =
    "-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-a4ca7529859c158c2.jsonl";
const std::string kMain = "-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl";

std::set<std::string> message_texts(const std::string& idx, const std::string& sid) {
  std::set<std::string> out;
  for (const auto& m : session_messages(idx, sid)) out.insert(m.rec.uuid + "\n" + m.text);
  return out;
}

// The shared Claude fixtures copied to `src` and indexed into `idx`; the experiments session as stored.
SessionRec indexed_copy(const std::string& src, const std::string& idx) {
  copy_tree(claude_data_dir(), src);
  index_tree(idx, src);
  return all_sessions(idx).at(kExperimentsSid);
}

}  // namespace

TEST_CASE("index: a session re-read after one of its transcripts vanished keeps that transcript's messages",
          "[index][reread]") {
  TempDir tmp("reread-vanished");
  const std::string src = tmp / "src", idx = tmp / "idx";
  const auto before = indexed_copy(src, idx);
  const std::set<std::string> texts = message_texts(idx, kExperimentsSid);
  REQUIRE(before.message_count > 0);

  fs::remove(src + "/" + kSubagent);  // its messages live only in the index from now on
  index_tree(idx, src);
  REQUIRE(all_sessions(idx).at(kExperimentsSid).message_count == before.message_count);

  SECTION("the main transcript replaced with the same lines (new inode)") {
    replace_file(src + "/" + kMain, read_file(src + "/" + kMain));
    index_tree(idx, src);
    CHECK(all_sessions(idx).at(kExperimentsSid).message_count == before.message_count);
    CHECK(message_texts(idx, kExperimentsSid) == texts);
  }
  SECTION("the main transcript cut to its first line and grown again") {
    const std::string whole = read_file(src + "/" + kMain);
    write_file(src + "/" + kMain, whole.substr(0, whole.find('\n') + 1));
    index_tree(idx, src);
    append_file(src + "/" + kMain, whole.substr(whole.find('\n') + 1));
    index_tree(idx, src);
    CHECK(all_sessions(idx).at(kExperimentsSid).message_count == before.message_count);
    CHECK(message_texts(idx, kExperimentsSid) == texts);
  }
  // Every stored message is still there, and the index checks clean.
  const auto kept = session_messages(idx, kExperimentsSid);
  CHECK(kept.size() == texts.size());
  RunResult check = run_osearch({"check", "--index", idx, "--source", "claude=" + src, "--format", "json"});
  INFO(check.out << check.err);
  CHECK(check.exit_code == 0);
}

TEST_CASE("index: a replaced transcript whose session lost no file is still read again from scratch",
          "[index][reread]") {
  TempDir tmp("reread-whole");
  const std::string src = tmp / "src", idx = tmp / "idx";
  const auto before = indexed_copy(src, idx);
  // The file's first ten lines under a new inode: the session is rebuilt from its files, so it has
  // fewer messages than before (a drop, not a merge).
  const std::string whole = read_file(src + "/" + kMain);
  size_t end = 0;
  for (int i = 0; i < 10; ++i) end = whole.find('\n', end) + 1;
  replace_file(src + "/" + kMain, whole.substr(0, end));
  index_tree(idx, src);
  CHECK(all_sessions(idx).at(kExperimentsSid).message_count < before.message_count);
}
