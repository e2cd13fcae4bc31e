// Compact binary encoding for LMDB records: varints, length-prefixed strings, big-endian keys.
// Records are versioned by appending fields: a reader stops cleanly at the end of older records.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace osearch {

class Encoder {
 public:
  void u64(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  void i64(int64_t v) { u64((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
  void b(bool v) { out_.push_back(v ? 1 : 0); }
  void str(std::string_view s) {
    u64(s.size());
    out_.append(s);
  }
  std::string& bytes() { return out_; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Decoder {
 public:
  explicit Decoder(std::string_view in, size_t pos = 0) : in_(in), pos_(pos) {}
  bool ok() const { return ok_; }
  bool at_end() const { return pos_ >= in_.size(); }
  size_t pos() const { return pos_; }
  // A little-endian word of `bytes` bytes (fixed width, so a writer can patch it in place).
  uint64_t fixed(size_t bytes) {
    if (!ok_ || bytes > 8 || in_.size() - pos_ < bytes) {
      ok_ = false;
      return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(in_[pos_ + i])) << (i * 8);
    pos_ += bytes;
    return v;
  }
  uint64_t u64() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= in_.size()) {
        ok_ = false;
        return 0;
      }
      auto byte = static_cast<uint8_t>(in_[pos_++]);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
    ok_ = false;
    return v;
  }
  int64_t i64() {
    uint64_t z = u64();
    return static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1));
  }
  bool b() {
    if (pos_ >= in_.size()) {
      ok_ = false;
      return false;
    }
    return in_[pos_++] != 0;
  }
  std::string_view str() {
    uint64_t n = u64();
    if (!ok_ || n > in_.size() - pos_) {
      ok_ = false;
      return {};
    }
    std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }

 private:
  std::string_view in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

inline void put_be64(std::string& out, uint64_t v) {
  for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((v >> (i * 8)) & 0xff));
}
inline void put_be32(std::string& out, uint32_t v) {
  for (int i = 3; i >= 0; --i) out.push_back(static_cast<char>((v >> (i * 8)) & 0xff));
}
inline uint64_t get_be64(std::string_view s, size_t at = 0) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8 && at + i < s.size(); ++i) v = (v << 8) | static_cast<uint8_t>(s[at + i]);
  return v;
}
inline uint32_t get_be32(std::string_view s, size_t at = 0) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4 && at + i < s.size(); ++i) v = (v << 8) | static_cast<uint8_t>(s[at + i]);
  return v;
}

// FNV-1a, 64 bits: a checksum of a small file the index writes for itself (a torn or damaged one
// reads as absent), and a file name from a key. Not for anything an adversary chooses to collide.
inline uint64_t fnv1a64(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

// Signed timestamps sort correctly as unsigned big-endian after flipping the sign bit.
inline uint64_t sortable_i64(int64_t v) { return static_cast<uint64_t>(v) ^ (1ULL << 63); }
inline int64_t unsortable_i64(uint64_t v) { return static_cast<int64_t>(v ^ (1ULL << 63)); }

}  // namespace osearch
