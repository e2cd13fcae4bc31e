// JsonlReader: the line contract of SPEC §7 (complete lines only, a final line without a newline
// taken only when it is complete JSON, glued objects split, bad lines counted and skipped, long
// lines, resume offsets), on real corpus copies (tests/data/claude) and generated ugly input.
#include "ingest/jsonl_reader.h"

#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "test_util.h"

using namespace osearch;
using namespace osearch_test;

namespace {

struct Obj {
  std::string json;  // minified
  uint64_t line_offset = 0;
};

struct Collected {
  JsonlReadResult res;
  std::vector<Obj> objs;
};

Collected read_from(const std::string& path, uint64_t offset = 0) {
  Collected c;
  JsonlReader reader;
  c.res = reader.read(path, offset, [&](simdjson::dom::element e, uint64_t off) {
    c.objs.push_back({simdjson::minify(e), off});
  });
  return c;
}

std::string str_field(const Obj& o, const char* key) {
  simdjson::dom::parser p;
  simdjson::dom::element doc;
  if (p.parse(o.json).get(doc) != simdjson::SUCCESS) return "<unparsable>";
  std::string_view v;
  if (doc[key].get_string().get(v) != simdjson::SUCCESS) return "";
  return std::string(v);
}

// Byte offsets of the starts of the non-blank lines of `data`.
std::vector<uint64_t> nonblank_line_starts(const std::string& data) {
  std::vector<uint64_t> out;
  size_t pos = 0;
  while (pos < data.size()) {
    size_t nl = data.find('\n', pos);
    size_t end = nl == std::string::npos ? data.size() : nl;
    if (data.find_first_not_of(" \t\r", pos) < end) out.push_back(pos);
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return out;
}

const std::string kGluedFile = "-Users-soph-Work-entire-devenv-cli/130d7b7e-5801-4345-9bd6-f32fd9b8429b.jsonl";

}  // namespace

TEST_CASE("reader: complete lines and blank lines and CRLF with exact line offsets", "[reader]") {
  TempDir tmp("reader");
  const std::string a = R"({"type":"user","n":1})";
  const std::string b = R"({"type":"assistant","n":2})";
  const std::string c = R"({"type":"user","n":3,"s":"x\ny"})";
  const std::string data = a + "\n\n   \n" + b + "\r\n \t\r\n" + c + "\n\n";
  const std::string path = tmp / "a.jsonl";
  write_file(path, data);

  Collected r = read_from(path);
  REQUIRE(r.res.ok);
  CHECK(r.res.error.empty());
  CHECK(r.res.lines == 3);
  CHECK(r.res.objects == 3);
  CHECK(r.res.bad_lines == 0);
  CHECK(r.res.end_offset == data.size());
  CHECK(r.res.bytes_read == data.size());
  REQUIRE(r.objs.size() == 3);
  CHECK(r.objs[0].line_offset == 0);
  CHECK(r.objs[1].line_offset == data.find(b));
  CHECK(r.objs[2].line_offset == data.find(c));
  CHECK(str_field(r.objs[2], "s") == "x\ny");  // JSON escapes are decoded
}

TEST_CASE("reader: a final line without newline is taken when it is complete JSON", "[reader]") {
  TempDir tmp("reader");
  const std::string data = "{\"n\":1}\n{\"n\":2,\"last\":true}";
  write_file(tmp / "a.jsonl", data);
  Collected r = read_from(tmp / "a.jsonl");
  REQUIRE(r.res.ok);
  CHECK(r.res.objects == 2);
  CHECK(r.res.lines == 2);
  CHECK(r.res.bad_lines == 0);
  CHECK(r.res.end_offset == data.size());
  REQUIRE(r.objs.size() == 2);
  CHECK(r.objs[1].line_offset == 8);

  SECTION("an unterminated whitespace-only tail is consumed too") {
    append_file(tmp / "a.jsonl", "\n   ");
    Collected r2 = read_from(tmp / "a.jsonl", r.res.end_offset);
    CHECK(r2.res.objects == 0);
    CHECK(r2.res.bad_lines == 0);
    CHECK(r2.res.end_offset == data.size() + 4);
  }

  SECTION("real copy without final newline: every line taken, end_offset = size") {
    const std::string path = claude_data_dir() + "/" + kGluedFile;
    const std::string bytes = read_file(path);
    REQUIRE(bytes.back() != '\n');
    Collected real = read_from(path);
    REQUIRE(real.res.ok);
    CHECK(real.res.end_offset == bytes.size());
    CHECK(real.res.bad_lines == 0);
    CHECK(real.objs.back().line_offset == bytes.rfind('\n') + 1);
  }
}

TEST_CASE("reader: a half-written final line is left until it is completed", "[reader]") {
  TempDir tmp("reader");
  const std::string path = tmp / "a.jsonl";
  const std::string first = "{\"n\":1}\n";
  write_file(path, first + "{\"n\":2,\"text\":\"half wri");

  Collected r1 = read_from(path);
  REQUIRE(r1.res.ok);
  CHECK(r1.res.objects == 1);
  CHECK(r1.res.lines == 1);
  CHECK(r1.res.bad_lines == 0);  // not bad: just not finished
  CHECK(r1.res.end_offset == first.size());

  // Reading again before the writer finishes changes nothing.
  Collected again = read_from(path, r1.res.end_offset);
  CHECK(again.res.objects == 0);
  CHECK(again.res.bad_lines == 0);
  CHECK(again.res.end_offset == first.size());

  append_file(path, "tten\"}\n{\"n\":3}\n");
  Collected r2 = read_from(path, r1.res.end_offset);
  REQUIRE(r2.res.ok);
  CHECK(r2.res.objects == 2);
  CHECK(r2.res.bad_lines == 0);
  CHECK(r2.res.end_offset == file_size(path));
  CHECK(r2.res.bytes_read == file_size(path) - first.size());
  REQUIRE(r2.objs.size() == 2);
  CHECK(r2.objs[0].line_offset == first.size());
  CHECK(str_field(r2.objs[0], "text") == "half written");

  SECTION("a half-written glued object at the end is left whole") {
    const std::string p2 = tmp / "g.jsonl";
    const std::string whole = "{\"type\":\"assistant\",\"uuid\":\"u1\"}{\"type\":\"summary\",\"summary\":\"S\",\"leafUuid\":\"u1\"}\n";
    const size_t cut = whole.find("\"summary\":\"S\"");
    write_file(p2, "{\"n\":0}\n" + whole.substr(0, cut));
    Collected g1 = read_from(p2);
    CHECK(g1.res.objects == 1);
    CHECK(g1.res.end_offset == 8);
    append_file(p2, whole.substr(cut));
    Collected g2 = read_from(p2, g1.res.end_offset);
    CHECK(g2.res.objects == 2);
    CHECK(g2.res.bad_lines == 0);
    CHECK(g2.res.end_offset == file_size(p2));
  }

  SECTION("a complete final line that gets a glued object appended is read once") {
    // The real glued lines came from this: a last line without newline, then a resumed session
    // appending `{"type":"summary",…}` right after it.
    const std::string p3 = tmp / "resumed.jsonl";
    write_file(p3, "{\"n\":1}\n{\"n\":2}");
    Collected x1 = read_from(p3);
    CHECK(x1.res.objects == 2);
    CHECK(x1.res.end_offset == file_size(p3));
    append_file(p3, "{\"type\":\"summary\",\"summary\":\"T\",\"leafUuid\":\"x\"}\n");
    Collected x2 = read_from(p3, x1.res.end_offset);
    CHECK(x2.res.objects == 1);
    CHECK(x2.res.bad_lines == 0);
    REQUIRE(x2.objs.size() == 1);
    CHECK(str_field(x2.objs[0], "type") == "summary");
  }
}

TEST_CASE("reader: glued objects are split into separate objects", "[reader]") {
  TempDir tmp("reader");

  SECTION("synthetic: two and three objects, a `}{\\\"` inside a string is not a boundary") {
    const std::string l1 = R"({"type":"a","x":"}{\"q"}{"type":"b"})";
    const std::string l2 = R"({"type":"c"}{"type":"d"}{"type":"e","y":[1,{"z":2}]})";
    const std::string data = l1 + "\n" + l2 + "\n";
    write_file(tmp / "g.jsonl", data);
    Collected r = read_from(tmp / "g.jsonl");
    REQUIRE(r.res.ok);
    CHECK(r.res.lines == 2);
    CHECK(r.res.objects == 5);
    CHECK(r.res.bad_lines == 0);
    REQUIRE(r.objs.size() == 5);
    CHECK(str_field(r.objs[0], "x") == "}{\"q");
    CHECK(str_field(r.objs[1], "type") == "b");
    CHECK(r.objs[0].line_offset == 0);
    CHECK(r.objs[1].line_offset == 0);
    for (int i = 2; i < 5; ++i) CHECK(r.objs[i].line_offset == l1.size() + 1);
    CHECK(str_field(r.objs[4], "type") == "e");
  }

  SECTION("synthetic: a glued piece that is not JSON is counted, the other kept") {
    write_file(tmp / "g2.jsonl", "{\"type\":\"a\"}{\"type\":oops}\n{\"type\":\"z\"}\n");
    Collected r = read_from(tmp / "g2.jsonl");
    CHECK(r.res.objects == 2);
    CHECK(r.res.bad_lines == 1);
  }

  SECTION("real Entire copy: assistant line + summary glued on one line") {
    const std::string path = claude_data_dir() + "/" + kGluedFile;
    const std::string bytes = read_file(path);
    const auto starts = nonblank_line_starts(bytes);
    Collected r = read_from(path);
    REQUIRE(r.res.ok);
    CHECK(r.res.lines == starts.size());
    CHECK(r.res.objects == starts.size() + 1);  // one line holds two objects
    CHECK(r.res.bad_lines == 0);
    const uint64_t glued_at = 403953;  // the line holding `…"timestamp":"2026-01-20T15:07:58.839Z"}{"type":"summary"…`
    REQUIRE(bytes.substr(glued_at, 2) == "{\"");
    std::vector<Obj> on_line;
    for (const auto& o : r.objs)
      if (o.line_offset == glued_at) on_line.push_back(o);
    REQUIRE(on_line.size() == 2);
    CHECK(str_field(on_line[0], "type") == "assistant");
    CHECK(str_field(on_line[0], "uuid") == "3252495b-f5ee-4004-9370-21c6d432eb59");
    CHECK(str_field(on_line[1], "type") == "summary");
    CHECK(str_field(on_line[1], "summary") == "Add agent name to logging context automatically");
    CHECK(str_field(on_line[1], "leafUuid") == "cbd0e4b0-4666-4450-af41-f0544047abf7");
  }
}

