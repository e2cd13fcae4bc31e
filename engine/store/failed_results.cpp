#include "engine/store/failed_results.h"

#include <string>

#include "engine/store/records_store.h"

namespace osearch {

void put_failed_result(LmdbTxn& w, const Dbis& db, int64_t result_ts_ms, std::string_view sid,
                       std::string_view tool_use_id) {
  std::string name;  // a copy: a view into the write transaction's pages may move on the next put
  if (auto call = w.get(db.tool_calls, pair_key(sid, tool_use_id)))
    if (auto n = ToolCallRec::name_in(*call)) name = *n;
  w.put(db.failed_results, failed_result_key(result_ts_ms, sid, tool_use_id), name);
}

}  // namespace osearch
