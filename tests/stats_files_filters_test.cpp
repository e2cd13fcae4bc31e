// `stats files` under a time or tool filter, on lines written here.
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/store/lmdb.h"
#include "engine/store/store.h"
#include "tests/cli_fixture.h"

// A time or tool filter walks tc_by_path, whose values hold each call's time and tool: a path longer
// than a key part comes whole from the value, and an entry written before values held them reads
// its call instead. Both give the same rows.
TEST_CASE("stats files with a time or tool filter: long paths, and entries without the call's time and tool",
          "[stats]") {
  TempDir tmp{"stats-files-filters"};
  const std::string src = tmp / "claude", idx = tmp / "index", sid = "5d1f3a2b-8c4e-4b7a-9f60-1e2d3c4b5a69";
  fs::create_directories(src + "/-p");
  const std::string long_path = "/" + std::string(200, 'd') + "/long.txt";
  std::string lines;
  int n = 0;
  for (const auto& [day, tool, path] : {std::tuple{"01", "Read", long_path}, {"02", "Edit", long_path},
                                        {"03", "Read", std::string("/short.txt")}}) {
    ++n;
    lines += R"({"type":"assistant","sessionId":")" + sid + R"(","cwd":"/p","uuid":"a)" + std::to_string(n) +
             R"(","timestamp":"2026-01-)" + day + R"(T00:00:00Z","message":{"role":"assistant","id":"m)" +
             std::to_string(n) + R"(","model":"claude-x","content":[{"type":"tool_use","id":"t)" + std::to_string(n) +
             R"(","name":")" + tool + R"(","input":{"file_path":")" + path + R"("}}]}})" + "\n";
  }
  write_file(src + "/-p/" + sid + ".jsonl", lines);
  auto rows = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"stats", "files"});
    args.insert(args.end(), {"--index", idx, "--source", "claude=" + src, "--format", "json", "--no-refresh"});
    RunResult r = run_osearch(args);
    INFO(r.err);
    REQUIRE(r.ok());
    std::map<std::string, int64_t> out;
    const Json j = parse(r.out);
    for (const auto& row : j["rows"].a) out[row["file"].s] = row["touches"].i;
    return out;
  };
  REQUIRE(run_osearch({"index", "--index", idx, "--source", "claude=" + src}).ok());
  using Rows = std::map<std::string, int64_t>;
  auto check_all = [&] {
    CHECK(rows({}) == Rows{{long_path, 2}, {"/short.txt", 1}});
    CHECK(rows({"--tool", "read"}) == Rows{{long_path, 1}, {"/short.txt", 1}});
    CHECK(rows({"--tool", "Edit"}) == Rows{{long_path, 1}});
    CHECK(rows({"--since", "2026-01-02T00:00:00Z"}) == Rows{{long_path, 1}, {"/short.txt", 1}});
    CHECK(rows({"--until", "2026-01-02T00:00:00Z"}) == Rows{{long_path, 1}});
    CHECK(rows({"--since", "2026-01-02T00:00:00Z", "--tool", "read"}) == Rows{{"/short.txt", 1}});
  };
  check_all();
  {  // as an index written before the entries held their call's time and tool
    osearch::Store store(idx, osearch::Store::Mode::Write);
    osearch::LmdbTxn txn(store.env(), false);
    std::vector<std::string> keys;
    {
      osearch::LmdbCursor cur(txn, store.db().tc_by_path);
      for (bool ok = cur.first(); ok; ok = cur.next()) {
        CHECK_FALSE(cur.value().empty());
        keys.emplace_back(cur.key());
      }
    }
    REQUIRE(keys.size() == 3);
    for (const auto& k : keys) txn.put(store.db().tc_by_path, k, "");
    txn.commit();
  }
  check_all();
}

// The aggregates count whole 15-minute buckets: a bound inside one moves to its end, and the answer
// says so (`window`), so a total is never silently for another span than the one asked.
TEST_CASE("stats: --since/--until inside a bucket are reported as the window the rows cover", "[stats]") {
  TempDir tmp{"stats-window"};
  const std::string src = tmp / "claude", idx = tmp / "index", sid = "6e2f3a2b-8c4e-4b7a-9f60-1e2d3c4b5a69";
  std::string lines;
  int n = 0;
  for (const char* minute : {"01", "08", "16", "31"}) {  // buckets 10:00, 10:00, 10:15, 10:30
    ++n;
    lines += R"({"type":"assistant","sessionId":")" + sid + R"(","cwd":"/p","uuid":"a)" + std::to_string(n) +
             R"(","timestamp":"2026-01-05T10:)" + minute + R"(:00Z","message":{"role":"assistant","id":"m)" +
             std::to_string(n) + R"(","model":"claude-x","content":[{"type":"tool_use","id":"t)" + std::to_string(n) +
             R"(","name":"Read","input":{"file_path":"/f.txt"}}],"usage":{"input_tokens":)" +
             std::to_string(n * 100) + R"(,"output_tokens":1}}})" + "\n";
  }
  write_file(src + "/-p/" + sid + ".jsonl", lines);
  REQUIRE(run_osearch({"index", "--index", idx, "--source", "claude=" + src}).ok());
  auto stats = [&](std::vector<std::string> args) {
    args.insert(args.end(), {"--index", idx, "--source", "claude=" + src, "--format", "json", "--no-refresh"});
    RunResult r = run_osearch(args);
    INFO(r.err);
    REQUIRE(r.ok());
    return parse(r.out);
  };
  Json j = stats({"stats", "tokens", "--since", "2026-01-05T10:07:00Z", "--until", "2026-01-05T10:20:00Z"});
  CHECK(j["window"]["since"].s == "2026-01-05T10:15:00.000Z");
  CHECK(j["window"]["until"].s == "2026-01-05T10:30:00.000Z");
  CHECK(j["window"]["bucket_minutes"].i == 15);
  CHECK(j["totals"]["input"].i == 300);  // the 10:16 message alone: what the window says
  j = stats({"stats", "tools", "--since", "2026-01-05T10:15:00Z"});  // on a bucket's start: as asked
  CHECK(j["window"]["since"].s == "2026-01-05T10:15:00.000Z");
  CHECK(j["window"]["until"].is_null());
  CHECK(j["totals"]["tool_calls"].i == 2);
  j = stats({"stats", "files", "--since", "2026-01-05T10:07:00Z"});  // read call by call: exact
  CHECK(j["window"]["since"].s == "2026-01-05T10:07:00.000Z");
  CHECK(j["window"]["bucket_minutes"].i == 0);
  CHECK(j["totals"]["touches"].i == 3);
  CHECK_FALSE(stats({"stats", "tokens"}).has("window"));  // no bound: no window
  RunResult text = run_osearch({"stats", "tokens", "--since", "2026-01-05T10:07:00Z", "--index", idx, "--source",
                                "claude=" + src, "--format", "text", "--no-refresh"});
  CHECK(text.out.find("counted from 2026-01-05T10:15:00.000Z to now, in whole 15-minute buckets") != std::string::npos);
}
