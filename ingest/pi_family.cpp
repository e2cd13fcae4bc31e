#include "ingest/adapter.h"

namespace osearch {

// Not yet written: see ingest/adapter.h.
bool parse_pi_family_object(simdjson::dom::element, uint64_t, FileCarry&, LineRecords&) { return false; }

}  // namespace osearch
