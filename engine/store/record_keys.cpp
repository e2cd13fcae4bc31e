// The LMDB keys records_store.h declares: how each database orders its records.
#include "engine/store/codec.h"
#include "engine/store/index_damage.h"
#include "engine/store/records_store.h"
#include "ingest/bounded_id.h"

namespace osearch {

std::string message_key(std::string_view session_id, int64_t ts_ms, uint32_t tag, uint64_t line_offset) {
  std::string k = bounded_id(session_id);
  k.push_back('\0');
  put_be64(k, sortable_i64(ts_ms));
  put_be32(k, tag);
  put_be64(k, line_offset);
  return k;
}

std::string session_of_message_key(std::string_view key) {
  size_t z = key.find('\0');
  return std::string(key.substr(0, z));
}

int64_t timestamp_of_message_key(std::string_view key) {
  const std::optional<std::string_view> sid = session_in_message_key(key);
  return sid ? unsortable_i64(get_be64(key, sid->size() + 1)) : 0;
}

std::optional<std::string_view> session_in_message_key(std::string_view key) {
  const size_t z = key.find('\0');
  if (z == std::string_view::npos || key.size() < z + 9) return std::nullopt;
  return key.substr(0, z);
}

std::string pair_key(std::string_view a, std::string_view b) {
  std::string k = bounded_id(a);
  k.push_back('\0');
  k.append(bounded_id(b));
  return k;
}

std::string message_uuid_key(uint32_t session_number, std::string_view uuid) {
  std::string k;
  put_be32(k, session_number);
  k.append(bounded_id(uuid));
  return k;
}

std::optional<uint32_t> session_number_of_uuid_key(std::string_view key) {
  if (key.size() <= 4) return std::nullopt;
  return get_be32(key);
}

std::string file_key(std::string_view path) { return bounded_id(path); }

std::string session_time_key(int64_t ended_at, std::string_view sid) {
  std::string k;
  put_be64(k, sortable_i64(ended_at));
  k.append(sid);
  return k;
}

SessionTimeKey parse_session_time_key(std::string_view key) {
  if (key.size() <= 8)
    throw IndexDamaged("records", "`sess_by_time` holds a key of " + std::to_string(key.size()) + " bytes (a damaged page)");
  return {unsortable_i64(get_be64(key)), key.substr(8)};
}

std::string reversed_path(std::string_view path) {
  return bounded_id(std::string(path.rbegin(), path.rend()));
}

std::string tool_path_key(std::string_view path, std::string_view sid, std::string_view tool_call_id) {
  std::string k = reversed_path(path);
  k.push_back('\0');
  k.append(pair_key(sid, tool_call_id));
  return k;
}

std::string tool_path_value(const ToolCallRec& call, std::string_view path) {
  Encoder e;
  e.i64(call.timestamp_ms);
  e.str(call.name);
  e.str(path.size() > kMaxIdBytes ? path : std::string_view());  // reversed_path cuts only such paths
  return e.take();
}

std::optional<ToolPathEntry> ToolPathEntry::decode(std::string_view value) {
  if (value.empty()) return std::nullopt;
  Decoder d(value);
  ToolPathEntry t;
  t.timestamp_ms = d.i64();
  t.name = d.str();
  t.long_path = d.str();
  if (!d.ok()) return std::nullopt;
  return t;
}

std::string failed_result_key(int64_t ts_ms, std::string_view sid, std::string_view tool_use_id) {
  std::string k;
  put_be64(k, sortable_i64(ts_ms));
  k.append(pair_key(sid, tool_use_id));
  return k;
}

uint32_t file_tag(std::string_view path) {
  uint32_t h = 2166136261u;  // FNV-1a: stable across runs and machines
  for (unsigned char c : path) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

}  // namespace osearch
