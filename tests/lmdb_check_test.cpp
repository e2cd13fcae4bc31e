// lmdb_data_problem names a damaged data.mdb before LMDB maps it (a truncated file is a SIGBUS).
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <atomic>
#include <fstream>
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
