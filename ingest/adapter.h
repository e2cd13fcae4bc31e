// The agent adapters behind one entry point: one JSON object of a transcript -> normalized records
// (ingest/records.h). Each adapter is pure: no I/O, no state beyond the line and the file's carry.
//
//   Claude      ingest/claude.cpp     formats/claude-code.md
//   PiFamily    ingest/pi_family.cpp  omp and pi entries (formats/omp-pi-codex.md §1, §2, §7)
//   Codex       ingest/codex.cpp      Codex rollout lines, current and legacy (§3, §7)
//   CodexIndex  ingest/codex.cpp      ~/.codex/session_index.jsonl lines: thread names by id
#pragma once

#include <cstdint>
#include <string>

#include <simdjson.h>

#include "ingest/records.h"

namespace osearch {

enum class SourceFormat : uint8_t { Claude, PiFamily, Codex, CodexIndex };

// What an adapter carries from one line of a file to the next. The engine stores it with the
// file's resume offset, so a read that starts mid-file continues with what the earlier lines said.
// Fields are agent-neutral; each adapter documents which it uses.
struct FileCarry {
  std::string cwd;          // header / session_meta / turn_context cwd: stamped on every message
  std::string git_branch;   // Codex session_meta.git.branch: stamped on every message
  std::string version;      // header version / Codex cli_version: stamped on every message
  std::string model;        // the current model (model_change, turn_context): for records naming none
  std::string last_entry_id;  // pi v1 files have no ids: each entry's parent is the entry before
  TokenUsage usage_total;   // Codex: the last cumulative total_token_usage (a token_count adds growth)
  bool header_seen = false;  // the file's header (omp/pi session line, Codex first session_meta)
  // Codex writes a prompt twice (a response_item user message and an event_msg user_message, in
  // either order): a hash of the first copy's text, 0 once its twin was seen.
  uint64_t pending_user_text = 0;
  // Codex: the last line timestamp, for lines without one (legacy bare items carry none).
  int64_t last_timestamp_ms = 0;
  // Claude: the latest lines with a uuid that are not messages (compaction boundaries, attachments,
  // progress, system lines), "<uuid>\t<its parentUuid, else logicalParentUuid>\n" each, oldest
  // first, at most kMaxSkippedLinks: a message whose parent is one of them gets the nearest message
  // beyond them as its logical parent, so `trace` crosses them (ingest/claude.cpp).
  std::string skipped_links;
  static constexpr size_t kMaxSkippedLinks = 128;

  bool operator==(const FileCarry&) const = default;
};

// What every message of a file inherits from its header: cwd, branch and version.
inline void stamp_from_carry(Message& m, const FileCarry& carry) {
  m.cwd = carry.cwd;
  m.git_branch = carry.git_branch;
  m.version = carry.version;
}

// Fills `out` from one JSON object; false when the object yields nothing (no messages, no facts,
// no session id). `line_offset` is the byte offset of the object's line in the (decompressed)
// file: adapters use it to name entries that carry no id of their own ("@<offset>").
bool parse_object(SourceFormat format, simdjson::dom::element object, uint64_t line_offset, FileCarry& carry,
                  LineRecords& out);

bool parse_pi_family_object(simdjson::dom::element object, uint64_t line_offset, FileCarry& carry, LineRecords& out);
bool parse_codex_object(simdjson::dom::element object, uint64_t line_offset, FileCarry& carry, LineRecords& out);
bool parse_codex_index_object(simdjson::dom::element object, LineRecords& out);

}  // namespace osearch
