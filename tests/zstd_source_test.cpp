// JsonlReader on `.zst` files (Codex's compressed rollouts): reading one equals reading the plain
// file, offsets count decompressed bytes, and a truncated or corrupt stream is reported after the
// complete lines before the damage, never a crash. The committed .zst was made with the zstd CLI
// (tests/data/codex/PROVENANCE.md); variants are made here with libzstd.
#include "ingest/jsonl_reader.h"

#include <catch2/catch.hpp>

#include <zstd.h>

#include <string>
#include <vector>

#include "test_util.h"

using namespace osearch;
using namespace osearch_test;

namespace {

const std::string kName = "rollout-2026-08-03T10-48-56-019fc8be-3658-7ca3-9e29-000000000000.jsonl";
std::string plain_path() { return test_data_dir() + "/codex/.codex/sessions/2026/08/03/" + kName; }
std::string zst_path() { return test_data_dir() + "/codex/zstd/" + kName + ".zst"; }

struct ZstdObj {
  std::string json;
  uint64_t line_offset = 0;
  bool operator==(const ZstdObj&) const = default;
};

struct ZstdCollected {
  JsonlReadResult res;
  std::vector<ZstdObj> objs;
  std::vector<uint64_t> line_ends;  // every on_line_done offset
};

ZstdCollected read_zstd_source(const std::string& path, uint64_t offset = 0, size_t max_line = kDefaultMaxLineBytes) {
  ZstdCollected c;
  JsonlReader reader(max_line);
  c.res = reader.read(
      path, offset, [&](simdjson::dom::element e, uint64_t off) { c.objs.push_back({simdjson::minify(e), off}); },
      [&](uint64_t next, const JsonlReadResult&) { c.line_ends.push_back(next); });
  return c;
}

void same_read(const ZstdCollected& a, const ZstdCollected& b) {
  CHECK(a.res.ok);
  CHECK(b.res.ok);
  CHECK(a.res.end_offset == b.res.end_offset);
  CHECK(a.res.lines == b.res.lines);
  CHECK(a.res.objects == b.res.objects);
  CHECK(a.res.bad_lines == b.res.bad_lines);
  CHECK(a.res.oversized_lines == b.res.oversized_lines);
  CHECK(a.res.bytes_read == b.res.bytes_read);
  CHECK(a.objs == b.objs);
  CHECK(a.line_ends == b.line_ends);
}

// `data` as zstd frames of at most `frame_bytes` input each (one frame when 0).
std::string compress(const std::string& data, size_t frame_bytes = 0, int level = 3) {
  std::string out;
  size_t step = frame_bytes ? frame_bytes : std::max<size_t>(data.size(), 1);
  for (size_t at = 0; at < data.size() || (at == 0 && data.empty()); at += step) {
    std::string_view piece = std::string_view(data).substr(at, step);
    std::string frame(ZSTD_compressBound(piece.size()), '\0');
    size_t n = ZSTD_compress(frame.data(), frame.size(), piece.data(), piece.size(), level);
    REQUIRE_FALSE(ZSTD_isError(n));
    out.append(frame.data(), n);
    if (data.empty()) break;
  }
  return out;
}

}  // namespace

TEST_CASE("zstd: reading a .jsonl.zst equals reading the plain file", "[codex][zstd]") {
  ZstdCollected plain = read_zstd_source(plain_path());
  ZstdCollected zst = read_zstd_source(zst_path());
  REQUIRE(plain.objs.size() == 118);
  same_read(plain, zst);
  CHECK(zst.res.end_offset == file_size(plain_path()));
  CHECK(zst.res.bytes_read == file_size(plain_path()));  // decompressed bytes
}

TEST_CASE("zstd: a read resumes from a decompressed offset", "[codex][zstd]") {
  ZstdCollected plain = read_zstd_source(plain_path());
  for (size_t k : {size_t{1}, size_t{37}, plain.objs.size() - 1}) {
    uint64_t offset = plain.objs[k].line_offset;
    ZstdCollected a = read_zstd_source(plain_path(), offset);
    ZstdCollected b = read_zstd_source(zst_path(), offset);
    same_read(a, b);
    REQUIRE(b.objs.size() == plain.objs.size() - k);
    CHECK(b.objs.front() == plain.objs[k]);
  }
  // At or past the end: nothing, and no error.
  for (uint64_t offset : {file_size(plain_path()), file_size(plain_path()) + 1000}) {
    ZstdCollected end = read_zstd_source(zst_path(), offset);
    CHECK(end.res.ok);
    CHECK(end.objs.empty());
    CHECK(end.res.end_offset == offset);
  }
}

