// `list`: sessions newest first (by ended_at), walking the time-ordered secondary index backwards.
#include <algorithm>
#include <unordered_set>

#include "engine/query/search.h"
#include "engine/store/codec.h"
#include "engine/store/store.h"

namespace osearch {
namespace {

void add_hit(QueryResult& result, SessionRec&& session) {
  Hit hit;
  hit.session = std::move(session);
  hit.match_count = 0;
  result.hits.push_back(std::move(hit));
}

// With no filter but --since, the order's keys alone decide which sessions match: ended_at is the
// key's prefix, so the matches are the newest keys down to the first one before --since. Only the
// page's records are decoded; the keys before and after it are counted (or, with nothing to filter,
// the order's size is the total), so the cost stays the page's and the total stays exact.
QueryResult list_by_keys(IndexReader& reader, const Filters& f, QueryResult result) {
  LmdbCursor cur(reader.txn(), reader.db().sess_by_time);
  uint64_t matched = 0;
  for (bool ok = cur.last(); ok; ok = cur.prev()) {
    const SessionTimeKey key = parse_session_time_key(cur.key());
    if (f.since_ms && key.ended_at < *f.since_ms) break;
    if (result.hits.size() >= f.limit && !f.since_ms) {
      result.total = Store::entries(reader.txn(), reader.db().sess_by_time);
      return result;
    }
    if (matched < f.offset || result.hits.size() >= f.limit) {  // before or after the page: counted only
      ++matched;
      continue;
    }
    auto s = reader.session(key.sid);
    if (!s) continue;
    ++matched;
    add_hit(result, std::move(*s));
  }
  result.total = matched;
  return result;
}

}  // namespace

QueryResult run_list(IndexReader& reader, const Filters& f) {
  QueryResult result;
  result.action = "list";
  if (!f.has_session_level() && f.branches.empty() && !f.until_ms) return list_by_keys(reader, f, std::move(result));
  // The records in key order first (one cursor, no lookup from the root per session, and only the
  // filtered fields viewed), then the time order's keys: a session is listed when its key is in
  // that order and its record matches, as a lookup per key would decide. Only the page is decoded.
  std::unordered_set<std::string_view> matching;  // (views the transaction's pages)
  for_each_matching_session(reader, f, [&](std::string_view key, const SessionFacets& s) {
    // A session matches a time range when its activity overlaps it.
    if (f.since_ms && s.ended_at < *f.since_ms) return;
    if (f.until_ms && s.started_at >= *f.until_ms) return;
    if (!f.branches.empty() && std::find(f.branches.begin(), f.branches.end(), s.git_branch) == f.branches.end())
      return;
    matching.insert(key);
  });
  LmdbCursor cur(reader.txn(), reader.db().sess_by_time);
  uint64_t matched = 0;
  for (bool ok = matching.empty() ? false : cur.last(); ok; ok = cur.prev()) {
    const std::string_view sid = parse_session_time_key(cur.key()).sid;
    if (!matching.count(sid)) continue;
    if (++matched <= f.offset || result.hits.size() >= f.limit) continue;
    auto rec = reader.session(sid);
    if (!rec) continue;
    add_hit(result, std::move(*rec));
  }
  result.total = matched;
  return result;
}

}  // namespace osearch
