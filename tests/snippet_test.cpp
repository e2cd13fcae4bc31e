#include "engine/query/snippet.h"

#include <catch2/catch.hpp>

#include "engine/query/search.h"
#include "tests/utf8_check.h"

#include <random>
#include <string>

using namespace osearch;

namespace {

const std::string kEll = "\xE2\x80\xA6";

// Independent strict decoder: length of the valid sequence at s[i], 0 if none.
size_t seq_len(std::string_view s, size_t i) {
    const auto b = static_cast<unsigned char>(s[i]);
    size_t len = b < 0x80 ? 1 : b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return 0;
    for (size_t k = 1; k < len; ++k)
        if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
    const auto b1 = static_cast<unsigned char>(len > 1 ? s[i + 1] : 0);
    if (b == 0xE0 && b1 < 0xA0) return 0;  // overlong
    if (b == 0xED && b1 > 0x9F) return 0;  // surrogate
    if (b == 0xF0 && b1 < 0x90) return 0;  // overlong
    if (b == 0xF4 && b1 > 0x8F) return 0;  // > U+10FFFF
    return len;
}

using osearch_test::code_points;
using osearch_test::kFffd;
using osearch_test::valid_utf8;

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

// Reference for "the whole text, displayed": collapse, trim, repair.
std::string collapse(std::string_view s) {
    std::string out;
    bool space = false;
    for (size_t i = 0; i < s.size();) {
        if (is_ws(s[i])) {
            space = !out.empty();
            ++i;
            continue;
        }
        if (space) out += ' ';
        space = false;
        const size_t len = seq_len(s, i);
        out += len ? std::string(s.substr(i, len)) : kFffd;
        i += len ? len : 1;
    }
    return out;
}

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }
bool ends_with(const std::string& s, const std::string& p) {
    return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

void check_shape(const std::string& snip, size_t max_chars) {
    INFO("snippet: " << snip);
    CHECK(valid_utf8(snip));
    CHECK(code_points(snip) <= max_chars);
}

std::string repeat(const std::string& s, size_t n) {
    std::string out;
    for (size_t i = 0; i < n; ++i) out += s;
    return out;
}

}  // namespace

TEST_CASE("make_snippet: short ASCII text is returned whole", "[snippet]") {
    const std::string text = "the quick brown fox";
    CHECK(make_snippet(text, 4, 9, 100) == text);
    CHECK(make_snippet(text, 4, 9, text.size()) == text);
    CHECK(make_snippet("", 0, 0, 10).empty());
    CHECK(make_snippet(text, 4, 9, 0).empty());
}

TEST_CASE("make_snippet: whitespace is collapsed and trimmed", "[snippet]") {
    CHECK(make_snippet("  \n\thello \r\n\t  world \n ", 4, 9, 80) == "hello world");
    CHECK(make_snippet("a\n\n\nb", 0, 1, 80) == "a b");
    CHECK(make_snippet(" \t \n ", 0, 1, 80).empty());
    // A whitespace run counts once toward the budget.
    CHECK(make_snippet("ab" + std::string(500, ' ') + "cd", 0, 1, 5) == "ab cd");
}

TEST_CASE("make_snippet: cuts at both ends with ellipses", "[snippet]") {
    std::string text;
    for (int i = 0; i < 100; ++i) text += "word" + std::to_string(i) + " ";
    const size_t pos = text.find("word50");
    const std::string s = make_snippet(text, pos, pos + 6, 30);
    check_shape(s, 30);
    CHECK(starts_with(s, kEll));
    CHECK(ends_with(s, kEll));
    CHECK(s.find("word50") != std::string::npos);
    // About a third before the match.
    const size_t before = code_points(s.substr(0, s.find("word50")));
    CHECK(before >= 7);
    CHECK(before <= 11);
    CHECK(code_points(s) >= 28);
}

TEST_CASE("make_snippet: match near the start or end shifts the budget", "[snippet]") {
    std::string text;
    for (int i = 0; i < 50; ++i) text += "w" + std::to_string(i) + " ";
    text.pop_back();
    const std::string head = make_snippet(text, 0, 2, 20);
    check_shape(head, 20);
    CHECK(starts_with(head, "w0 w1"));
    CHECK(ends_with(head, kEll));
    CHECK(code_points(head) == 20);

    const size_t pos = text.find("w49");
    const std::string tail = make_snippet(text, pos, pos + 3, 20);
    check_shape(tail, 20);
    CHECK(starts_with(tail, kEll));
    CHECK(ends_with(tail, "w48 w49"));
    CHECK(code_points(tail) >= 19);
}

TEST_CASE("make_snippet: empty or out-of-range match snips from the start", "[snippet]") {
    const std::string text = "alpha beta gamma delta epsilon zeta eta theta";
    for (auto [b, e] : {std::pair<size_t, size_t>{5, 5}, {10, 3}, {0, 999}, {999, 1000}}) {
        const std::string s = make_snippet(text, b, e, 12);
        check_shape(s, 12);
        CHECK(starts_with(s, "alpha beta"));
        CHECK(ends_with(s, kEll));
    }
}

