#include "engine/store/usage_agg.h"

#include <unordered_map>

#include "engine/store/codec.h"
#include "engine/store/records_store.h"
#include "ingest/bounded_id.h"

namespace osearch {
namespace {

template <typename Agg>
void merge_into(LmdbTxn& txn, MDB_dbi dbi, const std::string& key, const Agg& delta) {
  Agg row;
  if (auto v = txn.get(dbi, key)) row = Agg::decode(*v);
  row.add(delta);
  txn.put(dbi, key, row.encode());
}

}  // namespace

uint32_t usage_bucket(int64_t ts_ms) {
  if (ts_ms <= 0) return 0;
  const int64_t b = ts_ms / kUsageBucketMs;
  return b > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(b);
}

void UsageAgg::add(const UsageAgg& o) {
  tokens.add(o.tokens);
  api_messages += o.api_messages;
  messages += o.messages;
}

std::string UsageAgg::encode() const {
  Encoder e;
  encode_usage(e, tokens);
  e.i64(api_messages);
  e.i64(messages);
  return e.take();
}

UsageAgg UsageAgg::decode(std::string_view bytes) {
  Decoder d(bytes);
  UsageAgg a;
  a.tokens = decode_usage(d);
  a.api_messages = d.i64();
  a.messages = d.i64();
  return d.ok() ? a : UsageAgg{};
}

std::string ToolAgg::encode() const {
  Encoder e;
  e.i64(calls);
  e.i64(failures);
  return e.take();
}

ToolAgg ToolAgg::decode(std::string_view bytes) {
  Decoder d(bytes);
  ToolAgg a;
  a.calls = d.i64();
  a.failures = d.i64();
  return d.ok() ? a : ToolAgg{};
}

std::string agg_prefix(std::string_view sid) { return bounded_id(sid) + '\0'; }

std::string agg_key(std::string_view sid, uint32_t bucket, std::string_view name) {
  std::string k = agg_prefix(sid);
  put_be32(k, bucket);
  k += bounded_id(name);
  return k;
}

std::optional<AggKeyParts> parse_agg_key(std::string_view key) {
  const size_t z = key.find('\0');
  if (z == std::string_view::npos || key.size() < z + 5) return std::nullopt;
  AggKeyParts p;
  p.sid = key.substr(0, z);
  p.bucket = get_be32(key, z + 1);
  p.name = key.substr(z + 5);
  return p;
}

std::string UsageSeen::encode() const {
  Encoder e;
  e.str(message_key);
  e.i64(timestamp_ms);
  e.str(model);
  encode_usage(e, usage);
  return e.take();
}

std::optional<UsageSeen> UsageSeen::decode(std::string_view bytes) {
  if (bytes.empty()) return std::nullopt;
  Decoder d(bytes);
  UsageSeen s;
  s.message_key = std::string(d.str());
  s.timestamp_ms = d.i64();
  s.model = std::string(d.str());
  s.usage = decode_usage(d);
  if (!d.ok()) return std::nullopt;
  return s;
}

void AggDeltas::add_usage(std::string_view sid, int64_t ts_ms, std::string_view model, const TokenUsage& u,
                          int64_t api_messages, int64_t messages) {
  UsageAgg& a = usage[agg_key(sid, usage_bucket(ts_ms), model)];
  a.tokens.add(u);
  a.api_messages += api_messages;
  a.messages += messages;
}

void AggDeltas::add_tool(std::string_view sid, int64_t ts_ms, std::string_view tool, int64_t calls, int64_t failures) {
  ToolAgg& a = tools[agg_key(sid, usage_bucket(ts_ms), tool)];
  a.calls += calls;
  a.failures += failures;
}

void AggDeltas::add_file(std::string_view path, std::string_view sid) {
  std::string key = pair_key(path, sid);
  if (path.size() > kMaxIdBytes) long_paths.try_emplace(key, path);  // pair_key cut it
  ++files[std::move(key)];
}

int64_t decode_file_count(std::string_view bytes) {
  Decoder d(bytes);
  const int64_t n = d.i64();
  return d.ok() ? n : 0;
}

std::string_view decode_file_long_path(std::string_view bytes) {
  Decoder d(bytes);
  d.i64();
  if (!d.ok() || d.at_end()) return {};
  const std::string_view path = d.str();
  return d.ok() ? path : std::string_view();
}

void AggDeltas::write(LmdbTxn& txn, const Dbis& db) const {
  for (const auto& [key, delta] : usage) merge_into(txn, db.usage_agg, key, delta);
  for (const auto& [key, delta] : tools) merge_into(txn, db.tool_agg, key, delta);
  for (const auto& [key, delta] : files) {
    int64_t n = delta;
    if (auto v = txn.get(db.file_agg, key)) n += decode_file_count(*v);
    Encoder e;
    e.i64(n);
    if (auto it = long_paths.find(key); it != long_paths.end()) e.str(it->second);
    txn.put(db.file_agg, key, e.bytes());
  }
}

void delete_session_aggregates(LmdbTxn& txn, const Dbis& db, const std::string& sid) {
  const std::string pfx = agg_prefix(sid);
  delete_prefixed(txn, db.usage_agg, pfx);
  delete_prefixed(txn, db.tool_agg, pfx);
}

void rebuild_session_aggregates(LmdbTxn& txn, const Dbis& db, const std::string& sid) {
  delete_session_aggregates(txn, db, sid);
  const std::string pfx = agg_prefix(sid);
  AggDeltas d;
  {
    LmdbCursor cur(txn, db.messages);
    for (bool ok = cur.seek(pfx); ok && cur.key().substr(0, pfx.size()) == pfx; ok = cur.next()) {
      auto m = MessageRec::decode(cur.key(), cur.value());
      if (!m) continue;
      d.add_usage(sid, m->timestamp_ms, m->model, m->usage, m->usage.any() ? 1 : 0, 1);
    }
  }
  {
    LmdbCursor cur(txn, db.usage_seen);  // usage facts: tokens no message carries
    for (bool ok = cur.seek(pfx); ok && cur.key().substr(0, pfx.size()) == pfx; ok = cur.next()) {
      auto seen = UsageSeen::decode(cur.value());
      if (seen && seen->message_key.empty()) d.add_usage(sid, seen->timestamp_ms, seen->model, seen->usage, 1, 0);
    }
  }
  std::unordered_map<std::string, std::pair<std::string, int64_t>> calls;  // id -> name, time
  {
    LmdbCursor cur(txn, db.tool_calls);
    for (bool ok = cur.seek(pfx); ok && cur.key().substr(0, pfx.size()) == pfx; ok = cur.next()) {
      auto tc = ToolCallRec::decode(cur.value());
      if (!tc) continue;
      d.add_tool(sid, tc->timestamp_ms, tc->name, 1, 0);
      for (const auto& path : tc->paths()) d.add_file(path, sid);
      calls.emplace(tc->id, std::pair(tc->name, tc->timestamp_ms));
    }
  }
  for (const auto& [key, n] : d.files) txn.del(db.file_agg, key);  // written again below, whole
  {
    LmdbCursor cur(txn, db.tool_results);
    for (bool ok = cur.seek(pfx); ok && cur.key().substr(0, pfx.size()) == pfx; ok = cur.next()) {
      auto tr = ToolResultRec::decode(cur.value());
      // As the ingest counts (IngestBatch::count_tool_result): once per tool use id, so never a
      // result that names none (only records of older builds, or exported by them, hold one).
      if (!tr || !tr->is_error || tr->tool_use_id.empty()) continue;
      if (auto it = calls.find(tr->tool_use_id); it != calls.end())
        d.add_tool(sid, it->second.second, it->second.first, 0, 1);
      else
        d.add_tool(sid, timestamp_of_message_key(tr->message_key), "", 0, 1);
    }
  }
  d.write(txn, db);
}

}  // namespace osearch
