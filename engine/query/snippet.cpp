#include "engine/query/snippet.h"

#include "engine/index/tokenizer.h"
#include "ingest/unicode_fold.h"
#include "ingest/utf8.h"

#include <algorithm>
#include <cstdint>

namespace osearch {
namespace {

constexpr std::string_view kEllipsis = "\xE2\x80\xA6";     // U+2026
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

constexpr bool is_ws(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

constexpr bool is_cont(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

size_t valid_seq_len(std::string_view s, size_t pos) { return utf8_sequence(s, pos); }

// One "character" when walking forward: a valid sequence or a single bad byte.
size_t char_len(std::string_view t, size_t pos) { return std::max<size_t>(1, valid_seq_len(t, pos)); }

// Start of the character containing byte pos, consistent with walking forward
// from 0 with char_len (a non-continuation byte always starts a character, so
// looking back at most 3 bytes is enough).
size_t char_start_containing(std::string_view t, size_t pos) {
    const size_t lo = pos >= 3 ? pos - 3 : 0;
    for (size_t j = pos + 1; j-- > lo;) {
        if (!is_cont(t[j])) {
            const size_t len = valid_seq_len(t, j);
            return len != 0 && j + len > pos ? j : pos;
        }
    }
    return pos;
}

// Display units: each character is one, each whitespace run is one (it
// collapses to a space), and a run touching either end of text is none (it
// gets trimmed).
struct Scan {
    size_t units;
    size_t pos;
};

Scan scan_back(std::string_view t, size_t pos, size_t limit) {
    size_t units = 0;
    while (pos > 0 && units < limit) {
        const size_t p = char_start_containing(t, pos - 1);
        if (is_ws(t[p])) {
            size_t q = p;
            while (q > 0 && is_ws(t[q - 1])) --q;
            if (q == 0) return {units, 0};
            pos = q;
        } else {
            pos = p;
        }
        ++units;
    }
    return {units, pos};
}

Scan scan_fwd(std::string_view t, size_t pos, size_t limit) {
    const size_t n = t.size();
    if (pos == 0)
        while (pos < n && is_ws(t[pos])) ++pos;
    size_t units = 0;
    while (pos < n && units < limit) {
        if (is_ws(t[pos])) {
            size_t q = pos;
            while (q < n && is_ws(t[q])) ++q;
            if (q == n) return {units, n};
            pos = q;
        } else {
            pos += char_len(t, pos);
        }
        ++units;
    }
    return {units, pos};
}

std::string render(std::string_view t, size_t begin, size_t end, bool pre, bool post) {
    std::string out;
    out.reserve(end - begin + 2 * kEllipsis.size());
    if (pre) out.append(kEllipsis);
    bool any = false, space = false;
    for (size_t pos = begin; pos < end;) {
        if (is_ws(t[pos])) {
            space = any;  // only between content: leading runs vanish
            ++pos;
            continue;
        }
        if (space) {
            out.push_back(' ');
            space = false;
        }
        if (const size_t len = valid_seq_len(t, pos); len != 0) {
            out.append(t.substr(pos, len));
            pos += len;
        } else {
            out.append(kReplacement);
            ++pos;
        }
        any = true;
    }
    if (post) out.append(kEllipsis);
    return out;
}

bool iequals_at(std::string_view s, size_t pos, std::string_view term) {
    if (term.size() > s.size() - pos) return false;
    for (size_t i = 0; i < term.size(); ++i)
        if (ascii_lower(s[pos + i]) != ascii_lower(term[i])) return false;
    return true;
}

}  // namespace

std::string make_snippet(std::string_view text, size_t match_begin, size_t match_end, size_t max_chars) {
    const size_t n = text.size();
    if (max_chars == 0 || n == 0) return {};
    size_t mb = 0;
    if (match_begin < match_end && match_end <= n) {
        mb = char_start_containing(text, match_begin);
        // Start a match that begins in whitespace at its run, so the run is
        // counted once, on the "after" side.
        if (is_ws(text[mb]))
            while (mb > 0 && is_ws(text[mb - 1])) --mb;
    }

    // Units can't exceed bytes, so clamping keeps M + 1 from overflowing.
    const size_t M = std::min(max_chars, n + 1);
    const size_t avail_before = scan_back(text, mb, M + 1).units;
    const size_t avail_after = scan_fwd(text, mb, M + 1).units;
    if (avail_before + avail_after <= M) return render(text, 0, n, false, false);

    // Reserve ellipses as cuts become known; flags only turn on, so this
    // settles within three rounds.
    bool pre = false, post = false;
    size_t before = 0, after = 0;
    for (;;) {
        const size_t ell = size_t{pre} + size_t{post};
        if (ell >= M) return std::string(kEllipsis);  // no room for any content
        const size_t content = M - ell;
        before = std::min(avail_before, content / 3);
        after = content - before;
        if (after > avail_after) {
            after = avail_after;
            before = std::min(avail_before, content - after);
        }
        const bool need_pre = before < avail_before, need_post = after < avail_after;
        if ((need_pre && !pre) || (need_post && !post)) {
            pre = pre || need_pre;
            post = post || need_post;
            continue;
        }
        break;
    }
    const size_t begin = scan_back(text, mb, before).pos;
    const size_t end = scan_fwd(text, mb, after).pos;
    return render(text, begin, end, before < avail_before, after < avail_after);
}

void FoldedText::append(std::string_view piece, size_t base) {
    folded.reserve(folded.size() + piece.size());
    from.reserve(folded.capacity());
    to.reserve(folded.capacity());
    for (size_t i = 0; i < piece.size();) {
        const auto at = static_cast<uint32_t>(base + i);
        if (static_cast<unsigned char>(piece[i]) < 0x80) {  // most text: one byte, one byte
            folded.push_back(ascii_lower(piece[i]));
            from.push_back(at);
            to.push_back(at + 1);
            ++i;
            continue;
        }
        uint32_t cp = 0;
        size_t len = utf8_sequence(piece, i, &cp);
        if (len == 0) {
            folded.push_back(piece[i]);  // a bad byte stands for itself
            len = 1;
        } else {
            append_folded(cp, folded);
        }
        from.resize(folded.size(), at);
        to.resize(folded.size(), static_cast<uint32_t>(at + len));
        i += len;
    }
}

namespace {
// Highlights in a text already in search form (ASCII case aside).
std::vector<std::pair<size_t, size_t>> find_in_folded(std::string_view snippet, const std::vector<std::string>& terms) {
    std::vector<std::pair<size_t, size_t>> out;
    for (size_t i = 0; i < snippet.size();) {
        size_t best = 0;
        for (const std::string& term : terms)
            if (term.size() > best && iequals_at(snippet, i, term)) best = term.size();
        if (best != 0) {
            out.emplace_back(i, i + best);
            i += best;
        } else {
            ++i;
        }
    }
    return out;
}
}  // namespace

std::vector<std::pair<size_t, size_t>> find_highlights(std::string_view snippet,
                                                       const std::vector<std::string>& terms) {
    bool ascii = true;
    for (char c : snippet) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
    if (ascii) return find_in_folded(snippet, terms);
    // Match in the folded text, then map each hit back to the characters it came from.
    std::vector<std::pair<size_t, size_t>> out;
    {
        const FoldedText f(snippet);
        for (auto [b, e] : find_in_folded(f.folded, terms)) {
            size_t ob = f.from[b], oe = f.to[e - 1];
            if (!out.empty() && ob < out.back().second) continue;  // two hits inside one folded character
            out.emplace_back(ob, oe);
        }
    }
    return out;
}

}  // namespace osearch
