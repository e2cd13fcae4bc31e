#include "engine/query/keyword_page.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/index/text_index.h"
#include "engine/query/reader.h"

namespace osearch {

void SessionTally::operator()(const Xapian::Document& doc, double weight) {
  if (docs_ >= limit_) {
    ++docs_;
    return;
  }
  add(doc.get_value(kSlotSession), weight);  // as stored: decoded only for the page's hits
}

void SessionTally::add(std::string value, double weight, bool title) {
  if (++docs_ > limit_) return;
  if (value.empty()) {
    ++unkeyed_;  // Xapian never collapses an empty key
    return;
  }
  Seen& s = per_session_[std::move(value)];
  s.titles += title;
  if (s.documents++ == 0 || weight > s.best) {
    s.best = weight;
    s.at_best = 1;
  } else if (weight == s.best) {
    ++s.at_best;
  }
}

Xapian::doccount SessionTally::documents(const std::string& session_value) const {
  auto it = per_session_.find(session_value);
  return it == per_session_.end() ? 0 : it->second.documents;
}

Xapian::doccount SessionTally::titles(const std::string& session_value) const {
  auto it = per_session_.find(session_value);
  return it == per_session_.end() ? 0 : it->second.titles;
}

bool SessionTally::best_is_shared(const std::string& value) const {
  auto it = per_session_.find(value);
  return it != per_session_.end() && it->second.at_best > 1;
}

std::vector<std::string> SessionTally::best_at(double weight) const {
  std::vector<std::string> out;
  for (const auto& [value, seen] : per_session_)
    if (seen.best == weight) out.push_back(value);
  return out;
}

std::vector<PageItem> page_items(const Xapian::MSet& mset, Xapian::doccount from, Xapian::doccount to) {
  std::vector<PageItem> out;
  to = std::min<Xapian::doccount>(to, mset.size());
  for (Xapian::doccount i = from; i < to; ++i) {
    const Xapian::MSetIterator it = mset[i];
    out.push_back({*it, it.get_weight(), it.get_document()});
  }
  return out;
}

namespace {

// The first pass's page put in the newer order, or nothing when a tie makes it uncertain. Each run
// of equal weight that reaches into the page is put newest first (then by document id, Xapian's
// last key), which is exact when the run is whole (it ends before `top` does, or the tally knows
// no other session with that best weight) and none of its sessions has two documents at its best
// weight (the first pass took the lower id to stand for it, the newer order takes the newer).
std::optional<std::vector<PageItem>> reorder_ties(const Xapian::MSet& top, const SessionTally& tally,
                                                  Xapian::doccount offset, Xapian::doccount limit) {
  const Xapian::doccount n = top.size(), end = std::min<Xapian::doccount>(n, offset + limit);
  if (n <= offset) return std::vector<PageItem>{};
  std::vector<PageItem> ranked = page_items(top, 0, n);
  for (size_t b = 0; b < end;) {
    size_t e = b + 1;
    while (e < n && ranked[e].weight == ranked[b].weight) ++e;
    if (e > offset) {
      if (e == n && tally.best_at(ranked[b].weight).size() != e - b) return std::nullopt;
      for (size_t k = b; k < e; ++k)
        if (tally.best_is_shared(ranked[k].doc.get_value(kSlotSession))) return std::nullopt;
    }
    if (e > offset && e - b > 1) {
      std::vector<std::pair<std::string, size_t>> keyed;  // (time value, index): read for the run only
      for (size_t k = b; k < e; ++k) keyed.emplace_back(ranked[k].doc.get_value(kSlotTime), k);
      std::sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
        return x.first != y.first ? x.first > y.first : ranked[x.second].id < ranked[y.second].id;
      });
      std::vector<PageItem> run;
      for (const auto& [time, k] : keyed) run.push_back(ranked[k]);
      std::move(run.begin(), run.end(), ranked.begin() + static_cast<std::ptrdiff_t>(b));
    }
    b = e;
  }
  return std::vector<PageItem>(ranked.begin() + offset, ranked.begin() + end);
}

}  // namespace

std::vector<PageItem> page_newest_first(Xapian::Enquire& enq, const Xapian::MSet& top, const SessionTally& tally,
                                        Xapian::doccount offset, Xapian::doccount limit,
                                        const Xapian::MatchDecider* md, const IndexReader& reader) {
  if (auto page = reorder_ties(top, tally, offset, limit)) return std::move(*page);
  const Xapian::doccount last = std::min<Xapian::doccount>(top.size(), offset + limit);
  if (last == 0) return {};
  // Both orders rank sessions by their best weight, so the page ends at the same weight whatever
  // the ties. The sessions ranked down to it are those of the first pass's page and before, and
  // every session whose best is that weight (the tally knows them): a second pass in the page's
  // order over those sessions alone reads a few documents, not every match again; for a query
  // with few matches per such session, a pass over every match with the cutoff is cheaper.
  const double edge = top[last - 1].get_weight();
  std::vector<std::string> values = tally.best_at(edge);
  for (Xapian::doccount i = 0; i < last; ++i) values.push_back(top[i].get_document().get_value(kSlotSession));
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  // A session's posting list costs about what matching 64 documents again does (2 GB, in process:
  // restricting won for 2,600 matches over 25 sessions, lost for 1,000 over 24).
  constexpr size_t kMatchesPerSession = 64;
  if (reader.memories().empty() && values.size() * kMatchesPerSession <= tally.seen()) {
    std::vector<Xapian::Query> sessions;
    for (const std::string& v : values)
      if (auto sid = reader.session_of_value(v)) sessions.emplace_back(boolean_term(prefix::kSession, *sid));
    // Restricted only when every value names its session: one that does not would drop its documents.
    if (sessions.size() == values.size())
      enq.set_query(Xapian::Query(Xapian::Query::OP_FILTER, enq.get_query(),
                                  Xapian::Query(Xapian::Query::OP_OR, sessions.begin(), sessions.end())));
  }
  // Only documents at least as heavy as the edge can be on the page (a weight cutoff), with a few
  // ulps of slack in case Xapian sums the same weights in another order: a lighter document costs
  // its time read but cannot reach the page.
  enq.set_cutoff(0, edge - std::abs(edge) * 1e-9);
  enq.set_sort_by_relevance_then_value(kSlotTime, true);
  return page_items(enq.get_mset(offset, limit, 0, nullptr, md), 0, limit);
}

