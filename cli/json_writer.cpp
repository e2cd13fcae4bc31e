#include "cli/json_writer.h"

#include "ingest/utf8.h"

#include <cassert>
#include <charconv>
#include <cmath>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace osearch {
namespace {

// Bytes that can be copied verbatim: printable ASCII other than " and \ (DEL is escaped too).
constexpr bool plain(unsigned char c) { return c >= 0x20 && c < 0x7F && c != '"' && c != '\\'; }

// The end of the run of plain bytes of `s` from `i`. Sixteen bytes at a time where SSE2 is there (all
// of x86-64): a `thread` answer is megabytes of mostly plain text, and the byte loop was 17 % of it.
size_t plain_run_end(std::string_view s, size_t i) {
#if defined(__SSE2__)
    const __m128i space = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7F);
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    for (; i + 16 <= s.size(); i += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
        // Signed: bytes >= 0x80 are negative, so "less than space" takes them with the controls.
        const __m128i special = _mm_or_si128(_mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, del)),
                                             _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
        if (const int mask = _mm_movemask_epi8(special); mask != 0) return i + static_cast<size_t>(__builtin_ctz(mask));
    }
#endif
    while (i < s.size() && plain(static_cast<unsigned char>(s[i]))) ++i;
    return i;
}

// Code points written as \uXXXX though JSON allows them raw: C1 controls, bidi controls and
// U+2028/U+2029, so JSON shown on a terminal or pasted into JavaScript cannot be re-read as
// something else. Lossless: a JSON reader gets the same code point back.
constexpr bool escape_anyway(uint32_t cp) {
    return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
           (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

void append_u_escape(std::string& out, uint32_t cp) {
    constexpr char kHex[] = "0123456789abcdef";
    const char esc[] = {'\\', 'u', kHex[(cp >> 12) & 0xF], kHex[(cp >> 8) & 0xF], kHex[(cp >> 4) & 0xF], kHex[cp & 0xF]};
    out.append(esc, sizeof esc);
}

void append_escaped(std::string& out, std::string_view s) {
    out.push_back('"');
    size_t i = 0;
    while (i < s.size()) {
        // Copy plain runs in one go; most text is plain.
        const size_t j = plain_run_end(s, i);
        out.append(s.data() + i, j - i);
        if (j == s.size()) break;
        i = j;
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) {
            uint32_t cp = 0;
            if (const size_t len = utf8_sequence(s, i, &cp); len != 0) {
                if (escape_anyway(cp))
                    append_u_escape(out, cp);
                else
                    out.append(s.data() + i, len);
                i += len;
            } else {
                out.append("\xEF\xBF\xBD");  // U+FFFD
                ++i;
            }
            continue;
        }
        switch (c) {
            case '"': out.append("\\\""); break;
            case '\\': out.append("\\\\"); break;
            case '\n': out.append("\\n"); break;
            case '\t': out.append("\\t"); break;
            case '\r': out.append("\\r"); break;
            case '\b': out.append("\\b"); break;
            case '\f': out.append("\\f"); break;
            default: append_u_escape(out, c);
        }
        ++i;
    }
    out.push_back('"');
}

template <typename Int>
void append_int(std::string& out, Int v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

}  // namespace

void JsonWriter::flush_to(std::function<void(std::string_view)> sink, size_t bytes) {
    sink_ = std::move(sink);
    flush_bytes_ = bytes;
}

void JsonWriter::before_value() {
    if (sink_ && out_.size() >= flush_bytes_) {
        sink_(out_);
        out_.clear();
    }
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (stack_.empty()) {
        if (wrote_top_level_) out_.push_back('\n');
        wrote_top_level_ = true;
        return;
    }
    Frame& f = stack_.back();
    assert(!f.object && "JsonWriter: value inside an object needs key() first");
    if (!f.first) out_.push_back(',');
    f.first = false;
}

void JsonWriter::begin_object() {
    before_value();
    out_.push_back('{');
    stack_.push_back({true, true});
}

void JsonWriter::end_object() {
    assert(!stack_.empty() && stack_.back().object && !after_key_);
    stack_.pop_back();
    out_.push_back('}');
}

void JsonWriter::begin_array() {
    before_value();
    out_.push_back('[');
    stack_.push_back({false, true});
}

void JsonWriter::end_array() {
    assert(!stack_.empty() && !stack_.back().object);
    stack_.pop_back();
    out_.push_back(']');
}

void JsonWriter::key(std::string_view k) {
    assert(!stack_.empty() && stack_.back().object && !after_key_);
    Frame& f = stack_.back();
    if (!f.first) out_.push_back(',');
    f.first = false;
    append_escaped(out_, k);
    out_.push_back(':');
    after_key_ = true;
}

void JsonWriter::value(std::string_view s) {
    before_value();
    append_escaped(out_, s);
}

void JsonWriter::value(const char* s) {
    if (s == nullptr) return null();
    value(std::string_view(s));
}

void JsonWriter::value(int64_t v) {
    before_value();
    append_int(out_, v);
}

void JsonWriter::value(uint64_t v) {
    before_value();
    append_int(out_, v);
}

void JsonWriter::value(int v) { value(static_cast<int64_t>(v)); }

void JsonWriter::value(double v) {
    if (!std::isfinite(v)) return null();  // JSON has no NaN/Infinity
    before_value();
    // to_chars is locale-independent, unlike printf's "%.3f".
    char buf[400];  // DBL_MAX in fixed notation is 309 digits + ".000"
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 3);
    std::string_view t(buf, static_cast<size_t>(r.ptr - buf));
    if (t.find('.') != std::string_view::npos) {
        while (t.back() == '0') t.remove_suffix(1);
        if (t.back() == '.') t.remove_suffix(1);
    }
    if (t == "-0") t = "0";  // -0.0 and tiny negatives round to zero
    out_.append(t);
}

void JsonWriter::value(bool v) {
    before_value();
    out_.append(v ? "true" : "false");
}

void JsonWriter::null() {
    before_value();
    out_.append("null");
}

std::string JsonWriter::take() {
    assert(stack_.empty() && !after_key_);
    std::string result = std::move(out_);
    out_.clear();  // moved-from string is valid but unspecified
    stack_.clear();
    after_key_ = false;
    wrote_top_level_ = false;
    return result;
}

std::string json_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    append_escaped(out, s);
    return out;
}

}  // namespace osearch
