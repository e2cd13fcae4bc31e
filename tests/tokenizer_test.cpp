// Tokenizer (engine/index/tokenizer.h): the terms both the indexer and the query parser see.
#include "engine/index/tokenizer.h"

#include <catch2/catch.hpp>

#include "tests/tokenizer_fixture.h"
#include "tests/utf8_check.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace osearch;
using namespace osearch_test;

namespace {

// Strict UTF-8 check (no overlongs, no surrogates, nothing past U+10FFFF).
using osearch_test::valid_utf8;

}  // namespace

TEST_CASE("tokenizer: plain words are lower-cased words with increasing positions", "[tokenizer]") {
    auto t = tokenize("Hello WORLD, Mixed-Case? no: QuickFox");
    CHECK(has(t, "hello", TermKind::Word));
    CHECK(has(t, "world", TermKind::Word));
    CHECK(has(t, "quickfox", TermKind::Word));
    for (const auto& term : t) {
        INFO(term.text);
        CHECK(term.text.find_first_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") == std::string::npos);
    }
    // Word positions count words.
    auto words = tokenize("alpha beta gamma");
    REQUIRE(words.size() == 3);
    CHECK(words[0].pos + 1 == words[1].pos);
    CHECK(words[1].pos + 1 == words[2].pos);
}

TEST_CASE("tokenizer: empty and separator-only input yields no terms", "[tokenizer]") {
    CHECK(tokenize("").empty());
    CHECK(tokenize("   \t\n ,;!?()[]{}<>\"'").empty());
    CHECK(tokenize("--- ... ///").empty());
}

TEST_CASE("tokenizer: camelCase is one lower-cased word", "[tokenizer]") {
    auto t = tokenize("call stateStore.getValue() now");
    CHECK(has(t, "statestore"));
    CHECK(has(t, "getvalue"));
    CHECK(has(t, "statestore.getvalue", TermKind::Compound));
}

TEST_CASE("tokenizer: snake_case gives the whole word and its parts", "[tokenizer]") {
    auto t = tokenize("run build_index_v2 please");
    CHECK(has(t, "build_index_v2", TermKind::Word));
    CHECK(has(t, "build", TermKind::Part));
    CHECK(has(t, "index", TermKind::Part));
    CHECK(has(t, "v2", TermKind::Part));
    // Parts share the position of their word.
    uint32_t whole_pos = 0;
    for (const auto& term : t)
        if (term.text == "build_index_v2") whole_pos = term.pos;
    for (const auto& term : t)
        if (term.kind == TermKind::Part) CHECK(term.pos == whole_pos);
    // Upper-case snake (constants) lower-cased too.
    auto c = tokenize("MAX_WORD_BYTES");
    CHECK(has(c, "max_word_bytes", TermKind::Word));
    CHECK(has(c, "max", TermKind::Part));
    CHECK(has(c, "bytes", TermKind::Part));
}

TEST_CASE("tokenizer: UUIDs stay whole", "[tokenizer]") {
    auto t = tokenize("session c9117b58-37B2-42e0-942d-cea5c426128d started");
    CHECK(has(t, "c9117b58-37b2-42e0-942d-cea5c426128d", TermKind::Compound));
    CHECK(has(t, "c9117b58"));
    CHECK(has(t, "cea5c426128d"));
    CHECK(has(t, "session"));
    CHECK(has(t, "started"));
}

TEST_CASE("tokenizer: toolu_ ids stay whole (lower-cased)", "[tokenizer]") {
    auto t = tokenize("tool_use_id: toolu_01YSSAHQnxsQC5wBW4QHXLbF.");
    CHECK(has(t, "toolu_01yssahqnxsqc5wbw4qhxlbf"));
    CHECK(has(t, "toolu"));
}

TEST_CASE("tokenizer: file paths stay whole", "[tokenizer]") {
    auto t = tokenize("edited /Users/alex/workspace/cli/main.cpp and src/engine/query/keyword.cpp.");
    auto compounds = texts_of(t, TermKind::Compound);
    INFO(Catch::Detail::stringify(compounds));
    // The leading '/' may be trimmed as a connector; the path itself must be one term.
    CHECK(std::any_of(compounds.begin(), compounds.end(), [](const std::string& c) {
        return c == "/users/alex/workspace/cli/main.cpp" || c == "users/alex/workspace/cli/main.cpp";
    }));
    CHECK(has(t, "src/engine/query/keyword.cpp", TermKind::Compound));  // sentence-final '.' trimmed
    CHECK(has(t, "keyword"));
    CHECK(has(t, "cpp"));
    // Short components do not break the compound.
    auto s = tokenize("/a/b/c.cpp");
    auto sc = texts_of(s, TermKind::Compound);
    INFO(Catch::Detail::stringify(sc));
    CHECK(std::any_of(sc.begin(), sc.end(), [](const std::string& c) { return c == "/a/b/c.cpp" || c == "a/b/c.cpp"; }));
    // Windows paths too.
    auto w = tokenize(R"(D:\oh-my-posh\src\main.go)");
    auto wc = texts_of(w, TermKind::Compound);
    INFO(Catch::Detail::stringify(wc));
    CHECK(std::any_of(wc.begin(), wc.end(), [](const std::string& c) { return c.find(R"(oh-my-posh\src\main.go)") != std::string::npos; }));
}

TEST_CASE("tokenizer: version strings stay whole", "[tokenizer]") {
    auto t = tokenize("Claude Code 2.1.29, then v2.0.74.");
    CHECK(has(t, "2.1.29", TermKind::Compound));
    CHECK(has(t, "v2.0.74", TermKind::Compound));
    CHECK(has(t, "29"));
}

TEST_CASE("tokenizer: kebab-ids and dotted names stay whole", "[tokenizer]") {
    auto t = tokenize("branch alex/ent-98-move-helpgo and foo.bar.baz plus lazy-watching-pony");
    CHECK(has(t, "alex/ent-98-move-helpgo", TermKind::Compound));
    CHECK(has(t, "foo.bar.baz", TermKind::Compound));
    CHECK(has(t, "lazy-watching-pony", TermKind::Compound));
    CHECK(has(t, "watching", TermKind::Word));
    CHECK(has(t, "foo", TermKind::Word));
    CHECK(has(t, "baz", TermKind::Word));
    // Compounds share the position of their first word.
    uint32_t lazy = 99, compound = 98;
    for (const auto& term : t) {
        if (term.text == "lazy") lazy = term.pos;
        if (term.text == "lazy-watching-pony") compound = term.pos;
    }
    CHECK(lazy == compound);
}

TEST_CASE("tokenizer: leading and trailing punctuation is trimmed", "[tokenizer]") {
    auto t = tokenize("see (main.cpp), \"foo.bar\". --verbose flag: done... 2.1.29!");
    CHECK(has(t, "main.cpp", TermKind::Compound));
    CHECK(has(t, "foo.bar", TermKind::Compound));
    CHECK(has(t, "verbose", TermKind::Word));
    CHECK(has(t, "flag", TermKind::Word));
    CHECK(has(t, "done", TermKind::Word));
    CHECK(has(t, "2.1.29", TermKind::Compound));
    for (const auto& term : t) {
        INFO(term.text);
        CHECK(term.text.back() != '.');
        CHECK(term.text.back() != ':');
        CHECK(term.text.front() != '-');
        CHECK(term.text.find_first_of("(),\"!") == std::string::npos);
    }
}

TEST_CASE("tokenizer: CJK text gives unigrams and bigrams", "[tokenizer]") {
    auto t = tokenize("你好世界");
    CHECK(texts_of(t, TermKind::CjkUnigram) == std::vector<std::string>{"你", "好", "世", "界"});
    CHECK(texts_of(t, TermKind::CjkBigram) == std::vector<std::string>{"你好", "好世", "世界"});
    // Unigram positions advance one per character; a bigram sits at its first character.
    std::vector<uint32_t> upos;
    for (const auto& term : t)
        if (term.kind == TermKind::CjkUnigram) upos.push_back(term.pos);
    REQUIRE(upos.size() == 4);
    for (size_t i = 1; i < upos.size(); ++i) CHECK(upos[i] == upos[i - 1] + 1);
    for (const auto& term : t)
        if (term.text == "世界") CHECK(term.pos == upos[2]);

    // Japanese kana and Korean hangul are CJK too.
    auto j = tokenize("テスト");
    CHECK(has(j, "テス", TermKind::CjkBigram));
    auto k = tokenize("한국어");
    CHECK(has(k, "한국", TermKind::CjkBigram));
    CHECK(has(k, "어", TermKind::CjkUnigram));
}

TEST_CASE("tokenizer: CJK next to Latin splits into both", "[tokenizer]") {
    auto t = tokenize("maintain中只能维护stateStore");
    CHECK(has(t, "maintain", TermKind::Word));
    CHECK(has(t, "statestore", TermKind::Word));
    CHECK(has(t, "只能", TermKind::CjkBigram));
    CHECK(has(t, "维护", TermKind::CjkBigram));
    CHECK(has(t, "中", TermKind::CjkUnigram));
    // No bigram across the Latin word.
    CHECK_FALSE(has(t, "护s"));
    // CJK punctuation separates runs: no bigram across '，'.
    auto p = tokenize("你好，世界");
    CHECK(has(p, "你好", TermKind::CjkBigram));
    CHECK(has(p, "世界", TermKind::CjkBigram));
    CHECK_FALSE(has(p, "好世"));
    CHECK_FALSE(has(p, "好，"));
}

TEST_CASE("tokenizer: emoji and symbols separate words", "[tokenizer]") {
    auto t = tokenize("hello🎉world done✅ok a—b «quoted» x…y");
    CHECK(has(t, "hello", TermKind::Word));
    CHECK(has(t, "world", TermKind::Word));
    CHECK(has(t, "done", TermKind::Word));
    CHECK(has(t, "ok", TermKind::Word));
    CHECK(has(t, "quoted", TermKind::Word));
    // Emoji are terms of their own; punctuation is not.
    CHECK(has(t, "🎉", TermKind::Symbol));
    CHECK(has(t, "✅", TermKind::Symbol));
    for (const auto& term : t) {
        INFO(term.text);
        if (term.kind == TermKind::Symbol) continue;
        CHECK(term.text.find("🎉") == std::string::npos);
        CHECK(term.text.find("✅") == std::string::npos);
        CHECK(term.text.find("—") == std::string::npos);
        CHECK(term.text.find("…") == std::string::npos);
    }
    CHECK_FALSE(has(t, "helloworld"));
    CHECK_FALSE(has(t, "—"));
    CHECK_FALSE(has(t, "…"));
    auto p = tokenize("foo,bar;baz|qux=1 (paren)[brack]{brace}");
    for (const char* w : {"foo", "bar", "baz", "qux", "paren", "brack", "brace"}) CHECK(has(p, w, TermKind::Word));
}

TEST_CASE("tokenizer: emoji are searchable terms with positions", "[tokenizer][hardening][emoji]") {
    auto t = tokenize("ship it 🚀 now");
    REQUIRE(texts(t) == std::vector<std::string>{"ship", "it", "🚀", "now"});
    CHECK(t[2].kind == TermKind::Symbol);
    CHECK(t[2].pos == 2);
    CHECK(t[3].pos == 3);
    CHECK(texts(tokenize("🚀")) == std::vector<std::string>{"🚀"});
    CHECK(texts(tokenize("🚀🚀🔥")) == std::vector<std::string>{"🚀", "🚀", "🔥"});
    // Blocks that are plainly content: pictographs, emoticons, dingbats, misc symbols, ⭐.
    for (const char* e : {"😀", "🙂", "🤖", "🥲", "🫠", "☀", "☕", "⚡", "✨", "❌", "✔", "⭐", "🀄", "🃏", "🅰"}) {
        INFO(e);
        CHECK(texts(tokenize(e)) == std::vector<std::string>{e});
    }
    // Arrows, box drawing, punctuation and the Claude Code bullet stay separators.
    for (const char* s : {"→", "─", "│", "•", "⏺", "…", "™"}) {
        INFO(s);
        CHECK(tokenize(s).empty());
    }
}

TEST_CASE("tokenizer: emoji variation selectors, modifiers, ZWJ and flags", "[tokenizer][hardening][emoji]") {
    // A variation selector is presentation only: ❤️ and ❤ are one term.
    CHECK(texts(tokenize("\u2764\uFE0F")) == std::vector<std::string>{"❤"});
    CHECK(texts(tokenize("❤")) == std::vector<std::string>{"❤"});
    CHECK(texts(tokenize("\xEF\xB8\x8F")).empty());  // a lone selector is nothing
    // A skin tone: the toned sequence and its base, at one position.
    auto tone = tokenize("ok \U0001F44D\U0001F3FD go");
    CHECK(has(tone, "\U0001F44D\U0001F3FD", TermKind::SymbolSequence));
    CHECK(has(tone, "👍", TermKind::Symbol));
    CHECK_FALSE(has(tone, "🏽"));
    for (const auto& term : tone)
        if (term.text != "ok" && term.text != "go") CHECK(term.pos == 1);
    CHECK(tone.back().text == "go");
    CHECK(tone.back().pos == 2);
    // A ZWJ family: the whole sequence plus each member; the selector dropped from the sequence.
    auto fam = tokenize("\U0001F468\u200D\U0001F469\u200D\U0001F467");
    CHECK(has(fam, "\U0001F468\u200D\U0001F469\u200D\U0001F467", TermKind::SymbolSequence));
    for (const char* m : {"👨", "👩", "👧"}) CHECK(has(fam, m, TermKind::Symbol));
    auto rainbow = tokenize("\U0001F3F3\uFE0F\u200D\U0001F308");
    CHECK(has(rainbow, "\U0001F3F3\u200D\U0001F308", TermKind::SymbolSequence));
    // Flags: two regional indicators are one symbol.
    auto flags = tokenize("🇯🇵🇺🇸");
    CHECK(texts(flags) == std::vector<std::string>{"🇯🇵", "🇺🇸"});
    // A ZWJ before a non-emoji is a separator; the cluster ends at the emoji.
    auto tail = tokenize("🚀\u200Dabc");
    CHECK(texts(tail) == std::vector<std::string>{"🚀", "abc"});
    // A very long ZWJ chain: no sequence term over the compound limit, at most 8 parts.
    std::string chain = "🚀";
    for (int i = 0; i < 40; ++i) chain += "\u200D🚀";
    auto ch = tokenize(chain);
    CHECK(texts_of(ch, TermKind::SymbolSequence).empty());
    CHECK(texts_of(ch, TermKind::Symbol).size() == SymbolCluster::kMaxParts);
    for (const auto& term : ch) CHECK(valid_utf8(term.text));
    // Emoji next to words and CJK.
    auto mix = tokenize("部署🚀成功 deploy🎉done");
    CHECK(has(mix, "部署", TermKind::CjkBigram));
    CHECK(has(mix, "🚀", TermKind::Symbol));
    CHECK(has(mix, "成功", TermKind::CjkBigram));
    CHECK_FALSE(has(mix, "署成"));
    CHECK(has(mix, "deploy", TermKind::Word));
    CHECK(has(mix, "🎉", TermKind::Symbol));
}

TEST_CASE("tokenizer: non-ASCII letters are word characters", "[tokenizer]") {
    // ... in their search form: case and diacritics folded (issue 9).
    auto t = tokenize("naïve café Größe Привет");
    CHECK(has(t, "naive", TermKind::Word));
    CHECK(has(t, "cafe", TermKind::Word));
    CHECK(has(t, "grosse", TermKind::Word));
    CHECK(has(t, "привет", TermKind::Word));
}

TEST_CASE("tokenizer: words over 64 bytes are skipped and 64-byte words kept", "[tokenizer]") {
    const std::string w64(kMaxWordBytes, 'a');
    const std::string w65(kMaxWordBytes + 1, 'b');
    auto t = tokenize("short " + w64 + " " + w65 + " tail");
    CHECK(has(t, "short"));
    CHECK(has(t, w64));
    CHECK(has(t, "tail"));
    for (const auto& term : t) CHECK(term.text.size() <= kMaxCompoundBytes);
    CHECK_FALSE(std::any_of(t.begin(), t.end(), [](const Term& x) { return x.text.find("bbbbbbbb") != std::string::npos; }));
    // A long base64 blob yields nothing, yet the words around it keep their positions apart.
    std::string blob(500, 'Z');
    auto b = tokenize("before " + blob + " after");
    CHECK(texts(b) == std::vector<std::string>{"before", "after"});
    // Long multi-byte words count bytes, not characters.
    std::string cyr;
    for (int i = 0; i < 40; ++i) cyr += "ж";  // 80 bytes
    CHECK(tokenize(cyr).empty());
}

TEST_CASE("tokenizer: terminal escape sequences are no text", "[tokenizer]") {
    // Coloured command output (Claude Code's local command output, test runners, git --color): a CSI
    // sequence glued "1m" to the next word, so "haiku" and "pass" were not terms of it.
    CHECK(texts(tokenize("\x1b[1mhaiku\x1b[22m (claude)")) == std::vector<std::string>{"haiku", "claude"});
    CHECK(texts(tokenize("\x1b[38;2;153;153;153mclaude-sonnet\x1b[39m")) ==
          std::vector<std::string>{"claude", "sonnet", "claude-sonnet"});
    CHECK(texts(tokenize(" \x1b[32mPASS\x1b[0m src/a.test.ts")) == texts(tokenize(" PASS src/a.test.ts")));
    // Positions as if the sequences were spaces: a phrase through them holds.
    const auto plain = tokenize("tests failed: 3 of 10"), coloured = tokenize("tests \x1b[31;1mfailed\x1b[0m: 3 of 10");
    REQUIRE(plain.size() == coloured.size());
    for (size_t i = 0; i < plain.size(); ++i) CHECK(plain[i].pos == coloured[i].pos);
    // Other escapes take their next byte; an OSC keeps its payload (a hyperlink's address) as text;
    // a sequence cut at the end of the text, or ESC before a byte outside ASCII, is safe.
    CHECK(texts(tokenize("\x1b(Bword\x1b=more")) == std::vector<std::string>{"bword", "more"});
    CHECK(has(tokenize("\x1b]8;;https://example.com/x\x1b\\link\x1b]8;;\x1b\\"), "example.com"));
    CHECK(texts(tokenize("done\x1b[")) == std::vector<std::string>{"done"});
    CHECK(texts(tokenize("done\x1b[38;2")) == std::vector<std::string>{"done"});
    CHECK(texts(tokenize("\x1b\xc3\xa9t\xc3\xa9")) == std::vector<std::string>{"ete"});
    CHECK(texts(tokenize("\x1b")).empty());
}

TEST_CASE("tokenizer: invalid UTF-8 is safe", "[tokenizer]") {
    const std::vector<std::string> inputs = {
        std::string("abc\xff\xfe" "def"),
        std::string("trunc\xe4\xbd"),                 // truncated 3-byte sequence at the end
        std::string("\xe4\xbd\xa0\xe5" "x"),          // 你 then a broken lead byte
        std::string("over\xc0\xaflong"),              // overlong '/'
        std::string("surr\xed\xa0\x80gate"),          // UTF-16 surrogate
        std::string("\x80\x80\x80"),
        std::string("nul\0byte", 8),
        std::string("\xf4\x90\x80\x80" "big"),        // > U+10FFFF
    };
    for (const auto& in : inputs) {
        std::vector<Term> t;
        REQUIRE_NOTHROW(t = tokenize(in));
        for (const auto& term : t) {
            INFO(term.text);
            CHECK(!term.text.empty());
            CHECK(valid_utf8(term.text));
        }
    }
    auto t = tokenize(std::string("abc\xff\xfe" "def"));
    CHECK(has(t, "abc"));
    CHECK(has(t, "def"));
    auto c = tokenize(std::string("\xe4\xbd\xa0\xe5" "x"));
    CHECK(has(c, "你", TermKind::CjkUnigram));
}

TEST_CASE("tokenizer: decode_utf8 and is_cjk", "[tokenizer]") {
    uint32_t cp = 0;
    CHECK(decode_utf8("A", 0, cp) == 1);
    CHECK(cp == 'A');
    CHECK(decode_utf8("你", 0, cp) == 3);
    CHECK(cp == 0x4F60);
    CHECK(decode_utf8("🎉", 0, cp) == 4);
    CHECK(cp == 0x1F389);
    CHECK(decode_utf8(std::string("\xff"), 0, cp) == 1);
    CHECK(cp == 0xFFFD);
    CHECK(decode_utf8(std::string("\xe4\xbd"), 0, cp) == 1);
    CHECK(cp == 0xFFFD);
    CHECK(is_cjk(0x4F60));
    CHECK(is_cjk(0x30C6));  // テ
    CHECK(is_cjk(0xD55C));  // 한
    CHECK_FALSE(is_cjk('a'));
    CHECK_FALSE(is_cjk(0x1F389));
}

TEST_CASE("tokenizer: a long mixed transcript line tokenizes deterministically", "[tokenizer]") {
    std::string line =
        "File created successfully at: /Users/alex/workspace/cli/.github/CODEOWNERS — toolu_01YSSAHQnxsQC5wBW4QHXLbF "
        "(v2.0.74) uuid=c9117b58-37b2-42e0-942d-cea5c426128d 你好世界 🎉 snake_case_name camelCaseName";
    auto a = tokenize(line);
    auto b = tokenize(line);
    CHECK(texts(a) == texts(b));
    CHECK(has(a, "toolu_01yssahqnxsqc5wbw4qhxlbf"));
    CHECK(has(a, "c9117b58-37b2-42e0-942d-cea5c426128d", TermKind::Compound));
    CHECK(has(a, "世界", TermKind::CjkBigram));
    CHECK(has(a, "snake_case_name", TermKind::Word));
    CHECK(has(a, "camelcasename", TermKind::Word));
    CHECK(has(a, "v2.0.74", TermKind::Compound));
}
