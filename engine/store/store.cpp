#include "engine/store/store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "engine/store/codec.h"
#include "engine/store/errors.h"
#include "engine/store/index_damage.h"
#include "engine/store/lmdb_check.h"

namespace osearch {

namespace {

constexpr const char* kPointer = "records.current";
constexpr int kOpenAttempts = 8;

// records or records-<n>: the only names records.current may hold.
bool is_env_name(std::string_view name) {
  if (name == "records") return true;
  constexpr std::string_view pfx = "records-";
  if (name.size() <= pfx.size() || name.size() > pfx.size() + 18 || name.substr(0, pfx.size()) != pfx) return false;
  return std::all_of(name.begin() + pfx.size(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Entries of the records family (env dirs, their .trash names, the pointer's temp file) other than
// the pointer itself.
bool is_records_entry(std::string_view name) {
  return name != kPointer && (name == "records" || name.rfind("records-", 0) == 0 || name.rfind("records.", 0) == 0);
}

// Write access for this process's effective ids (a read-only mount fails with EROFS).
bool writable(const std::string& path) { return ::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) == 0; }

bool is_permission_error(int err) { return err == EACCES || err == EPERM || err == EROFS; }

// Can a reader take a slot in lock.mdb (open it read-write, or create it)?
bool lock_file_usable(const std::string& env_dir) {
  const std::string lock = env_dir + "/lock.mdb";
  if (::faccessat(AT_FDCWD, lock.c_str(), R_OK | W_OK, AT_EACCESS) == 0) return true;
  return errno == ENOENT && writable(env_dir);
}

void fsync_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(dir + ": " + std::strerror(errno));
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) throw std::runtime_error("fsync " + dir + ": " + std::strerror(err));
}

// Removes every records entry but `keep` (the live env): left by a repack that crashed before or
// after switching records.current. A dir is renamed first, so a reader that read the pointer
// before the switch gets ENOENT (and follows the pointer again) instead of opening a half-removed
// env. Failures are left for the next writer.
void remove_stale_envs(const std::string& dir, const std::string& keep) {
  std::vector<std::string> stale;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (name != keep && is_records_entry(name)) stale.push_back(std::move(name));
  }
  for (const auto& name : stale) {
    const std::string path = dir + "/" + name;
    std::string doomed = path;
    if (!name.ends_with(".trash") && std::filesystem::is_directory(path, ec)) {
      doomed = path + ".trash";
      std::filesystem::remove_all(doomed, ec);
      if (::rename(path.c_str(), doomed.c_str()) != 0) doomed = path;
    }
    std::filesystem::remove_all(doomed, ec);
  }
}

// Registers the env's map of data.mdb with the fault guard (index_damage.h).
void register_env_map(const LmdbEnv& env) {
  if (const LmdbEnv::MapRange m = env.map_range(); m.start) register_index_map(m.start, m.length);
}

}  // namespace

std::string freelist_problem(const LmdbEnv& env) {
  // FREE_DBI (0) maps a txn id to [count, page numbers...]. A writer reuses those pages: a garbage
  // number sends its copy-on-write to an address outside the map.
  MDB_envinfo info{};
  mdb_env_info(env.get(), &info);
  LmdbTxn txn(env, true);
  LmdbCall in_lmdb;  // (the walk below calls LMDB directly: a garbage page is damage, engine/store/index_damage.h)
  MDB_cursor* cur = nullptr;
  if (mdb_cursor_open(txn.get(), 0, &cur) != MDB_SUCCESS) return "";
  std::string problem;
  MDB_val k, v;
  int rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
  for (; rc == MDB_SUCCESS; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
    if (v.mv_size < sizeof(size_t) || v.mv_size % sizeof(size_t) != 0) {
      problem = "a free-page list entry has a bad size";
      break;
    }
    const size_t* ids = static_cast<const size_t*>(v.mv_data);
    const size_t n = v.mv_size / sizeof(size_t);
    if (ids[0] != n - 1) {
      problem = "a free-page list entry has a bad count";
      break;
    }
    for (size_t i = 1; i < n && problem.empty(); ++i)
      if (ids[i] < 2 || ids[i] > info.me_last_pgno) problem = "the free-page list names page " + std::to_string(ids[i]) + ", outside the file";
    if (!problem.empty()) break;
  }
  if (problem.empty() && rc != MDB_NOTFOUND) problem = std::string("the free-page list cannot be read: ") + mdb_strerror(rc);
  mdb_cursor_close(cur);
  return problem;
}

void make_private_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec && is_permission_error(ec.value())) throw ReadOnlyIndex("cannot create " + dir + ": " + ec.message());
  if (ec) throw_write_error(ec.value(), "cannot create", dir);
  ::chmod(dir.c_str(), 0700);
}

