#include "engine/store/store_repack.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/store/index_damage.h"
#include "engine/store/trace.h"

namespace osearch {
namespace {

// A transaction of ~50k small records keeps a few MB of dirty pages; a whole 150 MB env in one
// would keep it all in memory until the commit.
constexpr uint64_t kCommitEntries = 50000;
constexpr uint64_t kCommitBytes = 32u << 20;
// The old env's pages are read through its map, and each page fault maps up to 15 neighbours in
// the page cache too (fault-around), pages of other trees included: 4 MB read mapped up to 150 MB
// at 2 GB. Every 256 KB read, they are released once 16 MB more are resident than after the last
// release (LmdbEnv::trim_resident_pages: a read of /proc/self/statm, rarely an madvise).
constexpr uint64_t kReleaseReadBytes = 256u << 10;
constexpr size_t kReadSlack = 16u << 20;
constexpr unsigned kPersistentFlags =
    MDB_REVERSEKEY | MDB_DUPSORT | MDB_INTEGERKEY | MDB_DUPFIXED | MDB_INTEGERDUP | MDB_REVERSEDUP;

void check(int rc, const std::string& what) {
  if (rc != MDB_SUCCESS) throw LmdbError(what, rc);
}

uint64_t file_bytes(const std::string& path) {
  std::error_code ec;
  auto n = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<uint64_t>(n);
}

// records -> 0, records-<n> -> n (current_records_name has checked the form).
uint64_t env_number(const std::string& name) {
  return name == "records" ? 0 : std::stoull(name.substr(std::string_view("records-").size()));
}

void fsync_path(const std::string& path, int flags) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(path + ": " + std::strerror(errno));
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) throw std::runtime_error("fsync " + path + ": " + std::strerror(err));
}

// Every named database of the environment: the keys of the unnamed one. Copying these rather than
// the Dbis list means a database this version does not know (a newer one's) is not lost either.
std::vector<std::string> named_databases(const LmdbTxn& txn) {
  MDB_dbi main;
  check(mdb_dbi_open(txn.get(), nullptr, 0, &main), "mdb_dbi_open main");
  std::vector<std::string> names;
  LmdbCursor cur(txn, main);
  for (bool ok = cur.first(); ok; ok = cur.next()) names.emplace_back(cur.key());
  return names;
}

// Appends to the new environment in key order, committing every kCommitEntries entries. With
// MDB_APPEND LMDB starts a new page only when the last one is full.
class AppendWriter {
 public:
  explicit AppendWriter(const LmdbEnv& env) : env_(env) {}

  void begin_db(const std::string& name, unsigned flags) {
    cur_.reset();
    if (!txn_) txn_ = std::make_unique<LmdbTxn>(env_, false);
    dbi_ = txn_->open_db(name.c_str(), flags | MDB_CREATE);
    dupsort_ = (flags & MDB_DUPSORT) != 0;
    has_last_ = false;
  }

  // `key` must stay valid until the next put (it points into the source's read transaction).
  void put(const MDB_val& key, const MDB_val& value) {
    if (!txn_) txn_ = std::make_unique<LmdbTxn>(env_, false);
    if (!cur_) cur_ = std::make_unique<LmdbCursor>(*txn_, dbi_);
    // A DUPSORT key's further values are appended to its duplicates, not as a new key.
    const bool dup = dupsort_ && has_last_ && from_val(key) == last_key_;
    cur_->put(key, value, dup ? MDB_APPENDDUP : MDB_APPEND);
    last_key_ = from_val(key);
    has_last_ = true;
    bytes_ += key.mv_size + value.mv_size;
    if (++pending_ >= kCommitEntries || bytes_ >= kCommitBytes) commit();
  }

  void commit() {
    cur_.reset();  // (a write transaction's cursors must go before it ends)
    if (txn_) txn_->commit();
    txn_.reset();
    pending_ = bytes_ = 0;
  }

 private:
  const LmdbEnv& env_;
  std::unique_ptr<LmdbTxn> txn_;
  std::unique_ptr<LmdbCursor> cur_;
  MDB_dbi dbi_ = 0;
  bool dupsort_ = false, has_last_ = false;
  std::string_view last_key_;
  uint64_t pending_ = 0, bytes_ = 0;
};

