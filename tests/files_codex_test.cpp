// `files` and `failures` on Codex lines written here: an apply_patch call names several files by
// its headers, relative to the session's cwd, and an exec_command names one in its command.
#include <catch2/catch.hpp>

#include "test_util.h"

#include "engine/index/indexer.h"
#include "engine/query/files.h"
#include "engine/query/reader.h"

using namespace osearch;
using namespace osearch_test;

namespace {

Filters filters() { return parse_filters(FilterArgs{}, 0, 100000); }

}  // namespace

TEST_CASE("files: Codex apply_patch headers, several files per call, relative to the cwd", "[files]") {
  TempDir tmp{"files-codex"};
  const std::string dir = tmp / "codex/sessions/2026/09/01";
  const std::string patch =
      "*** Begin Patch\\n*** Update File: src/lib.rs\\n@@\\n-a\\n+b\\n*** Add File: docs/notes.md\\n+hi\\n"
      "*** Delete File: old/gone.txt\\n*** End Patch";
  write_file(dir + "/rollout-2026-09-01T10-00-00-019fc8be-1111-7000-8000-000000000001.jsonl",
             R"({"timestamp":"2026-09-01T10:00:00.000Z","type":"session_meta","payload":{"id":"019fc8be-1111-7000-8000-000000000001","timestamp":"2026-09-01T10:00:00.000Z","cwd":"/w/proj","cli_version":"0.120.0"}})"
             "\n"
             R"({"timestamp":"2026-09-01T10:00:01.000Z","type":"response_item","payload":{"type":"custom_tool_call","call_id":"p1","name":"apply_patch","input":")" + patch + R"("}})"
             "\n"
             R"({"timestamp":"2026-09-01T10:00:02.000Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"p1","output":"Success"}})"
             "\n"
             R"({"timestamp":"2026-09-01T10:00:03.000Z","type":"response_item","payload":{"type":"function_call","call_id":"e1","name":"exec_command","arguments":"{\"cmd\":\"cargo test --manifest-path src/lib.rs\"}"}})"
             "\n"
             R"({"timestamp":"2026-09-01T10:00:04.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"e1","output":"{\"output\":\"error[E0432]\",\"metadata\":{\"exit_code\":101}}"}})"
             "\n"
             R"({"timestamp":"2026-09-01T10:00:05.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The test failed."}]}})"
             "\n");
  REQUIRE(run_index(tmp / "index", {{"codex", tmp / "codex"}}, IndexOptions{}).files_unreadable == 0);
  IndexReader r(tmp / "index");
  for (const std::string p : {"/w/proj/src/lib.rs", "/w/proj/docs/notes.md", "/w/proj/old/gone.txt"}) {
    FilesResult res = run_files(r, filters(), FilesOptions{p, "/", true});
    INFO(p);
    REQUIRE(res.hits.size() >= 1);
    CHECK(res.hits[0].call.id == "p1");
    CHECK(res.hits[0].file_path == p);
    CHECK(res.hits[0].has_result);
    CHECK_FALSE(res.hits[0].failed);
  }
  // The exec_command names src/lib.rs relative to its cwd: a command hit, and it failed.
  FilesResult lib = run_files(r, filters(), FilesOptions{"src/lib.rs", "/", true});
  REQUIRE(lib.hits.size() == 2);
  CHECK(lib.hits[1].call.id == "e1");
  CHECK(lib.hits[1].how == "command");
  CHECK(lib.hits[1].failed);
  CHECK(run_files(r, filters(), FilesOptions{"src/lib.rs", "/", false}).hits.size() == 1);
  CHECK(run_files(r, filters(), FilesOptions{"lib.rs", "/", true}).hits.size() == 2);
  CHECK(run_files(r, filters(), FilesOptions{"b/lib.rs", "/", true}).hits.empty());

  FailuresResult fails = run_failures(r, filters(), FailuresOptions{});
  REQUIRE(fails.hits.size() == 1);
  CHECK(fails.hits[0].result.tool_use_id == "e1");
  CHECK(fails.hits[0].call->name == "exec_command");
  CHECK(fails.hits[0].result_message.text.find("error[E0432]") != std::string::npos);
  REQUIRE(fails.hits[0].next.size() == 1);
  CHECK(fails.hits[0].next[0].text == "The test failed.");
}
