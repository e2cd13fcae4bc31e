#include "engine/store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "engine/codec.h"

namespace osearch {

void make_private_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir + ": " + ec.message());
  ::chmod(dir.c_str(), 0700);
}

Store::Store(const std::string& dir, Mode mode) : dir_(dir) {
  const std::string records = dir + "/records";
  if (mode == Mode::Write) {
    make_private_dir(dir);
    make_private_dir(records);
  } else if (!std::filesystem::exists(records + "/data.mdb")) {
    throw StoreMissing("no index at " + dir + " (run `osearch index`)");
  }
  // Readers need a writable lock.mdb for their reader slot; the data file is opened as is.
  env_.open(records, false, 32);
  // Readers open the named databases in a read transaction: they never wait for the writer.
  LmdbTxn txn(env_, mode == Mode::Read);
  const unsigned create = mode == Mode::Write ? MDB_CREATE : 0;
  auto open = [&](const char* name) {
    try {
      return txn.open_db(name, create);
    } catch (const LmdbError& e) {
      if (e.code == MDB_NOTFOUND) throw StoreMissing("index at " + dir + " is incomplete (run `osearch index`)");
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
