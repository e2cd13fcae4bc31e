// `keyword`'s counts: whether a query's matches pass the exact-count bound (and what the total is
// estimated at past it), and each session hit's number of matching messages.
#pragma once

#include <vector>

#include <xapian.h>

#include "engine/query/keyword_decider.h"
#include "engine/query/keyword_page.h"

namespace osearch {

// Each session hit's exact number of matching messages (title documents excluded); `tally` (may be
// null) when it saw every match of the ranked pass.
// `phrases` (may be null): the query's phrases, checked on messages without positions.
void count_session_matches(const IndexReader& reader, const Xapian::Database& db, const Xapian::Query& q,
                           const SessionTally* tally, std::vector<Hit>& hits, const PhraseCheck* phrases);

struct MatchCount {
  bool more = false;             // more than the bound match
  double sessions_estimate = 0;  // when `more`
};

// Whether more than `bound` documents of `q` pass `decider` (may be null), and past it an estimate of
// their sessions (see keyword_count.cpp).
MatchCount count_matches(const IndexReader& reader, const Xapian::Query& q, Xapian::doccount bound,
                         const HitDecider* decider);

}  // namespace osearch
