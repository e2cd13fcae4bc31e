// Helpers for building a document's term list fast: the indexer meets ~15 million term
// occurrences per 500 MB of transcripts, so per-occurrence allocations show up in profiles.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace osearch {

// A hash for short terms, inlined: std::hash (murmur, out of line) was 7 % of tokenizing and counting.
// Eight bytes at a time, each mixed by a multiply and a shift; the length seeds it.
inline uint64_t term_hash(std::string_view s) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ s.size();
  const char* p = s.data();
  size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
  }
  uint64_t tail = 0;
  for (size_t k = 0; k < n; ++k) tail |= static_cast<uint64_t>(static_cast<unsigned char>(p[k])) << (8 * k);
  h = (h ^ tail) * 0x94d049bb133111ebull;
  return h ^ (h >> 29);
}

// Counts distinct terms (wdf) with one open-addressing table and one byte arena, both reused from
// document to document: no allocation per term once warmed up.
class TermCounter {
 public:
  void clear() {
    for (const auto& e : entries_) slots_[e.slot] = 0;
    entries_.clear();
    arena_.clear();
  }

  void add(std::string_view term) {
    if (slots_.empty()) slots_.assign(1024, 0);
    const size_t h = term_hash(term);
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      uint32_t at = slots_[i];
      if (at == 0) {
        entries_.push_back({static_cast<uint32_t>(arena_.size()), static_cast<uint32_t>(term.size()), 1,
                            static_cast<uint32_t>(i), h});
        arena_.append(term);
        slots_[i] = static_cast<uint32_t>(entries_.size());
        if (entries_.size() * 2 > slots_.size()) grow();
        return;
      }
      Entry& e = entries_[at - 1];
      if (e.hash == h && e.len == term.size() && std::string_view(arena_).substr(e.off, e.len) == term) {
        ++e.count;
        return;
      }
    }
  }

  // f(term, count) for every distinct term, in first-seen order.
  template <typename F>
  void for_each(F&& f) const {
    for (const auto& e : entries_) f(std::string_view(arena_).substr(e.off, e.len), e.count);
  }
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    uint32_t off, len, count, slot;
    size_t hash;
  };
  void grow() {
    slots_.assign(slots_.size() * 2, 0);
    const size_t mask = slots_.size() - 1;
    for (size_t k = 0; k < entries_.size(); ++k) {
      size_t i = entries_[k].hash & mask;
      while (slots_[i] != 0) i = (i + 1) & mask;
      slots_[i] = static_cast<uint32_t>(k + 1);
      entries_[k].slot = static_cast<uint32_t>(i);
    }
  }
  std::string arena_;
  std::vector<Entry> entries_;
  std::vector<uint32_t> slots_;  // entry index + 1; 0 = empty
};

// Claude Code's Read tool prefixes every line of a file with its number and an arrow
// ("    12→code"). Those gutters are presentation, not content: they would add a posting per line
// number to every file read (~14 % of all postings). Returns `text` with them blanked out (same
// length, so nothing else moves), or `text` itself when it has none.
inline std::string_view blank_line_number_gutters(std::string_view text, std::string& scratch) {
  static constexpr std::string_view kArrow = "\xe2\x86\x92";  // U+2192
  if (text.find(kArrow) == std::string_view::npos) return text;
  scratch.assign(text);
  size_t line = 0;
  while (line < scratch.size()) {
    size_t i = line;
    while (i < scratch.size() && scratch[i] == ' ') ++i;
    size_t digits = i;
    while (i < scratch.size() && scratch[i] >= '0' && scratch[i] <= '9') ++i;
    if (i > digits && std::string_view(scratch).substr(i, kArrow.size()) == kArrow)
      scratch.replace(line, i + kArrow.size() - line, i + kArrow.size() - line, ' ');
    size_t nl = scratch.find('\n', line);
    if (nl == std::string::npos) break;
    line = nl + 1;
  }
  return scratch;
}

}  // namespace osearch