TEST_CASE("make_snippet: long match is cut inside", "[snippet]") {
    const std::string text = "xx " + std::string(200, 'm') + " yy";
    const std::string s = make_snippet(text, 3, 203, 10);
    check_shape(s, 10);
    CHECK(ends_with(s, kEll));
    CHECK(s.find("mmm") != std::string::npos);
}

TEST_CASE("make_snippet: CJK and emoji at the cut points", "[snippet]") {
    const std::string cjk = repeat("中文字符", 40);  // 160 chars, 480 bytes
    for (size_t max : {1u, 2u, 3u, 5u, 10u, 31u, 100u}) {
        for (size_t off = 0; off < 12; ++off) {  // includes mid-sequence offsets
            const std::string s = make_snippet(cjk, 240 + off, 243 + off, max);
            INFO("max=" << max << " off=" << off);
            check_shape(s, max);
            if (max >= 3) CHECK(code_points(s) >= max - 1);
        }
    }
    const std::string emoji = repeat("😀 🎉x", 60);
    for (size_t max : {4u, 7u, 16u, 50u}) {
        for (size_t off = 0; off < 9; ++off) {
            const std::string s = make_snippet(emoji, 200 + off, 204 + off, max);
            INFO("max=" << max << " off=" << off);
            check_shape(s, max);
        }
    }
    // A match starting mid-character snaps back to the character.
    const std::string mixed = "abc 中文 def";
    CHECK(make_snippet(mixed, 5, 8, 100) == mixed);
    CHECK(make_snippet("中中中中中中中中中中", 16, 18, 4) == kEll + "中中" + kEll);
}

TEST_CASE("make_snippet: invalid UTF-8 becomes U+FFFD", "[snippet]") {
    CHECK(make_snippet("a\xFF" "b", 0, 1, 10) == "a" + kFffd + "b");
    CHECK(make_snippet("\xE4\xB8", 0, 1, 10) == kFffd + kFffd);         // truncated
    CHECK(make_snippet("\xC0\xAF", 0, 1, 10) == kFffd + kFffd);         // overlong
    CHECK(make_snippet("\xED\xA0\x80", 0, 1, 10) == repeat(kFffd, 3));  // surrogate
    CHECK(make_snippet("x\x80\x80\x80\x80y", 2, 3, 10) == "x" + repeat(kFffd, 4) + "y");
    const std::string junk = repeat("ab\xE4\xB8 \x80\xF0\x9F\x98", 30);
    for (size_t max : {3u, 8u, 20u}) {
        for (size_t off = 0; off < 10; ++off) check_shape(make_snippet(junk, 60 + off, 62 + off, max), max);
    }
}

TEST_CASE("make_snippet: randomized properties", "[snippet]") {
    std::mt19937 rng(12345);
    const std::vector<std::string> pieces = {"a", "b", " ", "\n", "\t\t", "中", "😀", "\x80", "\xE4\xB8", "\xFF"};
    for (int iter = 0; iter < 3000; ++iter) {
        std::string text;
        const size_t len = rng() % 60;
        for (size_t i = 0; i < len; ++i) text += pieces[rng() % pieces.size()];
        const size_t marker = text.size() ? rng() % (text.size() + 1) : 0;
        text.insert(marker, "X");  // may split a sequence: the X then stands alone
        const size_t max = rng() % 40;
        const std::string s = make_snippet(text, marker, marker + 1, max);
        const std::string full = collapse(text);
        INFO("text=" << text << " max=" << max << " snippet=" << s);
        REQUIRE(valid_utf8(s));
        REQUIRE(code_points(s) <= max);
        if (code_points(full) <= max) {
            REQUIRE(s == full);
            continue;
        }
        if (max == 0) continue;
        std::string core = s;
        const bool pre = starts_with(core, kEll), post = ends_with(core, kEll);
        if (pre) core.erase(0, kEll.size());
        if (post && core.size() >= kEll.size()) core.erase(core.size() - kEll.size());
        REQUIRE(full.find(core) != std::string::npos);
        if (!pre) REQUIRE(starts_with(full, core));
        if (!post) REQUIRE(ends_with(full, core));
        if (max >= 3) {
            REQUIRE(s.find('X') != std::string::npos);
            REQUIRE(code_points(s) + 2 >= max);  // only trimmed edge spaces go unused
        }
    }
}

TEST_CASE("find_highlights", "[snippet]") {
    using R = std::vector<std::pair<size_t, size_t>>;
    CHECK(find_highlights("Hello World hello", {"hello"}) == R{{0, 5}, {12, 17}});
    CHECK(find_highlights("FooBar", {"bar", "foo"}) == R{{0, 3}, {3, 6}});
    // Longest term wins at a position; matches never overlap.
    CHECK(find_highlights("testing tests", {"test", "testing"}) == R{{0, 7}, {8, 12}});
    CHECK(find_highlights("aaaa", {"aa"}) == R{{0, 2}, {2, 4}});
    CHECK(find_highlights("abc", {""}).empty());
    CHECK(find_highlights("", {"a"}).empty());
    CHECK(find_highlights("abc", {}).empty());
    CHECK(find_highlights("ab", {"abc"}).empty());
    // UTF-8 terms match bytewise; ASCII around them still folds.
    const std::string s = "…用户 LOGIN 失败…";
    const R r = find_highlights(s, {"login", "失败"});
    REQUIRE(r.size() == 2);
    CHECK(s.substr(r[0].first, r[0].second - r[0].first) == "LOGIN");
    CHECK(s.substr(r[1].first, r[1].second - r[1].first) == "失败");
}

