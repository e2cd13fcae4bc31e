#include "cli/json_writer.h"

#include <catch2/catch.hpp>

#include "tests/utf8_check.h"

#include <cmath>
#include <limits>
#include <random>

using namespace osearch;

namespace {

// Every byte sequence must be well-formed UTF-8 (no overlongs/surrogates).
using osearch_test::valid_utf8;

std::string num(double v) {
    JsonWriter w;
    w.value(v);
    return w.take();
}

}  // namespace

TEST_CASE("JsonWriter: nesting and commas", "[json]") {
    JsonWriter w;
    w.begin_object();
    w.key("a");
    w.value(1);
    w.key("b");
    w.begin_array();
    w.value("x");
    w.begin_object();
    w.end_object();
    w.begin_array();
    w.end_array();
    w.null();
    w.value(true);
    w.value(false);
    w.end_array();
    w.key("c");
    w.begin_object();
    w.key("d");
    w.begin_array();
    w.begin_array();
    w.value(2);
    w.end_array();
    w.end_array();
    w.key("e");
    w.value("");
    w.end_object();
    w.end_object();
    CHECK(w.str() == R"({"a":1,"b":["x",{},[],null,true,false],"c":{"d":[[2]],"e":""}})");
}

TEST_CASE("JsonWriter: empty containers and top-level scalars", "[json]") {
    JsonWriter w;
    w.begin_array();
    w.end_array();
    CHECK(w.take() == "[]");
    w.begin_object();
    w.end_object();
    CHECK(w.take() == "{}");
    w.value("s");
    CHECK(w.take() == "\"s\"");
    CHECK(w.str().empty());
}

TEST_CASE("JsonWriter: successive top-level values are JSON Lines", "[json]") {
    JsonWriter w;
    for (int i = 0; i < 3; ++i) {
        w.begin_object();
        w.key("i");
        w.value(i);
        w.end_object();
    }
    CHECK(w.str() == "{\"i\":0}\n{\"i\":1}\n{\"i\":2}");
    const std::string taken = w.take();
    CHECK(taken == "{\"i\":0}\n{\"i\":1}\n{\"i\":2}");
    // take() resets: no leading newline on reuse.
    w.value(7);
    CHECK(w.str() == "7");
}

TEST_CASE("json_escape: RFC 8259 escapes", "[json]") {
    CHECK(json_escape("") == R"("")");
    CHECK(json_escape("plain text / slash") == R"("plain text / slash")");
    CHECK(json_escape("say \"hi\"") == R"("say \"hi\"")");
    CHECK(json_escape("C:\\path") == R"("C:\\path")");
    CHECK(json_escape("a\nb\tc\rd\be\ff") == R"("a\nb\tc\rd\be\ff")");
    CHECK(json_escape(std::string_view("\0", 1)) == R"("\u0000")");
    CHECK(json_escape("\x01\x1f\x1b[31m") == R"("\u0001\u001f\u001b[31m")");
    CHECK(json_escape("\x7f") == R"("\u007f")");  // legal raw, but a control character: escaped
    JsonWriter w;
    w.begin_object();
    w.key("k\"ey\n");
    w.value("v\\");
    w.end_object();
    CHECK(w.str() == R"({"k\"ey\n":"v\\"})");
}

TEST_CASE("json_escape: valid multibyte UTF-8 passes through", "[json]") {
    CHECK(json_escape("用户登录失败") == "\"用户登录失败\"");
    CHECK(json_escape("ok 😀🎉 é") == "\"ok 😀🎉 é\"");
    CHECK(json_escape("\xF4\x8F\xBF\xBF") == "\"\xF4\x8F\xBF\xBF\"");  // U+10FFFF
    CHECK(json_escape("\xE2\x80\xA8") == R"("\u2028")");  // valid raw, but JavaScript reads it as a line break
}

