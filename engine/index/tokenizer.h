// The one tokenizer both sides use: index terms at ingest, query terms at search. Identifiers stay
// findable verbatim: besides plain words it emits whole compounds (UUIDs, toolu_ ids, paths,
// versions, kebab-ids, dotted names) and the parts of snake_case words. CJK runs become unigrams
// and bigrams. Emoji are terms of their own (see SymbolCluster). ASCII is lower-cased; other
// scripts are kept as written.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace osearch {

// Symbol: one emoji without its variation selector (a flag's two regional indicators are one).
// SymbolSequence: a whole emoji cluster with skin-tone modifiers, tags or ZWJ joins ("👍🏽",
// "👨‍👩‍👧"), at the same position as its component symbols.
enum class TermKind : uint8_t { Word, Part, Compound, CjkUnigram, CjkBigram, Symbol, SymbolSequence };

// Kinds that carry positions in prose (phrase search); the others are looked up as plain terms.
constexpr bool is_positional(TermKind k) {
  return k == TermKind::Word || k == TermKind::CjkUnigram || k == TermKind::Symbol || k == TermKind::SymbolSequence;
}

constexpr size_t kMaxWordBytes = 64;
constexpr size_t kMaxCompoundBytes = 120;

// One emoji cluster: a symbol, its variation selector (dropped), skin-tone modifier and tags, and
// further symbols joined by ZWJ. Filled by scan_symbol_cluster; reused to avoid allocations.
struct SymbolCluster {
  static constexpr size_t kMaxParts = 8;  // components indexed separately; a longer chain keeps its first 8
  size_t end = 0;                         // byte offset just past the cluster
  std::string sequence;                   // the cluster without variation selectors
  bool multi = false;                     // has modifiers, tags or ZWJ joins: `sequence` is a term too
  size_t n_parts = 0;
  struct Part {
    size_t at, len;
  } parts[kMaxParts];
};
// Scans the cluster starting at text[i], which must classify as CharClass::Symbol.
void scan_symbol_cluster(std::string_view text, size_t i, SymbolCluster& out);

class Tokenizer {
 public:
  // Calls sink(term, position, kind) for every term of `text`. Positions count words (and CJK
  // characters); parts and compounds share the position of their first word.
  template <typename Sink>
  void run(std::string_view text, Sink&& sink);

 private:
  void flush_span(std::string_view span, uint32_t& pos, auto& sink);
  void emit_path_segments(std::string_view path, uint32_t pos, auto& sink);
  std::string term_, compound_;
  SymbolCluster cluster_;
};

// Code point classes the tokenizer uses (exposed for tests and the query parser).
bool is_cjk(uint32_t cp);
// Emoji and pictographs that are plainly content (searchable as terms), skin-tone modifiers included.
bool is_symbol(uint32_t cp);
// Decodes one UTF-8 sequence at s[i]; returns its length (1 for an invalid byte, cp = 0xFFFD).
size_t decode_utf8(std::string_view s, size_t i, uint32_t& cp);

inline char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

namespace detail {
enum class CharClass : uint8_t { Word, Connector, Separator, Cjk, Symbol };
CharClass classify_multibyte(std::string_view s, size_t i, size_t& len);

// ASCII classes by table: the tokenizer's hot path never decodes UTF-8 for ASCII text.
struct AsciiClasses {
  CharClass c[128];
  constexpr AsciiClasses() : c{} {
    for (int i = 0; i < 128; ++i) {
      bool word = (i >= 'a' && i <= 'z') || (i >= 'A' && i <= 'Z') || (i >= '0' && i <= '9') || i == '_';
      bool conn = i == '-' || i == '.' || i == '/' || i == ':' || i == '@' || i == '~' || i == '+' || i == '#' ||
                  i == '\\';
      c[i] = word ? CharClass::Word : conn ? CharClass::Connector : CharClass::Separator;
    }
  }
};
inline constexpr AsciiClasses kAscii{};

inline CharClass classify(std::string_view s, size_t i, size_t& len) {
  auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    len = 1;
    return kAscii.c[c];
  }
  return classify_multibyte(s, i, len);
}
}  // namespace detail

