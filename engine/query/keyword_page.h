// `keyword` by session: the tally of every match and the order of the page.
//
// The page is ranked by relevance, equal scores newest first (then by document id), so that an
// incremental build and a clean one answer alike. Xapian's sort by relevance then value reads the
// time of every candidate, a third of a dense query's time at 2 GB. So the ranked pass goes by
// relevance alone (ties by document id), fetching kTieSlack sessions past the page, and the page is
// put in the newer order afterwards. That is exact unless a tie decides which sessions are on the
// page (a run of equal weights not whole in what was fetched) or which document stands for one (two
// at a session's best weight); then a second pass in the old order, limited to the documents (and,
// with many matches per session, the sessions) that can reach the page, settles it.
#pragma once

#include <xapian.h>

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace osearch {

class IndexReader;  // engine/query/reader.h

// Every document the ranked pass accepts (after the decider, before collapsing), by session. When
// the pass provably met every match, it gives the exact session count, each session's matches and
// whether a session's best weight is shared by two of its documents, in that one pass.
class SessionTally : public Xapian::MatchSpy {
 public:
  // Past `limit` documents the count cannot be proved whole: the rest are only counted.
  explicit SessionTally(Xapian::doccount limit) : limit_(limit) {}
  void operator()(const Xapian::Document& doc, double weight) override;
  // One matching document of the session whose stored value is `session_value` ("": none);
  // `title`: the session's title document (known only where each match's database is).
  void add(std::string session_value, double weight, bool title = false);
  // Whether add() was told which matches are title documents (page_by_own_collapse tells it).
  bool knows_titles() const { return knows_titles_; }
  void set_knows_titles() { knows_titles_ = true; }
  // The matching title documents of that session (0 or 1), when knows_titles().
  Xapian::doccount titles(const std::string& session_value) const;
  // Xapian stops early only once `check_at_least` (= limit) documents survived collapsing, so
  // fewer seen means none was skipped.
  bool saw_every_match() const { return docs_ < limit_; }
  size_t sessions() const { return per_session_.size() + unkeyed_; }
  Xapian::doccount seen() const { return docs_; }  // documents it was shown
  // The matching documents of the session whose value is `session_value`, its title document
  // included when it matched.
  Xapian::doccount documents(const std::string& session_value) const;
  // Whether two documents of the session (by its stored value) share its best weight.
  bool best_is_shared(const std::string& session_value) const;
  // The sessions (stored values) whose best weight is `weight`.
  std::vector<std::string> best_at(double weight) const;

 private:
  struct Seen {
    Xapian::doccount documents = 0, at_best = 0, titles = 0;
    double best = 0;
  };
  Xapian::doccount limit_, docs_ = 0, unkeyed_ = 0;
  bool knows_titles_ = false;
  std::unordered_map<std::string, Seen> per_session_;
};

struct PageItem {
  Xapian::docid id = 0;  // in the combined database
  double weight = 0;
  Xapian::Document doc;
};

// Items [from, to) of an MSet, in its order.
std::vector<PageItem> page_items(const Xapian::MSet& mset, Xapian::doccount from, Xapian::doccount to);

// Items a pass by relevance alone fetches past the page, so that a run of equal weights at the
// page's end is most often whole in it.
constexpr Xapian::doccount kTieSlack = 32;

// The page of `offset` and `limit` in the order by relevance, then newest first, then document id,
// from `top`: the first offset + limit + kTieSlack collapsed items of a pass by relevance alone whose
// tally saw every match. `enq` (set up for that pass, match spies cleared) runs a second pass only when
// a tie makes the first one's page uncertain. When `reader` holds no memory, every match is a
// session's, so that pass can be restricted to the sessions it has to order (named through `reader`).
std::vector<PageItem> page_newest_first(Xapian::Enquire& enq, const Xapian::MSet& top, const SessionTally& tally,
                                        Xapian::doccount offset, Xapian::doccount limit,
                                        const Xapian::MatchDecider* md, const IndexReader& reader);

// The page of `offset` and `limit` in the order page_newest_first gives, from one pass of `enq`
// (by relevance, no collapse key, no decider) that hands over every match: each match's session
// comes from the reader's session runs (or its value), and `tally` counts them. nullopt, with
// `tally` untouched, when check_at_least or more matched (not every match was seen).
// `accept` (if set) is the decider's part, asked of each match with its combined id and session value.
using OwnCollapseFilter = std::function<bool(Xapian::docid, const std::string& session_value)>;
std::optional<std::vector<PageItem>> page_by_own_collapse(Xapian::Enquire& enq, Xapian::doccount check_at_least,
                                                          Xapian::doccount offset, Xapian::doccount limit,
                                                          const IndexReader& reader, SessionTally& tally,
                                                          const OwnCollapseFilter& accept = {});

}  // namespace osearch
