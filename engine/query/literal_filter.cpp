#include "engine/query/literal_filter.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "engine/query/regex_syntax.h"
#include "engine/store/cpu_features.h"

namespace osearch {
namespace {

// How common each byte is in transcripts' text: 64 * log2(count + 1) over the string values of the
// shared real corpus (bench/byte_frequencies.py). Only the order matters: the filter compares the
// literal's rarest two bytes, so that few places need the whole literal compared.
// 68096678 bytes counted by bench/byte_frequencies.py
constexpr std::array<uint16_t, 256> kByteWeight = {
       0,    0,    0,    0,    0,    0,    0,  101,    0, 1269, 1290,    0,    0,  658,    0,    0,
       0,    0,    0,    0,    0,  180,    0,    0,    0,    0,    0,  818,    0,    0,    0,    0,
    1462,  995, 1224,  998,  898, 1015,  961, 1025, 1190, 1190, 1053, 1116, 1200, 1276, 1259, 1274,
    1237, 1251, 1242, 1212, 1226, 1210, 1207, 1198, 1204, 1204, 1207, 1051, 1015, 1178, 1070,  889,
     909, 1167, 1124, 1182, 1147, 1163, 1135, 1115, 1114, 1151, 1091, 1088, 1131, 1125, 1132, 1112,
    1144, 1091, 1147, 1177, 1178, 1145, 1101, 1117, 1093, 1093, 1108, 1045, 1026, 1032,  833, 1201,
    1083, 1362, 1237, 1321, 1316, 1419, 1272, 1275, 1274, 1364, 1130, 1209, 1318, 1288, 1363, 1368,
    1285, 1113, 1368, 1376, 1396, 1278, 1198, 1203, 1187, 1201, 1111, 1121,  993, 1120,  844,    0,
     957,  795,  861,  520,  452,  643, 1133,  345,  435,  470,  333,  566,  584,  367,  536,  669,
     687,  481, 1133,  692, 1005,  649,  577,  683,  466,  464,  549,  538,  782,  589,  333,  695,
     631,  341,  599,  285,  553,  392,  486,  443,  401,  424,  388,  285,  244,  479,  336,  378,
     460,  281,  262,  537,  320,  277,  502,  893,  591,  376,  378,  244,  458,  425,  180,  483,
       0,    0,  896,  527,   64,  101,    0,    0,    0,    0,    0,    0,    0,    0,  317,   64,
     293,  272,    0,    0,    0,    0,    0,    0,  165,  101,    0,    0,    0,    0,    0,    0,
       0,  149, 1155,  478,  436,  400,  390,  394,  262,  244,    0,    0,    0,    0,  473,  585,
     694,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
};

bool ascii_letter(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }

// The bits ORed into a text byte before it is compared with the literal's byte `want`: 0x20 folds
// an ASCII letter's case when caseless; other bytes compare as they are.
unsigned char fold_bits(unsigned char want, bool caseless) { return caseless && ascii_letter(want) ? 0x20 : 0; }

// How common the text bytes a literal byte matches are: a caseless letter is either case.
uint16_t weight(unsigned char want, bool caseless) {
  if (!fold_bits(want, caseless)) return kByteWeight[want];
  return std::max(kByteWeight[want], kByteWeight[want & ~0x20]);
}

}  // namespace

std::optional<LiteralFilter> LiteralFilter::make(std::string_view literal, bool caseless) {
  if (literal.size() < 3 || literal.size() > 255) return std::nullopt;
  LiteralFilter f;
  f.caseless_ = caseless;
  for (const char ch : literal) {
    const auto c = static_cast<unsigned char>(ch);
    if (caseless && (c >= 0x80 || std::memchr("kKsSiI", c, 6) != nullptr)) return std::nullopt;
    f.literal_.push_back(static_cast<char>(caseless && ascii_letter(c) ? c | 0x20 : c));
  }
  const auto w = [&](size_t i) { return weight(static_cast<unsigned char>(f.literal_[i]), caseless); };
  size_t a = 0;  // the rarest byte's position, then the rarest at another
  for (size_t i = 1; i < f.literal_.size(); ++i)
    if (w(i) < w(a)) a = i;
  size_t b = a == 0 ? 1 : 0;
  for (size_t i = 0; i < f.literal_.size(); ++i)
    if (i != a && w(i) < w(b)) b = i;
  f.rare1_ = std::min(a, b);
  f.rare2_ = std::max(a, b);
  return f;
}

bool LiteralFilter::matches_at(const char* p) const {
  if (!caseless_) return std::memcmp(p, literal_.data(), literal_.size()) == 0;
  for (size_t i = 0; i < literal_.size(); ++i) {
    const auto want = static_cast<unsigned char>(literal_[i]);
    if ((static_cast<unsigned char>(p[i]) | fold_bits(want, true)) != want) return false;
  }
  return true;
}

#if defined(__x86_64__)
namespace {

// Where both rare bytes are in place among the `kWidth` starts at `p` (bit k: the start p + k), the
// text's bytes ORed with the fold bits first.
__attribute__((target("avx512bw"))) inline uint64_t pair_mask_avx512(const char* p, size_t r1, size_t r2, __m512i fold1,
                                                                     __m512i want1, __m512i fold2, __m512i want2) {
  const __m512i at1 = _mm512_or_si512(_mm512_loadu_si512(p + r1), fold1);
  const __m512i at2 = _mm512_or_si512(_mm512_loadu_si512(p + r2), fold2);
  return _mm512_cmpeq_epi8_mask(at1, want1) & _mm512_cmpeq_epi8_mask(at2, want2);
}

__attribute__((target("avx2"))) inline uint64_t pair_mask_avx2(const char* p, size_t r1, size_t r2, __m256i fold1,
                                                               __m256i want1, __m256i fold2, __m256i want2) {
  const __m256i at1 = _mm256_or_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + r1)), fold1);
  const __m256i at2 = _mm256_or_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + r2)), fold2);
  const __m256i both = _mm256_and_si256(_mm256_cmpeq_epi8(at1, want1), _mm256_cmpeq_epi8(at2, want2));
  return static_cast<uint32_t>(_mm256_movemask_epi8(both));
}