template <typename Sink>
void Tokenizer::run(std::string_view text, Sink&& sink) {
  uint32_t pos = 0;
  size_t i = 0, span_start = std::string_view::npos;
  uint32_t prev_cjk = 0;
  size_t prev_cjk_len = 0, prev_cjk_at = 0;
  while (i < text.size()) {
    size_t len = 1;
    detail::CharClass c = detail::classify(text, i, len);
    if (c == detail::CharClass::Word || c == detail::CharClass::Connector) {
      if (span_start == std::string_view::npos) span_start = i;
      prev_cjk = 0;
    } else {
      if (span_start != std::string_view::npos) {
        flush_span(text.substr(span_start, i - span_start), pos, sink);
        span_start = std::string_view::npos;
      }
      if (c == detail::CharClass::Cjk) {
        uint32_t cp;
        decode_utf8(text, i, cp);
        sink(text.substr(i, len), pos, TermKind::CjkUnigram);
        if (prev_cjk) {
          std::string_view bigram = text.substr(prev_cjk_at, prev_cjk_len + len);
          sink(bigram, pos - 1, TermKind::CjkBigram);
        }
        ++pos;
        prev_cjk = cp;
        prev_cjk_len = len;
        prev_cjk_at = i;
      } else if (c == detail::CharClass::Symbol) {
        scan_symbol_cluster(text, i, cluster_);
        if (cluster_.multi && cluster_.sequence.size() <= kMaxCompoundBytes)
          sink(std::string_view(cluster_.sequence), pos, TermKind::SymbolSequence);
        for (size_t k = 0; k < cluster_.n_parts; ++k)
          sink(text.substr(cluster_.parts[k].at, cluster_.parts[k].len), pos, TermKind::Symbol);
        ++pos;
        len = cluster_.end - i;
        prev_cjk = 0;
      } else {
        prev_cjk = 0;
      }
    }
    i += len;
  }
  if (span_start != std::string_view::npos) flush_span(text.substr(span_start), pos, sink);
}

void Tokenizer::flush_span(std::string_view span, uint32_t& pos, auto& sink) {
  // Trim connectors at both ends ("path." at a sentence end, "--flag").
  size_t b = 0, e = span.size();
  auto is_conn = [&](size_t k) {
    size_t l;
    return detail::classify(span, k, l) == detail::CharClass::Connector;
  };
  while (b < e && is_conn(b)) ++b;
  while (e > b && is_conn(e - 1)) --e;
  if (b >= e) return;
  span = span.substr(b, e - b);

  const uint32_t first_pos = pos;
  unsigned words = 0;
  bool has_connector = false;
  size_t i = 0;
  while (i < span.size()) {
    size_t len = 1;
    detail::CharClass c = detail::classify(span, i, len);
    if (c == detail::CharClass::Connector) {
      has_connector = true;
      i += len;
      continue;
    }
    size_t w = i;
    bool has_underscore = false;
    while (i < span.size()) {
      c = detail::classify(span, i, len);
      if (c != detail::CharClass::Word) break;
      if (span[i] == '_') has_underscore = true;
      i += len;
    }
    std::string_view word = span.substr(w, i - w);
    ++words;
    if (word.size() > kMaxWordBytes) {
      ++pos;
      continue;
    }
    term_.assign(word);
    for (char& ch : term_) ch = ascii_lower(ch);
    if (term_.size() > 1 || static_cast<unsigned char>(term_[0]) >= 0x80) sink(std::string_view(term_), pos, TermKind::Word);
    if (has_underscore) {
      size_t p = 0;
      std::string_view t(term_);
      while (p < t.size()) {
        size_t q = t.find('_', p);
        if (q == std::string_view::npos) q = t.size();
        if (q - p > 1 && !(p == 0 && q == t.size())) sink(t.substr(p, q - p), pos, TermKind::Part);
        p = q + 1;
      }
    }
    ++pos;
  }
  if (has_connector && words >= 2 && span.size() <= kMaxCompoundBytes) {
    compound_.assign(span);
    for (char& ch : compound_) ch = ascii_lower(ch);
    sink(std::string_view(compound_), first_pos, TermKind::Compound);
    emit_path_segments(std::string_view(compound_), first_pos, sink);
  }
}

// Inside a path (or path:line, scheme://host), each segment that is itself an identifier
// ("keyword.cpp", "<uuid>.json") is a compound too, so a file name is found without its directories.
void Tokenizer::emit_path_segments(std::string_view path, uint32_t pos, auto& sink) {
  if (path.find_first_of("/\\:") == std::string_view::npos) return;
  size_t b = 0;
  while (b <= path.size()) {
    size_t e = path.find_first_of("/\\:", b);
    if (e == std::string_view::npos) e = path.size();
    std::string_view seg = path.substr(b, e - b);
    while (!seg.empty() && detail::kAscii.c[static_cast<unsigned char>(seg.front()) & 0x7f] == detail::CharClass::Connector &&
           static_cast<unsigned char>(seg.front()) < 0x80)
      seg.remove_prefix(1);
    while (!seg.empty() && detail::kAscii.c[static_cast<unsigned char>(seg.back()) & 0x7f] == detail::CharClass::Connector &&
           static_cast<unsigned char>(seg.back()) < 0x80)
      seg.remove_suffix(1);
    bool conn = false;
    unsigned runs = 0;
    bool in_word = false;
    for (char ch : seg) {
      auto u = static_cast<unsigned char>(ch);
      bool word = u >= 0x80 || detail::kAscii.c[u] == detail::CharClass::Word;
      if (!word) conn = true;
      if (word && !in_word) ++runs;
      in_word = word;
    }
    if (conn && runs >= 2) sink(seg, pos, TermKind::Compound);
    b = e + 1;
  }
}

}  // namespace osearch
