// The one tokenizer both sides use: index terms at ingest, query terms at search. Identifiers stay
// findable verbatim: besides plain words it emits whole compounds (UUIDs, toolu_ ids, paths,
// versions, kebab-ids, dotted names) and the parts of identifiers (snake_case and camelCase pieces,
// a name without its leading/trailing underscores), so `badge` finds getFileTypeBadge and
// `csrf_token` finds _csrf_token. CJK runs become unigrams and bigrams. Emoji are terms of their own
// (see SymbolCluster). Every term is in its search form: case and diacritics folded (search_form).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace osearch {

// Symbol: one emoji without its variation selector (a flag's two regional indicators are one).
// SymbolSequence: a whole emoji cluster with skin-tone modifiers, tags or ZWJ joins ("👍🏽",
// "👨‍👩‍👧"), at the same position as its component symbols.
// Gap: a word that gives no term (one character, or over kMaxWordBytes), in its search form; only a
// Tokenizer made to report gaps emits it (a phrase's check compares what fills its gaps).
enum class TermKind : uint8_t { Word, Part, Compound, CjkUnigram, CjkBigram, Symbol, SymbolSequence, Gap };

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
  Tokenizer() = default;
  // With `report_gaps`, a word that gives no term is given to the sink as a Gap at its position.
  explicit Tokenizer(bool report_gaps) : report_gaps_(report_gaps) {}
  // Calls sink(term, position, kind) for every term of `text`. Positions count words (and CJK
  // characters); parts and compounds share the position of their first word. Returns the number of
  // positions: a word that gives no term (one character, or over kMaxWordBytes) takes one too.
  template <typename Sink>
  uint32_t run(std::string_view text, Sink&& sink);

 private:
  void flush_span(std::string_view span, uint32_t& pos, auto& sink);
  void emit_parts(std::string_view word, std::string_view folded, uint32_t pos, auto& sink);
  void emit_path_segments(std::string_view path, uint32_t pos, auto& sink);
  std::string term_, compound_, unversioned_;
  SymbolCluster cluster_;
  bool report_gaps_ = false;
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
inline bool is_ascii(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

// The search form of a word or compound, into `out`: ASCII lower-cased; other scripts case- and
// diacritics-folded (ingest/unicode_fold.h), so École, ÉCOLE and ecole are one term.
void search_form(std::string_view word, std::string& out);
inline std::string search_form(std::string_view word) {
  std::string out;
  search_form(word, out);
  return out;
}

// The pieces of an identifier as written, lower-cased: its snake_case segments, the camelCase
// pieces of each ("HTTPServerError" -> http server error, "utf8Decode" -> utf8 decode) and the runs
// of adjacent camel pieces (servererror, httpserver); pieces of one character dropped, the whole
// word never repeated. Calls piece(view) for each. ASCII words only (a word with other scripts is
// split at underscores alone).
template <typename F>
void for_each_identifier_piece(std::string_view word, F&& piece);

namespace detail {
enum class CharClass : uint8_t { Word, Connector, Separator, Cjk, Symbol };
CharClass classify_multibyte(std::string_view s, size_t i, size_t& len);

// ASCII classes by table: the tokenizer's hot path never decodes UTF-8 for ASCII text.
struct AsciiClasses {
  CharClass c[128];
  bool span[256];  // an ASCII word or connector byte: part of a span
  constexpr AsciiClasses() : c{}, span{} {
    for (int i = 0; i < 128; ++i) {
      bool word = (i >= 'a' && i <= 'z') || (i >= 'A' && i <= 'Z') || (i >= '0' && i <= '9') || i == '_';
      bool conn = i == '-' || i == '.' || i == '/' || i == ':' || i == '@' || i == '~' || i == '+' || i == '#' ||
                  i == '\\';
      c[i] = word ? CharClass::Word : conn ? CharClass::Connector : CharClass::Separator;
      span[i] = word || conn;
    }
  }
  constexpr bool in_span(char ch) const { return span[static_cast<unsigned char>(ch)]; }
};
inline constexpr AsciiClasses kAscii{};

// A terminal escape sequence at s[i] (ESC), which is no text: a CSI sequence ("ESC [" parameters,
// intermediates and a final byte: colours, cursor moves), else ESC and the byte after it (an OSC
// "ESC ]" keeps its payload as text: a hyperlink's address). Its length: all separators, so
// "\x1b[1mhaiku" is the word haiku, not "1mhaiku".
inline size_t escape_length(std::string_view s, size_t i) {
  size_t j = i + 1;
  if (j >= s.size() || static_cast<unsigned char>(s[j]) >= 0x80) return 1;
  if (s[j] != '[') return 2;
  ++j;
  while (j < s.size() && s[j] >= 0x30 && s[j] <= 0x3f) ++j;
  while (j < s.size() && s[j] >= 0x20 && s[j] <= 0x2f) ++j;
  if (j < s.size() && s[j] >= 0x40 && s[j] <= 0x7e) ++j;
  return j - i;
}

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
uint32_t Tokenizer::run(std::string_view text, Sink&& sink) {
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
      // The rest of an ASCII run in one tight loop (most text is ASCII).
      i += len;
      while (i < text.size() && detail::kAscii.in_span(text[i])) ++i;
      continue;
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
        if (text[i] == '\x1b') len = detail::escape_length(text, i);
      }
    }
    i += len;
  }
  if (span_start != std::string_view::npos) flush_span(text.substr(span_start), pos, sink);
  return pos;
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
    bool has_underscore = false, has_inner_upper = false, ascii = true;
    while (i < span.size()) {
      c = detail::classify(span, i, len);
      if (c != detail::CharClass::Word) break;
      if (span[i] == '_') has_underscore = true;
      if (i > w && span[i] >= 'A' && span[i] <= 'Z') has_inner_upper = true;
      ascii &= len == 1;
      i += len;
    }
    std::string_view word = span.substr(w, i - w);
    ++words;
    if (word.size() > kMaxWordBytes) {
      if (report_gaps_) {
        search_form(word, term_);
        sink(std::string_view(term_), pos, TermKind::Gap);
      }
      ++pos;
      continue;
    }
    // An ASCII word in lower case is its own search form (most words): no copy, no fold.
    std::string_view folded = word;
    if (!ascii || has_inner_upper || (word[0] >= 'A' && word[0] <= 'Z')) {
      search_form(word, term_);
      folded = term_;
    }
    if (folded.size() > 1 || (!folded.empty() && static_cast<unsigned char>(folded[0]) >= 0x80))
      sink(folded, pos, TermKind::Word);
    else if (report_gaps_)
      sink(folded, pos, TermKind::Gap);
    if (has_underscore || has_inner_upper) emit_parts(word, folded, pos, sink);
    ++pos;
  }
  if (has_connector && words >= 2 && span.size() <= kMaxCompoundBytes) {
    search_form(span, compound_);
    sink(std::string_view(compound_), first_pos, TermKind::Compound);
    // "v1.2.3" is also the version "1.2.3" (a query for the number finds the tag).
    if (compound_.size() > 2 && compound_[0] == 'v' && compound_[1] >= '0' && compound_[1] <= '9' &&
        compound_.find_first_of("./") != std::string::npos) {
      unversioned_.assign(compound_, 1);
      sink(std::string_view(unversioned_), first_pos, TermKind::Compound);
    }
    emit_path_segments(std::string_view(compound_), first_pos, sink);
  }
}

