// Thin RAII layer over LMDB: an environment, transactions, named databases and cursors.
// Errors become LmdbError exceptions at this boundary; the store turns them into messages.
#pragma once

#include <lmdb.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace osearch {

struct LmdbError : std::runtime_error {
  int code;
  LmdbError(const std::string& what, int rc) : std::runtime_error(what + ": " + mdb_strerror(rc)), code(rc) {}
};

inline MDB_val to_val(std::string_view s) { return MDB_val{s.size(), const_cast<char*>(s.data())}; }
inline std::string_view from_val(const MDB_val& v) { return {static_cast<const char*>(v.mv_data), v.mv_size}; }

class LmdbEnv {
 public:
  LmdbEnv() = default;
  ~LmdbEnv();
  LmdbEnv(const LmdbEnv&) = delete;
  LmdbEnv& operator=(const LmdbEnv&) = delete;
  // On failure the environment is left closed (open may be called again).
  void open(const std::string& dir, bool read_only, unsigned max_dbs, unsigned extra_flags = 0);
  void close();
  MDB_env* get() const { return env_; }
  // Drops this process's resident pages of the read-only map of an env opened for writing. A long
  // index run touches pages all over the map (copy-on-write, lookups), and each fault maps its
  // neighbours too (the kernel's fault-around, 64 KB): without this its RSS grows with the
  // database. The pages stay in the page cache and fault back in on the next access.
  void release_resident_pages() const;
  // Releases them only once this process's file-backed resident memory grew by more than `slack`
  // bytes since the last release (one read of /proc/self/statm), or by more than kSlackOverBudget
  // while the whole process holds more than kResidentBudget (a build over tens of thousands of
  // small sessions holds more of its own: the map's pages give way first). For the thread that
  // writes.
  void trim_resident_pages(size_t slack) const;
  static constexpr size_t kResidentBudget = 192u << 20;
  static constexpr size_t kSlackOverBudget = 8u << 20;
  // Where data.mdb is mapped in this process (start null when it is not found). LMDB maps its whole
  // map size at open and never moves it (the size is fixed before the open): an env opened for
  // writing looks it up then, once; a read-only one (a query's) when asked.
  struct MapRange {
    void* start = nullptr;
    size_t length = 0;  // the whole map (LMDB maps its map size, beyond the file)
  };
  MapRange map_range() const;

 private:
  MDB_env* env_ = nullptr;
  MapRange map_;  // an env opened for writing: looked up at open
  mutable size_t shared_after_release_ = 0;  // statm's resident shared pages after the last release
};

// This process's resident file-backed and shared pages (/proc/self/statm's third field): the pages
// of its maps (and libraries) that a release could let go.
size_t resident_shared_pages();

class LmdbTxn {
 public:
  LmdbTxn(const LmdbEnv& env, bool read_only);
  ~LmdbTxn();
  LmdbTxn(const LmdbTxn&) = delete;
  LmdbTxn& operator=(const LmdbTxn&) = delete;
  void commit();
  void abort();  // both refuse (std::logic_error) while a cursor of a write transaction is open
  MDB_txn* get() const { return txn_; }

  MDB_dbi open_db(const char* name, unsigned flags = 0);
  std::optional<std::string_view> get(MDB_dbi dbi, std::string_view key) const;
  void put(MDB_dbi dbi, std::string_view key, std::string_view value, unsigned flags = 0);
  bool del(MDB_dbi dbi, std::string_view key);
  // Every `ops` gets, puts and deletes of this transaction, releases the env's resident map pages
  // when they grew by more than `slack` bytes (LmdbEnv::trim_resident_pages): for the long
  // transactions of an index run, which may touch pages all over the map.
  void trim_pages_every(unsigned ops, size_t slack) {
    trim_every_ = ops;
    trim_slack_ = slack;
  }

 private:
  void touched() const {
    if (trim_every_ && ++touched_ >= trim_every_) {
      touched_ = 0;
      env_->trim_resident_pages(trim_slack_);
    }
  }
  friend class LmdbCursor;
  MDB_txn* txn_ = nullptr;
  const LmdbEnv* env_ = nullptr;
  bool read_only_ = false;
  // LMDB frees a write transaction's cursors when it ends: closing one afterwards is a double free.
  // commit() refuses while any is open (LmdbCursor counts them), so a misordered scope fails loudly.
  mutable unsigned open_cursors_ = 0;
  unsigned trim_every_ = 0;
  mutable unsigned touched_ = 0;
  size_t trim_slack_ = 0;
};

// Iterates the keys starting with a prefix, in order; in a write transaction, also appends. In a
// write transaction it must be destroyed before the transaction commits (LmdbTxn::commit checks).
class LmdbCursor {
 public:
  LmdbCursor(const LmdbTxn& txn, MDB_dbi dbi);
  ~LmdbCursor();
  LmdbCursor(const LmdbCursor&) = delete;
  LmdbCursor& operator=(const LmdbCursor&) = delete;
  bool seek(std::string_view key);  // first key >= key
  bool first();
  bool last();
  bool next();
  bool prev();
  void del();
  void put(const MDB_val& key, const MDB_val& value, unsigned flags);
  std::string_view key() const { return from_val(k_); }
  std::string_view value() const { return from_val(v_); }

 private:
  bool move(MDB_cursor_op op);
  const LmdbTxn* write_txn_ = nullptr;  // its transaction, when that writes
  MDB_cursor* cur_ = nullptr;
  MDB_val k_{}, v_{};
};

// Calls fn(key, value) for each entry whose key starts with `prefix`, in key order.
template <typename Fn>
void for_each_prefixed(const LmdbTxn& txn, MDB_dbi dbi, std::string_view prefix, Fn&& fn) {
  LmdbCursor cur(txn, dbi);
  for (bool ok = cur.seek(prefix); ok && cur.key().starts_with(prefix); ok = cur.next()) fn(cur.key(), cur.value());
}
// The same over a database an older index may lack (nullopt: nothing to visit).
template <typename Fn>
void for_each_prefixed(const LmdbTxn& txn, std::optional<MDB_dbi> dbi, std::string_view prefix, Fn&& fn) {
  if (dbi) for_each_prefixed(txn, *dbi, prefix, std::forward<Fn>(fn));
}
// Deletes each entry whose key starts with `prefix`, calling before_delete(key, value) first.
template <typename Fn>
void delete_prefixed(LmdbTxn& txn, MDB_dbi dbi, std::string_view prefix, Fn&& before_delete) {
  LmdbCursor cur(txn, dbi);
  // After a delete LMDB leaves the cursor on the following item: seek again rather than trust it.
  for (bool ok = cur.seek(prefix); ok && cur.key().starts_with(prefix); ok = cur.seek(prefix)) {
    before_delete(cur.key(), cur.value());
    cur.del();
  }
}
inline void delete_prefixed(LmdbTxn& txn, MDB_dbi dbi, std::string_view prefix) {
  delete_prefixed(txn, dbi, prefix, [](std::string_view, std::string_view) {});
}

}  // namespace osearch
