// `subagents`: every subagent record (key sid \0 agent id), joined to its session, newest spawn
// first. The records are few next to messages, so one walk of them answers any filter.
#include <algorithm>
#include <unordered_map>

#include "engine/index/tokenizer.h"
#include "engine/query/orient.h"
#include "engine/store/codec.h"
#include "engine/store/index_damage.h"
#include "engine/store/lmdb.h"

namespace osearch {

std::optional<int64_t> SubagentRow::duration_ms() const {
  if (agent.first_ts <= 0 || agent.last_ts < agent.first_ts) return std::nullopt;
  return agent.last_ts - agent.first_ts;
}

std::optional<int64_t> SubagentRow::total_tokens() const {
  if (!has_transcript() || !agent.usage_complete) return std::nullopt;
  const TokenUsage& t = agent.tokens;
  return t.input + t.output + t.cache_creation + t.cache_read;
}

namespace {
// The message key of an encoded ToolCallRec (its third field, after id and session id: see
// ToolCallRec::encode), read without decoding or paging in a long tool input.
std::string_view message_key_of_call(std::string_view bytes) {
  Decoder d(bytes);
  d.str();
  d.str();
  std::string_view key = d.str();
  return d.ok() ? key : std::string_view();
}
}  // namespace

int64_t tool_call_time(const IndexReader& reader, std::string_view sid, std::string_view tool_use_id) {
  if (tool_use_id.empty()) return 0;
  const std::string key = pair_key(sid, tool_use_id);
  if (auto v = reader.txn().get(reader.db().tool_calls, key))
    if (int64_t ts = timestamp_of_message_key(message_key_of_call(*v)); ts > 0) return ts;
  // The call may be in a part of the transcript that is gone; its result still dates the spawn.
  if (auto v = reader.txn().get(reader.db().tool_results, key))
    if (auto tr = ToolResultRec::decode(*v)) return timestamp_of_message_key(tr->message_key);
  return 0;
}

namespace {

// Session records looked up once per walk (many subagents share a session).
class SessionCache {
 public:
  explicit SessionCache(const IndexReader& reader) : reader_(reader) {}
  const SessionRec* get(const std::string& sid) {
    auto it = cache_.find(sid);
    if (it == cache_.end()) it = cache_.emplace(sid, reader_.session(sid)).first;
    return it->second ? &*it->second : nullptr;
  }

 private:
  const IndexReader& reader_;
  std::unordered_map<std::string, std::optional<SessionRec>> cache_;
};

bool session_prefix_matches(const Filters& f, std::string_view key) {
  if (f.sessions.empty()) return true;
  const std::string sid = ascii_lower(key.substr(0, key.find('\0')));
  return std::any_of(f.sessions.begin(), f.sessions.end(),
                     [&](const std::string& p) { return sid.compare(0, p.size(), p) == 0; });
}

// Activity [first, last] overlaps [since, until).
bool overlaps(const Filters& f, int64_t first, int64_t last) {
  if (f.since_ms && (last <= 0 || last < *f.since_ms)) return false;
  if (f.until_ms && (first <= 0 || first >= *f.until_ms)) return false;
  return true;
}

}  // namespace

SubagentList run_subagents(IndexReader& reader, const Filters& f) {
  SubagentList out;
  SessionCache sessions(reader);
  // Candidates are sorted through an index: rows (with their sessions) are built for the page only.
  std::vector<SubagentRec> found;
  std::vector<int64_t> spawned;
  LmdbCursor cur(reader.txn(), reader.db().subagents);
  for (bool ok = cur.first(); ok; ok = cur.next()) {
    if (!session_prefix_matches(f, cur.key())) continue;
    auto rec = SubagentRec::decode(cur.value());
    if (!rec) throw IndexDamaged("records", "a subagent record does not decode (a damaged page)");
    // A session is read for the filters that need it; otherwise only for the rows shown.
    if (f.has_session_level()) {
      const SessionRec* s = sessions.get(rec->session_id);
      if (!s || !f.session_matches(*s)) continue;
    }
    const int64_t at = rec->first_ts > 0 ? rec->first_ts : tool_call_time(reader, rec->session_id, rec->parent_tool_use_id);
    if (!overlaps(f, at, rec->last_ts > 0 ? rec->last_ts : at)) continue;
    found.push_back(std::move(*rec));
    spawned.push_back(at);
  }
  std::vector<uint32_t> order(found.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (spawned[a] != spawned[b]) return spawned[a] > spawned[b];
    if (found[a].session_id != found[b].session_id) return found[a].session_id < found[b].session_id;
    return found[a].agent_id < found[b].agent_id;
  });
  out.total = found.size();
  for (size_t i = f.offset; i < order.size() && out.rows.size() < f.limit; ++i) {
    SubagentRow row;
    row.agent = std::move(found[order[i]]);
    row.spawned_at = spawned[order[i]];
    if (const SessionRec* s = sessions.get(row.agent.session_id)) row.session = *s;  // else no resume_hint
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace osearch
