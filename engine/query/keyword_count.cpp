// `keyword`'s counts (keyword_count.h).
#include "engine/query/keyword_count.h"

#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace osearch {
namespace {

// Matching documents per session value, over one database of the reader's: each document's session
// from that database's runs where they say, else from its value.
class SessionCounter : public Xapian::MatchSpy {
 public:
  SessionCounter(const IndexReader& reader, size_t database, std::unordered_map<std::string, Xapian::doccount>& counts)
      : reader_(reader), database_(database), counts_(counts) {}
  void operator()(const Xapian::Document& doc, double) override {
    reader_.session_value_in_database(database_, doc, value_);
    ++counts_[value_];
  }

 private:
  const IndexReader& reader_;
  size_t database_;
  std::string value_;
  std::unordered_map<std::string, Xapian::doccount>& counts_;
};

// Per session of `hits`, how many documents match `q` (the query limited to those sessions), one
// database at a time, so that the runs name each document's session: no value read but where they
// cannot say, and the epochs' decider reads only a re-read session's document.
std::map<std::string, Xapian::doccount, std::less<>> count_in_sessions(const IndexReader& reader, const Xapian::Query& q,
                                                                      const std::vector<Hit>& hits,
                                                                      const PhraseCheck* phrases) {
  std::map<std::string, Xapian::doccount, std::less<>> counts;
  std::vector<Xapian::Query> sessions;
  for (const Hit& h : hits)
    if (!h.memory) sessions.emplace_back(boolean_term(prefix::kSession, h.session.id));
  if (sessions.empty()) return counts;
  const Xapian::Query in_sessions(Xapian::Query::OP_FILTER, q,
                                  Xapian::Query(Xapian::Query::OP_OR, sessions.begin(), sessions.end()));
  const HitDecider live(nullptr, reader.epochs(), nullptr, nullptr, phrases);
  std::unordered_map<std::string, Xapian::doccount> by_value;
  const std::vector<Xapian::Database>& databases = reader.databases();
  for (size_t i = 0; i < databases.size(); ++i) {
    Xapian::Enquire count(databases[i]);
    count.set_query(in_sessions);
    count.set_weighting_scheme(Xapian::BoolWeight());
    SessionCounter per_session(reader, i, by_value);
    count.add_matchspy(&per_session);
    std::optional<DatabaseDecider> md;
    if (live.active_in(i)) md.emplace(live, reader, i);
    count.get_mset(0, 0, databases[i].get_doccount(), nullptr, md ? &*md : nullptr);
  }
  for (const auto& [value, n] : by_value)
    if (auto sid = reader.session_of_value(value)) counts.emplace(std::move(*sid), n);
  return counts;
}

// The hits' sessions whose title document matches `q` (and its phrases: a phrase with gaps is
// decided on the title's text, as the tally's pass decided it). Each title document has a term of
// its own, so this reads one-document posting lists, not the sessions' terms, whose lists hold every
// message.
std::set<std::string, std::less<>> titles_matching(const IndexReader& reader, const Xapian::Database& db,
                                                   const Xapian::Query& q, const std::vector<Hit>& hits,
                                                   const PhraseCheck* phrases) {
  std::set<std::string, std::less<>> out;
  std::vector<Xapian::Query> titles;
  for (const Hit& h : hits)
    if (!h.memory) titles.emplace_back(DocBuilder::title_unique_term(h.session.id));
  if (titles.empty()) return out;
  Xapian::Enquire enq(db);
  enq.set_query(Xapian::Query(Xapian::Query::OP_FILTER, q, Xapian::Query(Xapian::Query::OP_OR, titles.begin(), titles.end())));
  enq.set_weighting_scheme(Xapian::BoolWeight());
  const DocumentEpochs no_epochs;
  const HitDecider decider(nullptr, no_epochs, &reader, nullptr, phrases);
  const Xapian::MSet m =
      enq.get_mset(0, static_cast<Xapian::doccount>(titles.size()), nullptr, decider.active() ? &decider : nullptr);
  for (auto it = m.begin(); it != m.end(); ++it)
    if (auto sid = reader.session_of_value(it.get_document().get_value(kSlotSession))) out.insert(std::move(*sid));
  return out;
}

// Counts the matching documents, the sessions of the first kSample among them too: what a query past
// the exact-count bound can still say about its total.
class SessionSample : public Xapian::MatchSpy {
 public:
  static constexpr Xapian::doccount kSample = 2000;
  explicit SessionSample(const IndexReader& reader) : reader_(reader) {}
  void start_database(size_t i) { database_ = i; }  // the database the next documents come from
  void operator()(const Xapian::Document& doc, double) override {
    last_ = doc.get_docid();
    if (++docs_ > kSample) return;
    reader_.session_value_in_database(database_, doc, value_);
    sessions_.insert(value_);
  }
  Xapian::doccount docs() const { return docs_; }
  Xapian::docid last() const { return last_; }  // the id of the last document shown, in its database
  // Sessions per document in the sample, times the documents: documents come in docid order, which
  // keeps a session's messages together, so the sample's ratio stands for the rest.
  double sessions_for(double documents) const {
    return docs_ == 0 ? 0 : static_cast<double>(sessions_.size()) * documents / std::min(docs_, kSample);
  }

