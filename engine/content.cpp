// `content`: exhaustive regex over the decoded text of every message. One Hyperscan block scan
// streams through the whole text log (mmap'd); entries with a match are candidates, each then
// confirmed by a scan of that message alone (so no match spans two messages, and `^`/`$` see the
// message's own lines) which also gives the first match's start for the snippet.
#include <hs.h>

#include <algorithm>
#include <map>
#include <memory>

#include "engine/pcre_matcher.h"
#include "engine/search.h"
#include "engine/snippet.h"

namespace osearch {
namespace {

struct HsDatabaseDeleter {
  void operator()(hs_database_t* db) const { hs_free_database(db); }
};
struct HsScratchDeleter {
  void operator()(hs_scratch_t* s) const { hs_free_scratch(s); }
};
using HsDatabase = std::unique_ptr<hs_database_t, HsDatabaseDeleter>;
using HsScratch = std::unique_ptr<hs_scratch_t, HsScratchDeleter>;

bool has_non_ascii(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
}

std::string escape_literal(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::string_view("\\^$.|?*+()[]{}/-").find(c) != std::string_view::npos) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

std::string unsupported_hint(const std::string& msg) {
  if (msg.find("Back-reference") != std::string::npos || msg.find("backreference") != std::string::npos)
    return " (backreferences are not supported)";
  if (msg.find("Zero-width") != std::string::npos || msg.find("assertion") != std::string::npos)
    return " (lookahead/lookbehind assertions are not supported)";
  return "";
}

// The expressions as Hyperscan and PCRE2 both read them: -F escaped, -w wrapped in \b…\b.
std::vector<std::string> expressions(const ContentOptions& o) {
  std::vector<std::string> exprs;
  for (const auto& p : o.patterns) {
    std::string expr = o.fixed ? escape_literal(p) : p;
    if (o.word) expr = "\\b(?:" + expr + ")\\b";
    exprs.push_back(std::move(expr));
  }
  return exprs;
}

enum class Mode { Exact, ExactWithStart, Prefilter };

// Compiles all patterns into one block-mode database.
HsDatabase compile(const ContentOptions& o, const std::vector<std::string>& exprs, Mode mode, std::string* error) {
  std::vector<unsigned> flags, ids;
  std::vector<const char*> cexprs;
  for (size_t i = 0; i < exprs.size(); ++i) {
    unsigned f = HS_FLAG_MULTILINE | HS_FLAG_ALLOWEMPTY;
    if (o.ignore_case) f |= HS_FLAG_CASELESS;
    // Non-ASCII patterns match whole characters; UCP (Unicode \w) cannot combine with \b, so -w stays ASCII.
    if (has_non_ascii(o.patterns[i])) f |= HS_FLAG_UTF8 | (o.word ? 0u : HS_FLAG_UCP);
    if (mode == Mode::ExactWithStart) f |= HS_FLAG_SOM_LEFTMOST;
    if (mode == Mode::Prefilter) f |= HS_FLAG_PREFILTER;
    flags.push_back(f);
    ids.push_back(static_cast<unsigned>(i));
    cexprs.push_back(exprs[i].c_str());
  }
  hs_database_t* db = nullptr;
  hs_compile_error_t* err = nullptr;
  if (hs_compile_multi(cexprs.data(), flags.data(), ids.data(), static_cast<unsigned>(cexprs.size()), HS_MODE_BLOCK,
                       nullptr, &db, &err) != HS_SUCCESS) {
    std::string msg = err && err->message ? err->message : "unknown error";
    int which = err ? err->expression : -1;
    if (err) hs_free_compile_error(err);
    if (error) {
      std::string pat = which >= 0 && static_cast<size_t>(which) < o.patterns.size() ? o.patterns[which] : "";
      *error = "cannot compile regex '" + pat + "': " + msg + unsupported_hint(msg);
    }
    return nullptr;
  }
  return HsDatabase(db);
}

struct ScanState {
  const TextLogReader* log = nullptr;
  uint64_t base = 0;           // file offset of the scanned block
  uint64_t current_end = 0;    // end of the last candidate entry (file offsets)
  std::vector<uint64_t> candidates;
};

int on_candidate(unsigned, unsigned long long, unsigned long long to, unsigned, void* ctx) {
  auto* st = static_cast<ScanState*>(ctx);
  uint64_t at = st->base + (to == 0 ? 0 : to - 1);
  if (!st->candidates.empty() && at < st->current_end) return 0;
  TextEntry e;
  if (!st->log->entry_containing(at, e)) return 0;
  if (!st->candidates.empty() && st->candidates.back() == e.start) return 0;
  st->candidates.push_back(e.start);
  st->current_end = e.text_offset + e.text.size();
  return 0;
}

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

}  // namespace

QueryResult run_content(IndexReader& reader, const Filters& f, const ContentOptions& o) {
  QueryResult result;
  result.action = "content";
  for (const auto& p : o.patterns) result.query += (result.query.empty() ? "" : " | ") + p;
  if (o.patterns.empty()) throw BadInput("usage", "content needs a PATTERN (or -e PATTERN)");
  std::vector<std::string> exprs = expressions(o);
  std::string error;
  HsDatabase scan_db = compile(o, exprs, Mode::Exact, &error);
  HsDatabase som_db;
  std::optional<PcreMatcher> pcre;
  if (scan_db) {
    som_db = compile(o, exprs, Mode::ExactWithStart, nullptr);  // some patterns cannot give start offsets
  } else if (!unsupported_hint(error).empty()) {
    // Backreferences and lookaround: Hyperscan finds a superset of candidates, PCRE2-JIT decides.
    std::string pcre_error;
    pcre = PcreMatcher::compile(exprs, o.ignore_case, pcre_error);
    if (!pcre) throw BadInput("bad-regex", pcre_error);
    scan_db = compile(o, exprs, Mode::Prefilter, &error);
    if (!scan_db) throw BadInput("bad-regex", error);
  } else {
    throw BadInput("bad-regex", error);
  }
  const hs_database_t* confirm_db = som_db ? som_db.get() : scan_db.get();
  // One scratch grown to serve both databases (allocated once, never in the scan path).
  hs_scratch_t* raw = nullptr;
  if (hs_alloc_scratch(scan_db.get(), &raw) != HS_SUCCESS ||
      (som_db && hs_alloc_scratch(som_db.get(), &raw) != HS_SUCCESS)) {
    if (raw) hs_free_scratch(raw);
    throw std::runtime_error("hs_alloc_scratch failed");
  }
  HsScratch scratch(raw);

  // 1. One pass over the whole log (in <4 GiB blocks cut at entry starts).
  const TextLogReader& log = reader.text();
  std::string_view data = log.data();
  ScanState st;
  st.log = &log;
  constexpr uint64_t kMaxBlock = 1ull << 31;
  auto starts = log.starts();
  uint64_t pos = 0;
  while (pos < data.size()) {
    uint64_t end = data.size();
    if (end - pos > kMaxBlock) {
      auto it = std::upper_bound(starts.begin(), starts.end(), pos + kMaxBlock);
      end = it == starts.begin() ? data.size() : *(it - 1);
      if (end <= pos) end = data.size();
    }
    st.base = pos;
    hs_scan(scan_db.get(), data.data() + pos, static_cast<unsigned>(end - pos), 0, scratch.get(), on_candidate, &st);
    pos = end;
  }

  // 2. Confirm candidates, apply filters, aggregate per session.
  SessionScope scope(reader, f);
  std::map<std::string, std::optional<SessionRec>> sessions;
  struct Found {
    MessageRec msg;
    FirstMatch match;
  };
  std::map<std::string, std::vector<Found>> by_session;
  for (uint64_t start : st.candidates) {
    TextEntry e;
    if (!log.entry_at(start, e)) continue;
    auto msg = reader.message(e.key);
    if (!msg || msg->text_offset != start) continue;  // superseded entry
    if (!scope.allows(msg->session_id)) continue;
    std::vector<std::string> tool_names;
    if (!f.tools.empty())
      for (const auto& id : msg->tool_call_ids)
        if (auto v = reader.txn().get(reader.db().tool_calls, pair_key(msg->session_id, id)))
          if (auto tc = ToolCallRec::decode(*v)) tool_names.push_back(tc->name);
    if (!f.message_matches(*msg, tool_names)) continue;
    FirstMatch fm;
    if (pcre) {
      if (auto m = pcre->first_match(e.text)) fm = {true, m->first, m->second};
    } else {
      hs_scan(confirm_db, e.text.data(), static_cast<unsigned>(e.text.size()), 0, scratch.get(), on_first, &fm);
    }
    if (!fm.found) continue;  // the candidate match spanned an entry boundary
    by_session[msg->session_id].push_back({std::move(*msg), fm});
  }

  auto make_hit = [&](const SessionRec& s, const Found& found, uint64_t count) {
    Hit hit;
    hit.session = s;
    hit.match_count = count;
    hit.message = found.msg;
    std::string_view text = reader.message_text(found.msg);
    uint64_t from = som_db || pcre ? found.match.from : found.match.to;
    hit.snippet = make_snippet(text, from, found.match.to, o.snippet_chars);
    if (found.match.to <= text.size() && from <= found.match.to)
      hit.matched_terms.emplace_back(text.substr(from, std::min<uint64_t>(found.match.to - from, 200)));
    return hit;
  };
  std::vector<Hit> hits;
  for (auto& [sid, found] : by_session) {
    auto s = reader.session(sid);
    if (!s) continue;
    std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.msg.key < b.msg.key; });
    if (o.by_message) {
      for (const auto& fm : found) hits.push_back(make_hit(*s, fm, 1));
    } else {
      hits.push_back(make_hit(*s, found.front(), found.size()));
      hits.back().score = static_cast<double>(found.back().msg.timestamp_ms);  // order by latest match
    }
  }
  // Newest first: by the latest matching message (session) or the message time.
  std::stable_sort(hits.begin(), hits.end(), [&](const Hit& a, const Hit& b) {
    int64_t ta = o.by_message ? a.message->timestamp_ms : static_cast<int64_t>(a.score);
    int64_t tb = o.by_message ? b.message->timestamp_ms : static_cast<int64_t>(b.score);
    return ta > tb;
  });
  for (auto& h : hits) h.score = 0;
  result.total = hits.size();
  size_t begin = std::min(f.offset, hits.size());
  size_t end = std::min(hits.size(), begin + f.limit);
  result.hits.assign(std::make_move_iterator(hits.begin() + begin), std::make_move_iterator(hits.begin() + end));
  return result;
}

}  // namespace osearch
