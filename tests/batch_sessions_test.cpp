// A tree of many small sessions is written in batches of at most IngestBatch::kMaxBatchSessions
// sessions (each session's keys land in their own places of every B-tree: a batch of thousands held
// every page it copied), and the map of ids as written is dropped once a record holds them. Across
// those batches every session arrives whole, a session whose lines straddle two batches included,
// and a cut (bounded) id keeps the id as written.
#include "index_fixture.h"

#include "engine/index/ingest_batch.h"
#include "engine/query/query.h"
#include "engine/query/reader.h"
#include "engine/query/search.h"

namespace {

std::string pi_header(const std::string& id) {
  return R"({"type":"session","version":3,"id":")" + id + R"(","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/w"})" "\n";
}
std::string pi_message(const std::string& id, const std::string& text) {
  return R"({"type":"message","id":")" + id + R"(","parentId":null,"timestamp":"2026-01-02T03:04:06.000Z","message":{"role":"user","content":[{"type":"text","text":")" +
         text + R"("}],"timestamp":1}})" + "\n";
}

}  // namespace

TEST_CASE("many small sessions span several batches, each whole, long ids as written", "[index][batch]") {
  TempDir tmp("batch-sessions");
  const std::string dir = tmp / "pi/--w--";
  std::filesystem::create_directories(dir);
  const size_t n = IngestBatch::kMaxBatchSessions * 2 + 77;
  std::vector<std::string> ids;
  for (size_t i = 0; i < n; ++i) {
    char tail[13];
    std::snprintf(tail, sizeof tail, "%012zu", i);
    std::string id = std::string("0198aaaa-0000-7000-8000-") + tail;
    if (i % 97 == 5) id += "-" + std::string(kMaxIdBytes, 'x');  // cut when stored: kept as written
    ids.push_back(id);
    std::string body = pi_header(id);
    for (int m = 0; m < 3; ++m) body += pi_message("m" + std::to_string(m), "batchword" + std::to_string(i) + " line " + std::to_string(m));
    write_file(dir + "/2026-01-02T03-04-05-000Z_" + id + ".jsonl", body);
  }
  const std::string idx = tmp / "idx";
  run_index(idx, {SourceRoot{"pi", tmp / "pi"}}, {});
  const auto sessions = all_sessions(idx);
  REQUIRE(sessions.size() == n);
  size_t long_ids = 0;
  for (const auto& [key, s] : sessions) {
    INFO(key);
    CHECK(s.message_count == 3);
    CHECK(s.has_main);
    // (A pi session's key is its id + "@pi": the id as written is always kept beside it.)
    CHECK(std::find(ids.begin(), ids.end(), s.full_id) != ids.end());
    CHECK(s.shown_id() == s.full_id);
    long_ids += s.full_id.size() > kMaxIdBytes;
  }
  CHECK(long_ids == static_cast<size_t>(std::count_if(ids.begin(), ids.end(), [](const std::string& id) { return id.size() > kMaxIdBytes; })));
  // Each session's words are found in it, and only there.
  IndexReader reader(idx);
  for (size_t i : {size_t{0}, IngestBatch::kMaxBatchSessions - 1, IngestBatch::kMaxBatchSessions, n - 1, size_t{5}, size_t{102}}) {
    const QueryResult r = run_keyword(reader, "batchword" + std::to_string(i), parse_filters(FilterArgs{}, 0, 20), KeywordOptions{});
    REQUIRE(r.hits.size() == 1);
    CHECK(r.hits[0].session.shown_id() == ids[i]);
  }
}
