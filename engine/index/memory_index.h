// The memories' text index, <index>/memories-text/: a small Xapian database derived from the
// memory env (engine/store/memory_store.h), one document per memory, archived ones included.
// Terms: the summary, the file's current text and its path, by the same tokenizer as messages, so
// one query meets both. Its metadata records the memory env generation it reflects; whoever sees
// the two differ (a crash between the LMDB commit and this write, a deleted or damaged database)
// rebuilds it whole: it is tiny. Writers serialise on an flock of <index>/memories-text.lock
// (Xapian's own lock fails instead of waiting, and two remembers must both land).
//
// The env's change log (memory_changes) names what each commit changed, so a remember redoes one
// document, not all. Document: terms as above plus boolean XTmemory, XP<project>, XMEMDELETED when archived and a
// unique Q term; values kSlotTime = created_at, kSlotSession = "memory/<id>" (a collapse key of its
// own: a memory is never folded into a session), kSlotMemory = id, kSlotMemorySig = the file's
// size/mtime/inode when it was read (a refresh re-reads a file whose stat differs).
#pragma once

#include <xapian.h>

#include <optional>
#include <string>

#include "engine/store/memory_store.h"

namespace osearch {

inline constexpr Xapian::valueno kSlotMemorySig = 5;
inline constexpr std::string_view kMemoryDeletedTerm = "XMEMDELETED";

std::string memory_text_dir(const std::string& index_dir);

struct MemorySyncResult {
  bool rebuilt = false;
  uint64_t updated = 0;  // documents redone from the change log instead of a rebuild
  uint64_t files_reread = 0;
};

// Brings memories-text up to the memory env's current state: when its generation differs, the
// memories the change log names since then are redone (the whole database when the log cannot say,
// or it cannot be opened); else with `refresh_files`, documents of files whose stat changed are
// re-read. Cheap when nothing changed (a stat per memory, no lock taken).
MemorySyncResult sync_memory_index(const std::string& index_dir, const MemoryStore& store, bool refresh_files);

bool memory_text_current(const Xapian::Database& db, uint64_t generation);

// The database for readers, nullopt when there is none (no memories yet).
std::optional<Xapian::Database> open_memory_text(const std::string& index_dir);

}  // namespace osearch
