// The index directory: LMDB records, the Xapian text index and the text log, plus the writer lock.
//
//   <index>/records/   LMDB (data.mdb, lock.mdb)   sessions, messages, tool calls, file states, …
//   <index>/records.current  names the LMDB dir when it is not records/ (records-<n> after a repack,
//                      see store_repack.h); replaced by an atomic rename
//   <index>/xapian-<gen>/  Xapian glass database    one document per message (no termlists)
//   <index>/shard-<gen>-<n>/  bulk-load shards      listed in LMDB meta until compacted into the next gen
//   <index>/titles-<k>/  Xapian glass database      one document per session title, replaced in place
//   <index>/text-<k>.log  every message's text       content scans, snippets, thread views
//   <index>/text-<k>.idx  u64 entry starts of the log
//   (LMDB meta names the titles dir and the text log; `titles/` and `text.log` before the first
//   `index --full` of this version)
//   <index>/writer.lock  flock held by the one indexer
//
// Write order for crash safety (SPEC §7): text log fdatasync and Xapian shard commits -> LMDB commit.
// LMDB (file offsets, text log sizes, the shard list) only ever describes data that is already
// durable elsewhere.
#pragma once

#include <lmdb.h>

#include <functional>
#include <memory>
#include <string>

#include "engine/store/lmdb.h"

namespace osearch {

struct Dbis {
  MDB_dbi meta, files, sessions, messages, msg_uuid, tool_calls, tool_results, tc_by_path, sess_by_time, sess_by_project, usage_seen,
      leaf_summary, subagents, session_files, workflows, workflow_agents, epochs, memories, failed_results,
      usage_agg, tool_agg, file_agg,  // engine/store/usage_agg.h
      file_links,  // file key -> FileCarry::skipped_links, apart so a refresh reads small file states
      session_numbers, sessions_by_number;  // engine/store/session_numbers.h
};

namespace meta_key {
inline constexpr const char* kTextBytes = "text_bytes";
inline constexpr const char* kTextEntries = "text_entries";
inline constexpr const char* kLastIndexedAt = "last_indexed_at";
inline constexpr const char* kSchema = "schema";
inline constexpr const char* kXapianGeneration = "xapian_gen";
inline constexpr const char* kXapianShards = "xapian_shards";
inline constexpr const char* kTextGarbage = "text_garbage";  // text log entries no record points at
// Garbage a drop leaves behind (engine/index/garbage.h): the bytes of those text log entries, and the
// message documents older epochs hide. Absent in an index written before them: unknown, not 0.
inline constexpr const char* kGarbageTextBytes = "garbage_text_bytes";
inline constexpr const char* kGarbageDocuments = "garbage_documents";
inline constexpr const char* kInFlight = "in_flight";  // sessions of a batch whose shards are not listed yet
// Names of the parts this env uses (engine/index/index_parts.h); absent in an index written before
// `index --full` built beside the old generation: "text" (text.log/.idx) and "titles".
inline constexpr const char* kTextLogName = "text_log";
inline constexpr const char* kTitlesName = "titles_db";
// What the last complete run's discovery relied on (engine/index/source_watch.h).
inline constexpr const char* kSourceWatch = "source_watch";
}  // namespace meta_key

class Store {
 public:
  enum class Mode { Read, Write };
  static constexpr unsigned kMaxDbs = 32;
  // Opens the index at `dir`. Write mode (only under the WriterLock) creates it (0700 dirs, 0600
  // files) and removes LMDB dirs records.current does not name (left by an interrupted repack).
  // Read mode on a missing index throws StoreMissing. Read mode writes nothing but lock.mdb: LMDB is
  // opened MDB_RDONLY, plus MDB_NOLOCK when lock.mdb cannot be written (a read-only index).
  Store(const std::string& dir, Mode mode);
  // Write mode on the LMDB dir `env_name` whatever records.current names, removing nothing: the
  // env `index --full` builds beside the live one (engine/index/rebuild.h). reopen() follows the pointer.
  Store(const std::string& dir, const std::string& env_name);
  const std::string& dir() const { return dir_; }
  // The LMDB directory in use: <dir>/records or the one records.current names.
  const std::string& env_dir() const { return env_dir_; }
  const LmdbEnv& env() const { return env_; }
  const Dbis& db() const { return dbis_; }
  // Closes the environment and opens the one records.current names now (after a repack). No
  // transaction or cursor of this store may be alive; db() handles may change.
  void reopen();
  // Closes the environment and opens the unlisted LMDB dir `env_name` (Write mode, removing
  // nothing), as the second constructor does: a rebuild's env moved to its repacked copy.
  void reopen_unlisted(const std::string& env_name);

  static uint64_t meta_u64(const LmdbTxn& txn, const Dbis& db, std::string_view key);
  static void put_meta_u64(LmdbTxn& txn, const Dbis& db, std::string_view key, uint64_t v);
  static size_t entries(const LmdbTxn& txn, MDB_dbi dbi);

 private:
  void open();
  void check_env_parts() const;
  void open_env(unsigned extra_flags);
  void open_dbs();

  std::string dir_, env_dir_;
  std::string unlisted_env_;  // set by the second constructor until reopen()
  Mode mode_;
  LmdbEnv env_;
  Dbis dbis_{};
};

// "" when every entry of LMDB's free-page list is well formed and names a page inside the file.
std::string freelist_problem(const LmdbEnv& env);

// The LMDB dir name records.current holds ("records" when there is none). Throws when it cannot
// be read or holds anything but records / records-<n>: guessing could delete the live env.
std::string current_records_name(const std::string& dir);
// Makes `name` the live LMDB dir: records.current.tmp written and synced, renamed over
// records.current, the index dir synced.
void set_current_records(const std::string& dir, const std::string& name);

struct StoreMissing : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Exclusive flock on <index>/writer.lock; released by the destructor (or by the kernel on a crash).
class WriterLock {
 public:
  // wait=false: returns an unlocked object when another process holds it. While waiting,
  // `give_up` (if set) is polled and true ends the wait unlocked. Throws ReadOnlyIndex when the
  // lock file cannot be opened for writing.
  WriterLock(const std::string& dir, bool wait, const std::function<bool()>& give_up = {});
  ~WriterLock();
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;
  bool locked() const { return locked_; }

 private:
  int fd_ = -1;
  bool locked_ = false;
};

// Can this process write the index at `dir` (or create it)? When not, `why` names the part that
// is not writable. Queries then open it read-only; `index` refuses (ReadOnlyIndex).
bool index_writable(const std::string& dir, std::string& why);

// Creates `dir` (and parents) with mode 0700. Throws ReadOnlyIndex when it may not, NoSpace when
// the disk is full.
void make_private_dir(const std::string& dir);

}  // namespace osearch
