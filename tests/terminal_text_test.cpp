// --format text never passes terminal control sequences from transcripts through (cli/terminal_text.h),
// and JSON output escapes every control character and stays valid UTF-8.
#include "cli/terminal_text.h"

#include "cli/json_writer.h"
#include "tests/cli_input_fixture.h"

using namespace osearch;

namespace {

// No byte that a terminal acts on: C0 other than \n, DEL, C1 (as UTF-8), bidi controls.
bool terminal_inert(std::string_view s) {
    for (size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if ((c < 0x20 && c != '\n') || c == 0x7F) return false;
        if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) <= 0x9F) return false;  // C1
        for (std::string_view bidi : {"\u202A", "\u202B", "\u202C", "\u202D", "\u202E", "\u2066", "\u2067",
                                      "\u2068", "\u2069", "\u200E", "\u200F", "\u061C"})
            if (s.substr(i, bidi.size()) == bidi) return false;
    }
    return valid_utf8(s);
}

const std::string kHostileTitle = "retitle \x1b]2;pwned\x07 clear \x1b[2J\x1b[H rtl \u202Eevil\u202C csi \xC2\x9B" "31m del\x7F bell\x07 nul";

}  // namespace

TEST_CASE("terminal text: control sequences are shown escaped", "[hardening][terminal]") {
    CHECK(terminal_safe("plain text / 中文 🚀") == "plain text / 中文 🚀");
    CHECK(terminal_safe("\x1b]2;pwned\x07") == "\\x1b]2;pwned\\x07");
    CHECK(terminal_safe("\x1b[2J") == "\\x1b[2J");
    CHECK(terminal_safe(std::string_view("a\0b", 3)) == "a\\x00b");
    CHECK(terminal_safe("del\x7f") == "del\\x7f");
    CHECK(terminal_safe("c1 \xC2\x9B" "31m \xC2\x85") == "c1 \\u009b31m \\u0085");
    CHECK(terminal_safe("\u202Eevil\u202C") == "\\u202eevil\\u202c");
    for (const char* bidi : {"\u202A", "\u202B", "\u202D", "\u2066", "\u2067", "\u2068", "\u2069", "\u200E", "\u200F",
                             "\u061C"})
        CHECK(terminal_safe(bidi).rfind("\\u", 0) == 0);
    CHECK(terminal_safe("bad \xFF\xC3 end") == "bad \\xff\\xc3 end");
    CHECK(terminal_safe("\xED\xA0\x80") == "\\xed\\xa0\\x80");  // a surrogate is not UTF-8
    CHECK(terminal_safe("a\tb\nc\rd") == "a b c d");
    CHECK(terminal_safe("a\tb\nc\rd", LineBreaks::Visible) == "a\\tb\\nc\\rd");
    CHECK(terminal_safe("é ü ½ ×") == "é ü ½ ×");  // Latin-1 letters and signs are not C1
    std::string all;
    for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
    CHECK(terminal_inert(terminal_safe(all)));
    CHECK(terminal_inert(terminal_safe(kHostileTitle)));
}

TEST_CASE("terminal text: JSON escapes every control character and bidi control", "[hardening][terminal]") {
    CHECK(json_escape("\x7f") == R"("\u007f")");
    CHECK(json_escape("\xC2\x85\xC2\x9B") == R"("\u0085\u009b")");
    CHECK(json_escape("\u202Eevil\u2066") == R"("\u202eevil\u2066")");
    CHECK(json_escape("\u2028\u2029") == R"("\u2028\u2029")");
    CHECK(json_escape("\x1b]2;x\x07") == R"("\u001b]2;x\u0007")");
    const std::string e = json_escape(kHostileTitle + " \xFF");
    CHECK(terminal_inert(e));
    Json j;
    REQUIRE(try_parse(e, j));
    CHECK(j.s.find("\u202E") != std::string::npos);  // lossless: a JSON reader gets the code point back
}

TEST_CASE("terminal text: --format text shows transcript control sequences escaped", "[hardening][terminal]") {
    SmallCorpus c;
    const std::string sid = "44444444-dddd-4000-8000-000000000004";
    c.add_session("-w-\x1b[2Jproj", sid, "/tmp/\x1b]2;cwd\x07; touch owned", {kHostileTitle + " needle"});
    c.index();
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"list"}, {"keyword", "needle"}, {"content", "needle"}, {"content", "pwned"}, {"keyword", "evil"}}) {
        INFO(Catch::Detail::stringify(args));
        RunResult r = c.run(args, "text");
        INFO(r.out);
        REQUIRE(r.exit_code == 0);
        CHECK(r.out.find(sid) != std::string::npos);
        CHECK(terminal_inert(r.out));
        CHECK(r.out.find("\\x1b]2;pwned\\x07") != std::string::npos);  // shown, not acted on
        CHECK(r.out.find("\\u202e") != std::string::npos);
        CHECK(r.out.find("cd '/tmp/\\x1b]2;cwd\\x07; touch owned'") != std::string::npos);
        // JSON of the same query: valid, inert, and the text intact after decoding.
        RunResult j = c.run(args, "json");
        REQUIRE(j.exit_code == 0);
        CHECK(terminal_inert(j.out));
        Json parsed = parse(j.out);
        CHECK(parsed["results"][0]["cwd"].s == "/tmp/\x1b]2;cwd\x07; touch owned");
    }
    // Error messages quote user input: escaped on a text stderr too.
    RunResult e = c.run({"list", "--since", "\x1b]2;bad\x07"}, "text");
    CHECK(e.exit_code == 2);
    CHECK(terminal_inert(e.err));
    CHECK(e.err.find("\\x1b]2;bad\\x07") != std::string::npos);
    RunResult st = run_osearch({"--format", "text", "--index", c.idx, "--source", "claude=" + c.src + "/\x1b[2J", "status"});
    CHECK(st.exit_code == 0);
    CHECK(terminal_inert(st.out));
    CHECK(terminal_inert(st.err));
}
