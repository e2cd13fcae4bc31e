// The repair pass of the JSONL reader (issue 7): a line simdjson rejects for a repairable defect is
// repaired and counted, never dropped. Each rule of ingest/json_repair.h, its edge cases (an escaped
// backslash before `u`, a valid surrogate pair, a NUL inside a string), and the lines that stay bad.
#include "ingest/json_repair.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ingest/jsonl_reader.h"
#include "test_util.h"
#include "tests/utf8_check.h"

using namespace osearch;
using namespace osearch_test;

namespace {


std::string replaced(std::string_view in) {
  std::string out;
  append_utf8_replacing(in, out);
  return out;
}

struct ReadBack {
  JsonlReadResult res;
  std::vector<std::string> texts;  // the "t" field of each object, "" when absent
  std::vector<uint64_t> offsets;
};

ReadBack read_bytes(const std::string& bytes, size_t max_line = kDefaultMaxLineBytes) {
  TempDir tmp("repair");
  const std::string path = tmp / "t.jsonl";
  write_file(path, bytes);
  ReadBack rb;
  JsonlReader reader(max_line);
  rb.res = reader.read(path, 0, [&](simdjson::dom::element e, uint64_t off) {
    std::string_view t;
    rb.texts.emplace_back(e["t"].get_string().get(t) == simdjson::SUCCESS ? std::string(t) : std::string());
    rb.offsets.push_back(off);
  });
  REQUIRE(rb.res.ok);
  return rb;
}

// The single line `line` (plus newline) read back: it must be repaired, not bad, and give `t`.
void check_repaired(const std::string& line, const std::string& expected_t) {
  INFO("line: " << line);
  ReadBack rb = read_bytes(line + "\n");
  CHECK(rb.res.bad_lines == 0);
  CHECK(rb.res.repaired_lines == 1);
  CHECK(rb.res.lines == 1);
  REQUIRE(rb.texts.size() == 1);
  CHECK(rb.texts[0] == expected_t);
}

}  // namespace

TEST_CASE("repair: invalid UTF-8 becomes U+FFFD per maximal subpart", "[hardening][ingest][repair]") {
  CHECK(replaced("plain ascii") == "plain ascii");
  CHECK(replaced("caf\xC3\xA9") == "caf\xC3\xA9");            // valid: untouched
  CHECK(replaced("a\xFF" "b") == "a" + kFffd + "b");          // never a lead byte
  CHECK(replaced("a\xC3") == "a" + kFffd);                     // truncated at the end
  CHECK(replaced("\xE2\x82" "x") == kFffd + "x");              // one U+FFFD for a 2-byte prefix of 3
  CHECK(replaced("\xF0\x9F\x98") == kFffd);                    // 3-byte prefix of 4: one
  CHECK(replaced("\xF0\x80\x80") == kFffd + kFffd + kFffd);    // F0 80 is no prefix: each byte
  CHECK(replaced("\xED\xA0\x80") == kFffd + kFffd + kFffd);    // an encoded surrogate (CESU)
  CHECK(replaced("\xC0\xAF") == kFffd + kFffd);                // overlong
  CHECK(replaced("\xF4\x90\x80\x80") == kFffd + kFffd + kFffd + kFffd);  // above U+10FFFF
  CHECK(replaced("\x80\x80") == kFffd + kFffd);                // stray continuations
}

TEST_CASE("repair: rule a, raw invalid UTF-8 in a line", "[hardening][ingest][repair]") {
  check_repaired("{\"t\":\"caf\xE9 latin1\"}", "caf" + kFffd + " latin1");
  check_repaired("{\"t\":\"cut \xE2\x82\",\"k\":1}", "cut " + kFffd);
  // Outside a string too (then the JSON is still invalid: the line stays bad, but is not lost silently).
  ReadBack rb = read_bytes("{\"t\":\"x\"}\xFF\n");
  CHECK(rb.res.bad_lines == 1);
  CHECK(rb.res.repaired_lines == 0);
}

