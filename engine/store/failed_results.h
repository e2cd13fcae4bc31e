// `failed_results`: the order `failures` walks, one entry per tool result with is_error, written
// and deleted with the result. Key: be64(sortable result time) sid \0 tool_use_id (failed_result_key,
// records_store.h), so newest first is a backwards walk. Value: the name of the result's call when
// it was stored before the result (it almost always is), so `failures --tool` filters without
// reading each call; "" otherwise, and in an index written before the name was kept, where
// `failures` reads the call instead.
#pragma once

#include <cstdint>
#include <string_view>

#include "engine/store/lmdb.h"
#include "engine/store/store.h"

namespace osearch {

// Writes the entry of a failed result; its call, if stored (in this transaction too), names it.
void put_failed_result(LmdbTxn& w, const Dbis& db, int64_t result_ts_ms, std::string_view sid,
                       std::string_view tool_use_id);

}  // namespace osearch