// Copies every named database of `src` into the empty environment `dst`; returns the entry count
// of each, checked against the copy.
std::map<std::string, uint64_t> copy_all(const LmdbEnv& src_env, const LmdbTxn& src, const LmdbEnv& dst) {
  std::map<std::string, uint64_t> counts;
  AppendWriter out(dst);
  for (const auto& name : named_databases(src)) {
    LmdbCall in_lmdb;  // the old env is read with LMDB's own calls: a garbage page is damage (index_damage.h)
    MDB_dbi dbi;
    // MDB_INCOMPATIBLE here means a plain key in the unnamed database: refuse rather than drop it.
    check(mdb_dbi_open(src.get(), name.c_str(), 0, &dbi), "mdb_dbi_open " + name);
    unsigned flags = 0;
    check(mdb_dbi_flags(src.get(), dbi, &flags), "mdb_dbi_flags " + name);
    out.begin_db(name, flags & kPersistentFlags);
    MDB_cursor* cur = nullptr;
    check(mdb_cursor_open(src.get(), dbi, &cur), "mdb_cursor_open " + name);
    std::unique_ptr<MDB_cursor, decltype(&mdb_cursor_close)> guard(cur, &mdb_cursor_close);
    MDB_val k, v;
    uint64_t n = 0, read_bytes = 0;
    // MDB_NEXT visits every duplicate of a DUPSORT key too, in order.
    for (int rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc != MDB_NOTFOUND; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
      check(rc, "mdb_cursor_get " + name);
      out.put(k, v);
      ++n;
      // Reading every page of the old env would keep all of it resident (RSS = the env's size).
      if ((read_bytes += k.mv_size + v.mv_size) >= kReleaseReadBytes) {
        src_env.trim_resident_pages(kReadSlack);
        read_bytes = 0;
      }
    }
    MDB_stat st{};
    check(mdb_stat(src.get(), dbi, &st), "mdb_stat " + name);
    if (st.ms_entries != n) throw std::runtime_error("repack: " + name + " read " + std::to_string(n) + " of " +
                                                     std::to_string(st.ms_entries) + " entries");
    counts[name] = n;
  }
  out.commit();

  LmdbTxn check_txn(dst, true);
  for (const auto& [name, n] : counts) {
    MDB_stat st{};
    MDB_dbi dbi = check_txn.open_db(name.c_str());
    check(mdb_stat(check_txn.get(), dbi, &st), "mdb_stat " + name);
    if (st.ms_entries != n) throw std::runtime_error("repack: " + name + " has " + std::to_string(st.ms_entries) +
                                                     " entries after the copy, want " + std::to_string(n));
  }
  return counts;
}

// Index files are 0600 and dirs 0700 whatever the umask (LMDB creates its files 0600 & ~umask).
void restrict_modes(const std::string& dir) {
  ::chmod(dir.c_str(), 0700);
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.is_regular_file(ec)) ::chmod(e.path().c_str(), 0600);
}

}  // namespace

RecordsStats records_stats(const Store& store) {
  RecordsStats s;
  s.file_bytes = file_bytes(store.env_dir() + "/data.mdb");
  MDB_envinfo info{};
  check(mdb_env_info(store.env().get(), &info), "mdb_env_info");
  s.pages = info.me_last_pgno + 1;
  // The free list (dbi 0): txn id -> page number list whose first word is its length.
  LmdbTxn txn(store.env(), true);
  LmdbCursor cur(txn, 0);
  for (bool ok = cur.first(); ok; ok = cur.next()) {
    if (cur.value().size() < sizeof(size_t)) continue;
    size_t n;
    std::memcpy(&n, cur.value().data(), sizeof n);
    s.free_pages += n;
  }
  return s;
}

namespace {

// Copies `store`'s env into <dir>/<name> (the next number), synced; removes the copy on failure.
std::string copy_env(const Store& store, PhaseTimer& timer, RepackResult& res) {
  const std::string& dir = store.dir();
  const std::string name =
      "records-" + std::to_string(env_number(std::filesystem::path(store.env_dir()).filename().string()) + 1);
  const std::string new_dir = dir + "/" + name;
  res.bytes_before = file_bytes(store.env_dir() + "/data.mdb");

  std::error_code ec;
  std::filesystem::remove_all(new_dir, ec);  // a crashed repack's
  if (ec) throw std::runtime_error("cannot remove " + new_dir + ": " + ec.message());
  try {
    make_private_dir(new_dir);
    {
      LmdbEnv dst;
      // No sync per commit: until records.current names this dir, a crash leaves only garbage.
      dst.open(new_dir, false, Store::kMaxDbs, MDB_NOSYNC);
      LmdbTxn src(store.env(), true);
      for (const auto& [db_name, n] : copy_all(store.env(), src, dst)) {
        res.entries += n;
        ++res.databases;
      }
      timer.mark("copy");
      check(mdb_env_sync(dst.get(), 1), "mdb_env_sync " + new_dir);
    }
    restrict_modes(new_dir);
    fsync_path(new_dir, O_RDONLY | O_DIRECTORY);
  } catch (...) {
    std::filesystem::remove_all(new_dir, ec);  // give the space back now (e.g. after ENOSPC)
    throw;
  }
  timer.mark("sync");
  return name;
}

void count(PhaseTimer& timer, RepackResult& res, const std::string& new_dir) {
  res.bytes_after = file_bytes(new_dir + "/data.mdb");
  timer.count("databases", res.databases);
  timer.count("entries", res.entries);
  timer.count("bytes_before", res.bytes_before);
  timer.count("bytes_after", res.bytes_after);
}

}  // namespace

RepackResult repack_records(Store& store) {
  PhaseTimer timer("repack");
  RepackResult res;
  const std::string name = copy_env(store, timer, res);
  set_current_records(store.dir(), name);
  store.reopen();  // on the new env; removes the old dir
  timer.mark("switch");
  count(timer, res, store.dir() + "/" + name);
  return res;
}

RepackResult repack_unlisted_records(Store& store, std::string& copy_name) {
  PhaseTimer timer("repack");
  RepackResult res;
  const std::string old_dir = store.env_dir();
  const std::string old_name = std::filesystem::path(old_dir).filename().string();
  copy_name = copy_env(store, timer, res);
  std::error_code ec;
  try {
    store.reopen_unlisted(copy_name);
  } catch (...) {
    store.reopen_unlisted(old_name);  // the rebuild goes on in the env it had
    std::filesystem::remove_all(store.dir() + "/" + copy_name, ec);
    throw;
  }
  std::filesystem::remove_all(old_dir, ec);  // unnamed: the next writer would remove it anyway
  timer.mark("switch");
  count(timer, res, store.dir() + "/" + copy_name);
  return res;
}

}  // namespace osearch