TEST_CASE("reader: invalid JSON lines are counted in bad_lines and skipped", "[reader]") {
  TempDir tmp("reader");
  const std::string data =
      "{\"n\":1}\n"
      "not json at all\n"
      "{\"n\":\n"
      "[1,2,3]\n"           // valid JSON, not an object
      "\"just a string\"\n"
      "{\"n\":2} trailing\n"
      "{\"n\":3}\n";
  write_file(tmp / "bad.jsonl", data);
  Collected r = read_from(tmp / "bad.jsonl");
  REQUIRE(r.res.ok);
  CHECK(r.res.lines == 7);
  CHECK(r.res.objects == 2);
  CHECK(r.res.bad_lines == 5);
  CHECK(r.res.end_offset == data.size());
  REQUIRE(r.objs.size() == 2);
  CHECK(r.objs[1].json == "{\"n\":3}");
  CHECK(r.objs[1].line_offset == data.rfind("{\"n\":3}"));
}

TEST_CASE("reader: invalid UTF-8 is skipped and counted or repaired and never fatal", "[reader]") {
  TempDir tmp("reader");
  const std::vector<std::string> bad = {
      std::string("{\"text\":\"lone \xff\xfe bytes\"}"),
      std::string("{\"text\":\"continuation \x80 alone\"}"),
      std::string("{\"text\":\"overlong \xc0\xaf slash\"}"),
      std::string("{\"text\":\"truncated \xe4\xb8\"}"),
      std::string("{\"text\":\"surrogate \xed\xa0\x80 half\"}"),
  };
  std::string data = "{\"n\":\"first\"}\n";
  for (const auto& l : bad) data += l + "\n";
  data += "{\"n\":\"\xe6\x9c\x80\xe6\x96\xb0 last\"}\n";  // valid CJK
  write_file(tmp / "utf8.jsonl", data);
  Collected r = read_from(tmp / "utf8.jsonl");
  REQUIRE(r.res.ok);
  CHECK(r.res.lines == bad.size() + 2);
  // Each bad line is either dropped and counted, or handed over (repaired); never lost silently.
  CHECK(r.res.objects + r.res.bad_lines == bad.size() + 2);
  CHECK(r.res.end_offset == data.size());
  REQUIRE(r.objs.size() >= 2);
  CHECK(str_field(r.objs.front(), "n") == "first");
  CHECK(str_field(r.objs.back(), "n") == "\xe6\x9c\x80\xe6\x96\xb0 last");
}

