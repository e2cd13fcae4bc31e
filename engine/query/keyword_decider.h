// `keyword`'s match deciders: session-level filters, memories by their own filters, and the
// documents of re-read sessions' older epochs; over the combined index or one of its databases.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

#include <xapian.h>

#include "engine/index/memory_index.h"
#include "engine/index/text_index.h"
#include "engine/query/memories.h"
#include "engine/query/phrase_check.h"
#include "engine/query/search.h"
#include "engine/store/session_numbers.h"

namespace osearch {

// Whether a memory passes the session-level filters: --project applies (to its project and path),
// --session to the session it was made in; --agent, --model and --cwd describe sessions only and
// exclude memories.
inline bool memory_passes(const IndexReader& reader, const Filters& f, std::string_view id) {
  const memory::Record* r = reader.memory(id);
  if (!r || !r->active()) return false;
  if (!f.agents.empty() || !f.models.empty() || !f.cwd.empty()) return false;
  if (!f.sessions.empty() && std::none_of(f.sessions.begin(), f.sessions.end(), [&](const std::string& p) {
        return !r->session_id.empty() && r->session_id.rfind(p, 0) == 0;
      }))
    return false;
  return memory_project_matches(*r, f.projects);
}

// Session-level filters, and documents of re-read sessions' older epochs.
class HitDecider : public Xapian::MatchDecider {
 public:
  // `scope` may be null: epochs only (and memories pass). A scope that filters nothing is not kept,
  // so no match decodes its session value for it.
  // `phrases` (may be null): the query's phrases, checked on messages without positions (and on
  // every document for a phrase with gaps).
  HitDecider(const SessionScope* scope, const DocumentEpochs& epochs, const IndexReader* reader = nullptr,
             const Filters* filters = nullptr, const PhraseCheck* phrases = nullptr)
      : scope_(scope && scope->active() ? scope : nullptr), epochs_(epochs), reader_(reader), filters_(filters),
        phrases_(phrases && phrases->active() ? phrases : nullptr) {}
  // Whether it can refuse a document: a scope, re-read sessions, memories (checked against the
  // filters by their own project, not a session's), or phrases.
  bool active() const { return scope_ || !epochs_.empty() || (reader_ && !reader_->memories().empty()) || phrases_; }
  // Whether it can refuse a document of the reader's databases()[i] (memories are in one of them).
  bool active_in(size_t i) const {
    return scope_ || !epochs_.empty() || (reader_ && reader_->is_memory_database(i)) || phrases_;
  }
  bool operator()(const Xapian::Document& doc) const override {
    // A session's document holds its number in the session slot, a memory's "memory/<id>": one
    // value read settles which (each read seeks the slot's chunk), the memory slot only for the rest.
    return accepts(doc.get_value(kSlotSession), [&doc]() -> const Xapian::Document& { return doc; });
  }
  // The same for a document whose session value is known (from the session runs): `doc()` gives the
  // document, asked only for a memory's or a re-read session's.
  template <class GetDocument>
  bool accepts(const std::string& session, GetDocument&& doc) const {
    if (!number_of_session_value(session)) {
      if (std::string id = doc().get_value(kSlotMemory); !id.empty()) {
        if (reader_ && filters_ && !memory_passes(*reader_, *filters_, id)) return false;
        return !phrases_ || phrases_->holds(doc());  // (a phrase with gaps: its words' positions)
      }
    }
    if (epochs_.find(session) && !is_live(doc(), session, epochs_)) return false;
    if (scope_ && !scope_->allows(session)) return false;
    return !phrases_ || phrases_->holds(doc());  // last: it may read the message's text
  }

 private:
  const SessionScope* scope_;
  const DocumentEpochs& epochs_;
  const IndexReader* reader_;
  const Filters* filters_;
  const PhraseCheck* phrases_;
};

// A HitDecider over one database of the reader's: each document's session from that database's
// runs, so only a memory's or a re-read session's document is read.
class DatabaseDecider : public Xapian::MatchDecider {
 public:
  DatabaseDecider(const HitDecider& decider, const IndexReader& reader, size_t database)
      : decider_(decider), reader_(reader), database_(database) {}
  bool operator()(const Xapian::Document& doc) const override {
    reader_.session_value_in_database(database_, doc, value_);
    return decider_.accepts(value_, [&doc]() -> const Xapian::Document& { return doc; });
  }

 private:
  const HitDecider& decider_;
  const IndexReader& reader_;
  size_t database_;
  mutable std::string value_;
};

}  // namespace osearch
