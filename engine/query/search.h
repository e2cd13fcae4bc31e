// The three query verbs over an open IndexReader. Each returns the same QueryResult/Hit types, so
// the printers (cli/print_*.cpp) never know which engine produced a hit.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "engine/query/query.h"
#include "engine/query/reader.h"

namespace osearch {

struct KeywordOptions {
  bool by_message = false;
  std::string sort = "relevance";  // relevance | newest | oldest
  size_t snippet_chars = 200;
  // Matching documents examined in full so that `total` is exact; beyond, it is Xapian's estimate
  // and `total_exact` is false.
  size_t exact_total_docs = 20000;
  // Collapse by the index's session runs when it keeps them (engine/index/session_runs.h); off,
  // Xapian collapses by each match's value (tests compare the two).
  bool session_runs = true;
  // How session-level filters (--project, --session, --model, --cwd) refuse documents: a decider
  // reading each candidate's session, or, for at most SessionScope::kFew sessions, their terms in
  // the query; by default whichever costs less (keyword.cpp). Tests compare the two.
  enum class Scope { ByCost, Decider, Terms };
  Scope scope = Scope::ByCost;
};

struct ContentOptions {
  std::vector<std::string> patterns;
  bool fixed = false, ignore_case = false, word = false;
  bool by_message = false;
  size_t snippet_chars = 200;
  // Wall time for the scan and the confirmation of its candidates; past it the hits found so far
  // are returned with `truncated` set (checked between scan chunks and between candidates).
  std::chrono::milliseconds time_budget{10000};
  // A few filtered sessions: scan only the log's ranges that hold their messages (ByCost: unless
  // those cover over half the log; nearby ranges merged), or the whole log. Tests set the others.
  enum class ScopeScan { ByCost, Always, Never };
  ScopeScan scope_scan = ScopeScan::ByCost;
  // How the scan reads the log (ContentPatterns::read): nullopt, as this machine reads it faster;
  // true in the map, false copied a block at a time. Tests set it.
  std::optional<bool> read_in_map;
};

QueryResult run_keyword(IndexReader& reader, const std::string& query, const Filters& filters, const KeywordOptions& o);
QueryResult run_content(IndexReader& reader, const Filters& filters, const ContentOptions& o);
// The pattern front end of `content` without an index (-F escaping, -w wrapping, the Hyperscan
// compile, the PCRE2 prefilter decision): throws BadInput exactly as run_content would, else
// returns whether the patterns need PCRE2 confirmation. Used by the regex fuzzer.
bool check_content_patterns(const ContentOptions& o);
QueryResult run_list(IndexReader& reader, const Filters& filters);

// Calls `visit(key, value)` for every entry of `sessions` that --session's prefixes may name, in key
// order, or for every entry when there is no --session: each prefix is one key range, from its upper-case
// form to its lower-case one (ids compare case-insensitively), not a pass over every session.
void for_each_session_entry(const IndexReader& reader, const Filters& filters,
                            const std::function<void(std::string_view key, std::string_view value)>& visit);
// The same entries whose record passes the session-level filters, viewed (SessionFacets: nothing
// copied); a record that does not decode is IndexDamaged.
void for_each_matching_session(const IndexReader& reader, const Filters& filters,
                               const std::function<void(std::string_view key, const SessionFacets& s)>& visit);

// A set of ids asked with views (std::string_view finds a std::string): no string made per lookup.
struct ViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using IdSet = std::unordered_set<std::string, ViewHash, std::equal_to<>>;

// Sessions passing the session-level filters, or nullopt when there are none (everything passes).
class SessionScope {
 public:
  // What allows() is asked with: a session id (the text log's keys), or a document's session value
  // (its number, engine/store/session_numbers.h: nothing to look up per match).
  enum class Key { Id, DocumentValue };
  SessionScope(const IndexReader& reader, const Filters& filters, Key key = Key::Id);
  bool active() const { return active_; }
  bool allows(std::string_view key) const;
  // The allowed sessions' ids when there are at most kFew of them, else null (and null when no
  // filter applies): keyword filters by their terms then, instead of reading each candidate's session.
  static constexpr size_t kFew = 256;
  const std::vector<std::string>* few() const { return active_ && !many_ ? &few_ : nullptr; }
  // Whether session `id` passes (a lookup of its number under Key::DocumentValue).
  bool allows_id(const IndexReader& reader, std::string_view id) const;

 private:
  bool active_ = false;
  bool many_ = false;
  std::vector<std::string> few_;
  Key key_;
  // Asked with views: allows() takes the text log's key, no string made per entry.
  IdSet allowed_;                            // Key::Id
  std::vector<bool> numbers_;                // Key::DocumentValue: by session number
};

// The sessions that can hold a message at or after `since_ms` (> 0) and that `scope` allows, when
// there are at most SessionScope::kFew of them; nullopt when there are more, or when finding out
// would visit more than a few times that many. A session's `ended_at` is the time of its latest
// message (and of its title document), and `sess_by_time` orders sessions by it.
std::optional<std::vector<std::string>> few_sessions_since(const IndexReader& reader, int64_t since_ms,
                                                           const SessionScope& scope);
// The fewest sessions that hold every message `f` can match, when they are few: the scope's few(),
// or the sessions a --since reaches (few_sessions_since) when they are fewer; nullopt when neither
// is few. keyword narrows its query by their terms, content its scan to their entries.
std::optional<std::vector<std::string>> few_sessions(const IndexReader& reader, const Filters& f,
                                                     const SessionScope& scope);

// Lower-cased term occurrences for snippets: the byte range of the earliest of `terms` in `text`.
// A term's first place starting a word counts, else its first place at all; ties go to the term
// listed first. `window`: how many bytes are folded between looks (tests make it small).
bool find_first_term(std::string_view text, const std::vector<std::string>& terms, size_t& begin, size_t& end,
                     size_t window = size_t{16} << 10);

}  // namespace osearch