inline uint64_t pair_mask_sse2(const char* p, size_t r1, size_t r2, __m128i fold1, __m128i want1, __m128i fold2,
                               __m128i want2) {
  const __m128i at1 = _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + r1)), fold1);
  const __m128i at2 = _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + r2)), fold2);
  const __m128i both = _mm_and_si128(_mm_cmpeq_epi8(at1, want1), _mm_cmpeq_epi8(at2, want2));
  return static_cast<uint32_t>(_mm_movemask_epi8(both));
}

}  // namespace

// The vector loops: from `pos` on, `kWidth` starts at a time while a whole vector fits, the whole
// literal compared where both rare bytes are in place. The hot loop keeps everything in registers
// (locals: the haystack may alias the filter) and calls nothing else. Leaves `pos` where the
// caller's byte-at-a-time tail goes on.
#define OSEARCH_LITERAL_LOOP(kWidth, pair_mask, VEC, set1)                                    \
  const size_t r1 = rare1_, r2 = rare2_;                                                    \
  const VEC want1 = set1(static_cast<char>(literal_[r1]));                                  \
  const VEC want2 = set1(static_cast<char>(literal_[r2]));                                  \
  const VEC fold1 = set1(static_cast<char>(fold_bits(literal_[r1], caseless_)));            \
  const VEC fold2 = set1(static_cast<char>(fold_bits(literal_[r2], caseless_)));            \
  size_t i = pos;                                                                           \
  while (i <= last && last - i >= (kWidth)-1) {                                             \
    for (uint64_t mask = pair_mask(hay + i, r1, r2, fold1, want1, fold2, want2); mask != 0; \
         mask &= mask - 1) {                                                                \
      const size_t at = i + static_cast<size_t>(__builtin_ctzll(mask));                     \
      if (matches_at(hay + at)) {                                                           \
        pos = i;                                                                            \
        return at;                                                                          \
      }                                                                                     \
    }                                                                                       \
    i += (kWidth);                                                                          \
  }                                                                                         \
  pos = i;                                                                                  \
  return std::string_view::npos

__attribute__((target("avx512bw"))) size_t LiteralFilter::find_avx512(const char* hay, size_t last, size_t& pos) const {
  OSEARCH_LITERAL_LOOP(64, pair_mask_avx512, __m512i, _mm512_set1_epi8);
}

__attribute__((target("avx2"))) size_t LiteralFilter::find_avx2(const char* hay, size_t last, size_t& pos) const {
  OSEARCH_LITERAL_LOOP(32, pair_mask_avx2, __m256i, _mm256_set1_epi8);
}

size_t LiteralFilter::find_sse2(const char* hay, size_t last, size_t& pos) const {  // SSE2: every x86-64
  OSEARCH_LITERAL_LOOP(16, pair_mask_sse2, __m128i, _mm_set1_epi8);
}
#undef OSEARCH_LITERAL_LOOP
#endif

