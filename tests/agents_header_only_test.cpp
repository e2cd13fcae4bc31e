// An omp/pi/Codex transcript is a session from its header on, even if it never gets a message (a
// Codex rollout that only hit a rate limit): session counts equal the number of session files.
#include "index_fixture.h"

#include "engine/query/query.h"
#include "engine/query/reader.h"
#include "engine/query/search.h"
#include "ingest/agent_layout.h"

TEST_CASE("agents: a transcript with a header and no message is a session", "[agents][header-only]") {
  TempDir tmp("header-only");
  const std::string codex = tmp / "codex";
  const std::string day = codex + "/sessions/2025/10/31/";
  std::filesystem::create_directories(day);
  const std::string name = "rollout-2025-10-31T17-00-00-test-ratelimit-session.jsonl";
  std::filesystem::copy_file(test_data_dir() + "/codex/.codex/sessions/2025/10/31/" + name, day + name);
  const std::string pi = tmp / "pi/--w--";
  std::filesystem::create_directories(pi);
  write_file(pi + "/2026-01-02T03-04-05-000Z_0198aaaa-0000-7000-8000-000000000001.jsonl",
             R"({"type":"session","version":3,"id":"0198aaaa-0000-7000-8000-000000000001","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/w"})"
             "\n");
  const std::string idx = tmp / "idx";
  run_index(idx, {SourceRoot{"codex", codex}, SourceRoot{"pi", tmp / "pi"}}, {});
  auto sessions = all_sessions(idx);
  REQUIRE(sessions.size() == 2);
  for (const auto& [key, s] : sessions) {
    INFO(key);
    CHECK(s.message_count == 0);
    CHECK(s.has_main);
    CHECK_FALSE(s.jsonl_path.empty());
    CHECK_FALSE(s.cwd.empty());
    CHECK(s.project == project_slug(s.cwd));
    CHECK(s.started_at > 0);
  }
  IndexReader reader(idx);
  QueryResult list = run_list(reader, parse_filters(FilterArgs{}, 0, 50));
  CHECK(list.hits.size() == 2);
  // Read again (a full rebuild): the same two sessions.
  run_index(idx, {SourceRoot{"codex", codex}, SourceRoot{"pi", tmp / "pi"}}, full_options());
  CHECK(all_sessions(idx).size() == 2);
}
