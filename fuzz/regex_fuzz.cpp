// libFuzzer target: the regex front end of `content` (engine/query/content.cpp: -F escaping, -w wrapping,
// the Hyperscan compile, the PCRE2 prefilter decision) and the PCRE2 matcher behind it.
// Input: one flag byte (bit 0 -F, bit 1 -i, bit 2 -w, bit 3 last line is a subject), then up to
// four patterns separated by '\n'. A pattern is either compiled or refused with BadInput. With -w
// over ASCII literals, every whole-word decision taken without PCRE2 must be PCRE2's; every subject
// a pattern matches holds the literal its prefilter looks for.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/query/content_scan.h"
#include "engine/query/pcre_matcher.h"
#include "engine/query/query.h"
#include "engine/query/search.h"
#include "fuzz/fuzz_util.h"

using osearch_fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t flags = data[0];
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  std::vector<std::string> lines;
  while (lines.size() < 5) {
    size_t nl = rest.find('\n');
    lines.emplace_back(rest.substr(0, nl));
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
  }
  std::string subject;
  if ((flags & 8) && lines.size() > 1) {
    subject = lines.back().substr(0, 16);  // short: PCRE2's default match limit bounds the rest
    lines.pop_back();
  }
  if (lines.size() > 4) lines.resize(4);

  osearch::ContentOptions o;
  o.patterns = lines;
  o.fixed = flags & 1;
  o.ignore_case = flags & 2;
  o.word = flags & 4;
  std::optional<osearch::ContentPatterns> c;  // what check_content_patterns compiles, kept
  try {
    c.emplace(osearch::ContentPatterns::compile(o));
  } catch (const osearch::BadInput& e) {
    require(std::string_view(e.what()).size() > 0, "bad-regex without a message");
    // -F takes its text literally: only invalid UTF-8 or a NUL (which no argv holds) may refuse it.
    if (o.fixed) {
      bool plain = true;
      for (const auto& p : o.patterns) plain = plain && osearch_fuzz::valid_utf8(p) && p.find('\0') == std::string::npos;
      require(!plain, "a valid UTF-8 fixed string was refused");
    }
    return 0;
  }
  const bool needs_pcre = c->confirm.has_value();
  // Hyperscan's UTF-8 mode assumes valid input, as the text log's is.
  if (c->word_literals && needs_pcre && !subject.empty() && osearch_fuzz::valid_utf8(subject))
    if (const auto fast = osearch::whole_word_literal(*c, subject, c->scratch.get())) {
      const auto slow = c->confirm->find(subject);
      if (!slow.too_costly) require(*fast == slow.match, "a whole-word decision without PCRE2 differs from PCRE2's");
    }
  if (needs_pcre && !subject.empty()) {
    std::vector<std::string> exprs;  // what run_content hands PcreMatcher (-F never needs it)
    for (const auto& p : o.patterns) exprs.push_back(o.word ? "\\b(?:" + p + ")\\b" : p);
    std::string error;
    if (auto m = osearch::PcreMatcher::compile(exprs, o.patterns, o.ignore_case, error)) {
      const auto hit = m->find(subject);  // never throws; a limit sets too_costly
      if (hit.match) require(hit.begin <= hit.end && hit.end <= subject.size(), "match outside the subject");
    }
  }
  // The literal prefilter skips whatever holds none of its literals (one, or one per alternative):
  // a subject the pattern matches must hold one (engine/query/literal_filter.h).
  if (c->prefilter && !subject.empty() && osearch_fuzz::valid_utf8(subject)) {
    bool matches = false;
    for (const std::string& pattern : o.patterns) {
      if (o.fixed) {
        const auto fold = [&](char ch) { return o.ignore_case && ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch | 0x20) : ch; };
        for (size_t i = 0; !matches && i + pattern.size() <= subject.size(); ++i) {
          size_t k = 0;
          while (k < pattern.size() && fold(subject[i + k]) == fold(pattern[k])) ++k;
          matches = k == pattern.size();
        }
      } else {
        std::string error;
        const std::string expr = o.word ? "\\b(?:" + pattern + ")\\b" : pattern;
        if (auto m = osearch::PcreMatcher::compile({expr}, {pattern}, o.ignore_case, error)) {
          const auto hit = m->find(subject);
          matches = matches || (hit.match && !hit.too_costly);
        }
      }
    }
    if (matches) require(c->prefilter->find(subject) != std::string_view::npos, "a match without any of the prefilter's literals");
  }
  return 0;
}
