// PCRE2-JIT for what Hyperscan cannot decide exactly (backreferences, lookaround, \b under Unicode
// rules): Hyperscan scans in HS_FLAG_PREFILTER mode (a superset of the matches) and PCRE2 decides,
// per candidate message, whether and where a pattern really matches. Also locates the start of a
// match for snippets when Hyperscan cannot report start offsets.
//
// Every match is bounded: a match limit that grows with the message (10 million steps plus 32 per
// byte; the JIT honours it), a depth and a heap limit for the interpreter, and a JIT stack of at
// most 8 MiB (past it the interpreter retries). A pattern that hits a limit is "too costly".
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace osearch {

class PcreMatcher {
 public:
  // Compiles every expression (already wrapped for -F/-w) with UTF and Unicode properties;
  // `names` are the patterns as the user typed them, for messages. nullopt + `error` on failure.
  static std::optional<PcreMatcher> compile(const std::vector<std::string>& expressions,
                                            const std::vector<std::string>& names, bool ignore_case,
                                            std::string& error);
  PcreMatcher(PcreMatcher&&) noexcept;
  PcreMatcher& operator=(PcreMatcher&&) noexcept;
  ~PcreMatcher();

  struct Found {
    bool match = false;
    bool too_costly = false;  // a limit stopped PCRE2 before it could decide (then `match` is false)
    size_t begin = 0, end = 0;
    std::string why;          // for too_costly: "'PATTERN' hit PCRE2's match limit …"
  };
  // Leftmost match of any pattern in `text`; never throws. Not for two threads at once: each gets
  // its own matcher from sibling().
  Found find(std::string_view text) const;
  // Leftmost match as {begin, end}; throws BadInput("regex-too-costly") when a limit stops PCRE2.
  std::optional<std::pair<size_t, size_t>> first_match(std::string_view text) const;

  // The same compiled patterns (shared, JIT included) with match state of its own, for another
  // thread. nullopt when PCRE2 cannot allocate that state.
  std::optional<PcreMatcher> sibling() const;

 private:
  struct Impl;
  explicit PcreMatcher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The options PcreMatcher compiles every expression with (UTF, Unicode properties, multiline).
uint32_t pcre_compile_options(bool ignore_case);

// Whether PcreMatcher lets PCRE2's JIT match `expression`; else the interpreter does, because the
// JIT of the PCRE2 this builds with answers some such patterns wrongly (pcre_matcher.cpp).
bool pcre_jit_answers_right(std::string_view expression);

}  // namespace osearch