 private:
  const IndexReader& reader_;
  size_t database_ = 0;
  std::string value_;
  Xapian::doccount docs_ = 0;
  Xapian::docid last_ = 0;
  std::unordered_set<std::string> sessions_;
};

}  // namespace

// Each session hit's exact number of matching messages (title documents excluded). From the tally
// when it saw every match, less a matching title document; otherwise in one pass over the query
// restricted to the hits' sessions (one count per session read the query terms' posting lists once
// per hit: 2,600 block reads for a two-word query on the 500 MB corpus).
void count_session_matches(const IndexReader& reader, const Xapian::Database& db, const Xapian::Query& q,
                           const SessionTally* tally, std::vector<Hit>& hits, const PhraseCheck* phrases) {
  if (tally) {
    // The own collapse knew which matches were title documents; Xapian's tally did not.
    std::set<std::string, std::less<>> titled;
    if (!tally->knows_titles()) titled = titles_matching(reader, db, q, hits, phrases);
    for (Hit& h : hits) {
      if (h.memory) continue;
      const std::optional<std::string> value = reader.session_value(h.session.id);
      const Xapian::doccount docs = value ? tally->documents(*value) : 0;
      const Xapian::doccount title = tally->knows_titles() ? (value ? tally->titles(*value) : 0) : titled.count(h.session.id);
      h.match_count = docs - std::min(docs, title);  // the tally saw the title too: never below zero
    }
    return;
  }
  const Xapian::Query title_docs{std::string(prefix::kTitleDoc)};
  const auto counts = count_in_sessions(reader, Xapian::Query(Xapian::Query::OP_AND_NOT, q, title_docs), hits, phrases);
  for (Hit& h : hits)
    if (!h.memory)
      if (auto c = counts.find(h.session.id); c != counts.end()) h.match_count = c->second;
}

// Whether more than `bound` documents match: an unranked count that reads no document value but the
// session of the first SessionSample::kSample (unless the decider reads more). Past the bound no pass
// can make a collapsed `total` exact, so the ranked pass need only check the page: Xapian then skips,
// by weight, the documents that cannot reach it before reading their session and time values (at
// 2 GB `error`, 42,287 messages: 40 -> 18 ms). One database at a time, each stopped once it settles
// the bound (or, past it, after kExtrapolateFrom documents): over several at once Xapian goes on to
// the last match (at 2 GB, `the`: 10 ms for what is settled in 1.5 ms).
constexpr Xapian::doccount kExtrapolateFrom = 2000;

MatchCount count_matches(const IndexReader& reader, const Xapian::Query& q, Xapian::doccount bound,
                         const HitDecider* decider) {
  SessionSample sample(reader);
  Xapian::doccount at_least = 0;  // each database's lower bound, summed
  double documents = 0;           // each database's count or estimate, summed
  const std::vector<Xapian::Database>& databases = reader.databases();
  for (size_t i = 0; i < databases.size(); ++i) {
    const Xapian::Database& db = databases[i];
    Xapian::Enquire count(db);
    count.set_query(q);
    count.set_weighting_scheme(Xapian::BoolWeight());
    sample.start_database(i);
    count.add_matchspy(&sample);
    const Xapian::doccount before = sample.docs();
    std::optional<DatabaseDecider> md;
    if (decider && decider->active_in(i)) md.emplace(*decider, reader, i);
    // Enough to settle the bound, and once it is passed enough to extrapolate from.
    const Xapian::doccount wanted = std::max(at_least > bound ? 0 : bound + 1 - at_least, kExtrapolateFrom);
    const Xapian::MSet m = count.get_mset(0, 0, wanted, nullptr, md ? &*md : nullptr);
    at_least += m.get_matches_lower_bound();
    const Xapian::doccount seen = sample.docs() - before;
    if (m.get_matches_lower_bound() == m.get_matches_upper_bound() || seen == 0 || sample.last() == 0)
      documents += m.get_matches_estimated();
    else  // stopped early: by the share of the database's ids passed (Xapian rounds its estimate to
          // two figures: 20,000 for 30,615)
      documents += static_cast<double>(seen) * db.get_lastdocid() / sample.last();
  }
  MatchCount out;
  out.more = at_least > bound;
  if (out.more) out.sessions_estimate = sample.sessions_for(std::max<double>(sample.docs(), documents));
  return out;
}

}  // namespace osearch
