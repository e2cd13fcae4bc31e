#include "engine/store/memory_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "engine/store/codec.h"
#include "engine/store/errors.h"
#include "engine/store/index_damage.h"
#include "engine/store/lmdb_check.h"
#include "engine/store/store.h"

namespace osearch {
namespace {
constexpr const char* kFormatKey = "format";
constexpr const char* kGenerationKey = "generation";

std::string event_key(std::string_view id, uint64_t seq) {
  std::string k(id);
  k.push_back('\0');
  put_be64(k, seq);
  return k;
}

uint64_t meta_u64(const LmdbTxn& txn, MDB_dbi meta, std::string_view key) {
  auto v = txn.get(meta, key);
  return v && v->size() == 8 ? get_be64(*v) : 0;
}

void put_u64(LmdbTxn& txn, MDB_dbi meta, std::string_view key, uint64_t v) {
  std::string b;
  put_be64(b, v);
  txn.put(meta, key, b);
}

memory::Record decoded(std::string_view id, std::string_view bytes) {
  auto r = decode_memory(id, bytes);
  if (!r) throw IndexDamaged("memories", "a memory record does not decode (a damaged page)");
  return *r;
}
}  // namespace

std::string encode_memory(const memory::Record& r) {
  Encoder e;
  e.str(r.path);
  e.str(r.summary);
  e.str(r.project);
  e.str(r.session_id);
  e.str(r.message_start);
  e.str(r.message_end);
  e.u64(r.anchors.size());
  for (const auto& a : r.anchors) {
    e.str(a.kind);
    e.str(a.path);
    e.u64(a.line);
  }
  e.i64(r.created_at);
  e.i64(r.deleted_at);
  e.str(r.deleted_reason);
  return e.take();
}

std::optional<memory::Record> decode_memory(std::string_view id, std::string_view bytes) {
  Decoder d(bytes);
  memory::Record r;
  r.id = std::string(id);
  r.path = std::string(d.str());
  r.summary = std::string(d.str());
  r.project = std::string(d.str());
  r.session_id = std::string(d.str());
  r.message_start = std::string(d.str());
  r.message_end = std::string(d.str());
  const uint64_t n = d.u64();
  if (!d.ok() || n > bytes.size()) return std::nullopt;
  for (uint64_t i = 0; i < n && d.ok(); ++i) {
    memory::Anchor a;
    a.kind = std::string(d.str());
    a.path = std::string(d.str());
    a.line = d.u64();
    r.anchors.push_back(std::move(a));
  }
  r.created_at = d.i64();
  r.deleted_at = d.i64();
  r.deleted_reason = std::string(d.str());
  if (!d.ok()) return std::nullopt;
  return r;  // fields appended by later versions are ignored here
}

std::string encode_memory_event(const memory::Event& ev) {
  Encoder e;
  e.u64(static_cast<uint64_t>(ev.action));
  e.i64(ev.time);
  e.str(ev.reason);
  return e.take();
}

std::optional<memory::Event> decode_memory_event(std::string_view key, std::string_view bytes) {
  if (key.size() < 9) return std::nullopt;
  Decoder d(bytes);
  memory::Event ev;
  ev.seq = get_be64(key, key.size() - 8);
  const uint64_t action = d.u64();
  ev.time = d.i64();
  ev.reason = std::string(d.str());
  if (!d.ok() || action > static_cast<uint64_t>(memory::Action::Import)) return std::nullopt;
  ev.action = static_cast<memory::Action>(action);
  return ev;
}

namespace {
// An flock on <index>/memories.lock around opening the env: exclusive for a writer, shared for a
// reader. Two first remembers would otherwise race, one checking data.mdb while the other is
// still writing its meta pages (a short file looks damaged). Without a lock file (a read-only
// index) a reader goes on without it: nobody writes there.
class OpenLock {
 public:
  OpenLock(const std::string& index_dir, bool exclusive) {
    const std::string path = index_dir + "/memories.lock";
    fd_ = open_index_file(path, exclusive ? (O_RDWR | O_CREAT) : O_RDONLY);
    if (fd_ < 0) {
      if (exclusive) throw_write_error(errno, "open", path);
      return;
    }
    while (::flock(fd_, exclusive ? LOCK_EX : LOCK_SH) != 0 && errno == EINTR) {
    }
  }
  ~OpenLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  OpenLock(const OpenLock&) = delete;
  OpenLock& operator=(const OpenLock&) = delete;