LiteralFilter::Vectors LiteralFilter::best_vectors() {
#if defined(__x86_64__)
  if (cpu::has_avx512bw()) return Vectors::Avx512;
  if (cpu::has_avx2()) return Vectors::Avx2;
  return Vectors::Sse2;
#else
  return Vectors::None;
#endif
}

size_t LiteralFilter::find(std::string_view hay, Vectors vectors) const {
  if (hay.size() < literal_.size()) return std::string_view::npos;
  const size_t last = hay.size() - literal_.size();  // the last place the literal fits
  size_t i = 0;
  size_t at = std::string_view::npos;
#if defined(__x86_64__)
  switch (vectors) {
    case Vectors::Avx512: at = find_avx512(hay.data(), last, i); break;
    case Vectors::Avx2: at = find_avx2(hay.data(), last, i); break;
    case Vectors::Sse2: at = find_sse2(hay.data(), last, i); break;
    case Vectors::None: break;
  }
#endif
  if (at != std::string_view::npos) return at;
  for (; i <= last; ++i)
    if (matches_at(hay.data() + i)) return i;
  return std::string_view::npos;
}

// --- the literal a pattern's matches contain ----------------------------------------------------

namespace {

// Walks a regex's structure outside escapes, classes and quoting (regex_syntax.h), calling `at(i)`
// at each '(', ')' and '|' (true from it ends the walk). False when the pattern holds \Q…\E or
// \cX outside a class, which this reading does not follow.
template <typename At>
bool walk_structure(std::string_view p, At&& at) {
  bool followed = true;
  walk_outside_classes(p, [&](size_t i, RegexPiece piece) {
    if (piece == RegexPiece::Quoted || (piece == RegexPiece::Escape && i + 1 < p.size() && p[i + 1] == 'c')) {
      followed = false;
      return true;
    }
    const char c = p[i];
    return piece == RegexPiece::Char && (c == '(' || c == ')' || c == '|') && at(i);
  });
  return followed;
}

// Whether a positive lookahead or lookbehind opens at at[0]: the text it asserts is in the message
// too (before or at the match), so its literals are required as a group's are.
bool positive_lookaround(std::string_view at) { return at.starts_with("(?=") || at.starts_with("(?<="); }

// The alternatives `pattern` is made of at its top level (split at each `|` outside every group and
// class), or nullopt when it holds a construct this reading cannot follow: inline options (which
// may turn on extended mode's comments, hiding a `|` or a bracket), \Q…\E, \cX, and every group
// opening with "(?" but (?:…) and positive lookaround (named groups, negative lookaround, comments).
std::optional<std::vector<std::string_view>> top_level_alternatives(std::string_view pattern) {
  std::vector<std::string_view> alternatives;
  size_t begin = 0;
  int depth = 0;
  bool options = false;
  const bool followed = walk_structure(pattern, [&](size_t i) {
    const std::string_view at = pattern.substr(i);
    if (at[0] == '(') {
      // (A backtracking verb anywhere refuses too: (*ACCEPT) may end a match before text that follows.)
      options = (at.starts_with("(?") && !at.starts_with("(?:") && !positive_lookaround(at)) || at.starts_with("(*");
      ++depth;
    } else if (at[0] == ')') {
      depth = std::max(0, depth - 1);
    } else if (depth == 0) {
      alternatives.push_back(pattern.substr(begin, i - begin));
      begin = i + 1;
    }
    return options;
  });
  if (!followed || options) return std::nullopt;
  alternatives.push_back(pattern.substr(begin));
  return alternatives;
}

// Where the group that opens at p[0] closes (the index of its ')'), or npos.
size_t group_end(std::string_view p) {
  size_t end = std::string_view::npos;
  int depth = 0;
  walk_structure(p, [&](size_t i) {
    if (p[i] == '(') ++depth;
    if (p[i] == ')' && --depth == 0) end = i;
    return end != std::string_view::npos;
  });
  return end;
}

// Past the zero-width assertions a regex starts with (^, \A, \b, \B): what follows them is still
// in every match.
size_t skip_assertions(std::string_view p) {
  size_t i = 0;
  while (p.substr(i).starts_with("^") || p.substr(i).starts_with("\\A") || p.substr(i).starts_with("\\b") ||
         p.substr(i).starts_with("\\B"))
    i += p[i] == '^' ? 1 : 2;
  return i;
}

// The length of the UTF-8 character whose lead byte is `c` (0: not a lead byte).
size_t utf8_length(unsigned char c) {
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return 2;
  if (c >= 0xe0 && c <= 0xef) return 3;
  if (c >= 0xf0 && c <= 0xf4) return 4;
  return 0;
}

// Where the quantifier at p[i] ends ({n}, {n,}, {n,m}, ?, *, +, with a lazy '?' or possessive '+'
// after it), i itself when none starts there, or npos when what starts there is not read here (a
// '{' that PCRE2 may take as a literal, a second quantifier).
size_t quantifier_end(std::string_view p, size_t i) {
  if (i >= p.size()) return i;
  size_t e = i;
  if (p[i] == '?' || p[i] == '*' || p[i] == '+') {
    e = i + 1;
  } else if (p[i] == '{') {
    size_t j = i + 1, digits = 0;
    while (j < p.size() && std::isdigit(static_cast<unsigned char>(p[j]))) ++j, ++digits;
    if (digits == 0) return std::string_view::npos;
    if (j < p.size() && p[j] == ',')
      for (++j; j < p.size() && std::isdigit(static_cast<unsigned char>(p[j]));) ++j;
    if (j >= p.size() || p[j] != '}') return std::string_view::npos;
    e = j + 1;
  } else {
    return i;
  }
  if (e < p.size() && (p[e] == '?' || p[e] == '+')) ++e;
  if (e < p.size() && std::memchr("?*+{", p[e], 4) != nullptr) return std::string_view::npos;
  return e;
}

// The longest run of literal text in every match of a regex without a top-level `|` (the first of
// equal ones), or nullopt when it has none. A run is cut where a quantifier could drop or repeat
// its last character, and ends at anything else: a class, `.`, a group, an anchor or a
// class-like escape (\w \d \s \h \v \b \B \A \z \Z \G \K \R \X and their capitals),
// each with its quantifier. Anything not read here ends the reading (the runs before it stand): an
// escape that may take more characters (\x41, \p{L}, \1, \N{…}), a '{' that is no quantifier. (Its
// callers never pass a verb, \Q…\E or \cX: top_level_alternatives refuses patterns with them.)
std::optional<std::string> longest_literal(std::string_view p) {
  std::string best, run;
  const auto end_run = [&] {
    if (run.size() > best.size()) best = run;
    run.clear();
  };
  size_t i = 0;
  while (i < p.size()) {
    const auto c = static_cast<unsigned char>(p[i]);
    size_t atom_end = 0;  // past the atom at i
    std::string literal;  // its text, when it is a literal character
    if (c == '\\') {
      const auto next = i + 1 < p.size() ? static_cast<unsigned char>(p[i + 1]) : 0;
      if (next >= 0x21 && next <= 0x7e && !std::isalnum(next)) {  // an escaped punctuation character is itself
        literal.assign(1, static_cast<char>(next));
      } else if (next == 0 || std::memchr("wWdDsShHvVbBAzZGKRX", next, 19) == nullptr) {
        break;
      }
      atom_end = i + 2;
    } else if (c == '(') {  // (never a verb: top_level_alternatives refused the pattern)
      const size_t close = group_end(p.substr(i));
      if (close == std::string_view::npos) break;
      atom_end = i + close + 1;
    } else if (c == '[') {
      // Past the class: walk_outside_classes steps over it to the next piece outside.
      atom_end = std::string_view::npos;
      walk_outside_classes(p.substr(i), [&](size_t j, RegexPiece) {
        atom_end = i + j;
        return true;
      });
      if (atom_end == std::string_view::npos) atom_end = p.size();  // the class runs to the end
    } else if (c == '.' || c == '^' || c == '$') {
      atom_end = i + 1;
    } else if (c < 0x20 || c == 0x7f || std::memchr("|?*+){}]#", c, 9) != nullptr) {
      break;
    } else {
      const size_t n = utf8_length(c);
      if (n == 0 || i + n > p.size()) break;
      literal.assign(p.substr(i, n));
      atom_end = i + n;
    }
    const size_t q = quantifier_end(p, atom_end);
    if (q == std::string_view::npos) break;
    if (q == atom_end && !literal.empty()) {  // a literal character, once
      run += literal;
    } else if (!literal.empty() && p[atom_end] == '+') {  // one or more: there once, then maybe again
      run += literal;
      end_run();
    } else {  // none or more of it, or no literal text
      end_run();
    }
    i = q;
  }
  end_run();
  if (best.empty()) return std::nullopt;
  return best;
}

// Whether `inner` occurs in `outer` (ASCII letters without case when `caseless`): then every
// occurrence of `outer` holds one of `inner`, and a filter need not look for `outer` too.
bool holds(std::string_view outer, std::string_view inner, bool caseless) {
  const auto same = [caseless](char a, char b) {
    return caseless ? std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b)) : a == b;
  };
  return std::search(outer.begin(), outer.end(), inner.begin(), inner.end(), same) != outer.end();
}