TEST_CASE("repair: rule b, lone surrogate escapes", "[hardening][ingest][repair]") {
  check_repaired(R"({"t":"x\ud800y"})", "x" + kFffd + "y");
  check_repaired(R"({"t":"\uDC00 low first"})", kFffd + " low first");
  check_repaired(R"({"t":"end\uD83D"})", "end" + kFffd);
  // A high surrogate before another high one: the first is lone, the pair after it is kept.
  check_repaired(R"({"t":"\ud800\ud83d\ude00"})", kFffd + "\xF0\x9F\x98\x80");
  // A valid pair next to a lone one.
  check_repaired(R"({"t":"\ud83d\ude00 \ud800"})", "\xF0\x9F\x98\x80 " + kFffd);
  // `\\ud800` is an escaped backslash and the text "ud800": valid JSON, nothing to repair...
  ReadBack plain = read_bytes(R"({"t":"a\\ud800"})" "\n");
  CHECK(plain.res.repaired_lines == 0);
  CHECK(plain.res.bad_lines == 0);
  REQUIRE(plain.texts.size() == 1);
  CHECK(plain.texts[0] == "a\\ud800");
  // ...and next to a real lone escape it stays text while the escape is replaced.
  check_repaired(R"({"t":"a\\ud800 \ud800 \\\ud800"})", "a\\ud800 " + kFffd + " \\" + kFffd);
  // Surrogate escapes in keys too.
  check_repaired(R"({"k\udfff":1,"t":"key"})", "key");
}

TEST_CASE("repair: rule c, NUL bytes outside strings", "[hardening][ingest][repair]") {
  check_repaired(std::string("{\"t\":\"padded\"}\0\0\0\0", 18), "padded");
  check_repaired(std::string("\0{\"t\":\"lead\"}", 13), "lead");
  // A line of only NULs (and blanks) is an empty line: not counted, not bad.
  ReadBack rb = read_bytes(R"({"t":"one"})" "\n" + std::string("\0\0\0 \0\n", 6) + R"({"t":"two"})" "\n" +
                           std::string(64, '\0'));
  CHECK(rb.res.lines == 2);
  CHECK(rb.res.bad_lines == 0);
  CHECK(rb.res.repaired_lines == 0);
  CHECK(rb.texts == std::vector<std::string>{"one", "two"});
  CHECK(rb.res.end_offset == 24 + 6);  // an unterminated NUL tail is left: it may be overwritten in place
  // When lines are later written over the padding, they are read (nothing was skipped past it).
  TempDir tmp("repair");
  const std::string path = tmp / "pre.jsonl";
  std::string pre = R"({"t":"one"})" "\n" + std::string(64, '\0');
  write_file(path, pre);
  JsonlReader reader;
  std::vector<std::string> seen;
  auto collect = [&](simdjson::dom::element e, uint64_t) { seen.emplace_back(e["t"].get_string().value()); };
  JsonlReadResult first = reader.read(path, 0, collect);
  CHECK(first.end_offset == 12);
  pre.replace(12, 12, R"({"t":"two"})" "\n");
  replace_file(path, pre);
  JsonlReadResult second = reader.read(path, first.end_offset, collect);
  CHECK(seen == std::vector<std::string>{"one", "two"});
  CHECK(second.end_offset == 24);
  CHECK(second.bad_lines == 0);
  // An unterminated last line padded with NULs is taken, repaired.
  ReadBack tail = read_bytes(R"({"t":"one"})" "\n" + std::string("{\"t\":\"last\"}\0\0\0", 15));
  CHECK(tail.texts == std::vector<std::string>{"one", "last"});
  CHECK(tail.res.repaired_lines == 1);
  CHECK(tail.res.end_offset == 12 + 12);  // its NUL padding is left, like a NUL-only tail
  // A NUL inside a string is not touched (rule c is about padding between values).
  ReadBack in_string = read_bytes(std::string("{\"t\":\"a\0b\"}\n", 12));
  CHECK(in_string.res.repaired_lines == 0);
  if (!in_string.texts.empty()) CHECK(in_string.texts[0] == std::string("a\0b", 3));
}

