// The Hyperscan side of `content`: the query's patterns compiled once, and the pass over the whole
// text log that finds the entries which may match (candidates), within a deadline.
#pragma once

#include <hs.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/query/literal_filter.h"
#include "engine/query/pcre_matcher.h"
#include "engine/query/search.h"
#include "engine/store/text_log.h"

namespace osearch {

struct HsDatabaseDeleter {
  void operator()(hs_database_t* db) const { hs_free_database(db); }
};
struct HsScratchDeleter {
  void operator()(hs_scratch_t* s) const { hs_free_scratch(s); }
};
using HsDatabase = std::unique_ptr<hs_database_t, HsDatabaseDeleter>;
using HsScratch = std::unique_ptr<hs_scratch_t, HsScratchDeleter>;

// Every pattern runs with UTF-8 and Unicode properties (HS_FLAG_UTF8|HS_FLAG_UCP; PCRE2_UTF|PCRE2_UCP),
// as ripgrep does: \w matches é, \p{Han} works, -i folds É. Hyperscan cannot run some constructs
// exactly (backreferences, lookaround, and \b/\B under Unicode rules, so every -w): those scan in
// HS_FLAG_PREFILTER mode and PCRE2 decides each candidate.
struct ContentPatterns {
  HsDatabase scan;                      // exact, or a prefilter when `confirm` is set
  std::optional<PcreMatcher> confirm;   // decides every candidate
  std::optional<PcreMatcher> locate;    // where the first match starts, for snippets (shown hits only)
  HsDatabase with_start;                // SOM_LEFTMOST, only when PCRE2 cannot compile `locate`
  HsDatabase word_literals;             // -w over ASCII literals: their bare matches with starts
                                        // (see whole_word_literal)
  // Some pattern looks outside its match (^ $ \b \A \z lookaround; -w only with such a pattern, a
  // bare -w scans the whole log): in the whole-log scan it would see the neighbouring entries'
  // framing bytes, so each entry's text is scanned alone.
  bool per_entry = false;
  // Literals one of which every match holds (engine/query/literal_filter.h): the scan skips the
  // log's bytes up to the next occurrence of one.
  std::optional<LiteralSet> prefilter;
  // A set of several literals is timed against Hyperscan alone on each scanning thread's first
  // block, from a log of this size on (below it, the filter is used: either is quick). Tests lower it.
  uint64_t time_literal_sets_from = uint64_t{64} << 20;
  // How the scan gets the log's bytes: copied a block at a time into each thread's buffer (pread),
  // or read in the map. A mapped page's first touch costs ~1 to 30 us by machine (some hypervisors
  // map each page on first use), so ByCost times both once when the scan covers at least
  // `time_reads_from` bytes, and copies below that. Tests set the others.
  enum class Read { ByCost, Copy, Map };
  Read read = Read::ByCost;
  uint64_t time_reads_from = uint64_t{64} << 20;
  HsScratch scratch;                    // serves every database above

  // Throws BadInput("bad-regex"). `cache_dir`: where compiled databases are kept ("" = nowhere).
  static ContentPatterns compile(const ContentOptions& o, const std::string& cache_dir = "");
};

// -w over ASCII literals (`word_literals` set): whether `text` holds a whole-word match, told from
// the bytes around each occurrence. nullopt when an occurrence touches non-ASCII text (or holds
// some, through Unicode case folding): PCRE2's Unicode \b decides those.
// `scratch`: one allocated for `p` (its own, or a clone for another thread).
std::optional<bool> whole_word_literal(const ContentPatterns& p, std::string_view text, hs_scratch_t* scratch);

// Whether an exact database matches `text` (an entry's, at file offset `text_offset`) on its own:
// first the part up to where the whole-log scan saw a match end (`first_end`; 0: none), then all.
bool exact_match_alone(const hs_database_t* db, std::string_view text, uint64_t text_offset, uint64_t first_end,
                       hs_scratch_t* scratch);

// Whether a regex asserts something about the text around its match. Errs towards yes (that only
// costs speed): anchors, word boundaries and lookaround anywhere outside a character class.
bool looks_outside_match(std::string_view pattern);

// Bytes that stay put while an answer is built (slabs, never moved): the candidates' keys, copied
// from the scan's buffer so that grouping them reads no page of the mapped log.
class KeptBytes {
 public:
  std::string_view keep(std::string_view bytes);