std::string current_records_name(const std::string& dir) {
  const std::string path = dir + "/" + kPointer;
  int fd = open_index_file(path, O_RDONLY);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return "records";
    refuse_symlink(path, kPointer);
    throw std::runtime_error(path + ": " + std::strerror(errno));
  }
  char buf[64];
  ssize_t n;
  do {
    n = ::read(fd, buf, sizeof buf);
  } while (n < 0 && errno == EINTR);
  int err = errno;
  ::close(fd);
  if (n < 0) throw std::runtime_error(path + ": " + std::strerror(err));
  std::string_view name(buf, static_cast<size_t>(n));
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.remove_suffix(1);
  if (!is_env_name(name)) throw IndexDamaged(kPointer, "does not name an LMDB dir (records or records-<n>)");
  return std::string(name);
}

void set_current_records(const std::string& dir, const std::string& name) {
  if (!is_env_name(name)) throw std::invalid_argument("not an LMDB dir name: " + name);
  const std::string tmp = dir + "/" + kPointer + ".tmp", path = dir + "/" + kPointer;
  ::unlink(tmp.c_str());  // a leftover (or a planted link) is never written through
  int fd = open_index_file(tmp, O_WRONLY | O_CREAT | O_EXCL);
  if (fd < 0) throw_write_error(errno, "open", tmp);
  const std::string content = name + "\n";
  errno = 0;
  bool ok = ::fchmod(fd, 0600) == 0 && ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size()) &&
            ::fsync(fd) == 0;
  int err = errno ? errno : EIO;  // (a short write leaves errno alone)
  ::close(fd);
  if (!ok) throw_write_error(err, "write", tmp);
  if (::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("rename " + tmp + ": " + std::strerror(errno));
  fsync_dir(dir);
}

Store::Store(const std::string& dir, Mode mode) : dir_(dir), mode_(mode) { open(); }

Store::Store(const std::string& dir, const std::string& env_name) : dir_(dir), unlisted_env_(env_name), mode_(Mode::Write) {
  if (!is_env_name(env_name)) throw std::invalid_argument("not an LMDB dir name: " + env_name);
  open();
}

void Store::reopen() {
  env_.close();
  unlisted_env_.clear();
  dbis_ = Dbis{};
  open();
}

void Store::reopen_unlisted(const std::string& env_name) {
  if (!is_env_name(env_name) || mode_ != Mode::Write) throw std::invalid_argument("not a writable LMDB dir: " + env_name);
  env_.close();
  unlisted_env_ = env_name;
  dbis_ = Dbis{};
  open();
}

// LMDB maps data.mdb and trusts it: a truncated or garbage file is a SIGBUS or a wild read inside
// mdb_env_open or the first transaction. So before every open, read and write side: no part may be
// a link, and the meta pages must describe a file that is there.
void Store::check_env_parts() const {
  refuse_symlink(dir_ + "/writer.lock", "writer.lock");
  refuse_symlink(env_dir_, "records");
  refuse_symlink(env_dir_ + "/data.mdb", "records");
  refuse_symlink(env_dir_ + "/lock.mdb", "records");
  if (std::string problem = lmdb_data_problem(env_dir_); !problem.empty()) throw IndexDamaged("records", problem);
}

// Opens the env and its databases; LMDB's own corruption codes become IndexDamaged.
void Store::open_env(unsigned extra_flags) {
  check_env_parts();
  try {
    env_.open(env_dir_, mode_ == Mode::Read, kMaxDbs, extra_flags);
    register_env_map(env_);
    mdb_env_set_assert(env_.get(), [](MDB_env*, const char* msg) {
      report_fatal_damage(IndexDamaged("records", std::string("LMDB met a damaged page (") + msg + ")"));
    });
    // The writer allocates from the free-page list: checked first (a few pages; readers never use it).
    if (mode_ == Mode::Write)
      if (std::string problem = freelist_problem(env_); !problem.empty()) throw IndexDamaged("records", problem);
    open_dbs();
  } catch (const LmdbError& e) {
    env_.close();
    if (lmdb_damage_code(e.code)) throw IndexDamaged("records", e.what());
    throw;
  }
}

