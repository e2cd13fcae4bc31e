// Identifiers from transcripts (uuids, tool ids, API message ids, agent and session ids, run ids)
// become LMDB key parts and Xapian terms, whose sizes are limited (LMDB: 511-byte keys; Xapian:
// ~245-byte terms). A transcript may hold any length, so every identifier leaves ingest/ bounded:
// up to kMaxIdBytes it is kept as is; a longer one keeps a prefix (cut on a UTF-8 boundary) and
// ends in '~' and 32 hex digits of a 128-bit hash of the whole value. The form is deterministic
// and idempotent, so the same long id maps to the same key everywhere, and a query for the full id
// finds it when bounded the same way. The hash is not cryptographic: two crafted ids could share a
// bounded form; real ids (36-byte uuids, toolu_… ids) are never touched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace osearch {

inline constexpr size_t kMaxIdBytes = 160;

// Two independent 64-bit hashes of `s` (FNV-1a, and a multiply-xorshift mix per byte).
inline void hash128(std::string_view s, uint64_t& a, uint64_t& b) {
  a = 14695981039346656037ull;
  b = 0x243F6A8885A308D3ull;
  for (unsigned char c : s) {
    a = (a ^ c) * 1099511628211ull;
    b = (b ^ c) * 0x9E3779B97F4A7C15ull;
    b ^= b >> 29;
  }
  for (uint64_t* h : {&a, &b}) {  // final avalanche (murmur3 fmix64)
    *h ^= *h >> 33;
    *h *= 0xff51afd7ed558ccdull;
    *h ^= *h >> 33;
    *h *= 0xc4ceb9fe1a85ec53ull;
    *h ^= *h >> 33;
  }
}

// `s` when it fits in `max_bytes`, else its bounded form (at most `max_bytes`, at least 34 bytes).
inline std::string bounded_id(std::string_view s, size_t max_bytes = kMaxIdBytes) {
  if (s.size() <= max_bytes) return std::string(s);
  constexpr size_t kTail = 33;  // '~' + 32 hex digits
  size_t cut = max_bytes > kTail ? max_bytes - kTail : 0;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  std::string out(s.substr(0, cut));
  out.push_back('~');
  uint64_t a, b;
  hash128(s, a, b);
  static constexpr char kHex[] = "0123456789abcdef";
  for (uint64_t h : {a, b})
    for (int i = 60; i >= 0; i -= 4) out.push_back(kHex[(h >> i) & 15]);
  return out;
}

}  // namespace osearch