TEST_CASE("find_highlights and find_first_term: folded terms mark the characters they came from", "[snippet][fold]") {
    using R = std::vector<std::pair<size_t, size_t>>;
    const std::string s = "Une ÉCOLE, la Straße, Привет!";
    const R r = find_highlights(s, {"ecole", "strasse", "привет"});
    REQUIRE(r.size() == 3);
    CHECK(s.substr(r[0].first, r[0].second - r[0].first) == "ÉCOLE");
    CHECK(s.substr(r[1].first, r[1].second - r[1].first) == "Straße");
    CHECK(s.substr(r[2].first, r[2].second - r[2].first) == "Привет");
    // A term that ends inside one folded character (ß -> ss) still marks whole characters.
    const R half = find_highlights("Straße", {"stras"});
    REQUIRE(half.size() == 1);
    CHECK(half[0] == std::pair<size_t, size_t>{0, 6});  // "Straß"
    size_t b = 0, e = 0;
    REQUIRE(find_first_term("voir le Résumé ici", {"resume"}, b, e));
    CHECK(std::string("voir le Résumé ici").substr(b, e - b) == "Résumé");
    // An identifier piece is found inside its identifier when it is nowhere else.
    REQUIRE(find_first_term("raise HTTPServerError", {"server"}, b, e));
    CHECK(b == 10);
    CHECK_FALSE(find_first_term("nothing here", {"absent"}, b, e));
}

namespace {
// The whole-text search find_first_term answered with before it folded window by window: fold
// the 1 MB prefix, take each term's first word start (else its first place), earliest term wins.
bool first_term_whole(std::string_view text, const std::vector<std::string>& terms, size_t& begin, size_t& end) {
    text = text.substr(0, size_t{1} << 20);
    const FoldedText f(text);
    size_t best = std::string::npos, best_len = 0;
    for (const auto& t : terms) {
        if (t.empty()) continue;
        size_t at = 0, inside = std::string::npos;
        while ((at = f.folded.find(t, at)) != std::string::npos) {
            if (at == 0 || !std::isalnum(static_cast<unsigned char>(f.folded[at - 1])) ||
                static_cast<unsigned char>(t[0]) >= 0x80)
                break;
            if (inside == std::string::npos) inside = at;
            ++at;
        }
        if (at == std::string::npos) at = inside;
        if (at != std::string::npos && at < best) {
            best = at;
            best_len = t.size();
        }
    }
    if (best == std::string::npos) return false;
    begin = f.from[best];
    end = f.to[best + best_len - 1];
    return true;
}
}  // namespace

TEST_CASE("find_first_term: folding window by window answers as folding the whole text", "[snippet][fold]") {
    // Pieces that fold to other lengths (ß -> ss, a dropped combining mark), bad bytes and stray
    // continuation bytes at window cuts, terms inside words and across cuts.
    const std::vector<std::string> pieces = {"a",     "b",     "ab",   "Ab",   " ",    "_",      "ß",       "e\xCC\x81",
                                             "\xC3\x89", "\x80", "\xE2\x82", "\xF0\x9F\x98\x80", "ss", "ba", "\xFF", "É"};
    const std::vector<std::string> term_pool = {"ab", "b", "ss", "ba", "e", "aba", "\xC3\xA9", "sss", "", "zz"};
    std::mt19937 rng(20261203);
    for (int round = 0; round < 4000; ++round) {
        std::string text;
        const size_t n = rng() % 40;
        for (size_t k = 0; k < n; ++k) text += pieces[rng() % pieces.size()];
        std::vector<std::string> terms;
        for (size_t k = 0, m = 1 + rng() % 3; k < m; ++k) terms.push_back(term_pool[rng() % term_pool.size()]);
        size_t b0 = 0, e0 = 0;
        const bool whole = first_term_whole(text, terms, b0, e0);
        for (size_t window : {size_t{1}, size_t{2}, size_t{3}, size_t{5}, size_t{16} << 10}) {
            size_t b = 0, e = 0;
            INFO("text '" << text << "' window " << window);
            REQUIRE(find_first_term(text, terms, b, e, window) == whole);
            if (whole) {
                CHECK(b == b0);
                CHECK(e == e0);
            }
        }
    }
    // A long text: the answer near its end, a term inside a word early on, past the 1 MB bound.
    std::string big(300000, 'x');
    big += " restart ";
    big += std::string(400000, 'y');
    big += " start ";
    size_t b = 0, e = 0;
    REQUIRE(find_first_term(big, {"start"}, b, e));
    CHECK(big.substr(b, e - b) == "start");
    CHECK(b == big.rfind("start"));
    big.insert(0, std::string(1u << 20, 'z'));
    CHECK_FALSE(find_first_term(big, {"start"}, b, e));
}