 private:
  std::vector<std::unique_ptr<char[]>> slabs_;
  size_t used_ = 0, capacity_ = 0;
};

// An entry the scan found a match in, as compact as the answer needs it (a common word makes
// hundreds of thousands, and every fresh page costs a fault): its key is the copy in
// Candidates::keys, its text is read from the map (TextLogReader::data) only to confirm an
// unsettled candidate or for a shown hit.
struct Candidate {
  std::string_view key;
  uint64_t start = 0;        // the entry's offset in the log
  uint64_t text_offset = 0;  // its text's
  uint32_t text_len = 0;
  uint8_t flags = 0;         // as TextEntry::flags
  bool settled = false;      // the scan found the entry matches alone (those it found do not are no
                             // candidates): -w literals, every entry of an exact whole-log scan, and
                             // those PCRE2 decided on the scan's threads
  TextEntry entry(std::string_view log) const {
    TextEntry e;
    e.start = start;
    e.key = key;
    e.flags = flags;
    e.text = log.substr(text_offset, text_len);
    e.text_offset = text_offset;
    return e;
  }
};

// The matches of one session's run of candidates that the scan's threads counted themselves
// (CandidateRules::counted): views of Candidates::keys.
struct SessionCount {
  std::string_view sid;
  std::string_view first_key;  // the smallest key: the earliest matching message
  uint64_t count = 0;
  int64_t latest_ts = 0;
};

// A message the scan's threads counted by message (CandidateRules::newest): its time and where its
// entry starts. The order of a by-message answer: newest first, then by place in the log.
struct MessageMatch {
  int64_t ts = 0;
  uint64_t start = 0;
  bool operator<(const MessageMatch& o) const { return ts != o.ts ? ts > o.ts : start < o.start; }  // "before"
};

struct Candidates {
  std::vector<std::vector<Candidate>> chunks;  // in log order, chunk by chunk (not merged: no copy)
  std::vector<SessionCount> sessions;          // counted on the threads, a session possibly in several
  std::vector<MessageMatch> newest;            // CandidateRules::newest: each chunk's first ones
  uint64_t counted_messages = 0;               // and how many messages those chunks counted
  std::vector<KeptBytes> keys;                 // what the entries' keys and the counts view
  size_t count = 0;                            // candidates in all chunks
  bool cut = false;                            // the deadline stopped the scan before the end of the log
  uint64_t bytes_scanned = 0;
};

// What the caller lets the scan's threads do with the candidates they find.
struct CandidateRules {
  // Which candidates the caller's filters may keep, told from the key and flags alone (a test that
  // is cheap and safe to call from any thread). PCRE2 decides on the threads only these; the others
  // are left to the caller, whose filters drop them before PCRE2 sees them: a message no filter
  // keeps must never make an answer "regex-too-costly". Empty: every candidate.
  std::function<bool(const Candidate&)> kept;
  // Which settled candidates `kept` keeps the threads count per session themselves
  // (Candidates::sessions) instead of handing each over, a common word making hundreds of
  // thousands: those for which `kept` is all the filtering there is and that count only towards
  // their session. Set, it also lets the threads drop the settled candidates `kept` drops. Empty:
  // none.
  std::function<bool(const Candidate&)> counted;
  // By message instead (when > 0): the threads count those matches and keep only the `newest`
  // first of each chunk in MessageMatch order (Candidates::newest, counted_messages): a page of an
  // answer needs no more, and a common word makes hundreds of thousands.
  size_t newest = 0;
};

// Bytes [begin, end) of the log, both entry starts (or the log's end).
struct LogRange {
  uint64_t begin = 0, end = 0;
};

// Scans the log in chunks cut at entry starts, two threads when it is big; no chunk is started
// past `deadline`. The threads read the log with pread (TextLogReader::read), and settle what
// they can of their own candidates while the bytes are in their buffer: PCRE2 (a matcher per
// thread) decides those `rules.kept` keeps, except where a limit stops it or past the deadline.
// `only`: the ranges to scan, in log order and apart (empty: the whole log); the candidates
// `rules.kept` would keep must all lie in them.
Candidates scan_log(const TextLogReader& log, const ContentPatterns& patterns,
                    std::chrono::steady_clock::time_point deadline, const CandidateRules& rules = {},
                    std::span<const LogRange> only = {});

}  // namespace osearch
