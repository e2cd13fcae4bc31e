// Keyword query syntax (SPEC §4) -> Xapian::Query, using the same tokenizer as the indexer so
// identifiers, paths and CJK text are looked up exactly as they were indexed.
//   implicit AND · "phrase" · prefix* · a OR b · NOT a / -a · field:value
//   fields: project: role: tool: model: branch: session: agent: type:
#pragma once

#include <xapian.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
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

// A phrase as the tokenizer placed it: each word's search form and its position in the phrase. A
// word that takes a position but gives no term (one character, or longer than kMaxWordBytes) leaves a
// gap: "create a new file" is create@0 new@2 file@3 over 4 positions, "I need to" need@1 to@2 over 3,
// "python 3" python@0 over 2. A gap stands for the word the query had there, in its search form
// ("create A new file", not "create x new file"), never for a word that is a term ("create the new
// file"), nor for nothing (at a text's start or end). A phrase of one word and no gap is that word.
struct QueryPhrase {
  QueryPhrase() = default;
  // `fillers`: per position of the span, the word of a gap there (empty where a word of `words`
  // stands); without them, a gap stands for any word that gives no term.
  QueryPhrase(std::vector<std::string> words, std::vector<uint32_t> at, uint32_t span = 0,
              std::vector<std::string> fillers = {})
      : terms(std::move(words)), offsets(std::move(at)), positions(std::max<uint32_t>(span, offsets.empty() ? 0 : offsets.back() + 1)),
        gap_words(std::move(fillers)) {
    if (!gap_words.empty()) gap_words.resize(positions);
  }
  // Words at consecutive positions.
  explicit QueryPhrase(std::vector<std::string> words) : terms(std::move(words)) {
    for (uint32_t i = 0; i < terms.size(); ++i) offsets.push_back(i);
    positions = static_cast<uint32_t>(terms.size());
  }
  std::vector<std::string> terms;
  std::vector<uint32_t> offsets;  // strictly increasing
  uint32_t positions = 0;         // the phrase's positions, its gaps at either end included
  std::vector<std::string> gap_words;  // per position: a gap's word, or empty (none given: any)
  bool empty() const { return terms.empty(); }
  uint32_t span() const { return positions; }
  // Positions from the first word to the last: Xapian's phrase window.
  uint32_t word_span() const { return offsets.empty() ? 0 : offsets.back() - offsets.front() + 1; }
  // Xapian's OP_PHRASE over the window finds these words in order anywhere in it, so where positions
  // exist a phrase with gaps is still checked on the text.
  bool has_gaps() const { return positions != terms.size(); }
  // The word a gap at position `at` must be ("" for any word without a term).
  std::string_view gap_word(uint32_t at) const { return at < gap_words.size() ? std::string_view(gap_words[at]) : std::string_view(); }
};

struct ParsedQuery {
  Xapian::Query query;
  std::vector<std::string> positive_terms;  // free-text terms a hit may contain (for matched_terms, snippets)
  bool has_free_text = false;               // false: only field filters / negations
  std::vector<WildcardExpansion> wildcards;  // every prefix* clause, truncated or not
  // Phrases of several positions a match must hold (ANDed) or must not (negated), as search forms:
  // checked on the text of messages without positions, and of every message for a phrase with gaps
  // (engine/query/phrase_check.h).
  std::vector<QueryPhrase> required_phrases, forbidden_phrases;
  // A phrase joined by OR to another clause: where there are no positions it matches all its words.
  bool loose_phrases = false;
  // Words of the query the index cannot search: each word of them is one character or longer than
  // kMaxWordBytes (no term: "a", "C++", a 70-byte hash). They are left out of the query, which then
  // finds more than they asked; the answer names them (`ignored_words`), a negated one with its '-'.
  std::vector<std::string> ignored_words;
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
