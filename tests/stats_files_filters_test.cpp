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
