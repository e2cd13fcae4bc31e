// `keyword`: BM25 over the Xapian index, one hit per session unless --by message.
#include <algorithm>
#include <map>
#include <optional>

#include "engine/query/keyword_count.h"
#include "engine/query/keyword_decider.h"
#include "engine/query/keyword_page.h"
#include "engine/query/query_parser.h"
#include "engine/query/search.h"
#include "engine/store/session_numbers.h"
#include "engine/query/snippet.h"
#include "engine/index/memory_index.h"
#include "engine/index/text_index.h"
#include "engine/query/memories.h"
#include "engine/store/store.h"
#include "engine/store/trace.h"

namespace osearch {
namespace {

Xapian::Query or_terms(std::string_view pfx, const std::vector<std::string>& values) {
  std::vector<Xapian::Query> qs;
  for (const auto& v : values) qs.emplace_back(boolean_term(pfx, v));
  if (qs.size() == 1) return qs[0];
  return Xapian::Query(Xapian::Query::OP_OR, qs.begin(), qs.end());
}

// Message-level filters and --agent as boolean terms and a value range, so Xapian applies them while
// matching.
Xapian::Query apply_filters(Xapian::Query q, const Filters& f) {
  std::vector<Xapian::Query> filters;
  if (!f.roles.empty()) {
    std::vector<std::string> names;
    for (Role r : f.roles) names.emplace_back(role_name(r));
    filters.push_back(or_terms(prefix::kRole, names));
  }
  std::vector<std::string> type_names;
  for (ContentType t : f.types) type_names.emplace_back(content_type_name(t));
  if (f.type_memory) type_names.emplace_back("memory");
  if (!type_names.empty()) filters.push_back(or_terms(prefix::kType, type_names));
  if (!f.tools.empty()) filters.push_back(or_terms(prefix::kTool, f.tools));
  if (!f.branches.empty()) filters.push_back(or_terms(prefix::kBranch, f.branches));
  // Session-level, but on every message and title document (memories have none and fail any --agent
  // in memory_passes anyway): Xapian skips other agents' documents instead of a session scope built
  // from every session (120 ms at 38,832 sessions).
  if (!f.agents.empty()) filters.push_back(or_terms(prefix::kAgent, f.agents));
  if (f.since_ms || f.until_ms) {
    std::string lo = time_value(f.since_ms.value_or(INT64_MIN));
    std::string hi = time_value_end(f.until_ms ? *f.until_ms - 1 : INT64_MAX);  // (a message's line after its time)
    filters.emplace_back(Xapian::Query::OP_VALUE_RANGE, kSlotTime, lo, hi);
  }
  for (auto& flt : filters) q = Xapian::Query(Xapian::Query::OP_FILTER, q, flt);
  if (!f.include_meta) {
    Xapian::Query hidden{std::string(prefix::kHidden)};
    // An explicitly requested type (command, summary) is shown even though it is hidden by default.
    if (!type_names.empty()) hidden = Xapian::Query(Xapian::Query::OP_AND_NOT, hidden, or_terms(prefix::kType, type_names));
    q = Xapian::Query(Xapian::Query::OP_AND_NOT, q, hidden);
  }
  return q;
}

// The query's free-text terms each document of the page holds, in the query's order. Message
// databases keep no termlists, so this asks each term's posting list instead of
// Enquire::get_matching_terms: one walk per term over the page's ids in ascending order, rather than
// a posting list opened per hit and term.
class PageTerms {
 public:
  PageTerms(const Xapian::Database& db, const std::vector<std::string>& terms, const std::vector<PageItem>& page) {
    for (const PageItem& item : page) ids_.push_back(item.id);
    std::sort(ids_.begin(), ids_.end());
    held_.resize(ids_.size());
    std::vector<std::string_view> asked;
    for (const auto& t : terms) {
      if (std::find(asked.begin(), asked.end(), t) != asked.end()) continue;
      asked.push_back(t);
      Xapian::PostingIterator p = db.postlist_begin(t);
      const Xapian::PostingIterator end = db.postlist_end(t);
      for (size_t k = 0; k < ids_.size() && p != end; ++k) {
        p.skip_to(ids_[k]);
        if (p != end && *p == ids_[k]) held_[k].push_back(t);
      }
    }
  }
  const std::vector<std::string>& of(Xapian::docid id) const {
    const size_t k = static_cast<size_t>(std::lower_bound(ids_.begin(), ids_.end(), id) - ids_.begin());
    return held_.at(k);
  }

