// What the query commands share: parsed filters, the hit type every printer receives, and the
// error that means "bad input" (exit 2).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/query/reader.h"
#include "engine/store/records_store.h"
#include "memory/memory.h"

namespace osearch {

// Bad input: unknown flag value, bad time, bad or unsupported regex, unknown session. Exit code 2.
struct BadInput : std::runtime_error {
  std::string kind;  // "usage", "bad-time", "bad-regex", "unknown-session", …
  BadInput(std::string k, const std::string& message) : std::runtime_error(message), kind(std::move(k)) {}
};

// Filters as typed on the command line (SPEC §3 "Common filters").
struct FilterArgs {
  std::vector<std::string> project, agent, session, branch, model, role, type, tool;
  std::string since, until, cwd;
  bool include_meta = false;
  size_t limit = 0;  // 0 = the command's default
  size_t offset = 0;
};

struct Filters {
  std::vector<std::string> projects;  // lower-cased substrings of slug or path (any)
  std::vector<std::string> agents;
  std::vector<std::string> sessions;  // id prefixes (any)
  std::optional<int64_t> since_ms, until_ms;  // until is exclusive
  std::vector<std::string> branches;  // exact
  std::vector<std::string> models;    // lower-cased substrings (any)
  std::vector<Role> roles;
  std::vector<ContentType> types;
  bool type_memory = false;           // --type memory (memories are not a message content type)
  std::vector<std::string> tools;     // exact, case-insensitive
  std::string cwd;                    // path prefix of the session's cwd/project path
  bool include_meta = false;
  size_t limit = 20, offset = 0;

  bool has_session_level() const {
    return !projects.empty() || !agents.empty() || !sessions.empty() || !models.empty() || !cwd.empty();
  }
  // Session-level part: project, agent, session prefix, model, cwd.
  bool session_matches(const SessionFacets& s) const;
  bool session_matches(const SessionRec& s) const;
  // The session prefix alone, on a session id as the keys hold it: false rules the session out
  // before its record is read (a loop over every session pays a key compare, not a decode).
  bool session_id_may_match(std::string_view id) const;
  // Message-level part: role, type, tool, branch, time, meta.
  bool message_matches(const MessageRec& m, const std::vector<std::string>& tool_names) const;
  // The part decided by role, content type and the hidden flag alone.
  bool kind_matches(bool hidden, Role role, ContentType type) const;
  // Whether message_matches needs more than kind_matches (a record read per message).
  bool needs_record() const { return !branches.empty() || !tools.empty() || since_ms || until_ms; }
};

Filters parse_filters(const FilterArgs& args, int64_t now_ms, size_t default_limit);

struct Hit {
  // A memory hit (keyword, SPEC §6) has no session: `session` and `message` stay empty.
  std::optional<memory::Record> memory;
  SessionRec session;
  std::optional<MessageRec> message;  // the best (keyword) or first (content) matching message
  std::string snippet;
  std::vector<std::string> matched_terms;
  double score = 0;
  uint64_t match_count = 0;
};

struct QueryResult {
  std::string action, query;
  std::vector<std::string> patterns;  // content: each pattern as given (the CLI echoes them)
  uint64_t total = 0;
  // false: `total` is Xapian's estimate, or (with `truncated`) only what was found before the cut.
  bool total_exact = true;
  // Some work was cut short (a time budget, a wildcard expansion limit): hits may be missing.
  // `truncated_reason` says which limit, in words ("; "-separated when several were hit).
  bool truncated = false;
  std::string truncated_reason;
  // keyword: a phrase joined by OR to another clause matched, in messages without positions (tool
  // input and output, thinking), wherever all its words are (an ANDed or negated phrase is exact).
  bool loose_phrases = false;
  // keyword: words of the query the index cannot search (ParsedQuery::ignored_words), left out.
  std::vector<std::string> ignored_words;
  std::vector<Hit> hits;
  IndexCounts counts;
  uint64_t refreshed_files = 0;
  bool stale = false;
  double took_ms = 0;

  // Records a limit that cut the work short; the total then counts only what was found.
  void truncate(const std::string& reason) {
    truncated = true;
    total_exact = false;
    truncated_reason += (truncated_reason.empty() ? "" : "; ") + reason;
  }
};

}  // namespace osearch