namespace {
// A first run killed inside mdb_env_open leaves an empty data.mdb: LMDB created the file but never
// wrote its meta pages, so nothing was ever committed to it. While nothing else of an index exists
// beside it (only the writer lock, the pointer and this env's dir), the index is still being born:
// start the env over. An empty data.mdb beside other parts stays damage, named by check_env_parts.
void discard_unborn_env(const std::string& index_dir, const std::string& env_name) {
  const std::string data = index_dir + "/" + env_name + "/data.mdb";
  struct stat st{};
  if (::lstat(data.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != 0) return;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(index_dir, ec)) {
    const std::string n = e.path().filename().string();
    // Memories (engine/store/memory_store.h) may be remembered before the first index run.
    const bool memory_part = n == "memories" || n == "memories-text" || n == "memories-text.lock" ||
                             n == "memories.lock";
    if (n != "writer.lock" && n != kPointer && n != env_name && !memory_part) return;
  }
  if (ec) return;
  ::unlink(data.c_str());
}
}  // namespace

void Store::open() {
  if (mode_ == Mode::Write) {
    make_private_dir(dir_);
    std::string name = unlisted_env_;
    if (name.empty()) {
      name = current_records_name(dir_);
      remove_stale_envs(dir_, name);
    }
    env_dir_ = dir_ + "/" + name;
    refuse_symlink(env_dir_, "records");  // before make_private_dir would chmod the link's target
    make_private_dir(env_dir_);
    discard_unborn_env(dir_, name);
    // One fsync per commit instead of two: a system crash may undo the last transaction but
    // cannot corrupt the file, and losing the last batch is what a crash before its commit does
    // anyway (its shards go unreferenced, its lines are read again). ~0.2 s of a 500 MB build.
    open_env(MDB_NOMETASYNC);
    return;
  }
  // A repack may switch records.current and remove the old dir between our reading the pointer
  // and opening the env: then the pointer has changed, and we follow it again.
  for (int attempt = 1;; ++attempt) {
    const std::string name = current_records_name(dir_);
    env_dir_ = dir_ + "/" + name;
    try {
      if (!std::filesystem::exists(env_dir_ + "/data.mdb"))
        throw StoreMissing("no index at " + dir_ + " (run `osearch index`)");
      // Readers never write data.mdb. Their slots live in lock.mdb; when this process cannot write
      // it (a read-only mount, another user's index, a read-only backup), LMDB runs without locks:
      // sound while nobody writes the index meanwhile (ARCHITECTURE.md, "Read-only indexes").
      open_env(lock_file_usable(env_dir_) ? 0 : MDB_NOLOCK);
      return;
    } catch (const std::exception&) {
      env_.close();
      if (attempt >= kOpenAttempts || current_records_name(dir_) == name) throw;
      ::usleep(1000);
    }
  }
}