TEST_CASE("json_escape: invalid UTF-8 becomes U+FFFD", "[json]") {
    const std::string r = "\xEF\xBF\xBD";
    CHECK(json_escape("a\xFF" "b") == "\"a" + r + "b\"");
    CHECK(json_escape("\x80") == "\"" + r + "\"");                   // stray continuation
    CHECK(json_escape("\xE4\xB8") == "\"" + r + r + "\"");           // truncated at end
    CHECK(json_escape("\xE4\xB8x") == "\"" + r + r + "x\"");         // truncated mid-string
    CHECK(json_escape("\xC0\xAF") == "\"" + r + r + "\"");           // overlong '/'
    CHECK(json_escape("\xED\xA0\x80") == "\"" + r + r + r + "\"");   // surrogate
    CHECK(json_escape("\xF4\x90\x80\x80") == "\"" + r + r + r + r + "\"");  // > U+10FFFF
    CHECK(json_escape("\xF0\x9F\x98") == "\"" + r + r + r + "\"");   // cut emoji
    CHECK(json_escape("中\xFF文") == "\"中" + r + "文\"");
}

TEST_CASE("json_escape: random bytes always give valid, control-free output", "[json]") {
    std::mt19937 rng(7);
    for (int iter = 0; iter < 2000; ++iter) {
        std::string s(rng() % 40, '\0');
        for (char& c : s) c = static_cast<char>(rng() % 256);
        const std::string e = json_escape(s);
        REQUIRE(valid_utf8(e));
        REQUIRE(e.size() >= 2);
        REQUIRE(e.front() == '"');
        REQUIRE(e.back() == '"');
        for (unsigned char c : e) REQUIRE(c >= 0x20);
    }
}

TEST_CASE("JsonWriter: integers", "[json]") {
    JsonWriter w;
    w.begin_array();
    w.value(0);
    w.value(-42);
    w.value(std::numeric_limits<int64_t>::min());
    w.value(std::numeric_limits<int64_t>::max());
    w.value(std::numeric_limits<uint64_t>::max());
    w.value(size_t{12});
    w.end_array();
    CHECK(w.str() == "[0,-42,-9223372036854775808,9223372036854775807,18446744073709551615,12]");
}

TEST_CASE("JsonWriter: doubles", "[json]") {
    CHECK(num(2.4) == "2.4");
    CHECK(num(12.75) == "12.75");
    CHECK(num(0.0) == "0");
    CHECK(num(-0.0) == "0");
    CHECK(num(-0.0001) == "0");
    CHECK(num(3.0) == "3");
    CHECK(num(1.23456) == "1.235");
    CHECK(num(-7.5) == "-7.5");
    CHECK(num(100.0) == "100");
    CHECK(num(0.001) == "0.001");
    CHECK(num(1e15) == "1000000000000000");
    CHECK(num(std::numeric_limits<double>::max()).size() == 309);
    CHECK(num(std::nan("")) == "null");
    CHECK(num(std::numeric_limits<double>::infinity()) == "null");
    CHECK(num(-std::numeric_limits<double>::infinity()) == "null");
}

TEST_CASE("JsonWriter: value overloads pick the right type", "[json]") {
    JsonWriter w;
    w.begin_array();
    w.value("literal");  // must not become true
    w.value(static_cast<const char*>(nullptr));
    w.value(std::string("str"));
    w.value(true);
    w.value(1.5);
    w.end_array();
    CHECK(w.str() == R"(["literal",null,"str",true,1.5])");
}

TEST_CASE("json_escape: a byte to escape at every place of a long plain run", "[json]") {
    // The plain runs are scanned sixteen bytes at a time: every offset around and across the blocks.
    const std::vector<std::pair<std::string, std::string>> specials = {
        {"\"", "\\\""}, {"\\", "\\\\"}, {"\n", "\\n"}, {"\x7f", "\\u007f"}, {"\x01", "\\u0001"},
        {"\x1f", "\\u001f"}, {"é", "é"}, {"\xE2\x80\xA8", "\\u2028"}, {"\xFF", "\xEF\xBF\xBD"}};
    for (size_t len : {0, 1, 15, 16, 17, 31, 32, 33, 47, 70})
        for (size_t at = 0; at <= len; ++at)
            for (const auto& [raw, escaped] : specials) {
                std::string plain_text;
                for (size_t i = 0; i < len; ++i) plain_text.push_back(static_cast<char>('a' + i % 26));
                const std::string in = plain_text.substr(0, at) + raw + plain_text.substr(at);
                INFO("length " << len << ", at " << at);
                CHECK(json_escape(in) == "\"" + plain_text.substr(0, at) + escaped + plain_text.substr(at) + "\"");
            }
}
