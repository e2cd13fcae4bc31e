#include "engine/store/session_numbers.h"

#include <limits>
#include <stdexcept>

#include "engine/store/codec.h"
#include "engine/store/records_store.h"

namespace osearch {

std::string session_number_value(uint32_t number) {
  std::string out;
  bool started = false;
  for (int shift = 24; shift >= 0; shift -= 8) {
    const auto byte = static_cast<unsigned char>(number >> shift);
    if (byte == 0 && !started && shift > 0) continue;
    started = true;
    out += static_cast<char>(byte);
  }
  return out;
}

std::optional<uint32_t> number_of_session_value(std::string_view value) {
  // Exactly what session_number_value writes: 1-4 bytes, no leading zero byte, not 0 itself.
  if (value.empty() || value.size() > 4 || value[0] == '\0') return std::nullopt;
  uint32_t n = 0;
  for (char c : value) n = n << 8 | static_cast<unsigned char>(c);
  return n;
}

std::optional<uint32_t> find_session_number(const LmdbTxn& txn, const Dbis& db, std::string_view session_id) {
  auto v = txn.get(db.session_numbers, session_id);
  if (!v || v->size() != 4) return std::nullopt;
  return get_be32(*v);
}

std::optional<std::string_view> find_message_key(const LmdbTxn& txn, const Dbis& db, std::string_view session_id,
                                                 std::string_view uuid) {
  auto number = find_session_number(txn, db, session_id);
  if (!number) return std::nullopt;
  return find_message_key(txn, db, *number, uuid);
}

std::optional<std::string_view> find_message_key(const LmdbTxn& txn, const Dbis& db, uint32_t session_number,
                                                 std::string_view uuid) {
  return txn.get(db.msg_uuid, message_uuid_key(session_number, uuid));
}

std::optional<std::string> session_of_number(const LmdbTxn& txn, const Dbis& db, uint32_t number) {
  std::string key;
  put_be32(key, number);
  auto v = txn.get(db.sessions_by_number, key);
  if (!v) return std::nullopt;
  return std::string(*v);
}

uint32_t last_session_number(const LmdbTxn& txn, const Dbis& db) {
  LmdbCursor cur(txn, db.sessions_by_number);
  if (!cur.last() || cur.key().size() != 4) return 0;
  return get_be32(cur.key());
}

void put_session_number(LmdbTxn& w, const Dbis& db, std::string_view session_id, uint32_t number) {
  std::string be;
  put_be32(be, number);
  w.put(db.session_numbers, session_id, be);
  w.put(db.sessions_by_number, be, session_id);
}

uint32_t next_session_number(uint32_t last) {
  if (last == std::numeric_limits<uint32_t>::max()) throw std::runtime_error("the index has numbered 2^32-1 sessions");
  return last + 1;
}

uint32_t ensure_session_number(LmdbTxn& w, const Dbis& db, std::string_view session_id) {
  if (auto n = find_session_number(w, db, session_id)) return *n;
  const uint32_t n = next_session_number(last_session_number(w, db));
  put_session_number(w, db, session_id, n);
  return n;
}

}  // namespace osearch
