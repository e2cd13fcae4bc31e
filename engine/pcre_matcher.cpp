#include "engine/pcre_matcher.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>

namespace osearch {

struct PcreMatcher::Impl {
  std::vector<pcre2_code*> codes;
  pcre2_match_data* match = nullptr;
  ~Impl() {
    for (auto* c : codes) pcre2_code_free(c);
    if (match) pcre2_match_data_free(match);
  }
};

PcreMatcher::PcreMatcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PcreMatcher::PcreMatcher(PcreMatcher&&) noexcept = default;
PcreMatcher& PcreMatcher::operator=(PcreMatcher&&) noexcept = default;
PcreMatcher::~PcreMatcher() = default;

std::optional<PcreMatcher> PcreMatcher::compile(const std::vector<std::string>& patterns, bool ignore_case,
                                                std::string& error) {
  auto impl = std::make_unique<Impl>();
  uint32_t options = PCRE2_MULTILINE | PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
  if (ignore_case) options |= PCRE2_CASELESS;
  for (const auto& p : patterns) {
    int code = 0;
    PCRE2_SIZE offset = 0;
    pcre2_code* re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(p.data()), p.size(), options, &code, &offset, nullptr);
    if (!re) {
      PCRE2_UCHAR buf[256];
      pcre2_get_error_message(code, buf, sizeof buf);
      error = "cannot compile regex '" + p + "': " + reinterpret_cast<const char*>(buf) + " at offset " +
              std::to_string(offset);
      return std::nullopt;
    }
    pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);  // falls back to the interpreter if JIT is unavailable
    impl->codes.push_back(re);
  }
  impl->match = pcre2_match_data_create(1, nullptr);
  return PcreMatcher(std::move(impl));
}

std::optional<std::pair<size_t, size_t>> PcreMatcher::first_match(std::string_view text) const {
  std::optional<std::pair<size_t, size_t>> best;
  for (auto* re : impl_->codes) {
    int rc = pcre2_match(re, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0, 0, impl_->match, nullptr);
    if (rc < 0) continue;
    PCRE2_SIZE* ov = pcre2_get_ovector_pointer(impl_->match);
    std::pair<size_t, size_t> m{ov[0], std::max(ov[0], ov[1])};
    if (!best || m.first < best->first) best = m;
  }
  return best;
}

}  // namespace osearch
