// libFuzzer target: ingest/jsonl_reader. The input is a transcript's bytes; it is split and parsed
// twice, once as a whole file at EOF and once in two pieces (a writer caught mid-line), and the
// reader's resume rule must hold: both ways consume the same lines and hand over the same objects.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <simdjson.h>

#include "fuzz/fuzz_util.h"
#include "ingest/jsonl_reader.h"

using osearch_fuzz::require;

namespace {

struct Seen {
  std::vector<uint64_t> offsets;
  osearch::JsonlReadResult result;
};

// Parses data[0, size) (with simdjson padding) as the reader does: first `cut` bytes not at EOF,
// then everything from the consumed point at EOF.
Seen read_in_two(const uint8_t* data, size_t size, size_t cut) {
  Seen s;
  osearch::JsonlReader reader;
  auto on_object = [&](simdjson::dom::element obj, uint64_t off) {
    require(obj.is_object(), "reader handed over a non-object");
    s.offsets.push_back(off);
  };
  std::string buf(reinterpret_cast<const char*>(data), size);
  buf.append(simdjson::SIMDJSON_PADDING, ' ');
  size_t used = cut == size ? 0 : reader.parse_buffer(buf.data(), cut, false, 0, on_object, s.result);
  require(used <= cut, "consumed past the buffer");
  std::string rest(buf.data() + used, size - used);
  rest.append(simdjson::SIMDJSON_PADDING, ' ');
  size_t used2 = reader.parse_buffer(rest.data(), size - used, true, used, on_object, s.result);
  require(used2 <= size - used, "consumed past the buffer");
  s.result.end_offset = used + used2;
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Seen whole = read_in_two(data, size, size);
  for (uint64_t off : whole.offsets) require(off < size || size == 0, "object offset beyond the input");
  // A cut inside the input (at a position derived from the input, so it is reproducible).
  if (size > 1) {
    size_t cut = (static_cast<size_t>(data[0]) * 257 + data[size - 1]) % size;
    Seen split = read_in_two(data, size, cut);
    require(split.offsets == whole.offsets, "a split read handed over different objects");
    require(split.result.end_offset == whole.result.end_offset, "a split read stopped elsewhere");
    require(split.result.bad_lines == whole.result.bad_lines, "a split read counted other bad lines");
  }
  return 0;
}
