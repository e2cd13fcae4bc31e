// Result snippets: a whitespace-collapsed, UTF-8-safe window of a message
// around a match, plus the spans a printer should highlight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace osearch {

// At most max_chars code points (ellipses included) of `text` around the byte
// range [match_begin, match_end): about a third of the budget before the
// match, the rest from the match on. Whitespace runs become one space and the
// ends are trimmed; "…" marks cut ends. Output is always valid UTF-8 (invalid
// input bytes become U+FFFD). An empty or out-of-range match snips from the
// start. Only the window is scanned, so cost is O(max_chars), not O(text).
std::string make_snippet(std::string_view text, size_t match_begin, size_t match_end,
                         size_t max_chars);

// A text in its search form (ingest/unicode_fold.h) with, for each byte of the folded text, the
// byte range of the character of `text` it came from: where a folded term sits in the original.
struct FoldedText {
    std::string folded;
    std::vector<uint32_t> from, to;  // per folded byte
    FoldedText() = default;
    explicit FoldedText(std::string_view text) { append(text, 0); }
    // Folds `piece`, which starts at byte `base` of the text, onto the end. Folding goes code point
    // by code point, so a text folded piece by piece (cut where no UTF-8 sequence spans the cut)
    // folds as it would whole.
    void append(std::string_view piece, size_t base);
};

// Sorted, non-overlapping byte ranges [first, second) of `snippet` where one
// of `terms` (in search form) occurs, case- and diacritics-insensitively. At
// each position the longest matching term wins. Empty terms are ignored.
std::vector<std::pair<size_t, size_t>> find_highlights(std::string_view snippet,
                                                       const std::vector<std::string>& terms);

}  // namespace osearch
