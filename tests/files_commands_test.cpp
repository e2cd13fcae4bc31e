// `files PATH` on shell commands: each call is read alone (engine/query/call_text.h). A message's
// prose and its other calls name files the command does not touch; a record's input is JSON, with
// escapes and with leaves cut to 256 bytes, so a path in a quoted or Windows form, or past the cut
// of a long command, has to be read from the decoded text.
#include <catch2/catch.hpp>

#include "test_util.h"

#include "engine/index/indexer.h"
#include "engine/query/files.h"
#include "engine/query/reader.h"

using namespace osearch;
using namespace osearch_test;

namespace {

constexpr const char* kSession = "aaaaaaaa-1111-4222-8333-000000000001";

std::string assistant(const std::string& uuid, int second, const std::string& content) {
  char ts[40];
  std::snprintf(ts, sizeof ts, "2026-03-01T00:00:%02d.000Z", second);
  return R"({"type":"assistant","cwd":"/w/alpha","sessionId":")" + std::string(kSession) + R"(","uuid":")" + uuid +
         R"(","parentUuid":null,"timestamp":")" + ts + R"(","message":{"role":"assistant","id":"msg_)" + uuid +
         R"(","content":[)" + content + "]}}\n";
}

std::string bash(const std::string& id, const std::string& command_json, const std::string& description = "") {
  std::string input = R"({"command":)" + command_json;
  if (!description.empty()) input += R"(,"description":")" + description + "\"";
  return R"({"type":"tool_use","id":")" + id + R"(","name":"Bash","input":)" + input + "}}";
}

std::string prose(const std::string& text) { return R"({"type":"text","text":")" + text + "\"}"; }

std::vector<std::string> touching(IndexReader& r, const std::string& path) {
  const FilesResult res = run_files(r, parse_filters(FilterArgs{}, 0, 1000), FilesOptions{path, "/w/alpha", true});
  std::vector<std::string> ids;
  for (const FileTouch& t : res.hits) ids.push_back(t.call.id);
  CHECK(res.total == ids.size());
  return ids;
}

}  // namespace

TEST_CASE("files: a shell command is read alone, decoded, and whole past the record's cut", "[files]") {
  TempDir tmp{"files-commands"};
  const std::string filler(300, 'x');  // past the 256 bytes a record keeps of a leaf
  std::string lines;
  // Prose naming a file beside a command that does not.
  lines += assistant("a1", 1, prose("I will edit src/main.rs next") + "," + bash("t1", R"("ls -la")"));
  // Two calls: a Windows path (escaped in the record's JSON) in one.
  lines += assistant("a2", 2, bash("t2", R"("type C:\\Users\\me\\notes.txt")") + "," + bash("t3", R"("echo hi")"));
  // Two calls: a quoted relative path (escaped quotes in the JSON) in one, another file in the other.
  lines += assistant("a3", 3, bash("t4", R"("cat \"src/main.rs\"")") + "," + bash("t5", R"("wc -l src/lib.rs")"));
  // Long commands: the path past the cut; the next call's own text is not this one's.
  lines += assistant("a4", 4,
                     bash("t6", "\"echo " + filler + " && cat src/deep/far.rs\"", "Look far") + "," +
                         bash("t7", R"("echo done")"));
  lines += assistant("a5", 5,
                     bash("t8", "\"echo " + filler + "\"") + "," + bash("t9", "\"echo " + filler + " src/deep/other.rs\""));
  // Prose before and after a long command that names nothing.
  lines += assistant("a6", 6,
                     prose("src/deep/far.rs and src/deep/other.rs") + "," + bash("t10", "\"echo " + filler + "\"", "Quiet") +
                         "," + prose("then src/lib.rs"));
  // The same long command twice: each call is found in its own place.
  lines += assistant("a7", 7,
                     bash("t11", "\"echo " + filler + "\"", "First") + "," +
                         bash("t12", "\"echo " + filler + " src/deep/twice.rs\"", "Second"));
  write_file(tmp / "claude/-w-alpha/" + kSession + ".jsonl", lines);
  REQUIRE(run_index(tmp / "index", {{"claude", tmp / "claude"}}, IndexOptions{}).bad_lines == 0);
  IndexReader r(tmp / "index");

  CHECK(touching(r, "/w/alpha/src/main.rs") == std::vector<std::string>{"t4"});
  CHECK(touching(r, "main.rs") == std::vector<std::string>{"t4"});
  CHECK(touching(r, "C:\\Users\\me\\notes.txt") == std::vector<std::string>{"t2"});
  CHECK(touching(r, "notes.txt") == std::vector<std::string>{"t2"});
  CHECK(touching(r, "src/lib.rs") == std::vector<std::string>{"t5"});
  CHECK(touching(r, "/w/alpha/src/deep/far.rs") == std::vector<std::string>{"t6"});
  CHECK(touching(r, "other.rs") == std::vector<std::string>{"t9"});
  CHECK(touching(r, "twice.rs") == std::vector<std::string>{"t12"});
}