void Store::open_dbs() {
  {
    // `meta` is in every index since the first version: when LMDB's main database has entries but
    // cannot find it, the main B-tree is damaged. Checked in a read transaction, before the writer
    // would create databases inside a damaged tree (a SIGSEGV or SIGBUS inside LMDB).
    LmdbTxn probe(env_, true);
    LmdbCall in_lmdb;
    MDB_dbi dbi;
    MDB_stat main{};
    const int rc = mdb_dbi_open(probe.get(), "meta", 0, &dbi);
    if (rc == MDB_NOTFOUND && mdb_stat(probe.get(), 1 /* MAIN_DBI */, &main) == MDB_SUCCESS && main.ms_entries > 0)
      throw IndexDamaged("records", "LMDB's main database holds " + std::to_string(main.ms_entries) +
                                        " entries but not `meta` (a damaged page)");
    if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) throw LmdbError("meta", rc);
  }
  // Readers open the named databases in a read transaction: they never wait for the writer.
  LmdbTxn txn(env_, mode_ == Mode::Read);
  const unsigned create = mode_ == Mode::Write ? MDB_CREATE : 0;
  auto open = [&](const char* name) {
    try {
      return txn.open_db(name, create);
    } catch (const LmdbError& e) {
      if (e.code != MDB_NOTFOUND) throw;
      // A table a newer schema added, read (--no-refresh) before the upgrade a refresh would run.
      if (const uint64_t schema = name != std::string_view("meta") ? meta_u64(txn, dbis_, meta_key::kSchema) : 0)
        throw StoreMissing("index at " + dir_ + " was written by another version of osearch (schema " +
                           std::to_string(schema) + ", without `" + name + "`): run `osearch index` to upgrade it");
      throw StoreMissing("index at " + dir_ + " is incomplete (run `osearch index`)");
    }
  };
  dbis_.meta = open("meta");
  dbis_.files = open("files");
  dbis_.sessions = open("sessions");
  dbis_.messages = open("messages");
  dbis_.msg_uuid = open("msg_uuid");
  dbis_.tool_calls = open("tool_calls");
  dbis_.tool_results = open("tool_results");
  dbis_.tc_by_path = open("tc_by_path");
  dbis_.sess_by_time = open("sess_by_time");
  dbis_.sess_by_project = open("sess_by_project");
  dbis_.usage_seen = open("usage_seen");
  dbis_.leaf_summary = open("leaf_summary");
  dbis_.subagents = open("subagents");
  dbis_.session_files = open("session_files");
  dbis_.workflows = open("workflows");              // sid \0 run id
  dbis_.workflow_agents = open("workflow_agents");  // run id \0 agent id
  dbis_.epochs = open("epochs");  // sid -> be32 epoch of a session that was dropped and re-read
  dbis_.memories = open("memories");
  dbis_.failed_results = open("failed_results");  // be64 time, sid \0 tool_use_id of results with is_error
  dbis_.usage_agg = open("usage_agg");  // engine/store/usage_agg.h
  dbis_.tool_agg = open("tool_agg");
  dbis_.file_agg = open("file_agg");
  dbis_.file_links = open("file_links");
  dbis_.session_numbers = open("session_numbers");  // sid -> be32 (engine/store/session_numbers.h)
  dbis_.sessions_by_number = open("sessions_by_number");  // be32 -> sid
  txn.commit();
}

uint64_t Store::meta_u64(const LmdbTxn& txn, const Dbis& db, std::string_view key) {
  auto v = txn.get(db.meta, key);
  if (!v || v->size() != 8) return 0;
  return get_be64(*v);
}

void Store::put_meta_u64(LmdbTxn& txn, const Dbis& db, std::string_view key, uint64_t v) {
  std::string bytes;
  put_be64(bytes, v);
  txn.put(db.meta, key, bytes);
}

size_t Store::entries(const LmdbTxn& txn, MDB_dbi dbi) {
  MDB_stat st{};
  LmdbCall in_lmdb;
  if (mdb_stat(txn.get(), dbi, &st) != MDB_SUCCESS) return 0;
  return st.ms_entries;
}

bool index_writable(const std::string& dir, std::string& why) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string probe = dir;  // a missing index is created under its nearest existing parent
  while (!fs::exists(probe, ec)) {
    fs::path parent = fs::path(probe).parent_path();
    if (parent.empty()) parent = fs::path(".");  // a relative index dir is created in the working directory
    if (parent == fs::path(probe)) break;
    probe = parent.string();
  }
  if (!writable(probe)) {
    why = probe + ": " + std::strerror(errno);
    return false;
  }
  if (probe != dir) return true;
  std::string name = "records";
  try {
    name = current_records_name(dir);
  } catch (const std::exception&) {
    // A damaged pointer is the writer's to report.
  }
  const std::string env_dir = dir + "/" + name;
  for (const std::string& part : {dir + "/writer.lock", dir + "/text.log", dir + "/text.idx", env_dir,
                                  env_dir + "/data.mdb", env_dir + "/lock.mdb"}) {
    if (writable(part) || errno == ENOENT) continue;
    why = part + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

WriterLock::WriterLock(const std::string& dir, bool wait, const std::function<bool()>& give_up) {
  make_private_dir(dir);
  std::string path = dir + "/writer.lock";
  fd_ = open_index_file(path, O_RDWR | O_CREAT);
  if (fd_ < 0) {
    refuse_symlink(path, "writer.lock");
    if (is_permission_error(errno)) throw ReadOnlyIndex(path + ": " + std::strerror(errno));
    throw_write_error(errno, "open", path);
  }
  // With a give_up callback the wait polls, so that a stop request is heard while another indexer runs.
  const bool poll = wait && give_up;
  for (;;) {
    if (::flock(fd_, LOCK_EX | (wait && !poll ? 0 : LOCK_NB)) == 0) {
      locked_ = true;
      return;
    }
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK || !poll || give_up()) return;
    ::usleep(50000);
  }
}

WriterLock::~WriterLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace osearch
