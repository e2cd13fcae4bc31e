// Garbage: what dropping sessions leaves behind (engine/index/drop_sessions.h). A session whose file
// is re-read whole, or that `prune` removes, loses its records, but
//   - its text log entries stay (the log is append-only): meta `garbage_text_bytes` counts their
//     bytes as the log stores them (entry header, key, text);
//   - its message documents stay in Xapian (no termlists to delete them by), hidden by the session's
//     new epoch: meta `garbage_documents` counts them (every message document the index lists,
//     minus the messages LMDB holds: each live message has exactly one).
// Both are counted in the drop's own LMDB transaction, reset by a compaction (engine/index/compact.h)
// and by a rebuild. An index written before the counters has neither: `osearch index` counts them
// once, exactly, and until then they are unknown (nullopt), never 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/index/text_index.h"
#include "engine/store/lmdb.h"
#include "engine/store/store.h"

namespace osearch {

// The bytes one message's entry takes in the text log: u32 key length, key, u8 flags, u32 text
// length, text (engine/store/text_log.h).
constexpr uint64_t text_entry_bytes(uint64_t key_bytes, uint64_t text_len) { return 9 + key_bytes + text_len; }

struct GarbageCounts {
  std::optional<uint64_t> text_bytes;        // text log bytes no record points at
  std::optional<uint64_t> hidden_documents;  // message documents no live message owns
};
GarbageCounts read_garbage_counts(const LmdbTxn& txn, const Dbis& db);
// Sets both counters (a new index, a new generation).
void put_garbage_counts(LmdbTxn& txn, const Dbis& db, uint64_t text_bytes, uint64_t hidden_documents);

// Message documents of every database `layout` lists (hidden ones included; titles are apart).
uint64_t message_documents(const std::string& index_dir, const XapianLayout& layout);

// The documents no live message owns, as `txn` sees the messages; nullopt while a batch is in flight
// (its messages are committed, their documents not yet listed) or when the count makes no sense.
std::optional<uint64_t> hidden_documents_now(const LmdbTxn& txn, const Dbis& db, const std::string& index_dir);

// Counts what an index written before the counters lacks, exactly: the text log's committed bytes
// minus the bytes of every live message's entry (one walk over `messages`), and the hidden
// documents. Returns false when it wrote nothing (both known already).
bool count_unknown_garbage(LmdbTxn& txn, const Dbis& db, const std::string& index_dir);

// What `status` shows and the automatic compaction weighs.
struct GarbageReport {
  GarbageCounts counts;
  uint64_t text_log_bytes = 0;     // committed bytes of the text log
  uint64_t message_documents = 0;  // in the listed message databases
  uint64_t message_db_bytes = 0;   // their size on disk
  // The hidden documents' share of the message databases' size: their bytes times hidden/all
  // documents (documents of one index are alike in size on average; a session's re-read ones are
  // its own old ones).
  std::optional<uint64_t> hidden_document_bytes() const;
  // Text bytes plus the hidden documents' estimated bytes (nullopt when either is unknown).
  std::optional<uint64_t> bytes() const;
};
// Throws IndexDamaged when a listed database is missing (as every open does).
GarbageReport garbage_report(const std::string& index_dir, const LmdbTxn& txn, const Dbis& db);

// The automatic compaction's rule: at least `min_bytes` of garbage, and garbage text at least a
// quarter of the text log or hidden documents at least a quarter of all message documents. A
// compaction costs about a cold build's Xapian work over the live messages, so it waits until it
// wins back a real share of the index; after one, garbage is 0 and the rule cannot fire again until
// that much is dropped anew.
struct CompactRule {
  uint64_t min_bytes = 16u << 20;
  double min_share = 0.25;
};
bool worth_compacting(const GarbageReport& g, const CompactRule& rule);

}  // namespace osearch