TEST_CASE("zstd: multi-frame streams, a final line without newline, oversized lines", "[codex][zstd]") {
  TempDir dir("zstd");
  std::string data = read_file(plain_path());
  data += std::string(5000, 'x') + "\n";              // oversized for the limit below, skipped and counted
  data += R"({"type":"event_msg","payload":{}})";     // complete JSON without a final newline
  write_file(dir / "a.jsonl", data);
  write_file(dir / "a.jsonl.zst", compress(data, 4096));
  ZstdCollected plain = read_zstd_source(dir / "a.jsonl", 0, 4000);
  ZstdCollected zst = read_zstd_source(dir / "a.jsonl.zst", 0, 4000);
  same_read(plain, zst);
  CHECK(zst.res.oversized_lines == plain.res.oversized_lines);
  CHECK(zst.res.oversized_lines >= 1);
  CHECK(zst.res.end_offset == data.size());

  // A half-written final line is left for later, exactly as in a plain file.
  std::string partial = data + "\n{\"type\":\"event_ms";
  write_file(dir / "b.jsonl", partial);
  write_file(dir / "b.jsonl.zst", compress(partial));
  same_read(read_zstd_source(dir / "b.jsonl"), read_zstd_source(dir / "b.jsonl.zst"));
}

TEST_CASE("zstd: empty streams", "[codex][zstd]") {
  TempDir dir("zstd");
  write_file(dir / "empty.jsonl.zst", "");
  write_file(dir / "frame.jsonl.zst", compress(""));
  for (const char* name : {"empty.jsonl.zst", "frame.jsonl.zst"}) {
    ZstdCollected c = read_zstd_source(dir / name);
    CHECK(c.res.ok);
    CHECK(c.objs.empty());
    CHECK(c.res.end_offset == 0);
  }
}

TEST_CASE("zstd: a truncated stream keeps the complete lines before the cut, then fails", "[codex][zstd]") {
  TempDir dir("zstd");
  const std::string compressed = read_file(zst_path());
  ZstdCollected plain = read_zstd_source(plain_path());
  for (size_t keep : {compressed.size() - 1, compressed.size() / 2, size_t{20}, size_t{3}}) {
    const std::string path = dir / "cut.jsonl.zst";
    write_file(path, std::string_view(compressed).substr(0, keep));
    ZstdCollected c = read_zstd_source(path);
    CHECK_FALSE(c.res.ok);
    CHECK(c.res.error.find(path) == 0);
    CHECK(c.res.error.find("zstd") != std::string::npos);
    REQUIRE(c.objs.size() <= plain.objs.size());
    for (size_t i = 0; i < c.objs.size(); ++i) CHECK(c.objs[i] == plain.objs[i]);
    // The resume point is right after the last line taken.
    if (!c.objs.empty()) {
      size_t n = c.objs.size();
      uint64_t expected_end = n < plain.objs.size() ? plain.objs[n].line_offset : file_size(plain_path());
      CHECK(c.res.end_offset == expected_end);
    } else {
      CHECK(c.res.end_offset == 0);
    }
  }
  // A resume offset past the cut is an error too, not a silent end.
  write_file(dir / "cut.jsonl.zst", std::string_view(compressed).substr(0, compressed.size() / 2));
  ZstdCollected late = read_zstd_source(dir / "cut.jsonl.zst", file_size(plain_path()) - 10);
  CHECK_FALSE(late.res.ok);
  CHECK(late.objs.empty());
}

TEST_CASE("zstd: corrupt streams are reported, never a crash", "[codex][zstd]") {
  TempDir dir("zstd");
  const std::string good = read_file(zst_path());
  ZstdCollected plain = read_zstd_source(plain_path());

  std::string bad_magic = good;
  bad_magic[0] = static_cast<char>(bad_magic[0] ^ 0xFF);
  write_file(dir / "magic.jsonl.zst", bad_magic);
  ZstdCollected m = read_zstd_source(dir / "magic.jsonl.zst");
  CHECK_FALSE(m.res.ok);
  CHECK(m.objs.empty());
  CHECK(m.res.error.find(dir / "magic.jsonl.zst") == 0);

  // Damage inside the compressed blocks: whatever is decoded first, the read ends with an error
  // (the frame checksum or the block decoder catches it).
  for (size_t at : {good.size() / 3, good.size() / 2, good.size() - 6}) {
    std::string damaged = good;
    for (size_t i = at; i < at + 4 && i < damaged.size(); ++i) damaged[i] = static_cast<char>(damaged[i] ^ 0x5A);
    write_file(dir / "damaged.jsonl.zst", damaged);
    ZstdCollected c = read_zstd_source(dir / "damaged.jsonl.zst");
    CHECK_FALSE(c.res.ok);
    CHECK(c.objs.size() <= plain.objs.size() + 1);
  }

  // Plain bytes named .zst, and trailing garbage after a good frame.
  write_file(dir / "plain.jsonl.zst", read_file(plain_path()));
  CHECK_FALSE(read_zstd_source(dir / "plain.jsonl.zst").res.ok);
  write_file(dir / "tail.jsonl.zst", good + "garbage");
  ZstdCollected tail = read_zstd_source(dir / "tail.jsonl.zst");
  CHECK_FALSE(tail.res.ok);
  CHECK(tail.objs.size() == plain.objs.size());  // every line before the damage
}

TEST_CASE("zstd: a missing .zst file is an error naming it", "[codex][zstd]") {
  TempDir dir("zstd");
  ZstdCollected c = read_zstd_source(dir / "none.jsonl.zst");
  CHECK_FALSE(c.res.ok);
  CHECK(c.res.error.find(dir / "none.jsonl.zst") == 0);
}
