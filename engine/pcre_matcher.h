// PCRE2-JIT confirmation for patterns Hyperscan cannot run exactly (backreferences, lookaround):
// Hyperscan scans in HS_FLAG_PREFILTER mode (a superset of the matches) and PCRE2 decides, per
// candidate message, whether and where a pattern really matches.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace osearch {

class PcreMatcher {
 public:
  // Compiles every pattern (already wrapped for -F/-w); returns nullopt and sets `error` on failure.
  static std::optional<PcreMatcher> compile(const std::vector<std::string>& patterns, bool ignore_case, std::string& error);
  PcreMatcher(PcreMatcher&&) noexcept;
  PcreMatcher& operator=(PcreMatcher&&) noexcept;
  ~PcreMatcher();
  // Leftmost match of any pattern in `text`: {begin, end} byte offsets.
  std::optional<std::pair<size_t, size_t>> first_match(std::string_view text) const;

 private:
  struct Impl;
  explicit PcreMatcher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace osearch
