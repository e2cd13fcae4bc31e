// LmdbTxn::trim_pages_every keeps a long transaction's map pages from piling up in the process's
// RSS: each page fault maps its neighbours too (fault-around), so random lookups over a large env
// made all of it resident (a 570 MB session re-read across batches: 273 MB peak, issue 13).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/store/lmdb.h"
#include "test_util.h"

using namespace osearch;
using namespace osearch_test;

namespace {

// Resident file-backed pages of this process, in bytes (statm's third field).
size_t resident_shared_bytes() {
  int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  char buf[128] = {};
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  unsigned long size = 0, resident = 0, shared = 0;
  REQUIRE(n > 0);
  REQUIRE(std::sscanf(buf, "%lu %lu %lu", &size, &resident, &shared) == 3);
  return shared * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
}

constexpr int kResidentKeys = 40000;  // 1 KB values: ~50 MB of leaf pages

std::string resident_key(int i) {
  char k[16];
  std::snprintf(k, sizeof k, "k%08d", i);
  return k;
}

std::string resident_value(int i) { return std::string(1000, static_cast<char>('a' + i % 26)); }

// The most the map's resident pages grew while looking up (or rewriting) every key in random order.
size_t peak_growth(const LmdbEnv& env, MDB_dbi dbi, bool write, unsigned trim_every) {
  std::vector<int> order(kResidentKeys);
  for (int i = 0; i < kResidentKeys; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(7));
  env.release_resident_pages();
  const size_t start = resident_shared_bytes();
  size_t peak = 0;
  LmdbTxn txn(env, !write);
  if (trim_every) txn.trim_pages_every(trim_every, 4u << 20);
  // A value read before hundreds of releases still reads the same bytes.
  const std::string_view first = *txn.get(dbi, resident_key(order[0]));
  for (size_t n = 0; n < order.size(); ++n) {
    const int i = order[n];
    if (write) {
      txn.put(dbi, resident_key(i), resident_value(i + 1));
    } else {
      auto v = txn.get(dbi, resident_key(i));
      REQUIRE(v);
      REQUIRE(*v == resident_value(i));
    }
    if (n % 32 == 0) {
      const size_t now = resident_shared_bytes();
      if (now > start) peak = std::max(peak, now - start);
    }
  }
  if (!write) CHECK(first == resident_value(order[0]));
  return peak;
}

}  // namespace

TEST_CASE("a trimmed transaction keeps the map's resident pages bounded", "[lmdb][scale]") {
  TempDir tmp("resident");
  LmdbEnv env;
  env.open(tmp.path(), false, 4);
  MDB_dbi dbi;
  {
    LmdbTxn txn(env, false);
    dbi = txn.open_db("items", MDB_CREATE);
    for (int i = 0; i < kResidentKeys; ++i) txn.put(dbi, resident_key(i), resident_value(i));
    txn.commit();
  }
  REQUIRE(env.map_range().start != nullptr);

  // Without trimming, random lookups make the env resident (this is what the test guards against).
  const size_t untrimmed = peak_growth(env, dbi, false, 0);
  CHECK(untrimmed > (32u << 20));
  // With it, what stays resident is the slack (4 MB) plus what 64 operations fault in.
  CHECK(peak_growth(env, dbi, false, 64) < (16u << 20));
  // A write transaction reads the pages it copies on write through the map too.
  CHECK(peak_growth(env, dbi, true, 64) < (16u << 20));
}

TEST_CASE("a write transaction refuses to commit or abort while a cursor of it is open", "[lmdb]") {
  // LMDB frees a write transaction's cursors when it ends, so a cursor closed after the commit (or
  // an explicit abort) would be freed twice: both refuse instead, and the transaction stays usable.
  TempDir tmp("cursor-order");
  LmdbEnv env;
  env.open(tmp.path(), false, 4);
  LmdbTxn txn(env, false);
  const MDB_dbi dbi = txn.open_db("items", MDB_CREATE);
  txn.put(dbi, "a", "1");
  {
    LmdbCursor cur(txn, dbi);
    REQUIRE(cur.first());
    CHECK_THROWS_AS(txn.commit(), std::logic_error);
    CHECK_THROWS_AS(txn.abort(), std::logic_error);
  }
  txn.put(dbi, "b", "2");
  txn.commit();
  LmdbTxn read(env, true);
  CHECK(read.get(dbi, "b") == std::optional<std::string_view>("2"));
  // A read-only transaction's cursor is not counted: LMDB lets it be closed after the transaction ends.
  auto cur = std::make_unique<LmdbCursor>(read, dbi);
  CHECK(cur->first());
  read.commit();
  cur.reset();
}
