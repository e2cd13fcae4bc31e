// The checksum a message record carries of its text (engine/store/crc32c.h, MessageRec::text_crc):
// known CRC-32C values, the same from every code path, and records with and without it.
#include <catch2/catch.hpp>

#include <string>

#include "engine/store/crc32c.h"
#include "engine/store/records_store.h"

using namespace osearch;

TEST_CASE("crc32c: the Castagnoli check values, at every length and alignment", "[records]") {
  CHECK(crc32c("") == 0u);
  CHECK(crc32c("123456789") == 0xE3069283u);  // the standard check value
  CHECK(crc32c(std::string(32, '\0')) == 0x8A9136AAu);  // RFC 3720, B.4
  CHECK(crc32c(std::string(32, '\xff')) == 0x62A8AB43u);
  // Lengths around the 8-byte steps and unaligned starts agree with a bytewise reference.
  std::string text;
  for (int i = 0; i < 100; ++i) text.push_back(static_cast<char>(i * 37 + 11));
  auto reference = [](std::string_view b) {
    uint32_t c = ~0u;
    for (unsigned char ch : b) {
      c ^= ch;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    }
    return ~c;
  };
  for (size_t from = 0; from < 9; ++from)
    for (size_t n = 0; n + from <= text.size(); n += 7) CHECK(crc32c(std::string_view(text).substr(from, n)) == reference(std::string_view(text).substr(from, n)));
}

TEST_CASE("message records: the text checksum is kept, and a record without one still decodes", "[records]") {
  MessageRec m;
  m.uuid = "u-1";
  m.text_offset = 1234;
  m.text_len = 9;
  m.tool_call_ids = {"toolu_1", "toolu_2"};
  const std::string key = std::string("s-1") + '\0' + "t";
  // Without: a record as schema 19 wrote it (and as an upgrade may carry one over).
  auto without = MessageRec::decode(key, m.encode());
  REQUIRE(without);
  CHECK_FALSE(without->text_crc);
  CHECK(without->tool_call_ids == m.tool_call_ids);
  for (const uint32_t crc : {0u, 1u, 0xE3069283u, 0xFFFFFFFFu}) {
    m.text_crc = crc;
    auto with = MessageRec::decode(key, m.encode());
    REQUIRE(with);
    CHECK(with->text_crc == crc);
    CHECK(with->text_offset == 1234);
    CHECK(with->tool_call_ids == m.tool_call_ids);
  }
}
