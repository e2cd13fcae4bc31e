// Usage and tool aggregates kept current at index time, so `stats` never scans all messages.
//
//   usage_agg  bounded(sid) \0 be32(bucket) model  ->  UsageAgg (tokens, API messages, messages)
//   tool_agg   bounded(sid) \0 be32(bucket) tool   ->  ToolAgg (calls, failed calls)
//   file_agg   pair_key(path, sid)                  -> i64 tool calls naming the file (tc_by_path, summed),
//                                                      then the path when the key holds it cut
//                                                      (longer than a key part; absent before it was kept)
//   usage_seen pair_key(sid, API message id | "@line") -> UsageSeen (the usage counted so far)
//
// A bucket is 15 minutes of UTC time: every time zone's offset is a multiple of 15 minutes, so a
// local day is a whole number of buckets anywhere (+05:45 included). A delta and the records it
// summarises are written in the same LMDB transaction.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "engine/store/lmdb.h"
#include "engine/store/store.h"
#include "ingest/records.h"

namespace osearch {

inline constexpr int64_t kUsageBucketMs = 15 * 60 * 1000;
// Unknown and pre-1970 times fall in bucket 0.
uint32_t usage_bucket(int64_t ts_ms);
inline int64_t bucket_start_ms(uint32_t bucket) { return static_cast<int64_t>(bucket) * kUsageBucketMs; }

struct UsageAgg {
  TokenUsage tokens;
  int64_t api_messages = 0;  // API messages whose usage is counted here (once each)
  int64_t messages = 0;      // stored messages (any role) in the bucket with this model
  void add(const UsageAgg& o);
  std::string encode() const;
  static UsageAgg decode(std::string_view bytes);  // zeros when unreadable
};

struct ToolAgg {
  int64_t calls = 0, failures = 0;
  void add(const ToolAgg& o) { calls += o.calls; failures += o.failures; }
  std::string encode() const;
  static ToolAgg decode(std::string_view bytes);
};

// The key of both dbs; `name` is the model or the tool name (bounded).
std::string agg_key(std::string_view sid, uint32_t bucket, std::string_view name);
std::string agg_prefix(std::string_view sid);  // bounded(sid) \0
struct AggKeyParts {
  std::string_view sid, name;
  uint32_t bucket = 0;
};
std::optional<AggKeyParts> parse_agg_key(std::string_view key);
int64_t decode_file_count(std::string_view bytes);
// The whole path a file_agg value keeps for a key that holds it cut; "" when the key holds it whole
// (or the row was written before long paths were kept).
std::string_view decode_file_long_path(std::string_view bytes);

// The usage counted for one API message (or one usage line of omp/pi/Codex): where it was counted,
// so a later, larger chunk of the same message adds only the difference, to the same place.
struct UsageSeen {
  std::string message_key;  // the message that carries it ("" for a usage fact)
  int64_t timestamp_ms = 0;
  std::string model;
  TokenUsage usage;
  std::string encode() const;
  // nullopt for a value written before schema 14 (empty): counted, amount unknown.
  static std::optional<UsageSeen> decode(std::string_view bytes);
};

inline int64_t usage_total(const TokenUsage& u) { return u.input + u.output + u.cache_creation + u.cache_read; }

// Deltas gathered by one batch, merged into the stored rows by write().
struct AggDeltas {
  std::map<std::string, UsageAgg> usage;
  std::map<std::string, ToolAgg> tools;
  std::map<std::string, int64_t> files;  // pair_key(path, sid) -> tool calls
  std::map<std::string, std::string> long_paths;  // the same key -> its path, when the key cuts it
  void add_usage(std::string_view sid, int64_t ts_ms, std::string_view model, const TokenUsage& u, int64_t api_messages,
                 int64_t messages);
  void add_tool(std::string_view sid, int64_t ts_ms, std::string_view tool, int64_t calls, int64_t failures);
  void add_file(std::string_view path, std::string_view sid);
  bool empty() const { return usage.empty() && tools.empty() && files.empty(); }
  void clear() {
    usage.clear();
    tools.clear();
    files.clear();
    long_paths.clear();
  }
  void write(LmdbTxn& txn, const Dbis& db) const;
};

// Removes a session's usage and tool rows (its file rows go with its tool calls: drop_sessions).
void delete_session_aggregates(LmdbTxn& txn, const Dbis& db, const std::string& sid);
// Rebuilds a session's aggregates from its stored records: messages (usage, model, time), usage
// facts (usage_seen values without a message), tool calls and tool results. Used for sessions
// carried over from an older schema, whose source files may be gone.
void rebuild_session_aggregates(LmdbTxn& txn, const Dbis& db, const std::string& sid);

}  // namespace osearch
