// Internals of the Codex adapter (ingest/codex.cpp): the records one rollout line yields, and the
// ResponseItem parser shared by current lines (`response_item` payloads) and legacy bare items.
#pragma once

#include <cstdint>
#include <string>

#include <simdjson.h>

#include "ingest/adapter.h"

namespace osearch::codex {

// Builds the messages of one line: each gets the line's uuid ("@<offset>", then "@<offset>#2", …),
// timestamp and the carried cwd/branch/version.
class LineMessages {
 public:
  LineMessages(uint64_t line_offset, int64_t timestamp_ms, const FileCarry& carry, LineRecords& out)
      : line_offset_(line_offset), timestamp_ms_(timestamp_ms), carry_(carry), out_(out) {}

  // A new message of `role` and `type`; the carried model is stamped on assistant text, thinking
  // and tool calls.
  Message& add(Role role, ContentType type);
  // The uuid the next add() will give (tool calls without an id of their own are named by it).
  std::string next_uuid() const;
  // Drops the last message (it turned out empty).
  void drop_last() { out_.messages.pop_back(); }

  const FileCarry& carry() const { return carry_; }
  LineRecords& out() { return out_; }

 private:
  uint64_t line_offset_;
  int64_t timestamp_ms_;
  const FileCarry& carry_;
  LineRecords& out_;
};

// One ResponseItem (`message`, `reasoning`, `function_call`, …; a current line's payload or a legacy
// bare line) -> messages; unknown types: none. A user message is the user's words unless it holds
// injected context; developer/system messages are meta.
void parse_response_item(simdjson::dom::element item, LineMessages& lm);

// True for text Codex injects as a user message (environment context, AGENTS.md, instructions).
bool is_injected_user_text(std::string_view text);

}  // namespace osearch::codex
