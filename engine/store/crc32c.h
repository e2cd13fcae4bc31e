// CRC-32C (Castagnoli) of message texts: the text log has no checksum of its own, so a message
// record carries its text's (MessageRec::text_crc) and `osearch check` compares them: zeroed or
// overwritten bytes inside a text leave every header intact and would otherwise go unseen.
#pragma once

#include <cstdint>
#include <string_view>

namespace osearch {

// The SSE4.2 instruction where the CPU has it (~20x a table), else a table: the same value.
uint32_t crc32c(std::string_view bytes);

}  // namespace osearch