std::optional<std::vector<PageItem>> page_by_own_collapse(Xapian::Enquire& enq, Xapian::doccount check_at_least,
                                                          Xapian::doccount offset, Xapian::doccount limit,
                                                          const IndexReader& reader, SessionTally& tally,
                                                          const OwnCollapseFilter& accept) {
  const Xapian::MSet all = enq.get_mset(0, check_at_least, check_at_least);
  if (all.size() >= check_at_least) return std::nullopt;
  struct Match {
    Xapian::docid id;
    double weight;
    std::string value;  // the session's stored value; "" for a document of none (a memory)
  };
  std::vector<Match> matches;
  matches.reserve(all.size());
  for (auto it = all.begin(); it != all.end(); ++it) {
    Match m{*it, it.get_weight(), {}};
    if (!reader.session_value_of_document(m.id, m.value)) m.value = it.get_document().get_value(kSlotSession);
    if (accept && !accept(m.id, m.value)) continue;
    tally.add(m.value, m.weight, reader.is_title_document(m.id));
    matches.push_back(std::move(m));
  }
  tally.set_knows_titles();
  // By relevance, then document id: each session's first match is the one Xapian's collapse keeps.
  std::sort(matches.begin(), matches.end(), [](const Match& a, const Match& b) {
    return a.weight != b.weight ? a.weight > b.weight : a.id < b.id;
  });
  struct Entry {
    double weight;
    std::vector<size_t> at_best;  // its matches at its best weight (indexes into `matches`)
    size_t shown = 0;             // the one that stands for it
  };
  std::vector<Entry> entries;
  std::unordered_map<std::string_view, size_t> entry_of;
  for (size_t k = 0; k < matches.size(); ++k) {
    const Match& m = matches[k];
    if (m.value.empty()) {  // never collapsed, as in Xapian
      entries.push_back({m.weight, {k}, k});
      continue;
    }
    const auto [it, fresh] = entry_of.try_emplace(m.value, entries.size());
    if (fresh)
      entries.push_back({m.weight, {k}, k});
    else if (entries[it->second].weight == m.weight)
      entries[it->second].at_best.push_back(k);
  }
  // Equal best weights reaching into the page go newest first (then by id), as does the document
  // standing for a session with two at its best: their times are read, no one else's.
  const size_t end = std::min<size_t>(entries.size(), size_t{offset} + limit);
  const Xapian::Database& db = reader.xapian();
  for (size_t b = 0; b < end;) {
    size_t e = b + 1;
    while (e < entries.size() && entries[e].weight == entries[b].weight) ++e;
    const bool shared = std::any_of(entries.begin() + static_cast<std::ptrdiff_t>(b),
                                    entries.begin() + static_cast<std::ptrdiff_t>(e),
                                    [](const Entry& x) { return x.at_best.size() > 1; });
    if (e > offset && (e - b > 1 || shared)) {
      std::vector<std::pair<std::string, size_t>> keyed;  // (time value, entry)
      for (size_t k = b; k < e; ++k) {
        Entry& x = entries[k];
        std::string newest;
        for (size_t at : x.at_best) {
          std::string t = db.get_document(matches[at].id).get_value(kSlotTime);
          // at_best is in id order: a later one stands only when strictly newer
          if (at == x.at_best.front() || t > newest) {
            newest = std::move(t);
            x.shown = at;
          }
        }
        keyed.emplace_back(std::move(newest), k);
      }
      std::sort(keyed.begin(), keyed.end(), [&](const auto& p, const auto& q) {
        return p.first != q.first ? p.first > q.first : matches[entries[p.second].shown].id < matches[entries[q.second].shown].id;
      });
      std::vector<Entry> run;
      for (const auto& [time, k] : keyed) run.push_back(std::move(entries[k]));
      std::move(run.begin(), run.end(), entries.begin() + static_cast<std::ptrdiff_t>(b));
    }
    b = e;
  }
  std::vector<PageItem> page;
  for (size_t k = offset; k < end; ++k) {
    const Match& m = matches[entries[k].shown];
    page.push_back({m.id, m.weight, db.get_document(m.id)});
  }
  return page;
}

}  // namespace osearch
