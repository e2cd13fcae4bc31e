// The memories' own LMDB environment, <index>/memories/ (apart from the records env on purpose):
// `index --full` builds a new records env and swaps it in, which would lose a memory written during
// the build; and a remember must never wait for the indexer's write transaction.
//
//   memories       id -> Record (memory/memory.h), codec below: fields only ever appended
//   memory_events  id \0 be64(seq) -> Event: the append-only audit trail
//   memory_changes be64(generation) -> the id that commit changed (what the text index must redo)
//   meta           "format" (be64, kMemoryFormat), "generation" (be64, +1 per committed change:
//                  the text index, engine/index/memory_index.h, records the one it reflects)
//
// Commits are synced (no MDB_NOSYNC): once a write returns, it survives a crash.
#pragma once

#include <lmdb.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/store/lmdb.h"
#include "memory/memory.h"

namespace osearch {

inline constexpr uint64_t kMemoryFormat = 1;

std::string encode_memory(const memory::Record& r);
std::optional<memory::Record> decode_memory(std::string_view id, std::string_view bytes);
std::string encode_memory_event(const memory::Event& e);
std::optional<memory::Event> decode_memory_event(std::string_view key, std::string_view bytes);

class MemoryStore {
 public:
  enum class Mode { Read, Write };
  // Write mode creates the env (0700 dir, 0600 files). Read mode on an index without one opens
  // nothing: every read answers empty. Throws IndexDamaged on a damaged env.
  MemoryStore(const std::string& index_dir, Mode mode);
  static std::string env_dir(const std::string& index_dir) { return index_dir + "/memories"; }
  bool exists() const { return env_.get() != nullptr; }

  // A read snapshot: every read through it sees one committed state.
  class Snapshot {
   public:
    explicit Snapshot(const MemoryStore& s);
    std::optional<memory::Record> get(std::string_view id) const;
    // The ids starting with `prefix` (at most `limit`).
    std::vector<std::string> ids_with_prefix(std::string_view prefix, size_t limit) const;
    std::vector<memory::Record> all() const;  // by id: oldest first
    std::vector<memory::Event> events(std::string_view id) const;
    uint64_t generation() const;
    uint64_t count() const;
    // The ids changed by the commits after generation `since` up to now, or nullopt when the change
    // log cannot say (a generation from another env, a gap): then everything is redone.
    std::optional<std::vector<std::string>> changed_since(uint64_t since) const;

   private:
    const MemoryStore& store_;
    std::optional<LmdbTxn> txn_;
  };

  // Each write is one transaction: it reads the current record, decides, writes, commits. They
  // return what was committed. Throw std::invalid_argument on an unknown id.
  void add(const memory::Record& r, const std::vector<memory::Event>& events);
  struct Change {
    memory::Record record;
    bool changed = false;  // false: it already was in the state asked for
  };
  Change forget(std::string_view id, std::string_view reason, int64_t now_ms);
  Change restore(std::string_view id, int64_t now_ms);
  enum class ImportOutcome { Added, Unchanged, Conflicting };
  // Idempotent by id: a new id is added with its events and an import event; an id already there
  // with the same record is unchanged; with a different one, conflicting (nothing written).
  ImportOutcome import(const memory::Record& r, const std::vector<memory::Event>& events, int64_t now_ms);

 private:
  struct Dbs {
    MDB_dbi memories = 0, events = 0, changes = 0, meta = 0;
  };
  void append_event(LmdbTxn& txn, std::string_view id, memory::Action a, int64_t now_ms, std::string_view reason);
  void bump_generation(LmdbTxn& txn, std::string_view id);
  LmdbEnv env_;
  Dbs dbs_;
  bool has_changes_ = false;
};

}  // namespace osearch
