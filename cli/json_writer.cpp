#include "cli/json_writer.h"

#include "ingest/utf8.h"

#include <cassert>
#include <charconv>
#include <cmath>

namespace osearch {
namespace {

constexpr bool is_cont(unsigned char c) { return (c & 0xC0) == 0x80; }

size_t valid_seq_len(std::string_view s, size_t pos) { return utf8_sequence(s, pos); }

// Bytes that can be copied verbatim: printable ASCII other than " and \.
constexpr bool plain(unsigned char c) { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\'; }

void append_escaped(std::string& out, std::string_view s) {
    out.push_back('"');
    size_t i = 0;
    while (i < s.size()) {
        // Copy plain runs in one go; most text is plain.
        size_t j = i;
        while (j < s.size() && plain(static_cast<unsigned char>(s[j]))) ++j;
        out.append(s.data() + i, j - i);
        if (j == s.size()) break;
        i = j;
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) {
            if (const size_t len = valid_seq_len(s, i); len != 0) {
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
            default: {
                constexpr char kHex[] = "0123456789abcdef";
                const char esc[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
                out.append(esc, sizeof esc);
            }
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

void JsonWriter::before_value() {
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
