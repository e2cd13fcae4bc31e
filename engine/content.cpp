// `content`: exhaustive regex over the decoded text of every message. One Hyperscan block scan
// streams through the whole text log (mmap'd); entries with a match are candidates, each then
// confirmed by a scan of that message alone (so no match spans two messages, and `^`/`$` see the
// message's own lines) which also gives the first match's start for the snippet.
#include <hs.h>

#include <algorithm>
#include <map>
#include <memory>
#include <thread>
#include <unordered_map>

#include "engine/pcre_matcher.h"
#include "engine/search.h"
#include "engine/snippet.h"
#include "engine/trace.h"

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
  std::vector<uint64_t> first_ends;  // per candidate: end of the first match seen in it (file offset)
};

int on_candidate(unsigned, unsigned long long, unsigned long long to, unsigned, void* ctx) {
  auto* st = static_cast<ScanState*>(ctx);
  uint64_t at = st->base + (to == 0 ? 0 : to - 1);
  if (!st->candidates.empty() && at < st->current_end) return 0;
  TextEntry e;
  if (!st->log->entry_containing(at, e)) return 0;
  if (!st->candidates.empty() && st->candidates.back() == e.start) return 0;
  st->candidates.push_back(e.start);
  st->first_ends.push_back(st->base + to);
  st->current_end = e.text_offset + e.text.size();
  return 0;
}

int on_any(unsigned, unsigned long long, unsigned long long, unsigned, void* ctx) {
  *static_cast<bool*>(ctx) = true;
  return 1;  // one match is enough: stop scanning
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

// A content query's patterns, compiled: the scan database is exact, or a prefilter superset
// when `pcre` decides.
struct CompiledPatterns {
  HsDatabase scan_db;
  HsDatabase som_db;  // exact with start offsets; null when some pattern cannot give them
  std::optional<PcreMatcher> pcre;
};

CompiledPatterns compile_patterns(const ContentOptions& o) {
  if (o.patterns.empty()) throw BadInput("usage", "content needs a PATTERN (or -e PATTERN)");
  std::vector<std::string> exprs = expressions(o);
  std::string error;
  CompiledPatterns c;
  c.scan_db = compile(o, exprs, Mode::Exact, &error);
  if (c.scan_db) {
    c.som_db = compile(o, exprs, Mode::ExactWithStart, nullptr);  // some patterns cannot give start offsets
  } else if (!unsupported_hint(error).empty()) {
    // Backreferences and lookaround: Hyperscan finds a superset of candidates, PCRE2-JIT decides.
    std::string pcre_error;
    c.pcre = PcreMatcher::compile(exprs, o.ignore_case, pcre_error);
    if (!c.pcre) throw BadInput("bad-regex", pcre_error);
    c.scan_db = compile(o, exprs, Mode::Prefilter, &error);
    if (!c.scan_db) throw BadInput("bad-regex", error);
  } else {
    throw BadInput("bad-regex", error);
  }
  return c;
}

}  // namespace

bool check_content_patterns(const ContentOptions& o) { return compile_patterns(o).pcre.has_value(); }