 private:
  std::vector<Xapian::docid> ids_;
  std::vector<std::vector<std::string>> held_;
};

// Whether a few sessions' terms (a --project, a --session prefix) filter `q` faster than the decider
// reads the session of every candidate. Setting up a term costs each pass ~5 us per database, a
// decider's read ~0.3 us per candidate, and a query makes about three passes: at 2 GB `error
// --project cedar` (89 sessions, 90k candidates) 29 -> 16 ms by terms, `error handling --project
// tess` (192 sessions, 9k candidates) 17 -> 24 ms, so that one keeps the decider. `candidates` is
// Xapian's upper bound on q's matches (from term frequencies), which a query left as it is reuses.
bool few_sessions_pay(const Xapian::Database& db, const Xapian::Query& q, size_t sessions, const IndexReader& reader,
                      Xapian::doccount& candidates) {
  Xapian::Enquire bound(db);
  bound.set_query(q);
  candidates = bound.get_mset(0, 0, Xapian::doccount{0}).get_uncollapsed_matches_upper_bound();
  return static_cast<double>(sessions + 1) * static_cast<double>(reader.databases().size()) * 50 <
         static_cast<double>(candidates);
}

QueryResult search_once(IndexReader& reader, const std::string& query, const Filters& f, const KeywordOptions& o) {
  PhaseTimer timer("keyword");
  QueryResult result;
  result.action = "keyword";
  result.query = query;
  Xapian::Database& db = reader.xapian();
  ParsedQuery parsed = parse_keyword_query(query, db);  // bad syntax is reported even on an empty index
  if (db.get_doccount() == 0) return result;
  Xapian::Query q = apply_filters(parsed.query, f);
  // Archived (forgotten) memories are kept in the memory text index for `memory list --all` only.
  q = Xapian::Query(Xapian::Query::OP_AND_NOT, q, Xapian::Query(std::string(kMemoryDeletedTerm)));
  // Title documents stand for a session; a list of messages has no place for them.
  if (o.by_message) q = Xapian::Query(Xapian::Query::OP_AND_NOT, q, Xapian::Query(std::string(prefix::kTitleDoc)));
  // (--agent is in the query already, apply_filters: the scope need not visit every session for it.)
  Filters scoped = f;
  scoped.agents.clear();
  const SessionScope scope(reader, scoped, SessionScope::Key::DocumentValue);
  const SessionScope* deciding = &scope;
  // (A --since only a few sessions reach narrows the query too, the value range still deciding each
  // message: otherwise Xapian reads the time of every candidate.)
  const std::optional<std::vector<std::string>> few =
      o.scope == KeywordOptions::Scope::Decider ? std::nullopt : few_sessions(reader, f, scope);
  std::optional<Xapian::doccount> upper_bound;  // of q's matches, when already asked
  Xapian::doccount candidates = 0;
  if (few && (o.scope == KeywordOptions::Scope::Terms || few_sessions_pay(db, q, few->size(), reader, candidates))) {
    // Their terms filter the query, so Xapian skips to their documents instead of the decider
    // reading every candidate's session. Memories pass to the decider, which filters them.
    std::vector<Xapian::Query> allowed;
    for (const std::string& id : *few) allowed.emplace_back(boolean_term(prefix::kSession, id));
    if (!reader.memories().empty()) allowed.emplace_back(boolean_term(prefix::kType, "memory"));
    q = Xapian::Query(Xapian::Query::OP_FILTER, q, synonym_tree(std::move(allowed)));
    deciding = nullptr;
  } else if (few && o.scope == KeywordOptions::Scope::ByCost) {
    upper_bound = candidates;  // q stays as it was asked (a wide prefix's bound pass costs 3-9 ms at 2 GB)
  }

  Xapian::Enquire enq(db);
  enq.set_query(q);
  // Classic BM25 (k1 1.2, b 0.75, as SQLite FTS5 and Lucene) without Xapian's floor on short
  // documents: the known-item benchmark (bench/known_item.py) found the right session first more
  // often with it, short prompts no longer losing to long tool output that repeats a word.
  enq.set_weighting_scheme(Xapian::BM25Weight(1.2, 0, 1, 0.75, 0));
  // Equal scores (the same text in several sessions) in a stable order: the newest first, rather
  // than by document id, which depends on how a build shared documents out to its shards. That
  // order reads every candidate's time: by session, with the tally, the ranked pass goes by
  // relevance alone and page_newest_first puts the page in that order (keyword_page.h).
  const bool by_relevance = o.sort != "newest" && o.sort != "oldest";
  const auto newest_first = [&enq] { enq.set_sort_by_relevance_then_value(kSlotTime, true); };
  if (!o.by_message) enq.set_collapse_key(kSlotSession);
  if (o.sort == "newest")
    enq.set_sort_by_value_then_relevance(kSlotTime, true);
  else if (o.sort == "oldest")
    enq.set_sort_by_value_then_relevance(kSlotTime, false);
  // Phrases in messages without positions: Xapian found all their words, the text decides.
  const PhraseCheck phrases(reader, parsed.required_phrases, parsed.forbidden_phrases);
  HitDecider decider(deciding, reader.epochs(), &reader, &f, &phrases);
  const Xapian::MatchDecider* md = decider.active() ? &decider : nullptr;
  // Xapian counts exactly when it looks at every matching document (up to exact_total_docs of them,
  // a few ms); beyond, `total` is its estimate and flagged as such. Collapsed, Xapian's own count is
  // exact only when the page held every session: the tally counts them as the same pass goes.
  const auto page_end = static_cast<Xapian::doccount>(f.offset + f.limit + 1);
  const auto bound = static_cast<Xapian::doccount>(o.exact_total_docs);
  // Xapian's bound from term frequencies (no document read) settles most queries; a count the rest.
  MatchCount counted;
  bool countable = o.by_message || page_end > bound ||
                   (upper_bound ? *upper_bound : enq.get_mset(0, 0, Xapian::doccount{0}).get_uncollapsed_matches_upper_bound()) <= bound;
  timer.mark("bound");
  if (!countable) {
    // Telling an older epoch's document from a current one reads its session: most of a count's
    // cost. While the index holds no more of them than the bound, the count takes every epoch's,
    // up to the bound plus as many as there are older ones: past that, more than the bound are
    // current; under it, the ranked pass's tally tells (it sees the epochs).
    const uint64_t old_docs = reader.old_epoch_documents();
    const bool any_epoch = old_docs <= bound;
    const DocumentEpochs no_epochs;
    const HitDecider scope_only(deciding, no_epochs, &reader, &f, &phrases);
    const HitDecider* count_decider = !any_epoch ? (md ? &decider : nullptr) : scope_only.active() ? &scope_only : nullptr;
    counted = count_matches(reader, q, bound + static_cast<Xapian::doccount>(any_epoch ? old_docs : 0), count_decider);
    countable = !counted.more;
  }
  timer.mark("count");
  const Xapian::doccount check_at_least = countable ? std::max(page_end, bound) : page_end;
  const bool tallied = !o.by_message && countable;
  const bool two_pass = tallied && by_relevance;
  if (by_relevance && !two_pass) newest_first();
  SessionTally tally(check_at_least), again(check_at_least);
  const SessionTally* tallied_by = &tally;
  const auto offset = static_cast<Xapian::doccount>(f.offset), limit = static_cast<Xapian::doccount>(f.limit);
  // With every message database's session runs kept, one pass without Xapian's collapse hands
  // over every match, and the page and tally come from them (keyword_page.h).
  std::optional<std::vector<PageItem>> own;
  if (two_pass && o.session_runs && reader.has_session_runs()) {
    enq.set_collapse_key(Xapian::BAD_VALUENO);
    // The decider's part is asked here of each match, its session from the runs: no value read but a
    // memory's or a re-read session's (with one memory in the index, every query went Xapian's way:
    // at 2 GB `error handling` 8.3 -> 10.5 ms).
    OwnCollapseFilter accept;
    if (md)
      accept = [&](Xapian::docid id, const std::string& value) {
        std::optional<Xapian::Document> doc;
        return decider.accepts(value, [&]() -> const Xapian::Document& { return doc ? *doc : doc.emplace(db.get_document(id)); });
      };
    own = page_by_own_collapse(enq, check_at_least, offset, limit, reader, tally, accept);
    enq.set_collapse_key(kSlotSession);  // (without `own`, more than check_at_least matched: the passes below decide)
  }
  Xapian::MSet mset;
  std::vector<PageItem> page;
  bool tally_whole = own.has_value();
  if (own) {
    page = std::move(*own);
  } else {
    if (tallied) enq.add_matchspy(&tally);
    mset = two_pass ? enq.get_mset(0, offset + limit + kTieSlack, check_at_least, nullptr, md)
                    : enq.get_mset(offset, limit, check_at_least, nullptr, md);
    tally_whole = tallied && tally.saw_every_match();
    const bool reordered = two_pass && tally_whole;
    if (two_pass) enq.clear_matchspies();
    if (two_pass && !tally_whole) {
      // No proof that the tally saw every match: one pass in the page's order decides the page and
      // the total, as without the first.
      newest_first();
      enq.add_matchspy(&again);
      mset = enq.get_mset(offset, limit, check_at_least, nullptr, md);
      enq.clear_matchspies();
      tallied_by = &again;
      tally_whole = again.saw_every_match();
    }
    page = reordered ? page_newest_first(enq, mset, tally, offset, limit, md, reader) : page_items(mset, 0, limit);
  }
  timer.mark("ranked");
  result.total = tally_whole ? tallied_by->sessions() : mset.get_matches_estimated();
  result.total_exact = tally_whole || mset.get_matches_lower_bound() == mset.get_matches_upper_bound();
  if (!result.total_exact && !o.by_message) {
    // Past the bound, from the count's sample. Either estimate lies between the page's end and the
    // sessions (and memories) there are.
    if (!countable) result.total = static_cast<uint64_t>(counted.sessions_estimate + 0.5);
    const uint64_t most = Store::entries(reader.txn(), reader.db().sessions) + reader.memories().size();
    result.total = std::clamp<uint64_t>(result.total, std::min<uint64_t>(f.offset + page.size(), most), most);
  }
  for (const auto& w : parsed.wildcards)
    if (w.truncated()) result.truncate(w.describe());
  result.loose_phrases = parsed.loose_phrases;
  result.ignored_words = parsed.ignored_words;
  timer.mark("mset");

  std::map<std::string, SessionRec> sessions;
  std::string text_buffer;  // the hit's message text, read (not mapped)
  const PageTerms page_terms(db, parsed.positive_terms, page);
  timer.mark("page_terms");
  for (const PageItem& item : page) {
    const Xapian::Document& doc = item.doc;
    if (std::string mid = doc.get_value(kSlotMemory); !mid.empty()) {
      const memory::Record* r = reader.memory(mid);
      if (!r) continue;  // remembered after this reader's snapshot
      Hit hit;
      hit.memory = *r;
      hit.score = item.weight;
      hit.match_count = 1;
      hit.matched_terms = page_terms.of(item.id);
      const std::vector<std::string>& terms = hit.matched_terms.empty() ? parsed.positive_terms : hit.matched_terms;
      size_t b = 0, e = 0;
      if (find_first_term(r->summary, terms, b, e)) {
        hit.snippet = make_snippet(r->summary, b, e, o.snippet_chars);
      } else if (auto text = memory::read_text(r->path, size_t{1} << 20)) {
        if (!find_first_term(*text, terms, b, e)) b = e = 0;
        hit.snippet = make_snippet(*text, b, e, o.snippet_chars);
      }
      result.hits.push_back(std::move(hit));
      continue;
    }
    std::optional<std::string> value_sid = reader.session_of_value(doc.get_value(kSlotSession));
    if (!value_sid) continue;  // numbered after this reader's snapshot: not an answer yet
    std::string sid = std::move(*value_sid);
    std::string key = doc.get_value(kSlotKey);
    auto sit = sessions.find(sid);
    if (sit == sessions.end()) {
      auto s = reader.session(sid);
      if (!s) continue;  // dropped after this Xapian revision: not an answer any more
      sit = sessions.emplace(sid, std::move(*s)).first;
    }
    Hit hit;
    hit.session = sit->second;
    hit.score = item.weight;
    hit.matched_terms = page_terms.of(item.id);
    std::vector<std::string> snippet_terms = hit.matched_terms.empty() ? parsed.positive_terms : hit.matched_terms;
    std::string_view text;
    std::string title;
    if (!key.empty()) {
      hit.message = reader.message(key);
      if (!hit.message) continue;
      text = reader.message_text(*hit.message, text_buffer);
    } else {
      title = hit.session.title();
      text = title;
    }
    size_t b = 0, e = 0;
    if (!find_first_term(text, snippet_terms, b, e)) b = e = 0;
    hit.snippet = make_snippet(text, b, e, o.snippet_chars);
    hit.match_count = o.by_message ? 1 : 0;  // a session's: count_session_matches below
    result.hits.push_back(std::move(hit));
  }
  timer.mark("hits");
  if (!o.by_message) count_session_matches(reader, db, q, tally_whole ? tallied_by : nullptr, result.hits, &phrases);
  timer.mark("counts");
  if (phrases.cut())
    result.truncate("phrase checks stopped at their time budget: later messages were taken on a phrase's words "
                    "alone, wherever they stand");
  return result;
}

}  // namespace

QueryResult run_keyword(IndexReader& reader, const std::string& query, const Filters& f, const KeywordOptions& o) {
  for (int attempt = 0;; ++attempt) {
    try {
      return search_once(reader, query, f, o);
    } catch (const Xapian::DatabaseModifiedError&) {
      // A writer recycled blocks of our revision: reopen and rerun the whole query.
      if (attempt >= 3) throw;
      reader.reopen_xapian();
    }
  }
}

}  // namespace osearch
