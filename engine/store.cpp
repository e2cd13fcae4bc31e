#include "engine/store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "engine/codec.h"

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

}  // namespace

void make_private_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir + ": " + ec.message());
  ::chmod(dir.c_str(), 0700);
}

std::string current_records_name(const std::string& dir) {
  const std::string path = dir + "/" + kPointer;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return "records";
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
  if (!is_env_name(name)) throw std::runtime_error(path + ": does not name an LMDB dir (records or records-<n>)");
  return std::string(name);
}

void set_current_records(const std::string& dir, const std::string& name) {
  if (!is_env_name(name)) throw std::invalid_argument("not an LMDB dir name: " + name);
  const std::string tmp = dir + "/" + kPointer + ".tmp", path = dir + "/" + kPointer;
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error(tmp + ": " + std::strerror(errno));
  const std::string content = name + "\n";
  errno = 0;
  bool ok = ::fchmod(fd, 0600) == 0 && ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size()) &&
            ::fsync(fd) == 0;
  int err = errno ? errno : EIO;  // (a short write leaves errno alone)
  ::close(fd);
  if (!ok) throw std::runtime_error(tmp + ": " + std::strerror(err));
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

void Store::open() {
  if (mode_ == Mode::Write) {
    make_private_dir(dir_);
    std::string name = unlisted_env_;
    if (name.empty()) {
      name = current_records_name(dir_);
      remove_stale_envs(dir_, name);
    }
    env_dir_ = dir_ + "/" + name;
    make_private_dir(env_dir_);
    // One fsync per commit instead of two: a system crash may undo the last transaction but
    // cannot corrupt the file, and losing the last batch is what a crash before its commit does
    // anyway (its shards go unreferenced, its lines are read again). ~0.2 s of a 500 MB build.
    env_.open(env_dir_, false, kMaxDbs, MDB_NOMETASYNC);
    open_dbs();
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
      // Readers need a writable lock.mdb for their reader slot; the data file is opened as is.
      env_.open(env_dir_, false, kMaxDbs);
      open_dbs();
      return;
    } catch (const std::exception&) {
      env_.close();
      if (attempt >= kOpenAttempts || current_records_name(dir_) == name) throw;
      ::usleep(1000);
    }
  }
}

void Store::open_dbs() {
  // Readers open the named databases in a read transaction: they never wait for the writer.
  LmdbTxn txn(env_, mode_ == Mode::Read);
  const unsigned create = mode_ == Mode::Write ? MDB_CREATE : 0;
  auto open = [&](const char* name) {
    try {
      return txn.open_db(name, create);
    } catch (const LmdbError& e) {
      if (e.code == MDB_NOTFOUND) throw StoreMissing("index at " + dir_ + " is incomplete (run `osearch index`)");
      throw;
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
  if (mdb_stat(txn.get(), dbi, &st) != MDB_SUCCESS) return 0;
  return st.ms_entries;
}

WriterLock::WriterLock(const std::string& dir, bool wait) {
  make_private_dir(dir);
  std::string path = dir + "/writer.lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) throw std::runtime_error(path + ": " + std::strerror(errno));
  int rc;
  do {
    rc = ::flock(fd_, LOCK_EX | (wait ? 0 : LOCK_NB));
  } while (rc != 0 && errno == EINTR);
  locked_ = rc == 0;
}

WriterLock::~WriterLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace osearch