TEST_CASE("reader: a 2 MB line and one cut in half then completed", "[reader]") {
  TempDir tmp("reader");
  std::mt19937 rng(42);
  const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string blob(2u << 20, 'A');
  for (auto& ch : blob) ch = alphabet[rng() % 64];
  const std::string big = "{\"type\":\"user\",\"data\":\"" + blob + "\"}";
  const std::string head = "{\"n\":1}\n";
  const std::string data = head + big + "\n{\"n\":3}\n";
  write_file(tmp / "big.jsonl", data);

  Collected r = read_from(tmp / "big.jsonl");
  REQUIRE(r.res.ok);
  CHECK(r.res.objects == 3);
  CHECK(r.res.bad_lines == 0);
  CHECK(r.res.end_offset == data.size());
  REQUIRE(r.objs.size() == 3);
  CHECK(r.objs[1].line_offset == head.size());
  CHECK(str_field(r.objs[1], "data") == blob);
  CHECK(r.objs[2].line_offset == head.size() + big.size() + 1);

  // The writer is in the middle of the big line.
  const std::string p2 = tmp / "half.jsonl";
  write_file(p2, head + big.substr(0, big.size() / 2));
  Collected h1 = read_from(p2);
  CHECK(h1.res.objects == 1);
  CHECK(h1.res.bad_lines == 0);
  CHECK(h1.res.end_offset == head.size());
  append_file(p2, big.substr(big.size() / 2) + "\n");
  Collected h2 = read_from(p2, h1.res.end_offset);
  CHECK(h2.res.objects == 1);
  CHECK(h2.res.bad_lines == 0);
  CHECK(h2.res.end_offset == file_size(p2));
  REQUIRE(h2.objs.size() == 1);
  CHECK(str_field(h2.objs[0], "data") == blob);
}

