// A literal every match of a `content` pattern contains, and a fast way to find it: the scan skips
// the text log's bytes up to the literal's next occurrence instead of giving them all to Hyperscan.
// Hyperscan's single-literal matcher ran 8-50 GB/s a thread here, by the two bytes it anchors on
// (`stateStore`: 8); comparing the literal's two rarest bytes 64 places at a time, ~30 GB/s whatever
// the literal (docs/BENCHMARKS.md).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace osearch {

class LiteralFilter {
 public:
  // A filter for `literal` (ASCII letters compared without case when `caseless`), or nullopt when
  // it would not be one: shorter than 3 bytes, longer than 255, or caseless with a byte whose case
  // Unicode carries past ASCII (k, s and i: the Kelvin sign, the long s, the dotted and dotless i;
  // and every non-ASCII letter).
  static std::optional<LiteralFilter> make(std::string_view literal, bool caseless);

  // Where the literal first occurs in `hay`, or npos.
  size_t find(std::string_view hay) const { return find(hay, vectors_); }

  // The vector loop `find` runs: the widest this CPU has. Each can be asked for (tests run them all).
  enum class Vectors { Avx512, Avx2, Sse2, None };
  static Vectors best_vectors();
  size_t find(std::string_view hay, Vectors vectors) const;
  size_t size() const { return literal_.size(); }

 private:
  bool matches_at(const char* p) const;
#if defined(__x86_64__)
  size_t find_avx512(const char* hay, size_t last, size_t& i) const;
  size_t find_avx2(const char* hay, size_t last, size_t& i) const;
  size_t find_sse2(const char* hay, size_t last, size_t& i) const;
#endif

  std::string literal_;  // lower-cased where caseless
  bool caseless_ = false;
  size_t rare1_ = 0, rare2_ = 0;  // the positions of its two rarest bytes, rare1_ < rare2_
  Vectors vectors_ = best_vectors();
};

// Literals one of which every match of a query's patterns holds (the alternatives of each, -e
// patterns), each with its filter; none that holds another. Looking for each costs a pass over the
// bytes, so a set of more than kMaxLiterals is not made.
class LiteralSet {
 public:
  static constexpr size_t kMaxLiterals = 4;
  // nullopt when some alternative of some pattern has no literal a filter can take (or when more
  // than kMaxLiterals are needed).
  static std::optional<LiteralSet> make(const std::vector<std::string>& patterns, bool fixed, bool caseless);

  const std::vector<LiteralFilter>& filters() const { return filters_; }
  size_t size() const { return filters_.size(); }
  // Where the first of them occurs in `hay`, or npos.
  size_t find(std::string_view hay) const;

 private:
  std::vector<LiteralFilter> filters_;
};

// The literals one of which each match of `pattern` (with the text its lookaround asserts) contains,
// as the scan may look for them, or
// nullopt when none is known. Under -F, the pattern itself. Else, for each top-level alternative,
// the longest run of literal text in it (cut where a quantifier could drop or repeat a character;
// `\w+Error\b`: Error), or the literals of each alternative of a group or positive lookaround it
// starts with (`(TODO|FIXME):`, `(?<=import |from )\w+`; not when a quantifier may drop it, nor
// when a later run is longer). Nullopt when some alternative has none, or the pattern has inline
// options, a backtracking verb, \Q or \cX (which this reading does not follow). Erring towards
// nullopt only costs speed.
std::optional<std::vector<std::string>> required_literals(std::string_view pattern, bool fixed);

}  // namespace osearch
