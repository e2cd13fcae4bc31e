#include "ingest/adapter.h"

#include "ingest/claude.h"

namespace osearch {

bool parse_object(SourceFormat format, simdjson::dom::element object, uint64_t line_offset, FileCarry& carry,
                  LineRecords& out) {
  switch (format) {
    case SourceFormat::Claude: return parse_claude_object(object, out, carry);
    case SourceFormat::PiFamily: return parse_pi_family_object(object, line_offset, carry, out);
    case SourceFormat::Codex: return parse_codex_object(object, line_offset, carry, out);
    case SourceFormat::CodexIndex: return parse_codex_index_object(object, out);
  }
  return false;
}

}  // namespace osearch