TEST_CASE("reader: lines longer than the read chunk and lines across chunk boundaries", "[reader]") {
  // The reader works in 8 MB chunks: a 9 MB line must grow the buffer, and a line that starts
  // just before the 8 MB mark must be carried into the next chunk.
  TempDir tmp("reader");
  std::string data;
  std::vector<uint64_t> offsets;
  const std::string small = "{\"type\":\"x\",\"pad\":\"" + std::string(1000, 'p') + "\"}\n";
  while (data.size() < (8u << 20) - 700) {
    offsets.push_back(data.size());
    data += small;
  }
  const std::string across = "{\"type\":\"across\",\"pad\":\"" + std::string(5000, 'q') + "\"}\n";
  offsets.push_back(data.size());
  data += across;
  const std::string huge = "{\"type\":\"huge\",\"pad\":\"" + std::string(9u << 20, 'h') + "\"}\n";
  offsets.push_back(data.size());
  data += huge;
  offsets.push_back(data.size());
  data += "{\"type\":\"tail\"}";  // no newline, complete
  write_file(tmp / "long.jsonl", data);

  Collected r = read_from(tmp / "long.jsonl");
  REQUIRE(r.res.ok);
  CHECK(r.res.bad_lines == 0);
  CHECK(r.res.end_offset == data.size());
  CHECK(r.res.bytes_read == data.size());
  REQUIRE(r.objs.size() == offsets.size());
  bool offsets_ok = true;
  for (size_t i = 0; i < offsets.size(); ++i) offsets_ok = offsets_ok && r.objs[i].line_offset == offsets[i];
  CHECK(offsets_ok);
  CHECK(str_field(r.objs[offsets.size() - 3], "type") == "across");
  CHECK(str_field(r.objs[offsets.size() - 2], "pad").size() == (9u << 20));
  CHECK(str_field(r.objs.back(), "type") == "tail");
}

TEST_CASE("reader: reading from a non-zero offset resumes exactly", "[reader]") {
  const std::string path = claude_data_dir() + "/-Users-user-project/b3edadab-bca0-4054-9b41-f7ffa6941260.jsonl";
  const std::string bytes = read_file(path);
  Collected all = read_from(path);
  REQUIRE(all.res.ok);
  REQUIRE(all.objs.size() > 20);
  CHECK(all.res.end_offset == bytes.size());

  const uint64_t resume = all.objs[10].line_offset;
  Collected tail = read_from(path, resume);
  REQUIRE(tail.res.ok);
  CHECK(tail.res.bytes_read == bytes.size() - resume);
  CHECK(tail.res.end_offset == bytes.size());
  REQUIRE(tail.objs.size() == all.objs.size() - 10);
  bool same = true;
  for (size_t i = 0; i < tail.objs.size(); ++i)
    same = same && tail.objs[i].json == all.objs[i + 10].json && tail.objs[i].line_offset == all.objs[i + 10].line_offset;
  CHECK(same);

  SECTION("at or past the end: nothing, end_offset unchanged") {
    Collected at_end = read_from(path, bytes.size());
    CHECK(at_end.res.ok);
    CHECK(at_end.objs.empty());
    CHECK(at_end.res.end_offset == bytes.size());
    CHECK(at_end.res.bytes_read == 0);
    Collected past = read_from(path, bytes.size() + 100);
    CHECK(past.res.ok);
    CHECK(past.objs.empty());
    CHECK(past.res.end_offset == bytes.size() + 100);
  }
}

