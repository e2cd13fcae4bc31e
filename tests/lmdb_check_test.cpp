// lmdb_data_problem names a damaged data.mdb before LMDB maps it (a truncated file is a SIGBUS).
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <atomic>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "engine/store/lmdb.h"
#include "engine/store/lmdb_check.h"
#include "test_util.h"

using namespace osearch;

namespace {

// A small env with one named database and enough entries to take several pages.
std::string make_env(const std::string& dir) {
  std::filesystem::create_directories(dir);
  LmdbEnv env;
  env.open(dir, false, 4);
  LmdbTxn txn(env, false);
  MDB_dbi dbi = txn.open_db("items", MDB_CREATE);
  for (int i = 0; i < 2000; ++i) txn.put(dbi, "key-" + std::to_string(i), std::string(100, 'v'));
  txn.commit();
  return dir + "/data.mdb";
}

void patch(const std::string& path, off_t at, const std::string& bytes) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(at);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The newest meta's last page, as lmdb_check reads it (64-bit layout).
uint64_t newest_last_page(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  uint64_t best_txn = 0, last = 0;
  for (int meta = 0; meta < 2; ++meta) {
    char buf[160];
    f.seekg(meta * 4096);
    f.read(buf, sizeof buf);
    uint64_t page, txn;
    std::memcpy(&page, buf + 16 + 24 + 96, 8);
    std::memcpy(&txn, buf + 16 + 24 + 104, 8);
    if (meta == 0 || txn > best_txn) best_txn = txn, last = page;
  }
  return last;
}

}  // namespace

TEST_CASE("lmdb_data_problem accepts a sound env and a missing one", "[hardening][lmdb_check]") {
  osearch_test::TempDir tmp;
  make_env(tmp.path() + "/env");
  CHECK(lmdb_data_problem(tmp.path() + "/env") == "");
  CHECK(lmdb_data_problem(tmp.path() + "/nothing") == "");
}

TEST_CASE("lmdb_data_problem names a truncated data.mdb", "[hardening][lmdb_check]") {
  osearch_test::TempDir tmp;
  const std::string data = make_env(tmp.path() + "/env");
  const auto size = std::filesystem::file_size(data);
  for (uintmax_t to : {uintmax_t{0}, uintmax_t{100}, uintmax_t{4096}, uintmax_t{8192}, size / 2, size - 4096}) {
    INFO("truncated to " << to);
    REQUIRE(::truncate(data.c_str(), static_cast<off_t>(to)) == 0);
    CHECK_FALSE(lmdb_data_problem(tmp.path() + "/env").empty());
  }
}

TEST_CASE("lmdb_data_problem names damaged meta pages", "[hardening][lmdb_check]") {
  osearch_test::TempDir tmp;
  const std::string env = tmp.path() + "/env";
  const std::string data = make_env(env);
  SECTION("garbage over meta page 0") { patch(data, 16, std::string(64, '\x5a')); }
  SECTION("garbage over meta page 1") { patch(data, 4096 + 16, std::string(64, '\x5a')); }
  SECTION("a last page past the end") { patch(data, 16 + 24 + 96, std::string(8, '\x7f')); }
  CHECK_FALSE(lmdb_data_problem(env).empty());
}

TEST_CASE("lmdb_data_problem refuses a symlinked data.mdb", "[hardening][lmdb_check]") {
  osearch_test::TempDir tmp;
  const std::string data = make_env(tmp.path() + "/env");
  std::filesystem::create_directories(tmp.path() + "/link");
  std::filesystem::create_symlink(data, tmp.path() + "/link/data.mdb");
  CHECK_FALSE(lmdb_data_problem(tmp.path() + "/link").empty());
}

TEST_CASE("lmdb_data_problem never calls a live env truncated while a writer grows it", "[hardening][lmdb_check]") {
  // The file is measured again after the meta pages are read: a commit between the first fstat and
  // the meta read names pages the first size did not hold (seen under load as a false "truncated").
  osearch_test::TempDir tmp;
  const std::string dir = tmp.path() + "/env";
  make_env(dir);
  std::atomic<bool> done{false};
  std::string problem;
  std::thread checker([&] {
    while (!done.load() && problem.empty()) problem = lmdb_data_problem(dir);
  });
  {
    LmdbEnv env;
    env.open(dir, false, 4);
    for (int round = 0; round < 300 && problem.empty(); ++round) {
      LmdbTxn txn(env, false);
      MDB_dbi dbi = txn.open_db("items", MDB_CREATE);
      for (int i = 0; i < 40; ++i) txn.put(dbi, "grow-" + std::to_string(round) + "-" + std::to_string(i), std::string(200, 'g'));
      txn.commit();
    }
  }
  done = true;
  checker.join();
  CHECK(problem.empty());
}

TEST_CASE("lmdb_data_problem accepts pages past the end that only the free list names", "[hardening][lmdb_check]") {
  // LMDB counts in last_pg an overflow run it allocated and gave back in one transaction but never
  // writes it, so a sound file can end before last_pg (a value rewritten in one batch does this; it
  // was once reported as "truncated" until `index --full`). Churn large values until that happens.
  osearch_test::TempDir tmp;
  const std::string dir = tmp.path() + "/env", data = dir + "/data.mdb";
  std::filesystem::create_directories(dir);
  std::mt19937 rng(7);
  std::map<std::string, std::string> expected;
  bool gap = false;
  {
    LmdbEnv env;
    env.open(dir, false, 4);
    for (int round = 0; round < 400 && !gap; ++round) {
      LmdbTxn txn(env, false);
      MDB_dbi dbi = txn.open_db("items", MDB_CREATE);
      for (int i = 0; i < 400; ++i) {
        const std::string key = "k" + std::to_string(rng() % 1000);
        if (rng() % 3 == 0) {
          txn.del(dbi, key);
          expected.erase(key);
        } else {
          std::string value(rng() % 4 == 0 ? rng() % 30000 : rng() % 300, static_cast<char>('a' + rng() % 26));
          txn.put(dbi, key, value);
          expected[key] = value;
        }
      }
      txn.commit();
      gap = newest_last_page(data) >= std::filesystem::file_size(data) / 4096;
    }
  }
  REQUIRE(gap);
  CHECK(lmdb_data_problem(dir) == "");
  {
    LmdbEnv env;
    env.open(dir, true, 4);
    LmdbTxn txn(env, true);
    MDB_dbi dbi = txn.open_db("items");
    size_t matched = 0;
    for (const auto& [key, value] : expected) matched += txn.get(dbi, key) == std::optional<std::string_view>(value);
    CHECK(matched == expected.size());
  }
  // Cutting into the written pages is still truncation.
  REQUIRE(::truncate(data.c_str(), static_cast<off_t>(std::filesystem::file_size(data) / 2 / 4096 * 4096)) == 0);
  CHECK_FALSE(lmdb_data_problem(dir).empty());
}
