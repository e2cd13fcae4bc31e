#include "engine/store/lmdb.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/store/errors.h"
#include "engine/store/index_damage.h"

namespace osearch {
namespace {
void check(int rc, const char* what) {
  if (rc != MDB_SUCCESS) throw LmdbError(what, rc);
}

// For calls that write: a full disk becomes NoSpace. LMDB passes write errors through as errno
// values (positive; its own codes are negative), except a short write, which it reports as EIO.
void check_write(int rc, const char* what, MDB_env* env) {
  if (rc == MDB_SUCCESS) return;
  const char* dir = nullptr;
  if (rc > 0 && env && mdb_env_get_path(env, &dir) == MDB_SUCCESS && dir && write_failed_for_space(rc, dir))
    throw NoSpace(no_space_message(std::string(dir) + "/data.mdb", std::string(what) + ": " + mdb_strerror(rc)));
  throw LmdbError(what, rc);
}

MDB_env* env_of(MDB_txn* txn) { return txn ? mdb_txn_env(txn) : nullptr; }
MDB_env* env_of(MDB_cursor* cur) { return cur ? env_of(mdb_cursor_txn(cur)) : nullptr; }

LmdbEnv::MapRange find_map(MDB_env* env) {
  // LMDB does not expose its map address (me_mapaddr is only set for MDB_FIXEDMAP): find the
  // mapping of data.mdb by inode in /proc/self/maps.
  LmdbEnv::MapRange range;
  int fd = -1;
  struct stat st {};
  if (!env || mdb_env_get_fd(env, &fd) != MDB_SUCCESS || ::fstat(fd, &st) != 0) return range;
  std::FILE* maps = std::fopen("/proc/self/maps", "r");
  if (!maps) return range;
  char line[512];
  while (std::fgets(line, sizeof line, maps)) {
    unsigned long lo = 0, hi = 0, offset = 0, inode = 0;
    char perms[8], dev[32];
    if (std::sscanf(line, "%lx-%lx %7s %lx %31s %lu", &lo, &hi, perms, &offset, dev, &inode) == 6 &&
        inode == st.st_ino && offset == 0) {
      range = {reinterpret_cast<void*>(lo), hi - lo};
      break;
    }
  }
  std::fclose(maps);
  return range;
}
}  // namespace

LmdbEnv::~LmdbEnv() { close(); }

void LmdbEnv::close() {
  if (env_) mdb_env_close(env_);
  env_ = nullptr;
  map_ = {};
}

void LmdbEnv::open(const std::string& dir, bool read_only, unsigned max_dbs, unsigned extra_flags) {
  close();
  check(mdb_env_create(&env_), "mdb_env_create");
  try {
    // Address space only: the file grows with the data (no MDB_WRITEMAP).
    check(mdb_env_set_mapsize(env_, size_t{64} << 30), "mdb_env_set_mapsize");
    check(mdb_env_set_maxdbs(env_, max_dbs), "mdb_env_set_maxdbs");
    check(mdb_env_set_maxreaders(env_, 256), "mdb_env_set_maxreaders");
    unsigned flags = MDB_NOTLS | MDB_NORDAHEAD | extra_flags;
    if (read_only) flags |= MDB_RDONLY;
    const int rc = mdb_env_open(env_, dir.c_str(), flags, 0600);
    if (rc > 0 && is_no_space(rc))  // creating data.mdb or lock.mdb
      throw NoSpace(no_space_message(dir, "mdb_env_open: " + std::string(mdb_strerror(rc))));
    check(rc, ("mdb_env_open " + dir).c_str());
  } catch (...) {
    close();  // a handle whose open failed must only be closed
    throw;
  }
  int dead = 0;
  mdb_reader_check(env_, &dead);  // clear slots of crashed readers
  if (!read_only) map_ = find_map(env_);  // (a parse of /proc/self/maps: ~50 µs, not for every query)
}

LmdbEnv::MapRange LmdbEnv::map_range() const { return map_.start ? map_ : find_map(env_); }

namespace {
struct ResidentPages {
  size_t all = 0;     // statm's second field: RssAnon + RssFile + RssShmem
  size_t shared = 0;  // its third: resident file-backed and shared memory pages (RssFile + RssShmem)
};
ResidentPages resident_pages() {
  int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  char buf[128];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return {};
  buf[n] = 0;
  unsigned long size = 0, resident = 0, shared = 0;
  if (std::sscanf(buf, "%lu %lu %lu", &size, &resident, &shared) != 3) return {};
  return {resident, shared};
}
}  // namespace

size_t resident_shared_pages() { return resident_pages().shared; }

void LmdbEnv::release_resident_pages() const {
  int fd = -1;
  struct stat st {};
  const MapRange map = map_range();  // (a read-only env's looked up now: `check`'s walk, rarely)
  if (!map.start || mdb_env_get_fd(env_, &fd) != MDB_SUCCESS || ::fstat(fd, &st) != 0) return;
  // Only the part backed by the file can be resident.
  ::madvise(map.start, std::min(map.length, static_cast<size_t>(st.st_size)), MADV_DONTNEED);
  shared_after_release_ = resident_shared_pages();
}

void LmdbEnv::trim_resident_pages(size_t slack) const {
  static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const ResidentPages now = resident_pages();
  const size_t grown = now.shared > shared_after_release_ ? now.shared - shared_after_release_ : 0;
  if (grown > slack / page || (now.all > kResidentBudget / page && grown > kSlackOverBudget / page))
    release_resident_pages();
}

LmdbTxn::LmdbTxn(const LmdbEnv& env, bool read_only) : env_(&env), read_only_(read_only) {
  check(mdb_txn_begin(env.get(), nullptr, read_only ? MDB_RDONLY : 0, &txn_), "mdb_txn_begin");
}

LmdbTxn::~LmdbTxn() {
  if (txn_) mdb_txn_abort(txn_);
}

void LmdbTxn::commit() {
  if (open_cursors_ != 0)  // (counted in write transactions only)
    throw std::logic_error("LMDB: a write transaction committed with an open cursor (destroy it first)");
  MDB_txn* t = txn_;
  txn_ = nullptr;
  MDB_env* env = env_of(t);
  LmdbCall in_lmdb;
  check_write(mdb_txn_commit(t), "mdb_txn_commit", env);
}

void LmdbTxn::abort() {
  if (open_cursors_ != 0)  // as commit(): LMDB would free the cursors the LmdbCursors still close
    throw std::logic_error("LMDB: a write transaction aborted with an open cursor (destroy it first)");
  if (txn_) mdb_txn_abort(txn_);
  txn_ = nullptr;
}

MDB_dbi LmdbTxn::open_db(const char* name, unsigned flags) {
  MDB_dbi dbi;
  LmdbCall in_lmdb;
  check(mdb_dbi_open(txn_, name, flags, &dbi), name);
  return dbi;
}

std::optional<std::string_view> LmdbTxn::get(MDB_dbi dbi, std::string_view key) const {
  MDB_val k = to_val(key), v;
  LmdbCall in_lmdb;
  int rc = mdb_get(txn_, dbi, &k, &v);
  touched();  // (v stays valid: a released page faults back in with the same bytes)
  if (rc == MDB_NOTFOUND) return std::nullopt;
  check(rc, "mdb_get");
  return from_val(v);
}

void LmdbTxn::put(MDB_dbi dbi, std::string_view key, std::string_view value, unsigned flags) {
  MDB_val k = to_val(key), v = to_val(value);
  LmdbCall in_lmdb;
  check_write(mdb_put(txn_, dbi, &k, &v, flags), "mdb_put", env_of(txn_));  // may spill pages to disk
  touched();
}

bool LmdbTxn::del(MDB_dbi dbi, std::string_view key) {
  MDB_val k = to_val(key);
  LmdbCall in_lmdb;
  int rc = mdb_del(txn_, dbi, &k, nullptr);
  touched();
  if (rc == MDB_NOTFOUND) return false;
  check(rc, "mdb_del");
  return true;
}

LmdbCursor::LmdbCursor(const LmdbTxn& txn, MDB_dbi dbi) {
  check(mdb_cursor_open(txn.get(), dbi, &cur_), "mdb_cursor_open");
  // Counted in write transactions only: a read-only one's cursor may outlive it (LMDB allows that).
  if (!txn.read_only_) {
    write_txn_ = &txn;
    ++txn.open_cursors_;
  }
}
LmdbCursor::~LmdbCursor() {
  if (!cur_) return;
  mdb_cursor_close(cur_);
  if (write_txn_) --write_txn_->open_cursors_;
}

bool LmdbCursor::move(MDB_cursor_op op) {
  LmdbCall in_lmdb;
  int rc = mdb_cursor_get(cur_, &k_, &v_, op);
  if (rc == MDB_NOTFOUND) return false;
  check(rc, "mdb_cursor_get");
  return true;
}

bool LmdbCursor::seek(std::string_view key) {
  k_ = to_val(key);
  return move(MDB_SET_RANGE);
}
bool LmdbCursor::first() { return move(MDB_FIRST); }
bool LmdbCursor::last() { return move(MDB_LAST); }
bool LmdbCursor::next() { return move(MDB_NEXT); }
bool LmdbCursor::prev() { return move(MDB_PREV); }
void LmdbCursor::del() {
  LmdbCall in_lmdb;
  check(mdb_cursor_del(cur_, 0), "mdb_cursor_del");
}
void LmdbCursor::put(const MDB_val& key, const MDB_val& value, unsigned flags) {
  MDB_val k = key, v = value;
  LmdbCall in_lmdb;
  check_write(mdb_cursor_put(cur_, &k, &v, flags), "mdb_cursor_put", env_of(cur_));
}

}  // namespace osearch
