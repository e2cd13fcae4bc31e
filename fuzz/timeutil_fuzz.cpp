// libFuzzer target: the time parser (ingest/timeutil). The input is a timestamp or --since value,
// optionally followed by "\n" and bytes that choose `now` and the local UTC offset. Invariants:
// a parsed instant formats back to a string that parses to the same instant (years 0000-9999),
// and the CLI form of a full ISO 8601 instant with an offset equals the ingest form.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <variant>

#include "fuzz/fuzz_util.h"
#include "ingest/timeutil.h"

using osearch_fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string_view text = in.substr(0, in.find('\n'));
  int64_t now_ms = 1'785'000'000'000;  // 2026-07-25
  long local_offset = 0;
  if (text.size() < in.size()) {
    std::string_view tail = in.substr(text.size() + 1);
    uint64_t bits = 0;
    std::memcpy(&bits, tail.data(), std::min<size_t>(tail.size(), sizeof bits));
    now_ms = static_cast<int64_t>(bits);
    // Real offsets come from tm_gmtoff: within ±18 h.
    if (tail.size() > sizeof bits) local_offset = (static_cast<long>(static_cast<unsigned char>(tail[8])) - 128) * 510;
  }

  if (auto ms = osearch::parse_iso8601_ms(text)) {
    const std::string formatted = osearch::format_iso8601_ms(*ms);
    require(formatted.size() >= 24, "formatted timestamp too short");
    if (formatted[0] != '-' && formatted[0] != '+') {
      auto again = osearch::parse_iso8601_ms(formatted);
      require(again.has_value(), "a formatted instant does not parse");
      require(*again == *ms, "format/parse round trip changed the instant");
    }
  }
  if (auto ms = osearch::parse_iso8601_ms(text)) {
    // With the local zone at UTC the CLI reads a full timestamp as ingest does.
    auto as_arg = osearch::parse_time_arg(text, now_ms, 0);
    require(std::holds_alternative<int64_t>(as_arg) && std::get<int64_t>(as_arg) == *ms,
            "--since reads a timestamp differently from ingest");
  }
  auto arg = osearch::parse_time_arg(text, now_ms, local_offset);
  if (const auto* err = std::get_if<osearch::TimeArgError>(&arg)) require(!err->message.empty(), "empty error message");
  return 0;
}