TEST_CASE("reader: every real test transcript reads whole and also when resumed mid-file", "[reader]") {
  size_t files = 0;
  for (const auto& rel : list_files(claude_data_dir())) {
    if (rel.size() < 6 || rel.substr(rel.size() - 6) != ".jsonl") continue;
    ++files;
    const std::string path = claude_data_dir() + "/" + rel;
    const std::string bytes = read_file(path);
    INFO(rel);
    Collected all = read_from(path);
    REQUIRE(all.res.ok);
    CHECK(all.res.bad_lines == 0);
    CHECK(all.res.end_offset == bytes.size());
    CHECK(all.res.lines == nonblank_line_starts(bytes).size());
    CHECK(all.res.objects >= all.res.lines);
    if (all.objs.size() < 3) continue;
    // Resume from the middle line: the two halves give back the same objects.
    const uint64_t mid = all.objs[all.objs.size() / 2].line_offset;
    size_t first_half = 0;
    while (first_half < all.objs.size() && all.objs[first_half].line_offset < mid) ++first_half;
    Collected rest = read_from(path, mid);
    REQUIRE(rest.objs.size() == all.objs.size() - first_half);
    CHECK(rest.objs.front().json == all.objs[first_half].json);
    CHECK(rest.objs.back().json == all.objs.back().json);
  }
  CHECK(files >= 50);
}

TEST_CASE("reader: empty file and missing file and directory and binary garbage", "[reader]") {
  TempDir tmp("reader");

  SECTION("a real 0-byte transcript") {
    const std::string path = claude_data_dir() + "/-Users-user-project/0f13eeba-e6ed-42ea-ad8c-d8db37e1304e.jsonl";
    REQUIRE(file_size(path) == 0);
    Collected r = read_from(path);
    CHECK(r.res.ok);
    CHECK(r.res.objects == 0);
    CHECK(r.res.lines == 0);
    CHECK(r.res.end_offset == 0);
  }

  SECTION("a missing file: ok=false, the error names the path") {
    const std::string path = tmp / "no-such-dir/missing.jsonl";
    Collected r = read_from(path, 17);
    CHECK_FALSE(r.res.ok);
    CHECK(r.res.error.find(path) != std::string::npos);
    CHECK(r.res.objects == 0);
    CHECK(r.res.end_offset == 17);
  }

  SECTION("a directory where a file was expected: ok=false, never a crash") {
    const std::string path = tmp / "dir.jsonl";
    fs::create_directories(path);
    Collected r = read_from(path);
    CHECK(r.objs.empty());
    if (!r.res.ok) CHECK(r.res.error.find(path) != std::string::npos);
  }

  SECTION("binary garbage with NULs and newlines") {
    std::mt19937 rng(7);
    std::string junk(256 * 1024, '\0');
    for (auto& ch : junk) ch = static_cast<char>(rng() & 0xff);
    junk += "\n{\"n\":\"after garbage\"}\n";
    write_file(tmp / "x.jsonl", junk);
    Collected r = read_from(tmp / "x.jsonl");
    CHECK(r.res.ok);
    CHECK(r.res.bad_lines > 0);
    CHECK(r.res.end_offset == junk.size());
    REQUIRE_FALSE(r.objs.empty());
    CHECK(str_field(r.objs.back(), "n") == "after garbage");
  }
}

TEST_CASE("reader: parse_buffer leaves an unterminated tail unless at EOF", "[reader]") {
  JsonlReader reader;
  const std::string text = "{\"a\":1}\n{\"b\":2}\n{\"c\":3}";
  std::string padded = text + std::string(simdjson::SIMDJSON_PADDING, ' ');
  std::vector<uint64_t> offs;
  auto cb = [&](simdjson::dom::element, uint64_t off) { offs.push_back(off); };

  JsonlReadResult res;
  size_t used = reader.parse_buffer(padded.data(), text.size(), false, 1000, cb, res);
  CHECK(used == text.rfind('\n') + 1);
  CHECK(res.objects == 2);
  CHECK(offs == std::vector<uint64_t>{1000, 1008});

  JsonlReadResult res2;
  offs.clear();
  size_t used2 = reader.parse_buffer(padded.data(), text.size(), true, 0, cb, res2);
  CHECK(used2 == text.size());
  CHECK(res2.objects == 3);
  CHECK(offs == std::vector<uint64_t>{0, 8, 16});
}
