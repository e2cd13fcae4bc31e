// Session numbers: each session of an env has a number, given when its documents are first built
// and never reused or removed in that env (a dropped, pruned or re-read session keeps its own). The
// text index's documents carry it as their collapse value (kSlotSession) instead of the session id:
// a query reads that value for every match, and 1-4 bytes instead of 17 make the value stream it
// reads 3-4 times smaller (docs/BENCHMARKS.md). Two named databases hold the pairs: `session_numbers`
// (id -> be32) and `sessions_by_number` (be32 -> id). An env rebuilt from the sources and an upgrade
// number their sessions afresh, as they build their documents afresh; a compaction copies the pairs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/store/lmdb.h"
#include "engine/store/store.h"

namespace osearch {

// The document value of a number: big-endian without leading zero bytes (1-4 bytes, never empty).
// Memory documents' collapse values ("memory/<id>", engine/index/memory_index.h) are longer, so the
// two never meet.
std::string session_number_value(uint32_t number);
// The number a document value holds; nullopt when it holds none (a memory's value, "").
std::optional<uint32_t> number_of_session_value(std::string_view value);

std::optional<uint32_t> find_session_number(const LmdbTxn& txn, const Dbis& db, std::string_view session_id);
std::optional<std::string> session_of_number(const LmdbTxn& txn, const Dbis& db, uint32_t number);
// The highest number given in this env (0: none yet).
uint32_t last_session_number(const LmdbTxn& txn, const Dbis& db);
// Records a new pair (both directions).
void put_session_number(LmdbTxn& w, const Dbis& db, std::string_view session_id, uint32_t number);
// The session's number, given now (the last one + 1) when it has none.
uint32_t ensure_session_number(LmdbTxn& w, const Dbis& db, std::string_view session_id);
// The key of message `uuid` of session `session_id` (msg_uuid, keyed by the session's number);
// nullopt when either is not stored. The view lives as long as the transaction.
std::optional<std::string_view> find_message_key(const LmdbTxn& txn, const Dbis& db, std::string_view session_id,
                                                 std::string_view uuid);
// The same for a caller that holds the session's number already.
std::optional<std::string_view> find_message_key(const LmdbTxn& txn, const Dbis& db, uint32_t session_number,
                                                 std::string_view uuid);
// The number after `last`; throws when the numbers ran out (4 billion sessions in one env).
uint32_t next_session_number(uint32_t last);

}  // namespace osearch
