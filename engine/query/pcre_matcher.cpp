#include "engine/query/pcre_matcher.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <optional>

#include "engine/query/query.h"
#include "engine/query/regex_syntax.h"

namespace osearch {
namespace {

constexpr uint32_t kBaseMatchLimit = 10'000'000;  // PCRE2's default, ~0.2-0.6 s of JIT backtracking
constexpr uint32_t kMatchStepsPerByte = 32;
constexpr uint32_t kMaxMatchLimit = 200'000'000;
constexpr uint32_t kDepthLimit = 10'000'000;
constexpr uint32_t kHeapLimitKiB = 256 * 1024;
constexpr size_t kJitStackStart = 32 * 1024, kJitStackMax = 8 * 1024 * 1024;

std::string limit_name(int rc) {
  switch (rc) {
    case PCRE2_ERROR_MATCHLIMIT: return "match limit";
    case PCRE2_ERROR_DEPTHLIMIT: return "depth limit";
    case PCRE2_ERROR_HEAPLIMIT: return "heap limit";
    case PCRE2_ERROR_JIT_STACKLIMIT: return "JIT stack limit";
    default: return "";
  }
}

}  // namespace

uint32_t pcre_compile_options(bool ignore_case) {
  // UCP: \w, \b, \d and POSIX classes follow Unicode, as Hyperscan's HS_FLAG_UCP does.
  return PCRE2_MULTILINE | PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF | (ignore_case ? PCRE2_CASELESS : 0u);
}

// PCRE2 10.42's JIT (Debian 12's) answers some patterns wrongly, where its interpreter does not:
// - with a '|' inside a group: `(?:b|)[a-z]+\w` finds no match in "bx" (PCRE2 issue #336, fixed in
//   10.43), so `content` left such a message out;
// - with a backreference (or a call of a group) beside a possessive repeat or an atomic group:
//   `(b)*+.\1\z` matches "a.ba.b", as if a capture of an earlier start were still set;
// - with backtracking verbs ((*SKIP), (*PRUNE), (*COMMIT), (*THEN)...), which the two run differently.
// Over millions of random patterns made of the content scan's syntax pieces, JIT and interpreter
// differed on no other pattern (tests/pcre_jit_test.cpp keeps that search). Those run on the
// interpreter, as does extended mode, whose comments this reading does not follow.
bool pcre_jit_answers_right(std::string_view expression) {
  int depth = 0;
  bool refers_back = false, possessive = false;
  std::optional<size_t> quantifier_at;  // where the Char just visited was a quantifier
  const bool doubtful = walk_outside_classes(expression, [&](size_t i, RegexPiece piece) {
    const std::string_view at = expression.substr(i);
    if (piece == RegexPiece::Escape) {  // \1-\9, \g{…} \g<…> (a reference or a call), \k<name>
      refers_back |= at.size() > 1 && ((at[1] >= '1' && at[1] <= '9') || at[1] == 'g' || at[1] == 'k');
      quantifier_at.reset();
      return false;
    }
    if (piece != RegexPiece::Char) return false;
    const char c = at[0];
    possessive |= (c == '+' && quantifier_at && *quantifier_at + 1 == i) || at.starts_with("(?>");
    quantifier_at = std::string_view("*+?}").find(c) != std::string_view::npos ? std::optional<size_t>(i) : std::nullopt;
    // (?1) (?-1) (?+1) (?R) (?&name) (?P>name) (?P=name): a group called or referred to; (?(1)…):
    // a condition on one (taken as such whatever it asks)
    if (at.starts_with("(?")) {
      const char n = at.size() > 2 ? at[2] : '\0', m = at.size() > 3 ? at[3] : '\0';
      refers_back |= (n >= '0' && n <= '9') || ((n == '-' || n == '+') && m >= '0' && m <= '9') || n == 'R' ||
                     n == '&' || n == '(' || at.starts_with("(?P>") || at.starts_with("(?P=");
    }
    if (c == '(') ++depth;
    if (c == ')') depth = std::max(0, depth - 1);
    return (c == '|' && depth > 0) || sets_extended_mode(at) || at.starts_with("(*");
  });
  return !doubtful && !(refers_back && possessive);
}

// Compiled patterns are read-only while matching, so threads share them; match data, context and
// JIT stack are each thread's own.
struct CompiledPatterns {
  std::vector<pcre2_code*> codes;
  std::vector<std::string> names;
  CompiledPatterns() = default;
  CompiledPatterns(const CompiledPatterns&) = delete;
  CompiledPatterns& operator=(const CompiledPatterns&) = delete;
  ~CompiledPatterns() {
    for (auto* c : codes) pcre2_code_free(c);
  }
};

struct PcreMatcher::Impl {
  std::shared_ptr<const CompiledPatterns> patterns;
  pcre2_match_data* match = nullptr;
  pcre2_match_context* context = nullptr;
  pcre2_jit_stack* jit_stack = nullptr;
  ~Impl() {
    if (match) pcre2_match_data_free(match);
    if (context) pcre2_match_context_free(context);
    if (jit_stack) pcre2_jit_stack_free(jit_stack);
  }
  // The match state and its limits. False when PCRE2 cannot allocate it.
  bool allocate_state() {
    match = pcre2_match_data_create(1, nullptr);
    context = pcre2_match_context_create(nullptr);
    jit_stack = pcre2_jit_stack_create(kJitStackStart, kJitStackMax, nullptr);
    if (!match || !context || !jit_stack) return false;
    pcre2_jit_stack_assign(context, nullptr, jit_stack);
    pcre2_set_depth_limit(context, kDepthLimit);
    pcre2_set_heap_limit(context, kHeapLimitKiB);
    return true;
  }
};

PcreMatcher::PcreMatcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PcreMatcher::PcreMatcher(PcreMatcher&&) noexcept = default;
PcreMatcher& PcreMatcher::operator=(PcreMatcher&&) noexcept = default;
PcreMatcher::~PcreMatcher() = default;

std::optional<PcreMatcher> PcreMatcher::compile(const std::vector<std::string>& expressions,
                                                const std::vector<std::string>& names, bool ignore_case,
                                                std::string& error) {
  auto compiled = std::make_shared<CompiledPatterns>();
  const uint32_t options = pcre_compile_options(ignore_case);
  for (size_t i = 0; i < expressions.size(); ++i) {
    const std::string& p = expressions[i];
    const std::string& name = i < names.size() ? names[i] : p;
    int code = 0;
    PCRE2_SIZE offset = 0;
    pcre2_code* re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(p.data()), p.size(), options, &code, &offset, nullptr);
    if (!re) {
      PCRE2_UCHAR buf[256];
      pcre2_get_error_message(code, buf, sizeof buf);
      error = "cannot compile regex '" + name + "': " + reinterpret_cast<const char*>(buf) + " at offset " +
              std::to_string(offset);
      return std::nullopt;
    }
    // (Without JIT, or where it is unavailable, pcre2_match runs the interpreter.)
    if (pcre_jit_answers_right(p)) pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
    compiled->codes.push_back(re);
    compiled->names.push_back(name);
  }
  auto impl = std::make_unique<Impl>();
  impl->patterns = std::move(compiled);
  if (!impl->allocate_state()) {
    error = "PCRE2 could not allocate its match data";
    return std::nullopt;
  }
  return PcreMatcher(std::move(impl));
}