QueryResult run_content(IndexReader& reader, const Filters& f, const ContentOptions& o) {
  QueryResult result;
  result.action = "content";
  for (const auto& p : o.patterns) result.query += (result.query.empty() ? "" : " | ") + p;
  CompiledPatterns compiled = compile_patterns(o);
  HsDatabase& scan_db = compiled.scan_db;
  HsDatabase& som_db = compiled.som_db;
  std::optional<PcreMatcher>& pcre = compiled.pcre;
  const hs_database_t* confirm_db = som_db ? som_db.get() : scan_db.get();
  // One scratch grown to serve both databases (allocated once, never in the scan path).
  hs_scratch_t* raw = nullptr;
  if (hs_alloc_scratch(scan_db.get(), &raw) != HS_SUCCESS ||
      (som_db && hs_alloc_scratch(som_db.get(), &raw) != HS_SUCCESS)) {
    if (raw) hs_free_scratch(raw);
    throw std::runtime_error("hs_alloc_scratch failed");
  }
  HsScratch scratch(raw);

  PhaseTimer timer("content");
  // 1. One pass over the whole log, in blocks cut at entry starts (no real match spans entries),
  // two threads at once (Hyperscan databases are shareable; each thread has its own scratch).
  const TextLogReader& log = reader.text();
  std::string_view data = log.data();
  auto starts = log.starts();
  constexpr uint64_t kMaxBlock = 1ull << 30;
  constexpr uint64_t kParallelBytes = 8u << 20;
  const unsigned threads = data.size() >= kParallelBytes ? 2 : 1;
  size_t blocks = std::max<size_t>(threads, (data.size() + kMaxBlock - 1) / kMaxBlock * threads);
  std::vector<uint64_t> cuts{0};
  for (size_t i = 1; i < blocks; ++i) {
    uint64_t want = data.size() * i / blocks;
    auto it = std::lower_bound(starts.begin(), starts.end(), want);
    uint64_t cut = it == starts.end() ? data.size() : *it;
    if (cut > cuts.back()) cuts.push_back(cut);
  }
  if (cuts.back() < data.size()) cuts.push_back(data.size());
  std::vector<ScanState> states(cuts.size() - 1);
  std::vector<HsScratch> scratches;
  for (unsigned t = 1; t < threads; ++t) {
    hs_scratch_t* clone = nullptr;
    if (hs_clone_scratch(scratch.get(), &clone) != HS_SUCCESS) throw std::runtime_error("hs_clone_scratch failed");
    scratches.emplace_back(clone);
  }
  auto scan_blocks = [&](unsigned t) {
    hs_scratch_t* sc = t == 0 ? scratch.get() : scratches[t - 1].get();
    for (size_t b = t; b < states.size(); b += threads) {
      states[b].log = &log;
      states[b].base = cuts[b];
      hs_scan(scan_db.get(), data.data() + cuts[b], static_cast<unsigned>(cuts[b + 1] - cuts[b]), 0, sc, on_candidate,
              &states[b]);
    }
  };
  {
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(scan_blocks, t);
    scan_blocks(0);
    for (auto& th : pool) th.join();
  }
  ScanState st;
  for (auto& part : states) {
    st.candidates.insert(st.candidates.end(), part.candidates.begin(), part.candidates.end());
    st.first_ends.insert(st.first_ends.end(), part.first_ends.begin(), part.first_ends.end());
  }

  timer.mark("scan");
  // 2. Confirm candidates, apply filters, aggregate per session. The entry's key gives the session
  // and time, its flags the kind, so LMDB is read only for filters that need the record, or when
  // the log holds superseded entries (after a file was re-read), or for the hits finally shown.
  const bool check_records =
      f.needs_record() || Store::meta_u64(reader.txn(), reader.db(), meta_key::kTextGarbage) > 0;
  SessionScope scope(reader, f);
  // Does the message really match on its own? Usually a scan up to where the log scan saw the first
  // match ends settles it; only when that match spanned entries is the whole text scanned.
  auto matches_alone = [&](std::string_view text, uint64_t text_offset, uint64_t first_end) {
    if (pcre) return pcre->first_match(text).has_value();
    bool found = false;
    if (first_end > text_offset && first_end <= text_offset + text.size()) {
      hs_scan(scan_db.get(), text.data(), static_cast<unsigned>(first_end - text_offset), 0, scratch.get(), on_any,
              &found);
      if (found) return true;
    }
    hs_scan(scan_db.get(), text.data(), static_cast<unsigned>(text.size()), 0, scratch.get(), on_any, &found);
    return found;
  };
  struct Group {
    uint64_t count = 0;
    std::string_view first_key;  // smallest key = earliest matching message (views into the mmap'd log)
    int64_t latest_ts = 0;
  };
  std::unordered_map<std::string_view, Group> groups;
  std::vector<std::pair<int64_t, std::string_view>> matched;  // --by message: (time, key)
  for (size_t i = 0; i < st.candidates.size(); ++i) {
    const uint64_t start = st.candidates[i];
    TextEntry e;
    if (!log.entry_at(start, e)) continue;
    const size_t z = e.key.find('\0');
    if (z == std::string_view::npos || e.key.size() < z + 9) continue;
    std::string_view sid = e.key.substr(0, z);
    if (scope.active() && !scope.allows(std::string(sid))) continue;
    if (!f.kind_matches(e.hidden(), static_cast<Role>(e.role()), static_cast<ContentType>(e.content_type()))) continue;
    if (check_records) {
      auto msg = reader.message(e.key);
      if (!msg || msg->text_offset != start) continue;  // superseded entry
      std::vector<std::string> tool_names;
      if (!f.tools.empty())
        for (const auto& id : msg->tool_call_ids)
          if (auto v = reader.txn().get(reader.db().tool_calls, pair_key(msg->session_id, id)))
            if (auto tc = ToolCallRec::decode(*v)) tool_names.push_back(tc->name);
      if (!f.message_matches(*msg, tool_names)) continue;
    }
    if (!matches_alone(e.text, e.text_offset, st.first_ends[i])) continue;  // only a match spanning entries
    const int64_t ts = timestamp_of_message_key(e.key);
    Group& g = groups[sid];
    ++g.count;
    if (g.first_key.empty() || e.key < g.first_key) g.first_key = e.key;
    g.latest_ts = g.count == 1 ? ts : std::max(g.latest_ts, ts);
    if (o.by_message) matched.emplace_back(ts, e.key);
  }
  timer.mark("confirm");

  // 3. Order (newest first), page, and only then read records and locate snippets.
  std::map<std::string, std::optional<SessionRec>, std::less<>> sessions;
  auto session_of = [&](std::string_view sid) -> const std::optional<SessionRec>& {
    auto it = sessions.find(sid);
    if (it == sessions.end()) it = sessions.emplace(std::string(sid), reader.session(sid)).first;
    return it->second;
  };
  auto make_hit = [&](std::string_view key, uint64_t count, Hit& hit) {
    auto msg = reader.message(key);
    const auto& s = session_of(key.substr(0, key.find('\0')));
    if (!msg || !s) return false;
    std::string_view text = reader.message_text(*msg);
    FirstMatch fm;
    if (pcre) {
      if (auto m = pcre->first_match(text)) fm = {true, m->first, m->second};
    } else {
      hs_scan(confirm_db, text.data(), static_cast<unsigned>(text.size()), 0, scratch.get(), on_first, &fm);
    }
    uint64_t from = som_db || pcre ? fm.from : fm.to;
    hit.session = *s;
    hit.match_count = count;
    hit.snippet = make_snippet(text, from, fm.to, o.snippet_chars);
    if (fm.found && fm.to <= text.size() && from <= fm.to)
      hit.matched_terms.emplace_back(text.substr(from, std::min<uint64_t>(fm.to - from, 200)));
    hit.message = std::move(*msg);
    return true;
  };
  std::vector<Hit> hits;
  if (o.by_message) {
    std::sort(matched.begin(), matched.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    result.total = matched.size();
    for (size_t i = f.offset; i < matched.size() && hits.size() < f.limit; ++i) {
      Hit hit;
      if (make_hit(matched[i].second, 1, hit)) hits.push_back(std::move(hit));
    }
  } else {
    std::vector<std::pair<int64_t, const Group*>> order;
    order.reserve(groups.size());
    for (const auto& [sid, g] : groups) order.emplace_back(g.latest_ts, &g);
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second->first_key < b.second->first_key;
    });
    result.total = order.size();
    for (size_t i = f.offset; i < order.size() && hits.size() < f.limit; ++i) {
      Hit hit;
      if (make_hit(order[i].second->first_key, order[i].second->count, hit)) hits.push_back(std::move(hit));
    }
  }
  result.hits = std::move(hits);
  return result;
}

}  // namespace osearch