 private:
  int fd_ = -1;
};
}  // namespace

MemoryStore::MemoryStore(const std::string& index_dir, Mode mode) {
  const std::string dir = env_dir(index_dir);
  refuse_symlink(dir, "memories");
  if (mode == Mode::Read && !std::filesystem::exists(dir + "/data.mdb")) return;
  if (mode == Mode::Write) make_private_dir(index_dir);
  OpenLock lock(index_dir, mode == Mode::Write);
  // Under the lock an empty data.mdb is a first open killed before LMDB wrote its meta pages:
  // nothing was ever committed to it. A writer starts it over; a reader sees no memories.
  struct stat st {};
  const bool unborn = ::lstat((dir + "/data.mdb").c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0;
  if (mode == Mode::Read && unborn) return;
  if (mode == Mode::Write) {
    make_private_dir(dir);
    if (unborn) ::unlink((dir + "/data.mdb").c_str());
  }
  refuse_symlink(dir + "/data.mdb", "memories");
  refuse_symlink(dir + "/lock.mdb", "memories");
  if (std::string problem = lmdb_data_problem(dir); !problem.empty()) throw IndexDamaged("memories", problem);
  try {
    unsigned flags = 0;
    if (mode == Mode::Read && ::access((dir + "/lock.mdb").c_str(), R_OK | W_OK) != 0 && ::access(dir.c_str(), W_OK) != 0)
      flags |= MDB_NOLOCK;  // a read-only index: nobody writes it meanwhile
    env_.open(dir, mode == Mode::Read, 8, flags);
    LmdbTxn txn(env_, mode == Mode::Read);
    const unsigned create = mode == Mode::Write ? MDB_CREATE : 0;
    try {
      dbs_.memories = txn.open_db("memories", create);
      dbs_.events = txn.open_db("memory_events", create);
      dbs_.meta = txn.open_db("meta", create);
    } catch (const LmdbError& e) {
      if (e.code != MDB_NOTFOUND) throw;
      env_.close();  // created by a writer that has not committed its first transaction yet
      return;
    }
    try {
      dbs_.changes = txn.open_db("memory_changes", create);
      has_changes_ = true;
    } catch (const LmdbError& e) {
      if (e.code != MDB_NOTFOUND) throw;  // an env from before the change log: full rebuilds only
    }
    if (mode == Mode::Write) {
      const uint64_t format = meta_u64(txn, dbs_.meta, kFormatKey);
      if (format > kMemoryFormat)
        throw IndexDamaged("memories", "written by a newer osearch (format " + std::to_string(format) + ")");
      if (format == 0) put_u64(txn, dbs_.meta, kFormatKey, kMemoryFormat);
    }
    txn.commit();
  } catch (const LmdbError& e) {
    env_.close();
    if (lmdb_damage_code(e.code)) throw IndexDamaged("memories", e.what());
    throw;
  }
}

MemoryStore::Snapshot::Snapshot(const MemoryStore& s) : store_(s) {
  if (s.exists()) txn_.emplace(s.env_, true);
}

std::optional<memory::Record> MemoryStore::Snapshot::get(std::string_view id) const {
  if (!txn_) return std::nullopt;
  auto v = txn_->get(store_.dbs_.memories, id);
  if (!v) return std::nullopt;
  return decoded(id, *v);
}

std::vector<std::string> MemoryStore::Snapshot::ids_with_prefix(std::string_view prefix, size_t limit) const {
  std::vector<std::string> out;
  if (!txn_ || prefix.empty()) return out;
  LmdbCursor cur(*txn_, store_.dbs_.memories);
  for (bool ok = cur.seek(prefix); ok && out.size() < limit && cur.key().starts_with(prefix); ok = cur.next())
    out.emplace_back(cur.key());
  return out;
}

std::vector<memory::Record> MemoryStore::Snapshot::all() const {
  std::vector<memory::Record> out;
  if (!txn_) return out;
  LmdbCursor cur(*txn_, store_.dbs_.memories);
  for (bool ok = cur.first(); ok; ok = cur.next()) out.push_back(decoded(cur.key(), cur.value()));
  return out;
}

std::vector<memory::Event> MemoryStore::Snapshot::events(std::string_view id) const {
  std::vector<memory::Event> out;
  if (!txn_) return out;
  std::string prefix(id);
  prefix.push_back('\0');
  LmdbCursor cur(*txn_, store_.dbs_.events);
  for (bool ok = cur.seek(prefix); ok && cur.key().starts_with(prefix); ok = cur.next()) {
    auto ev = decode_memory_event(cur.key(), cur.value());
    if (!ev) throw IndexDamaged("memories", "a memory event does not decode (a damaged page)");
    out.push_back(std::move(*ev));
  }
  return out;
}

uint64_t MemoryStore::Snapshot::generation() const { return txn_ ? meta_u64(*txn_, store_.dbs_.meta, kGenerationKey) : 0; }
uint64_t MemoryStore::Snapshot::count() const { return txn_ ? Store::entries(*txn_, store_.dbs_.memories) : 0; }

void MemoryStore::bump_generation(LmdbTxn& txn, std::string_view id) {
  const uint64_t next = meta_u64(txn, dbs_.meta, kGenerationKey) + 1;
  put_u64(txn, dbs_.meta, kGenerationKey, next);
  std::string key;
  put_be64(key, next);
  txn.put(dbs_.changes, key, id);
}

std::optional<std::vector<std::string>> MemoryStore::Snapshot::changed_since(uint64_t since) const {
  const uint64_t now = generation();
  if (!txn_ || !store_.has_changes_ || since > now) return std::nullopt;
  std::vector<std::string> ids;
  std::string from;
  put_be64(from, since + 1);
  uint64_t expect = since + 1;
  LmdbCursor cur(*txn_, store_.dbs_.changes);
  for (bool ok = cur.seek(from); ok; ok = cur.next(), ++expect) {
    if (cur.key().size() != 8 || get_be64(cur.key()) != expect) return std::nullopt;
    if (std::find(ids.begin(), ids.end(), cur.value()) == ids.end()) ids.emplace_back(cur.value());
  }
  if (expect != now + 1) return std::nullopt;
  return ids;
}

void MemoryStore::append_event(LmdbTxn& txn, std::string_view id, memory::Action a, int64_t now_ms, std::string_view reason) {
  std::string prefix(id);
  prefix.push_back('\0');
  uint64_t seq = 1;
  {
    LmdbCursor cur(txn, dbs_.events);
    std::string after = prefix;
    put_be64(after, UINT64_MAX);
    // The last event of this id: the key before (prefix, max seq).
    bool ok = cur.seek(after);
    ok = ok ? cur.prev() : cur.last();
    if (ok && cur.key().starts_with(prefix) && cur.key().size() == prefix.size() + 8)
      seq = get_be64(cur.key(), prefix.size()) + 1;
  }
  memory::Event ev{seq, a, now_ms, std::string(reason)};
  txn.put(dbs_.events, event_key(id, seq), encode_memory_event(ev));
}

void MemoryStore::add(const memory::Record& r, const std::vector<memory::Event>& events) {
  LmdbTxn txn(env_, false);
  txn.put(dbs_.memories, r.id, encode_memory(r), MDB_NOOVERWRITE);
  for (const auto& ev : events) txn.put(dbs_.events, event_key(r.id, ev.seq), encode_memory_event(ev));
  bump_generation(txn, r.id);
  txn.commit();
}

MemoryStore::Change MemoryStore::forget(std::string_view id, std::string_view reason, int64_t now_ms) {
  LmdbTxn txn(env_, false);
  auto v = txn.get(dbs_.memories, id);
  if (!v) throw std::invalid_argument("unknown memory " + std::string(id));
  Change c{decoded(id, *v), false};
  if (!c.record.active()) return c;
  c.record.deleted_at = now_ms;
  c.record.deleted_reason = std::string(reason);
  txn.put(dbs_.memories, id, encode_memory(c.record));
  append_event(txn, id, memory::Action::Forget, now_ms, reason);
  bump_generation(txn, id);
  txn.commit();
  c.changed = true;
  return c;
}

MemoryStore::Change MemoryStore::restore(std::string_view id, int64_t now_ms) {
  LmdbTxn txn(env_, false);
  auto v = txn.get(dbs_.memories, id);
  if (!v) throw std::invalid_argument("unknown memory " + std::string(id));
  Change c{decoded(id, *v), false};
  if (c.record.active()) return c;
  c.record.deleted_at = 0;
  c.record.deleted_reason.clear();
  txn.put(dbs_.memories, id, encode_memory(c.record));
  append_event(txn, id, memory::Action::Restore, now_ms, "");
  bump_generation(txn, id);
  txn.commit();
  c.changed = true;
  return c;
}

MemoryStore::ImportOutcome MemoryStore::import(const memory::Record& r, const std::vector<memory::Event>& events, int64_t now_ms) {
  LmdbTxn txn(env_, false);
  if (auto v = txn.get(dbs_.memories, r.id)) return decoded(r.id, *v) == r ? ImportOutcome::Unchanged : ImportOutcome::Conflicting;
  txn.put(dbs_.memories, r.id, encode_memory(r));
  for (const auto& ev : events) txn.put(dbs_.events, event_key(r.id, ev.seq), encode_memory_event(ev));
  append_event(txn, r.id, memory::Action::Import, now_ms, "");
  bump_generation(txn, r.id);
  txn.commit();
  return ImportOutcome::Added;
}

}  // namespace osearch
