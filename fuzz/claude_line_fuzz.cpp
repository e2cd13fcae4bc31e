// libFuzzer target: the Claude Code adapter (ingest/claude). The input is one or more JSONL lines;
// every object the reader hands over goes through parse_claude_object, and what it yields must be
// usable downstream: the text the index stores and prints is valid UTF-8 (simdjson validated the
// line), offsets point inside it, and nothing is read past the line.
#include <cstdint>
#include <string>

#include <simdjson.h>

#include "fuzz/fuzz_util.h"
#include "ingest/claude.h"
#include "ingest/jsonl_reader.h"
#include "ingest/records.h"

using osearch_fuzz::require;
using osearch_fuzz::valid_utf8;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string buf(reinterpret_cast<const char*>(data), size);
  buf.append(simdjson::SIMDJSON_PADDING, ' ');
  osearch::JsonlReader reader;
  osearch::JsonlReadResult result;
  reader.parse_buffer(buf.data(), size, true, 0,
                      [](simdjson::dom::element obj, uint64_t) {
                        osearch::LineRecords rec;
                        if (osearch::parse_claude_object(obj, rec)) for (const auto& m : rec.messages) osearch_fuzz::check_message_text(m);
                        for (const auto& f : rec.facts) require(valid_utf8(f.text), "fact text is not valid UTF-8");
                      },
                      result);
  return 0;
}