TEST_CASE("repair: rule d, numbers simdjson cannot represent become strings", "[hardening][ingest][repair]") {
  TempDir tmp("repair");
  const std::string path = tmp / "n.jsonl";
  write_file(path, R"({"n":1e999,"t":"big exponent"})" "\n"
                   R"({"n":-1e999,"m":[123456789012345678901234567890, 1.5],"t":"huge int"})" "\n"
                   R"({"n":18446744073709551616,"t":"2^64"})" "\n"
                   R"({"n":1.5e308,"t":"representable"})" "\n");
  JsonlReader reader;
  std::vector<std::string> n;
  std::vector<std::string> t;
  JsonlReadResult res = reader.read(path, 0, [&](simdjson::dom::element e, uint64_t) {
    std::string_view s;
    t.emplace_back(e["t"].get_string().value());
    n.push_back(e["n"].get_string().get(s) == simdjson::SUCCESS ? std::string(s) : "<number>");
    if (t.back() == "huge int") {
      std::string_view m0;
      CHECK(e["m"].at(0).get_string().get(m0) == simdjson::SUCCESS);
      CHECK(m0 == "123456789012345678901234567890");
      double m1 = 0;
      CHECK(e["m"].at(1).get_double().get(m1) == simdjson::SUCCESS);
      CHECK(m1 == 1.5);
    }
  });
  CHECK(res.bad_lines == 0);
  CHECK(res.repaired_lines == 3);
  CHECK(t == std::vector<std::string>{"big exponent", "huge int", "2^64", "representable"});
  CHECK(n == std::vector<std::string>{"1e999", "-1e999", "18446744073709551616", "<number>"});
}

TEST_CASE("repair: lines that stay bad, and glued objects", "[hardening][ingest][repair]") {
  // Not repairable: truncated, or a defect plus a missing brace.
  ReadBack rb = read_bytes(R"({"t":"x")" "\n" R"({"t":"\ud800")" "\n" R"({"t":1e999)" "\n" R"(nonsense)" "\n");
  CHECK(rb.res.bad_lines == 4);
  CHECK(rb.res.repaired_lines == 0);
  CHECK(rb.texts.empty());
  // An invalid number grammar is not "repaired" into a string.
  ReadBack grammar = read_bytes(R"({"t":"x","n":01})" "\n");
  CHECK(grammar.res.bad_lines == 1);
  // Glued objects, one of them with a lone surrogate: both kept, the line counted once.
  ReadBack glued = read_bytes(R"({"t":"a\ud800"}{"t":"b"})" "\n");
  CHECK(glued.texts == std::vector<std::string>{"a" + kFffd, "b"});
  CHECK(glued.res.repaired_lines == 1);
  CHECK(glued.res.bad_lines == 0);
  // Every kind at once in one line.
  check_repaired(std::string("{\"n\":1e400,\"t\":\"\xFF\\ud800\"}\0\0", 27), kFffd + kFffd);
}

TEST_CASE("reader: a line above max_line_bytes is skipped and counted", "[hardening][ingest][oversized]") {
  const std::string big = R"({"t":")" + std::string(5000, 'x') + R"("})";
  // In one buffer, between two small lines.
  ReadBack rb = read_bytes(R"({"t":"a"})" "\n" + big + "\n" + R"({"t":"b"})" "\n", 1000);
  CHECK(rb.texts == std::vector<std::string>{"a", "b"});
  CHECK(rb.res.oversized_lines == 1);
  CHECK(rb.res.lines == 3);
  CHECK(rb.res.bad_lines == 0);
  // Unterminated at EOF: counted, but left for the next run (it may still be being written).
  ReadBack tail = read_bytes(R"({"t":"a"})" "\n" + big, 1000);
  CHECK(tail.texts == std::vector<std::string>{"a"});
  CHECK(tail.res.oversized_lines == 1);
  CHECK(tail.res.end_offset == 10);
}

TEST_CASE("reader: an oversized line longer than a read chunk is skipped without buffering it", "[hardening][ingest][oversized]") {
  // 20 MB of one string: more than the reader's 8 MB chunk, above a 1 MB limit.
  const std::string big = R"({"t":")" + std::string(20u << 20, 'y') + R"("})";
  ReadBack rb = read_bytes(R"({"t":"a"})" "\n" + big + "\n" + R"({"t":"b"})" "\n", 1u << 20);
  CHECK(rb.texts == std::vector<std::string>{"a", "b"});
  CHECK(rb.res.oversized_lines == 1);
  CHECK(rb.res.end_offset == 10 + big.size() + 1 + 10);
  CHECK(rb.offsets.back() == 10 + big.size() + 1);
}
