// The records schema version of this build. Bump it when record encodings, keys or the text
// index's terms change (the tokenizer, the Unicode fold table ingest/unicode_fold_table.inc): the
// next run rebuilds, and engine/index/archive_io.cpp must learn to carry an archived session over
// the step (docs/ARCHITECTURE.md, "Schema upgrades"; a fixture under tests/data/indexes/ too).
#pragma once

#include <cstdint>

namespace osearch {

// 14: tc_by_path reversed, extra paths, failed_results; 15: subagent usage/model/run;
// 16: largest usage per API message, usage_agg/tool_agg/file_agg;
// 17: msg_uuid keyed sid\0uuid, message documents carry the uuid term (XU);
// 18: documents' session slot holds session_value (a UUID as 16 bytes);
// 19: documents' session slot holds the session's number (session_numbers, sessions_by_number);
// 20: message records end with their text's CRC-32C; a persisted Claude tool result's text holds
//     its whole output (toolUseResult) after the preview; queued_command attachments are user messages
// 21: a Claude subagent without a transcript of its own has the messages its parent's progress lines
//     repeat (agent_progress)
// 22: msg_uuid keyed by the session's number (be32) and the uuid, not sid\0uuid
// 23: the tokenizer skips terminal escape sequences ("\x1b[1mhaiku" is the word haiku)
// 24: a text's positions start at 2 (text_index.h, kFirstPosition: Xapian's position 0 of a term without any)
inline constexpr uint64_t kSchemaVersion = 24;

// The oldest schema whose archived sessions an upgrade carries over (see schema_steps).
inline constexpr uint64_t kOldestMigratedSchema = 10;

}  // namespace osearch
