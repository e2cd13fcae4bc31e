#include "engine/store/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

#include "engine/store/cpu_features.h"

namespace osearch {
namespace {

constexpr uint32_t kPolynomial = 0x82F63B78u;  // Castagnoli, reflected

constexpr std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<uint32_t, 256> kTable = make_table();

uint32_t crc32c_table(uint32_t crc, std::string_view b) {
  for (unsigned char c : b) crc = kTable[(crc ^ c) & 0xff] ^ (crc >> 8);
  return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t crc32c_sse42(uint32_t crc, std::string_view b) {
  const char* p = b.data();
  size_t n = b.size();
  uint64_t c = crc;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    c = _mm_crc32_u64(c, w);
  }
  auto c32 = static_cast<uint32_t>(c);
  for (; n > 0; ++p, --n) c32 = _mm_crc32_u8(c32, static_cast<unsigned char>(*p));
  return c32;
}
#endif

}  // namespace

uint32_t crc32c(std::string_view bytes) {
#if defined(__x86_64__)
  if (cpu::has_sse42()) return ~crc32c_sse42(~0u, bytes);
#endif
  return ~crc32c_table(~0u, bytes);
}

}  // namespace osearch
