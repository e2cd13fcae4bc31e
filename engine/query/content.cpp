// `content`: exhaustive regex over the decoded text of every message. Hyperscan streams through
// the whole text log (read a block at a time, engine/content_scan); entries with a match are candidates, each then
// confirmed by a scan of that message alone (so no match spans two messages, and `^`/`$` see the
// message's own lines) which also gives the first match's start for the snippet.
//
// Bounded work: PCRE2 runs under match/depth/heap limits (a pattern that hits one is exit 2,
// "regex-too-costly": no answer is better than one that silently skips messages), and the whole
// query under a time budget (the hits found so far, flagged `truncated`).
#include <algorithm>
#include <map>
#include <unordered_map>

#include "engine/query/content_scan.h"
#include "engine/query/pattern_cache.h"
#include "engine/query/search.h"
#include "engine/query/snippet.h"
#include "engine/store/store.h"
#include "engine/store/trace.h"

namespace osearch {
namespace {

struct FirstMatch {
  bool found = false;
  uint64_t from = 0, to = 0;
};

int on_first(unsigned, unsigned long long from, unsigned long long to, unsigned, void* ctx) {
  auto* m = static_cast<FirstMatch*>(ctx);
  if (!m->found || from < m->from || (from == m->from && to > m->to)) {
    m->found = true;
    m->from = from;
    m->to = to;
  }
  return 0;
}

// The log's ranges that hold the entries of `sessions`' messages, merged where less than 256 KB
// apart (the entries between are other sessions', which the filters drop); one empty range when
// they hold none. nullopt, for the whole log instead, when they cover more than half of it (the
// scan of the whole costs about the same) or hold more than kMostEntries messages. `always`: no
// merging, and no share of the log too large (tests).
std::optional<std::vector<LogRange>> session_ranges(const IndexReader& reader, const std::vector<std::string>& sessions,
                                                    bool always) {
  const uint64_t kGap = always ? 0 : 256u << 10;
  constexpr size_t kMostEntries = 200000;
  const TextLogReader& log = reader.text();
  const std::span<const uint64_t> starts = log.starts();
  const uint64_t size = log.data().size();
  std::vector<LogRange> entries;
  LmdbCursor cur(reader.txn(), reader.db().messages);
  for (const std::string& sid : sessions) {
    const std::string pfx = sid + '\0';
    for (bool ok = cur.seek(pfx); ok && cur.key().starts_with(pfx); ok = cur.next()) {
      const auto span = MessageRec::text_span_in(cur.value());
      if (!span || span->first >= size || entries.size() == kMostEntries) return std::nullopt;
      const auto next = std::upper_bound(starts.begin(), starts.end(), span->first);  // past the entry holding it
      if (next == starts.begin()) return std::nullopt;
      entries.push_back({*(next - 1), next == starts.end() ? size : *next});
    }
  }
  std::sort(entries.begin(), entries.end(), [](const LogRange& a, const LogRange& b) { return a.begin < b.begin; });
  std::vector<LogRange> out;
  uint64_t covered = 0;
  for (const LogRange& e : entries) {
    if (!out.empty() && e.begin <= out.back().end + kGap) {
      covered += e.end > out.back().end ? e.end - out.back().end : 0;
      out.back().end = std::max(out.back().end, e.end);
    } else {
      out.push_back(e);
      covered += e.end - e.begin;
    }
  }
  if (!always && covered > size / 2) return std::nullopt;
  if (out.empty()) out.push_back({0, 0});
  return out;
}

std::string seconds(std::chrono::milliseconds d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", static_cast<double>(d.count()) / 1000.0);
  return buf;
}

}  // namespace

bool check_content_patterns(const ContentOptions& o) { return ContentPatterns::compile(o).confirm.has_value(); }

QueryResult run_content(IndexReader& reader, const Filters& f, const ContentOptions& o) {
  QueryResult result;
  result.action = "content";
  for (const auto& p : o.patterns) result.query += (result.query.empty() ? "" : " | ") + p;
  if (o.patterns.empty()) throw BadInput("usage", "content needs a PATTERN (or -e PATTERN)");
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + o.time_budget;
  // Compiled patterns are kept in the index (engine/query/pattern_cache.h), unless it is read-only:
  // then nothing in it is written, not even a cache entry's time of use.
  std::string read_only_why;
  const std::string cache_dir = index_writable(reader.dir(), read_only_why) ? reader.dir() + "/" + kPatternCacheDir : "";
  ContentPatterns patterns = ContentPatterns::compile(o, cache_dir);
  if (o.read_in_map) patterns.read = *o.read_in_map ? ContentPatterns::Read::Map : ContentPatterns::Read::Copy;
  const hs_database_t* scan_db = patterns.scan.get();
  hs_scratch_t* scratch = patterns.scratch.get();
  const std::optional<PcreMatcher>& pcre = patterns.confirm;

  PhaseTimer timer("content");
  // 1. One pass over the whole log (or over each entry alone), in chunks, until the deadline.
  const TextLogReader& log = reader.text();
  SessionScope scope(reader, f);
  // The entry's key gives the session and time, its flags the kind, so LMDB is read only for filters
  // that need the record, for the entries of sessions that were dropped (their superseded entries
  // stay in the log, and every such session has an epoch until a compaction rewrites the log), or
  // for the hits finally shown.
  const bool check_records = f.needs_record();
  const bool superseded_entries = Store::meta_u64(reader.txn(), reader.db(), meta_key::kTextGarbage) > 0;
  CandidateRules rules;
  // The filters an entry's key and flags answer: PCRE2 decides on the scan's threads only the
  // candidates they keep (the loop below applies them to the rest).
  rules.kept = [&](const Candidate& c) {
    const std::optional<std::string_view> sid = session_in_message_key(c.key);
    if (!sid || (scope.active() && !scope.allows(*sid))) return false;
    return f.kind_matches(flags_hidden(c.flags), static_cast<Role>(flags_role(c.flags)),
                          static_cast<ContentType>(flags_content_type(c.flags)));
  };
  // When those are all the filters, the threads count what they settle (per session, or by message
  // keeping only what a page can show) instead of handing each candidate over, except for sessions
  // that were re-read: their superseded entries may still be in the log, and the loop below checks
  // each of theirs against its record.
  IdSet reread;
  if (!check_records) {
    if (superseded_entries)
      reader.epochs().for_each_value([&](const std::string& value) {
        if (auto sid = reader.session_of_value(value)) reread.insert(std::move(*sid));
      });
    // (asked only of candidates `kept` keeps: their keys name a session)
    rules.counted = [&](const Candidate& c) { return reread.empty() || !reread.count(*session_in_message_key(c.key)); };
    if (o.by_message) rules.newest = f.offset + f.limit;
  }
  // A few sessions (a --project, --session or --since that only they reach): only their messages'
  // entries are scanned, found through their records.
  std::optional<std::vector<LogRange>> ranges;
  if (o.scope_scan != ContentOptions::ScopeScan::Never)
    if (const auto few = few_sessions(reader, f, scope))
      ranges = session_ranges(reader, *few, o.scope_scan == ContentOptions::ScopeScan::Always);
  const std::span<const LogRange> only = ranges ? std::span<const LogRange>(*ranges) : std::span<const LogRange>();
  Candidates st = scan_log(log, patterns, deadline, rules, only);
  if (st.cut) {
    uint64_t to_scan = ranges ? 0 : log.data().size();
    for (const LogRange& r : only) to_scan += r.end - r.begin;
    result.truncate("time budget of " + seconds(o.time_budget) + " reached after scanning " +
                    std::to_string(st.bytes_scanned) + " of " + std::to_string(to_scan) + " bytes of the text log" +
                    (ranges ? " that hold the filtered sessions" : ""));
  }

  timer.mark("scan");
  // 2. Confirm candidates, apply filters, aggregate per session.
  // Candidates found before a cut scan are still confirmed, for a tenth of the budget more.
  const Clock::time_point confirm_deadline = st.cut ? Clock::now() + o.time_budget / 10 : deadline;
  // Does a text (a candidate the scan's threads left unsettled, or a title) match on its own?
  // PCRE2 when it decides (it throws regex-too-costly at a limit), else the exact database.
  auto matches_alone = [&](std::string_view text) {
    if (pcre) return pcre->first_match(text).has_value();
    return exact_match_alone(scan_db, text, 0, 0, scratch);
  };
  struct Group {
    uint64_t count = 0;
    std::string_view first_key;  // smallest key = earliest matching message (a view of Candidates::keys)
    int64_t latest_ts = 0;
  };
  std::unordered_map<std::string_view, Group> groups;
  // Candidates come in log order, a session's in runs: what the loop needs of the current one.
  struct SessionRun {
    std::string_view sid;
    bool dropped = false;    // its superseded entries may still be in the log
    Group* group = nullptr;  // groups[sid] once a candidate matched (a node: stays put as the map grows)
  } run;
  // --by message: the threads' first ones (of all they counted), then every match of the loop below.
  std::vector<MessageMatch> matched = std::move(st.newest);
  const size_t from_threads = matched.size();
  for (const SessionCount& c : st.sessions) {  // what the threads counted
    Group& g = groups[c.sid];
    g.latest_ts = g.count == 0 ? c.latest_ts : std::max(g.latest_ts, c.latest_ts);
    if (g.first_key.empty() || c.first_key < g.first_key) g.first_key = c.first_key;
    g.count += c.count;
  }
  size_t i = 0;  // candidates looked at
  bool out_of_time = false;
  for (size_t chunk = 0; chunk < st.chunks.size() && !out_of_time; ++chunk)
    for (const Candidate& cand : st.chunks[chunk]) {
      // The clock every candidate PCRE2 still has to confirm (one may take a good part of a second),
      // else every 64th (a Hyperscan rescan of one message is microseconds).
      if (((pcre && !cand.settled) || i % 64 == 0) && Clock::now() >= confirm_deadline) {
        result.truncate("time budget of " + seconds(o.time_budget) + " reached after confirming " + std::to_string(i) +
                        " of " + std::to_string(st.count) + " candidate messages");
        out_of_time = true;
        break;
      }
      ++i;
      if (!rules.kept(cand)) continue;
      const TextEntry e = cand.entry(log.data());
      const uint64_t start = e.start;
      const std::string_view sid = *session_in_message_key(e.key);
      if (sid != run.sid) {
        const auto value = superseded_entries ? reader.session_value(sid) : std::nullopt;
        run = {sid, value && reader.epochs().find(*value) != nullptr};
      }
      if (check_records || run.dropped) {
        auto msg = reader.message(e.key);
        if (!msg || msg->text_offset != start) continue;  // superseded entry
        std::vector<std::string> tool_names;
        if (!f.tools.empty())
          for (const auto& id : msg->tool_call_ids)
            if (auto v = reader.txn().get(reader.db().tool_calls, pair_key(msg->session_id, id)))
              if (auto tc = ToolCallRec::decode(*v)) tool_names.push_back(tc->name);
        if (!f.message_matches(*msg, tool_names)) continue;
      }
      if (!cand.settled && !matches_alone(e.text)) continue;
      const int64_t ts = timestamp_of_message_key(e.key);
      if (!run.group) run.group = &groups[sid];
      Group& g = *run.group;
      ++g.count;
      if (g.first_key.empty() || e.key < g.first_key) g.first_key = e.key;
      g.latest_ts = g.count == 1 ? ts : std::max(g.latest_ts, ts);
      if (o.by_message) matched.push_back({ts, start});
    }
  timer.mark("confirm");

  // 2b. Titles are searchable like messages (as keyword's title documents are): a session whose title
  // matches while none of its messages does is a hit that stands for the session, with no message.
  // Message-level filters (role, tool, branch, a type other than summary) leave titles out: a title
  // stands for its session as keyword's title documents do (content type summary, no role).
  std::vector<SessionRec> title_only;
  const bool titles_apply =
      !o.by_message && f.roles.empty() && f.tools.empty() && f.branches.empty() && !(f.type_memory && f.types.empty()) &&
      (f.types.empty() || std::find(f.types.begin(), f.types.end(), ContentType::Summary) != f.types.end());
  if (titles_apply && !result.truncated) {
    // Titles viewed in the records' bytes; the whole record is decoded only for a title that matches
    // (at 38,893 Codex sessions a decode of each was most of this pass).
    SessionFacets facets;
    std::vector<std::string_view> titles;
    for_each_session_entry(reader, f, [&](std::string_view key, std::string_view value) {
      if (groups.count(key)) return;
      if (!facets.decode(value) || !f.session_matches(facets)) return;
      if (f.since_ms && facets.ended_at < *f.since_ms) return;
      if (f.until_ms && facets.started_at >= *f.until_ms) return;
      facets.titles.searchable(titles);
      if (std::none_of(titles.begin(), titles.end(), matches_alone))
        return;
      if (auto s = SessionRec::decode(value)) title_only.push_back(std::move(*s));
    });
  }
  timer.mark("titles");

  // 3. Order (newest first), page, and only then read records and locate snippets.
  std::map<std::string, std::optional<SessionRec>, std::less<>> sessions;
  auto session_of = [&](std::string_view sid) -> const std::optional<SessionRec>& {
    auto it = sessions.find(sid);
    if (it == sessions.end()) it = sessions.emplace(std::string(sid), reader.session(sid)).first;
    return it->second;
  };
  // The first match of `text`: the hit's snippet and matched term.
  auto locate_first = [&](std::string_view text, Hit& hit) {
    FirstMatch fm;
    bool have_start = true;
    if (pcre) {
      if (auto m = pcre->first_match(text)) fm = {true, m->first, m->second};
    } else if (PcreMatcher::Found m; patterns.locate && (m = patterns.locate->find(text)).match) {
      fm = {true, m.begin, m.end};
    } else if (patterns.with_start) {
      hs_scan(patterns.with_start.get(), text.data(), static_cast<unsigned>(text.size()), 0, scratch, on_first, &fm);
    } else {  // only the end of the first match is known: the snippet centres on it
      hs_scan(scan_db, text.data(), static_cast<unsigned>(text.size()), 0, scratch, on_first, &fm);
      have_start = false;
    }
    uint64_t from = have_start ? fm.from : fm.to;
    hit.snippet = make_snippet(text, from, fm.to, o.snippet_chars);
    if (fm.found && fm.to <= text.size() && from <= fm.to)
      hit.matched_terms.emplace_back(text.substr(from, std::min<uint64_t>(fm.to - from, 200)));
  };
  std::string text_buffer;  // a shown hit's message text, read (not mapped)
  auto make_hit = [&](std::string_view key, uint64_t count, Hit& hit) {
    reader.hit_built();
    auto msg = reader.message(key);
    const auto& s = session_of(key.substr(0, key.find('\0')));
    if (!msg || !s) return false;
    hit.session = *s;
    hit.match_count = count;
    locate_first(reader.message_text(*msg, text_buffer), hit);
    hit.message = std::move(*msg);
    return true;
  };
  std::vector<Hit> hits;
  if (o.by_message) {
    // Newest first, then by place in the log; a page needs only its own and those before it sorted.
    const size_t page_end = std::min(matched.size(), f.offset + f.limit);
    std::partial_sort(matched.begin(), matched.begin() + static_cast<std::ptrdiff_t>(page_end), matched.end());
    result.total = matched.size() - from_threads + st.counted_messages;
    for (size_t i = f.offset; i < page_end && hits.size() < f.limit; ++i) {
      TextEntry e;
      Hit hit;
      if (log.entry_at(matched[i].start, e) && make_hit(e.key, 1, hit)) hits.push_back(std::move(hit));
    }
  } else {
    struct Ranked {
      int64_t ts;
      std::string_view key;              // the earliest matching message, or the session id
      const Group* group;                // null: a title-only hit
      const SessionRec* title_session;
    };
    std::vector<Ranked> order;
    order.reserve(groups.size() + title_only.size());
    for (const auto& [sid, g] : groups) order.push_back({g.latest_ts, g.first_key, &g, nullptr});
    for (const auto& s : title_only) order.push_back({s.ended_at, s.id, nullptr, &s});
    std::sort(order.begin(), order.end(), [](const Ranked& a, const Ranked& b) {
      return a.ts != b.ts ? a.ts > b.ts : a.key < b.key;
    });
    result.total = order.size();
    for (size_t i = f.offset; i < order.size() && hits.size() < f.limit; ++i) {
      Hit hit;
      if (order[i].group) {
        if (make_hit(order[i].group->first_key, order[i].group->count, hit)) hits.push_back(std::move(hit));
        continue;
      }
      hit.session = *order[i].title_session;
      hit.match_count = 1;
      // The snippet comes from the first title that matches (the shown one when it does).
      for (const auto& t : hit.session.searchable_titles())
        if (matches_alone(t)) {
          locate_first(t, hit);
          break;
        }
      hits.push_back(std::move(hit));
    }
  }
  result.hits = std::move(hits);
  return result;
}

}  // namespace osearch
