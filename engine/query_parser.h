// Keyword query syntax (SPEC §4) -> Xapian::Query, using the same tokenizer as the indexer so
// identifiers, paths and CJK text are looked up exactly as they were indexed.
//   implicit AND · "phrase" · prefix* · a OR b · NOT a / -a · field:value
//   fields: project: role: tool: model: branch: session: agent: type:
#pragma once

#include <xapian.h>

#include <string>
#include <vector>

namespace osearch {

struct ParsedQuery {
  Xapian::Query query;
  std::vector<std::string> positive_terms;  // free-text terms a hit may contain (for matched_terms, snippets)
  bool has_free_text = false;               // false: only field filters / negations
};

// `db` lets field values that are substrings (project:, model:) expand to the terms that exist.
// Throws BadInput on an unusable query (e.g. nothing but operators).
ParsedQuery parse_keyword_query(const std::string& text, const Xapian::Database& db);

// Splits a query line into tokens: quoted phrases stay whole (quotes kept).
std::vector<std::string> split_query_tokens(const std::string& text);

}  // namespace osearch