// The literals of the group that opens `rest` (its alternatives' literals), when the group cannot
// be absent (no ?, * or {n,m} after it): a group, or a positive lookaround, whose text is in the
// message too. nullopt when it has none or may be absent.
std::optional<std::vector<std::string>> literals_of(const std::vector<std::string_view>& alternatives, int depth);

std::optional<std::vector<std::string>> group_literals(std::string_view rest, int depth) {
  // (Negative lookaround, named groups and inline options are not here: top_level_alternatives
  // refused the whole pattern.)
  const size_t open = rest.starts_with("(?<=") ? 4 : rest.starts_with("(?:") || rest.starts_with("(?=") ? 3 : 1;
  if (depth >= 4) return std::nullopt;
  const size_t close = group_end(rest);
  if (close == std::string_view::npos) return std::nullopt;
  if (close + 1 < rest.size() && std::memchr("?*{", rest[close + 1], 3) != nullptr) return std::nullopt;
  const std::optional<std::vector<std::string_view>> inner = top_level_alternatives(rest.substr(open, close - open));
  if (!inner) return std::nullopt;
  return literals_of(*inner, depth + 1);
}

// The literals one of which each match of `alternatives` holds (or, for a positive lookaround, the
// text its message holds): per alternative the longest literal run in it (longest_literal), or the
// literals of a group it starts with (group_literals) when none of those is shorter than the run.
// nullopt when some alternative has none.
std::optional<std::vector<std::string>> literals_of(const std::vector<std::string_view>& alternatives, int depth) {
  std::vector<std::string> literals;
  for (const std::string_view alternative : alternatives) {
    const std::string_view rest = alternative.substr(skip_assertions(alternative));
    std::optional<std::vector<std::string>> group;
    if (rest.starts_with("(")) group = group_literals(rest, depth);
    std::optional<std::string> run = longest_literal(alternative);
    const auto shortest = [](const std::vector<std::string>& ls) {
      size_t n = SIZE_MAX;
      for (const auto& l : ls) n = std::min(n, l.size());
      return n;
    };
    if (group && (!run || shortest(*group) >= run->size())) {
      for (std::string& literal : *group) literals.push_back(std::move(literal));
    } else if (run) {
      literals.push_back(std::move(*run));
    } else {
      return std::nullopt;
    }
  }
  return literals;
}

}  // namespace