std::optional<PcreMatcher> PcreMatcher::sibling() const {
  auto impl = std::make_unique<Impl>();
  impl->patterns = impl_->patterns;
  if (!impl->allocate_state()) return std::nullopt;
  return PcreMatcher(std::move(impl));
}

PcreMatcher::Found PcreMatcher::find(std::string_view text) const {
  Found best;
  const uint64_t steps = kBaseMatchLimit + uint64_t{kMatchStepsPerByte} * text.size();
  pcre2_set_match_limit(impl_->context, static_cast<uint32_t>(std::min<uint64_t>(steps, kMaxMatchLimit)));
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  const CompiledPatterns& patterns = *impl_->patterns;
  for (size_t i = 0; i < patterns.codes.size(); ++i) {
    pcre2_code* re = patterns.codes[i];
    int rc = pcre2_match(re, subject, text.size(), 0, 0, impl_->match, impl_->context);
    // Past the JIT stack, the interpreter (bounded by the heap limit) tries once more.
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
      rc = pcre2_match(re, subject, text.size(), 0, PCRE2_NO_JIT, impl_->match, impl_->context);
    if (rc == PCRE2_ERROR_NOMATCH) continue;
    if (rc < 0) {
      std::string limit = limit_name(rc);
      if (limit.empty()) {
        PCRE2_UCHAR buf[256];
        pcre2_get_error_message(rc, buf, sizeof buf);
        limit = reinterpret_cast<const char*>(buf);
      }
      return Found{false, true, 0, 0,
                   "regex '" + patterns.names[i] + "' is too costly: PCRE2 stopped at its " + limit +
                       " on a message of " +
                       std::to_string(text.size()) +
                       " bytes (nested quantifiers or backreferences over long runs backtrack exponentially)"};
    }
    PCRE2_SIZE* ov = pcre2_get_ovector_pointer(impl_->match);
    if (!best.match || ov[0] < best.begin) best = Found{true, false, ov[0], std::max(ov[0], ov[1]), {}};
  }
  return best;
}

std::optional<std::pair<size_t, size_t>> PcreMatcher::first_match(std::string_view text) const {
  Found f = find(text);
  if (f.too_costly) throw BadInput("regex-too-costly", f.why);
  if (!f.match) return std::nullopt;
  return std::pair<size_t, size_t>{f.begin, f.end};
}

}  // namespace osearch
