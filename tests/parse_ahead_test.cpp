// ParseAhead: files arrive parsed, in order, chunk by chunk, with their read results; the parser
// stays a bounded distance ahead and stops cleanly when the consumer goes away early.
#include "engine/index/parse_ahead.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "test_util.h"

using namespace osearch;
using namespace osearch_test;

namespace {

std::string user_line(const std::string& sid, int n, size_t text_bytes = 20) {
  return R"({"type":"user","sessionId":")" + sid + R"(","uuid":"u-)" + std::to_string(n) +
         R"(","timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"user","content":")" +
         std::string(text_bytes, 'x') + R"("}})" + "\n";
}

}  // namespace

TEST_CASE("parse-ahead: every file's lines in order, with its read result, then the end", "[index][parse_ahead]") {
  TempDir tmp("pa");
  std::vector<ParseJob> jobs;
  std::vector<size_t> expected_lines;
  for (int f = 0; f < 5; ++f) {
    std::string body;
    const int n = 3 + f * 40;
    // File 3 has big lines: it is handed over in several chunks.
    for (int i = 0; i < n; ++i) body += user_line("s" + std::to_string(f), i, f == 3 ? 100000 : 20);
    const std::string path = tmp / ("f" + std::to_string(f) + ".jsonl");
    write_file(path, body);
    jobs.push_back({path, 0, true});
    expected_lines.push_back(n);
  }
  jobs.push_back({tmp / "workflow.json", 0, false});  // read by the consumer itself
  jobs.push_back({tmp / "missing.jsonl", 0, true});   // unreadable: reported in its result

  ParseAhead ahead(jobs, 1u << 20);
  ParsedChunk c;
  std::vector<size_t> lines(jobs.size(), 0), chunks(jobs.size(), 0), lasts(jobs.size(), 0);
  size_t prev_job = 0;
  while (ahead.next(c)) {
    REQUIRE(c.job >= prev_job);  // never goes back to an earlier file
    prev_job = c.job;
    lines[c.job] += c.lines.size();
    ++chunks[c.job];
    for (const auto& l : c.lines) CHECK(!l.rec.messages.empty());
    if (c.last) {
      ++lasts[c.job];
      if (c.job < 5) {
        CHECK(c.result.ok);
        CHECK(c.result.lines == expected_lines[c.job]);
      } else if (c.job == 6) {
        CHECK_FALSE(c.result.ok);
      }
    } else {
      CHECK(lasts[c.job] == 0);  // nothing of a file after its last chunk
    }
  }
  for (size_t j = 0; j < 5; ++j) CHECK(lines[j] == expected_lines[j]);
  CHECK(chunks[3] > 1);
  CHECK(lines[5] == 0);
  for (size_t j = 0; j < jobs.size(); ++j) CHECK(lasts[j] == 1);
  CHECK_FALSE(ahead.next(c));  // stays at the end
}

TEST_CASE("parse-ahead: a consumer that stops early does not hang the parser", "[index][parse_ahead]") {
  TempDir tmp("pa-stop");
  std::vector<ParseJob> jobs;
  for (int f = 0; f < 20; ++f) {
    std::string body;
    for (int i = 0; i < 50; ++i) body += user_line("s", i, 50000);
    const std::string path = tmp / ("f" + std::to_string(f) + ".jsonl");
    write_file(path, body);
    jobs.push_back({path, 0, true});
  }
  for (int taken = 0; taken < 3; ++taken) {
    ParseAhead ahead(jobs, 64u << 10);  // a tiny window: the parser blocks almost at once
    ParsedChunk c;
    for (int i = 0; i < taken; ++i) REQUIRE(ahead.next(c));
  }  // each destructor stops and joins a parser that is blocked or mid-file
  SUCCEED();
}