std::optional<std::vector<std::string>> required_literals(std::string_view pattern, bool fixed) {
  if (fixed) return std::vector<std::string>{std::string(pattern)};
  const std::optional<std::vector<std::string_view>> alternatives = top_level_alternatives(pattern);
  if (!alternatives) return std::nullopt;
  return literals_of(*alternatives, 0);
}

std::optional<LiteralSet> LiteralSet::make(const std::vector<std::string>& patterns, bool fixed, bool caseless) {
  std::vector<std::string> literals;
  for (const std::string& pattern : patterns) {
    std::optional<std::vector<std::string>> some = required_literals(pattern, fixed);
    if (!some) return std::nullopt;
    for (std::string& literal : *some) literals.push_back(std::move(literal));
  }
  // A literal that holds another is never needed: look for the shorter one only.
  std::sort(literals.begin(), literals.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  LiteralSet set;
  std::vector<std::string> kept;
  for (const std::string& literal : literals) {
    if (std::any_of(kept.begin(), kept.end(), [&](const std::string& k) { return holds(literal, k, caseless); }))
      continue;
    std::optional<LiteralFilter> f = LiteralFilter::make(literal, caseless);
    if (!f || kept.size() == kMaxLiterals) return std::nullopt;
    kept.push_back(literal);
    set.filters_.push_back(std::move(*f));
  }
  if (set.filters_.empty()) return std::nullopt;
  return set;
}

size_t LiteralSet::find(std::string_view hay) const {
  size_t first = std::string_view::npos;
  for (const LiteralFilter& f : filters_) first = std::min(first, f.find(hay));
  return first;
}

}  // namespace osearch
