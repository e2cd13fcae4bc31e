// Reads the complete JSON lines of one transcript file from a byte offset on.
//
// Contract (SPEC §7): only complete lines are consumed. A line ends at '\n'; a final line without a
// newline is taken only when it already parses as JSON (real copies often lack the last newline),
// otherwise it is left for the next run. Glued objects (`…}{"type":…`) are split and each parsed.
// Bad JSON is skipped and counted, never fatal. The caller stores `end_offset` as the resume point.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include <simdjson.h>

namespace osearch {

struct JsonlReadResult {
  uint64_t end_offset = 0;  // byte after the last consumed line
  uint64_t lines = 0;       // complete non-blank lines consumed
  uint64_t objects = 0;     // JSON objects handed to the callback
  uint64_t bad_lines = 0;   // lines (or glued pieces) that did not parse as a JSON object
  uint64_t bytes_read = 0;
  bool ok = true;           // false: the file could not be opened/read (error says why)
  std::string error;
};

// Called once per JSON object; `line_offset` is the byte offset of the line that held it.
using JsonObjectHandler = std::function<void(simdjson::dom::element object, uint64_t line_offset)>;

class JsonlReader {
 public:
  // Reads `path` from `offset` to its current end, in bounded chunks (a line longer than a chunk
  // grows the buffer for that line only).
  JsonlReadResult read(const std::string& path, uint64_t offset, const JsonObjectHandler& on_object);

  // Splits and parses one buffer; exposed for tests and microbenchmarks. `data` must have
  // simdjson::SIMDJSON_PADDING readable bytes after `size`. Returns bytes consumed.
  size_t parse_buffer(const char* data, size_t size, bool at_eof, uint64_t base_offset,
                      const JsonObjectHandler& on_object, JsonlReadResult& result);

 private:
  void parse_line(const char* line, size_t len, uint64_t line_offset, const JsonObjectHandler& on_object,
                  JsonlReadResult& result);
  bool parse_object(const char* p, size_t len, simdjson::dom::element& out);

  simdjson::dom::parser parser_;
  std::string scratch_;  // padded copy for glued pieces
};

}  // namespace osearch
