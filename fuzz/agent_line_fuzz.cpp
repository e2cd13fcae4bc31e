// libFuzzer target: the omp/pi and Codex adapters (ingest/pi_family, ingest/codex). The first byte
// picks the format (pi family, Codex rollout, Codex session index); the rest is JSONL whose objects
// go through parse_object one after another with one FileCarry, as a file's lines do. What they
// yield must be usable downstream: valid UTF-8 text, tool inputs that parse as JSON again, ids
// within the key bound.
#include <cstdint>
#include <string>

#include <simdjson.h>

#include "fuzz/fuzz_util.h"
#include "ingest/adapter.h"
#include "ingest/bounded_id.h"
#include "ingest/jsonl_reader.h"

using osearch_fuzz::require;
using osearch_fuzz::valid_utf8;

namespace {

void check_id(const std::string& id, const char* what) {
  require(id.size() <= osearch::kMaxIdBytes + 8, what);  // "#n" part suffixes may follow a bounded id
  require(valid_utf8(id), what);
}

void check_message(const osearch::Message& m) {
  osearch_fuzz::check_message_text(m);
  check_id(m.uuid, "uuid too long or not UTF-8");
  check_id(m.parent_uuid, "parent uuid too long or not UTF-8");
  require(valid_utf8(m.model) && valid_utf8(m.cwd), "model/cwd not UTF-8");
  for (const auto& tc : m.tool_calls) check_id(tc.id, "tool call id too long");
  for (const auto& tr : m.tool_results) check_id(tr.tool_use_id, "tool result id too long");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static constexpr osearch::SourceFormat kFormats[] = {osearch::SourceFormat::PiFamily, osearch::SourceFormat::Codex,
                                                       osearch::SourceFormat::CodexIndex};
  const osearch::SourceFormat format = kFormats[data[0] % 3];
  std::string buf(reinterpret_cast<const char*>(data) + 1, size - 1);
  buf.append(simdjson::SIMDJSON_PADDING, ' ');
  osearch::JsonlReader reader;
  osearch::JsonlReadResult result;
  osearch::FileCarry carry;
  reader.parse_buffer(buf.data(), size - 1, true, 0,
                      [&](simdjson::dom::element obj, uint64_t offset) {
                        osearch::LineRecords rec;
                        osearch::parse_object(format, obj, offset, carry, rec);
                        for (const auto& m : rec.messages) check_message(m);
                        for (const auto& f : rec.facts) require(valid_utf8(f.text), "fact text is not valid UTF-8");
                        require(rec.session_id_field.size() <= osearch::kMaxIdBytes, "session id not bounded");
                      },
                      result);
  return 0;
}
