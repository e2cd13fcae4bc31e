#include "ingest/adapter.h"

namespace osearch {

// Not yet written: see ingest/adapter.h.
bool parse_codex_object(simdjson::dom::element, uint64_t, FileCarry&, LineRecords&) { return false; }
bool parse_codex_index_object(simdjson::dom::element, LineRecords&) { return false; }

}  // namespace osearch
