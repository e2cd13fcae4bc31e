// What the tokenizer emits for a text, as a list the tokenizer tests can ask about.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "engine/index/tokenizer.h"

namespace osearch_test {

struct Term {
  std::string text;
  uint32_t pos;
  osearch::TermKind kind;
};

inline std::vector<Term> tokenize(std::string_view text) {
  std::vector<Term> out;
  osearch::Tokenizer tok;
  tok.run(text, [&](std::string_view t, uint32_t pos, osearch::TermKind kind) { out.push_back({std::string(t), pos, kind}); });
  return out;
}

inline std::vector<std::string> texts(const std::vector<Term>& terms) {
  std::vector<std::string> out;
  for (const auto& t : terms) out.push_back(t.text);
  return out;
}

inline std::vector<std::string> texts_of(const std::vector<Term>& terms, osearch::TermKind kind) {
  std::vector<std::string> out;
  for (const auto& t : terms)
    if (t.kind == kind) out.push_back(t.text);
  return out;
}

inline bool has(const std::vector<Term>& terms, const std::string& text) {
  return std::any_of(terms.begin(), terms.end(), [&](const Term& t) { return t.text == text; });
}

inline bool has(const std::vector<Term>& terms, const std::string& text, osearch::TermKind kind) {
  return std::any_of(terms.begin(), terms.end(), [&](const Term& t) { return t.text == text && t.kind == kind; });
}

}  // namespace osearch_test
