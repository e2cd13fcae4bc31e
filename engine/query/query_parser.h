// Keyword query syntax (SPEC §4) -> Xapian::Query, using the same tokenizer as the indexer so
// identifiers, paths and CJK text are looked up exactly as they were indexed.
//   implicit AND · "phrase" · prefix* · a OR b · NOT a / -a · field:value
//   fields: project: role: tool: model: branch: session: agent: type:
#pragma once

#include <xapian.h>

#include <string>
#include <vector>

namespace osearch {

// A `prefix*` clause ORs at most kWildcardMaxTerms of the terms starting with the prefix (the most
// frequent ones), chosen among the first kWildcardCountLimit; a cut is recorded, never silent.
struct WildcardExpansion {
  std::string pattern;     // as typed, e.g. "tok*"
  size_t terms = 0;        // index terms with the prefix, counted up to kWildcardCountLimit
  bool more_terms = false; // the count stopped at kWildcardCountLimit
  size_t used = 0;         // terms the query uses
  bool truncated() const { return more_terms || used < terms; }
  std::string describe() const;  // "wildcard 'tok*' used the 5000 most frequent of its 20000 terms"
};

inline constexpr size_t kWildcardMaxTerms = 256;

inline constexpr size_t kWildcardCountLimit = 1000000;  // ~ tens of ms of term iteration

struct ParsedQuery {
  Xapian::Query query;
  std::vector<std::string> positive_terms;  // free-text terms a hit may contain (for matched_terms, snippets)
  bool has_free_text = false;               // false: only field filters / negations
  std::vector<WildcardExpansion> wildcards;  // every prefix* clause, truncated or not
  // Phrases of several words a match must hold (ANDed) or must not (negated), as search forms:
  // checked on the text of messages without positions (engine/query/phrase_check.h).
  std::vector<std::vector<std::string>> required_phrases, forbidden_phrases;
  // A phrase joined by OR to another clause: where there are no positions it matches all its words.
  bool loose_phrases = false;
};

// `db` lets field values that are substrings (project:, model:) expand to the terms that exist.
// Throws BadInput on an unusable query (e.g. nothing but operators).
ParsedQuery parse_keyword_query(const std::string& text, const Xapian::Database& db);

// One OP_SYNONYM of `qs` (one term stays itself, none matches nothing), built as a tree so that
// Xapian 1.4 does not set up one flat OR of them (O(n^2) per database and pass).
Xapian::Query synonym_tree(std::vector<Xapian::Query> qs);

// Splits a query line into tokens: quoted phrases stay whole (quotes kept).
std::vector<std::string> split_query_tokens(const std::string& text);

}  // namespace osearch
