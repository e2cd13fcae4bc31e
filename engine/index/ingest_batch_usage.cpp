// Token and tool counting of an IngestBatch, and the aggregates (engine/store/usage_agg.h) it feeds.
//
// Claude Code streams one API message as several lines sharing message.id, the usage growing. Each
// API message counts once per session (subagent files included) with its LARGEST usage (the sum
// of the four counts decides), as ccusage counts it: the first chunk counts in full, a later,
// larger chunk (in this batch or a later run) adds only the difference — to the session total, to
// the message that carries the usage and to that message's aggregate row — and usage_seen keeps
// what has been counted so far. All of it is written in the batch's one LMDB transaction.
#include "engine/index/ingest_batch.h"

#include <algorithm>

namespace osearch {
namespace {

TokenUsage minus(const TokenUsage& a, const TokenUsage& b) {
  TokenUsage d;
  d.input = a.input - b.input;
  d.output = a.output - b.output;
  d.cache_creation = a.cache_creation - b.cache_creation;
  d.cache_read = a.cache_read - b.cache_read;
  return d;
}

}  // namespace

IngestBatch::SeenUsage* IngestBatch::find_usage_seen(const std::string& uk) {
  if (auto it = usage_seen_.find(uk); it != usage_seen_.end()) return &it->second;
  auto v = reader().get(store_.db().usage_seen, uk);
  if (!v) return nullptr;
  SeenUsage s;
  s.value = UsageSeen::decode(*v);
  return &usage_seen_.emplace(uk, std::move(s)).first->second;
}

// One usage of an API message, deduplicated by `uk`: counted in full the first time, later only a
// larger amount's difference. `carrier` is the message whose record shows it (null: none shows it).
// Returns what it added to the session.
TokenUsage IngestBatch::count_usage(SessionRec& s, const std::string& uk, MessageRec* carrier, int64_t ts,
                              const std::string& model, const TokenUsage& u) {
  SeenUsage* seen = find_usage_seen(uk);
  if (!seen) {
    SeenUsage fresh;
    fresh.value = UsageSeen{carrier ? carrier->key : std::string(), ts, model, u};
    fresh.changed = true;
    usage_seen_.emplace(uk, std::move(fresh));
    if (carrier) carrier->usage = u;
    s.tokens.add(u);
    aggs_.add_usage(s.id, ts, model, u, 1, 0);
    return u;
  }
  // Counted before; an older schema did not say how much, so nothing can be added safely.
  if (!seen->value || usage_total(u) <= usage_total(seen->value->usage)) return {};
  const TokenUsage diff = minus(u, seen->value->usage);
  seen->value->usage = u;
  seen->changed = true;
  s.tokens.add(diff);
  aggs_.add_usage(s.id, seen->value->timestamp_ms, seen->value->model, diff, 0, 0);
  if (!seen->value->message_key.empty()) usage_fixes_[seen->value->message_key] = u;
  return diff;
}

// Returns what the message's usage added to the session (its subagent's share).
TokenUsage IngestBatch::count_message_usage(SessionRec& s, MessageRec& r, const Message& m) {
  TokenUsage added;
  if (m.usage.any()) {
    if (r.api_message_id.empty()) {  // nothing to merge it with: each such line is its own API message
      r.usage = m.usage;
      s.tokens.add(m.usage);
      aggs_.add_usage(s.id, r.timestamp_ms, r.model, m.usage, 1, 0);
      added = m.usage;
    } else {
      added = count_usage(s, pair_key(s.id, r.api_message_id), &r, r.timestamp_ms, r.model, m.usage);
    }
  }
  // Advisor iterations: their own API messages under the advisor's model, as ccusage keys them
  // (message id + ":advisor:" + index); kept in usage_seen only, so a rebuild finds them there.
  for (size_t i = 0; i < m.advisor_usage.size(); ++i) {
    const auto& adv = m.advisor_usage[i];
    if (!adv.usage.any()) continue;
    const std::string id = (r.api_message_id.empty() ? r.key : r.api_message_id) + ":advisor:" + std::to_string(i);
    added.add(count_usage(s, pair_key(s.id, id), nullptr, r.timestamp_ms, adv.model, adv.usage));
    s.add_model(adv.model);
  }
  return added;
}

// omp/pi/Codex usage not carried by a message: once per (session, line).
void IngestBatch::count_fact_usage(SessionRec& s, const SessionFact& f) {
  // The line's time when the adapter gives it, else the session's latest (the turn just read).
  const int64_t ts = f.value > 0 ? f.value : s.ended_at;
  if (!f.ref_uuid.empty()) {
    const std::string uk = pair_key(s.id, f.ref_uuid);
    if (find_usage_seen(uk)) return;  // a rollout read again under a new name repeats its facts
    SeenUsage fresh;
    fresh.value = UsageSeen{"", ts, f.text, f.usage};
    fresh.changed = true;
    usage_seen_.emplace(uk, std::move(fresh));
  }
  s.tokens.add(f.usage);
  aggs_.add_usage(s.id, ts, f.text, f.usage, 1, 0);
}

// A failed result counts against its call's tool and time bucket, once per (session, tool use id).
void IngestBatch::count_tool_result(const std::string& sid, const ToolResult& res, int64_t message_ts) {
  const std::string tk = pair_key(sid, res.tool_use_id);
  if (res.tool_use_id.empty() || tool_result_ids_.count(tk) || stored(store_.db().tool_results, tk)) return;
  tool_result_ids_.insert(tk);
  if (!res.is_error) return;
  if (auto name = tool_names_.find(tk); name != tool_names_.end()) {
    aggs_.add_tool(sid, tool_call_ts_[tk], name->second, 0, 1);
  } else if (auto v = reader().get(store_.db().tool_calls, tk); v && ToolCallRec::decode(*v)) {
    auto tc = ToolCallRec::decode(*v);
    aggs_.add_tool(sid, tc->timestamp_ms, tc->name, 0, 1);
  } else {
    aggs_.add_tool(sid, message_ts, "", 0, 1);  // a result whose call was never read
  }
}

void IngestBatch::write_usage(LmdbTxn& txn) {
  const Dbis& db = store_.db();
  for (const auto& [uk, seen] : usage_seen_)
    if (seen.changed && seen.value) txn.put(db.usage_seen, uk, seen.value->encode());
  for (const auto& [key, usage] : usage_fixes_) {
    auto v = txn.get(db.messages, key);
    if (!v) continue;
    if (auto rec = MessageRec::decode(key, *v)) {
      rec->usage = usage;
      txn.put(db.messages, key, rec->encode());
    }
  }
  aggs_.write(txn, db);
}

}  // namespace osearch
