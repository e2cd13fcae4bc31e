#include "ingest/adapter.h"

#include "ingest/claude.h"

namespace osearch {

bool parse_object(Format format, simdjson::dom::element object, uint64_t line_offset, FileCarry& carry,
                  LineRecords& out) {
  switch (format) {
    case Format::Claude: return parse_claude_object(object, out);
    case Format::PiFamily: return parse_pi_family_object(object, line_offset, carry, out);
    case Format::Codex: return parse_codex_object(object, line_offset, carry, out);
    case Format::CodexIndex: return parse_codex_index_object(object, out);
  }
  return false;
}

}  // namespace osearch
