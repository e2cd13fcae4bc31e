// `list`: sessions newest first (by ended_at), walking the time-ordered secondary index backwards.
#include <algorithm>

#include "engine/query/search.h"

namespace osearch {

QueryResult run_list(IndexReader& reader, const Filters& f) {
  QueryResult result;
  result.action = "list";
  LmdbCursor cur(reader.txn(), reader.db().sess_by_time);
  uint64_t matched = 0;
  for (bool ok = cur.last(); ok; ok = cur.prev()) {
    std::string_view sid = cur.key().substr(8);
    auto s = reader.session(sid);
    if (!s || !f.session_matches(*s)) continue;
    // A session matches a time range when its activity overlaps it.
    if (f.since_ms && s->ended_at < *f.since_ms) continue;
    if (f.until_ms && s->started_at >= *f.until_ms) continue;
    if (!f.branches.empty() && std::find(f.branches.begin(), f.branches.end(), s->git_branch) == f.branches.end())
      continue;
    ++matched;
    if (matched <= f.offset || result.hits.size() >= f.limit) continue;
    Hit hit;
    hit.session = std::move(*s);
    hit.match_count = 0;
    result.hits.push_back(std::move(hit));
  }
  result.total = matched;
  return result;
}

}  // namespace osearch
