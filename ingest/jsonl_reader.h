// Reads the complete JSON lines of one transcript file from a byte offset on.
//
// Contract (SPEC §7): only complete lines are consumed. A line ends at '\n'; a final line without a
// newline is taken only when it already parses as JSON (real copies often lack the last newline),
// otherwise it is left for the next run. Glued objects (`…}{"type":…`) are split and each parsed.
// A line simdjson rejects gets one repair pass (ingest/json_repair.h); if that parses, it is used
// and counted as repaired. Bad JSON is skipped and counted, never fatal. A line of only NULs and
// blanks is an empty line. A line longer than `max_line_bytes` is skipped unread and counted as
// oversized, so one line never costs more memory than that. The caller stores `end_offset` as the
// resume point, and a check of the bytes before it (`tail`): a file rewritten in place and grown past
// the offset (pi migrates a session file so) is then read whole again, not taken for an append.
//
// A path ending in `.zst` (Codex's compressed rollouts) is read as a zstd stream: every offset and
// count is then in decompressed bytes, so a resume offset stays valid when a `.jsonl` is later
// compressed. A damaged or truncated stream: the complete lines before the damage are consumed,
// then `ok` is false and `error` names the file.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "ingest/json_repair.h"

namespace osearch {

// Lines above this are skipped and counted (oversized_lines): indexing memory stays a small
// multiple of it whatever a transcript holds.
inline constexpr size_t kDefaultMaxLineBytes = 64u << 20;

// The consumed bytes kept in JsonlReadResult::tail.
inline constexpr size_t kTailBytes = 64;

struct JsonlReadResult {
  uint64_t end_offset = 0;      // byte after the last consumed line
  uint64_t lines = 0;           // complete non-blank lines consumed
  uint64_t objects = 0;         // JSON objects handed to the callback
  uint64_t bad_lines = 0;       // lines (or glued pieces) that did not parse as a JSON object
  uint64_t repaired_lines = 0;  // lines that parsed only after the repair pass
  uint64_t oversized_lines = 0; // lines longer than max_line_bytes, skipped
  uint64_t bytes_read = 0;
  // The last consumed bytes (at most kTailBytes, fewer after an oversized line), ending at
  // end_offset; empty when nothing was consumed.
  std::string tail;
  bool ok = true;  // false: the file could not be opened/read/decompressed (error says why)
  std::string error;
};

// Called once per JSON object; `line_offset` is the byte offset of the line that held it.
using JsonObjectHandler = std::function<void(simdjson::dom::element object, uint64_t line_offset)>;
// Called after each consumed line (blank, bad and oversized ones too): `next_offset` is where a
// resumed read would start, `so_far` the counts up to and including that line.
using LineDoneHandler = std::function<void(uint64_t next_offset, const JsonlReadResult& so_far)>;

class JsonlReader {
 public:
  explicit JsonlReader(size_t max_line_bytes = kDefaultMaxLineBytes) : max_line_bytes_(max_line_bytes) {}

  // Reads `path` from `offset` to its current end, in bounded chunks (a line longer than a chunk
  // grows the buffer for that line only, up to max_line_bytes).
  JsonlReadResult read(const std::string& path, uint64_t offset, const JsonObjectHandler& on_object,
                       const LineDoneHandler& on_line_done = {});

  // Splits and parses one buffer; exposed for tests and microbenchmarks. `data` must have
  // simdjson::SIMDJSON_PADDING readable bytes after `size`. Returns bytes consumed.
  size_t parse_buffer(const char* data, size_t size, bool at_eof, uint64_t base_offset,
                      const JsonObjectHandler& on_object, JsonlReadResult& result);

 private:
  void parse_line(const char* line, size_t len, uint64_t line_offset, const JsonObjectHandler& on_object,
                  JsonlReadResult& result);
  bool parse_object(const char* p, size_t len, simdjson::dom::element& out);
  // parse_object, then (on failure) the repair pass; `repaired` says which one succeeded.
  bool parse_or_repair(const char* p, size_t len, simdjson::dom::element& out, bool& repaired);
  // `consumed`: the bytes of the line just done, ending at next_offset.
  void line_done(uint64_t next_offset, std::string_view consumed, JsonlReadResult& result) {
    keep_tail(result.tail, consumed);
    if (on_line_done_ && *on_line_done_) (*on_line_done_)(next_offset, result);
  }
  static void keep_tail(std::string& tail, std::string_view consumed);

  const size_t max_line_bytes_;
  const LineDoneHandler* on_line_done_ = nullptr;  // set during read()
  simdjson::dom::parser parser_;
  JsonLineRepair repair_;
  std::string scratch_;   // padded copy for glued pieces
  std::string repaired_;  // padded output of the repair pass
};

}  // namespace osearch