// An identifier's parts, at its position: the word without leading/trailing underscores
// ("_csrf_token" -> csrf_token, "__init__" -> init) and its snake/camel pieces. `folded` is the
// word's search form (underscores survive folding, at the ends too).
void Tokenizer::emit_parts(std::string_view word, std::string_view folded, uint32_t pos, auto& sink) {
  size_t b = word.find_first_not_of('_');
  if (b == std::string_view::npos) return;
  size_t e = word.find_last_not_of('_') + 1;
  if ((b > 0 || e < word.size()) && e - b > 1) {
    std::string_view t(folded);
    size_t tb = t.find_first_not_of('_'), te = t.find_last_not_of('_');
    if (tb != std::string_view::npos) sink(t.substr(tb, te + 1 - tb), pos, TermKind::Part);
  }
  if (!is_ascii(word)) {
    // Other scripts: underscore segments of the folded word.
    std::string_view t(folded);
    size_t p = 0;
    while (p < t.size()) {
      size_t q = t.find('_', p);
      if (q == std::string_view::npos) q = t.size();
      if (q - p > 1 && !(p == 0 && q == t.size())) sink(t.substr(p, q - p), pos, TermKind::Part);
      p = q + 1;
    }
    return;
  }
  for_each_identifier_piece(word, [&](std::string_view piece) { sink(piece, pos, TermKind::Part); });
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

template <typename F>
void for_each_identifier_piece(std::string_view word, F&& piece) {
  if (word.size() > kMaxWordBytes) return;
  char buf[kMaxWordBytes];
  for (size_t k = 0; k < word.size(); ++k) buf[k] = ascii_lower(word[k]);
  auto upper = [](char c) { return c >= 'A' && c <= 'Z'; };
  auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  auto emit = [&](size_t b, size_t e) {
    if (e - b > 1) piece(std::string_view(buf + b, e - b));
  };
  const bool snake = word.find('_') != std::string_view::npos;
  size_t seg = 0;
  while (seg < word.size()) {
    if (word[seg] == '_') {
      ++seg;
      continue;
    }
    size_t seg_end = std::min(word.find('_', seg), word.size());
    // camelCase boundaries inside the segment: before an upper-case letter that follows a
    // lower-case letter or a digit ("fileType", "utf8Decode"), or that starts a word after an
    // acronym ("HTTPServer").
    size_t cuts[kMaxWordBytes + 1], n = 0;
    cuts[n++] = seg;
    for (size_t i = seg + 1; i < seg_end; ++i)
      if (upper(word[i]) && (lower(word[i - 1]) || digit(word[i - 1]) ||
                             (upper(word[i - 1]) && i + 1 < seg_end && lower(word[i + 1]))))
        cuts[n++] = i;
    cuts[n] = seg_end;
    if (snake && (seg > 0 || seg_end < word.size())) emit(seg, seg_end);  // the snake segment
    if (n > 1) {
      for (size_t k = 0; k < n; ++k) emit(cuts[k], cuts[k + 1]);  // the camel pieces
      // Runs of adjacent pieces ("ServerError" in HTTPServerError), for identifiers of up to
      // kMaxJoinedPieces pieces: a query names a part of an identifier by a shorter identifier.
      constexpr size_t kMaxJoinedPieces = 6;
      if (n <= kMaxJoinedPieces)
        for (size_t len = 2; len < n; ++len)
          for (size_t k = 0; k + len <= n; ++k) emit(cuts[k], cuts[k + len]);
    }
    seg = seg_end;
  }
}

}  // namespace osearch
