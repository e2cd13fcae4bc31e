// Random `keyword` queries (words, AND, OR, NOT, phrases, prefixes; by session and by message;
// every sort; pages; --since; --session) against a reference that reads each message's words itself,
// over an index of several runs with re-read sessions whose older documents are still there, and
// memories (one forgotten) found by their files' words.
// `keyword` takes many shortcuts to stay fast at scale (counts bounded by term frequencies, a tally
// beside the ranked pass, its own collapse by session runs, the newest-first page ordered after the
// pass, epochs told apart by a decider): each must give the answer the words give.
#include <random>

#include "tests/synthetic_index.h"

#include "engine/query/memories.h"
#include "tests/test_seed.h"

using namespace osearch;
using namespace osearch_test;

namespace {

// Words with shared prefixes (ember/embers, cedar/cedars), drawn with falling frequencies.
const char* const kWords[] = {"amber", "birch", "cedar", "cedars", "dune", "ember", "embers", "fjord", "grove", "heath"};
// Words of one character: the indexer gives each a position but no term, so a phrase through one
// ("amber a birch", "amber x") has a gap, which the text decides.
const char* const kShortWords[] = {"a", "x"};
bool is_short(const std::string& w) { return w.size() == 1; }

std::vector<std::string> random_words(std::mt19937& rng) {
  std::vector<std::string> words;
  for (size_t n = 1 + rng() % 6; n > 0; --n) {
    if (rng() % 5 == 0) words.emplace_back(kShortWords[rng() % std::size(kShortWords)]);
    // index k with weight ~ 1/(k+1)
    size_t k = 0;
    for (double u = std::uniform_real_distribution<double>(0, 2.93)(rng); k + 1 < std::size(kWords); ++k) {
      u -= 1.0 / static_cast<double>(k + 1);
      if (u < 0) break;
    }
    words.emplace_back(kWords[k]);
  }
  return words;
}

std::string joined(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

struct WordsMessage {
  std::string uuid, sid;
  std::vector<std::string> words;
  int day = 1;
};

// A query as the user types it, and what it means for one message's words.
struct RandomQuery {
  enum Kind { Word, And, Or, Not, Phrase, Prefix, NotPhrase } kind = Word;
  std::vector<std::string> terms;  // a phrase's words last: two, or three with a short one between

  // Whether the phrase terms[from..] stands at words[i..] (i may be before the text or run past it):
  // in a message every word in place, a short one as the same short word; in a memory, whose
  // positions alone are checked, a short one stands for any short word, and for none past the
  // text's ends (before the file's text lie the summary's unused positions).
  bool phrase_at(const std::vector<std::string>& words, std::ptrdiff_t i, size_t from, bool memory) const {
    for (size_t k = from; k < terms.size(); ++k, ++i) {
      const bool inside = i >= 0 && i < static_cast<std::ptrdiff_t>(words.size());
      const std::string* w = inside ? &words[static_cast<size_t>(i)] : nullptr;
      if (memory && is_short(terms[k]) ? !(!w || is_short(*w)) : !(w && *w == terms[k])) return false;
    }
    return true;
  }
  bool has_phrase(const std::vector<std::string>& words, size_t from, bool memory) const {
    const auto n = static_cast<std::ptrdiff_t>(words.size()), span = static_cast<std::ptrdiff_t>(terms.size() - from);
    for (std::ptrdiff_t i = -span; i <= n; ++i)
      if (phrase_at(words, i, from, memory)) return true;
    return false;
  }
  std::string phrase_text(size_t from) const {
    return "\"" + joined(std::vector<std::string>(terms.begin() + static_cast<std::ptrdiff_t>(from), terms.end())) + "\"";
  }

  std::string text() const {
    switch (kind) {
      case Word: return terms[0];
      case And: return joined(terms);
      case Or: return terms[0] + " OR " + terms[1];
      case Not: return terms[0] + " -" + terms[1];
      case Phrase: return phrase_text(0);
      case Prefix: return terms[0] + "*";
      case NotPhrase: return terms[0] + " -" + phrase_text(1);
    }
    return "";
  }
  bool matches(const std::vector<std::string>& words, bool memory = false) const {
    const auto has = [&](const std::string& t) { return std::find(words.begin(), words.end(), t) != words.end(); };
    switch (kind) {
      case Word: return has(terms[0]);
      case And: return std::all_of(terms.begin(), terms.end(), has);
      case Or: return has(terms[0]) || has(terms[1]);
      case Not: return has(terms[0]) && !has(terms[1]);
      case Phrase: return has_phrase(words, 0, memory);
      case Prefix:
        return std::any_of(words.begin(), words.end(), [&](const std::string& w) { return w.starts_with(terms[0]); });
      case NotPhrase: return has(terms[0]) && !has_phrase(words, 1, memory);
    }
    return false;
  }
};

RandomQuery random_query(std::mt19937& rng) {
  RandomQuery q;
  q.kind = static_cast<RandomQuery::Kind>(rng() % 7);
  const auto word = [&] { return std::string(kWords[rng() % std::size(kWords)]); };
  switch (q.kind) {
    case RandomQuery::Word: q.terms = {word()}; break;
    case RandomQuery::And: q.terms = {word(), word(), word()}; q.terms.resize(2 + rng() % 2); break;
    case RandomQuery::Prefix: q.terms = {word().substr(0, 3)}; break;
    case RandomQuery::NotPhrase: q.terms = {word(), word(), word()}; break;
    default: q.terms = {word(), word()};
  }
  // A phrase of one word with a short one beside it ("x amber", "amber a").
  if ((q.kind == RandomQuery::Phrase || q.kind == RandomQuery::NotPhrase) && rng() % 4 == 0) q.terms.pop_back();
  if (q.kind == RandomQuery::Phrase || q.kind == RandomQuery::NotPhrase) {
    const auto short_word = [&] { return std::string(kShortWords[rng() % std::size(kShortWords)]); };
    const std::ptrdiff_t phrase_start = q.kind == RandomQuery::NotPhrase ? 1 : 0;
    const bool middle = rng() % 3 == 0, leading = rng() % 6 == 0, trailing = rng() % 6 == 0;
    if (middle && q.terms.size() > static_cast<size_t>(phrase_start) + 1) q.terms.insert(q.terms.end() - 1, short_word());  // "amber a birch"
    if (leading) q.terms.insert(q.terms.begin() + phrase_start, short_word());  // "a amber birch"
    if (trailing) q.terms.push_back(short_word());  // "amber birch a"
  }
  return q;
}

// Session i's messages: an opening prompt (its title) that no query names, then random words.
std::vector<std::string> random_session(std::mt19937& rng, size_t messages) {
  std::vector<std::string> texts = {"opening remarks"};
  for (size_t m = 1; m < messages; ++m) texts.push_back(joined(random_words(rng)));
  return texts;
}

void record(std::vector<WordsMessage>& all, size_t s, const std::vector<std::string>& texts, const char* tag, int day) {
  const std::string sid = SyntheticIndex::sid_of(s);
  std::erase_if(all, [&](const WordsMessage& m) { return m.sid == sid; });
  for (size_t m = 0; m < texts.size(); ++m) {
    WordsMessage msg{tag + std::to_string(s) + "-" + std::to_string(m), sid, {}, day};
    for (size_t b = 0, e; b < texts[m].size(); b = e + 1) {
      e = std::min(texts[m].find(' ', b), texts[m].size());
      msg.words.push_back(texts[m].substr(b, e - b));
    }
    all.push_back(std::move(msg));
  }
}

Filters filters(size_t limit, size_t offset, bool since_day_two, const std::vector<std::string>& sessions) {
  FilterArgs a;
  a.limit = limit;
  a.offset = offset;
  if (since_day_two) a.since = "2026-03-02T00:00:00Z";
  a.session = sessions;
  return parse_filters(a, 0, 20);
}

}  // namespace

TEST_CASE("keyword: random queries find exactly the messages and sessions the words say", "[keyword][hardening]") {
  const uint32_t seed = osearch_test::test_seed(20261207);
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::vector<WordsMessage> all;
  std::vector<std::vector<std::string>> first(30);
  for (size_t s = 0; s < first.size(); ++s) {
    first[s] = random_session(rng, 10 + rng() % 80);
    record(all, s, first[s], "u-", 1);
  }
  SyntheticIndex ix(first, 3);  // thinking and tool results too: a phrase there has no positions
  // Two sessions re-read (their older documents stay, of an older epoch), three added in a later run
  // (a second shard).
  for (size_t s : {2, 5}) {
    const std::vector<std::string> texts = random_session(rng, 10 + rng() % 30);
    ix.rewrite(s, texts);
    record(all, s, texts, "r-", 2);
  }
  std::vector<std::vector<std::string>> added;
  for (size_t k = 0; k < 3; ++k) {
    added.push_back(random_session(rng, 10 + rng() % 30));
    record(all, 30 + k, added.back(), "a-", 3);
  }
  ix.add(30, added);
  // Memories, found by the words of their files: one of session 4's, one forgotten.
  struct Memo {
    std::string id, sid;
    std::vector<std::string> words;
  };
  std::vector<Memo> memos;
  for (size_t k = 0; k < 4; ++k) {
    Memo m{"", k == 1 ? SyntheticIndex::sid_of(4) : "", random_words(rng)};
    RememberInput in;
    in.path = ix.tmp / ("memo-" + std::to_string(k) + ".md");
    write_file(in.path, joined(m.words));
    in.summary = "memo note";
    in.session = m.sid;
    m.id = remember_memory(ix.idx, in, 1'780'000'000'000).id;
    if (k == 3) forget_memory(ix.idx, m.id, "gone", 1'780'000'000'001);
    else memos.push_back(std::move(m));
  }
  IndexReader reader(ix.idx);

  size_t nonempty = 0;
  for (int round = 0; round < 400; ++round) {
    const RandomQuery q = random_query(rng);
    KeywordOptions o;
    o.by_message = round % 3 == 0;
    o.sort = round % 4 == 1 ? "newest" : round % 4 == 2 ? "oldest" : "relevance";
    o.session_runs = round % 5 != 4;
    const bool since = round % 6 == 5;
    // Some rounds count exactly only a few matching documents (past them `total` is an estimate);
    // some name a few sessions, refused by a decider or by their terms in the query.
    if (round % 7 == 6) o.exact_total_docs = 1 + rng() % 12;
    std::vector<std::string> sessions;
    if (round % 8 == 7) {
      for (size_t n = 1 + rng() % 3; n > 0; --n) sessions.push_back(SyntheticIndex::sid_of(rng() % 33).substr(0, 8));
      o.scope = static_cast<KeywordOptions::Scope>(rng() % 3);
    }
    const auto named = [&](const std::string& sid) {
      return sessions.empty() || std::any_of(sessions.begin(), sessions.end(), [&](const std::string& p) { return sid.starts_with(p); });
    };
    std::set<std::string> expected_messages;
    std::map<std::string, uint64_t> expected_sessions;  // session -> matching messages
    for (const WordsMessage& m : all)
      if ((!since || m.day >= 2) && named(m.sid) && q.matches(m.words)) {
        expected_messages.insert(m.uuid);
        ++expected_sessions[m.sid];
      }
    for (const Memo& m : memos)
      if ((sessions.empty() || (!m.sid.empty() && named(m.sid))) && q.matches(m.words, true)) {
        expected_messages.insert("memory " + m.id);
        expected_sessions["memory " + m.id] = 0;
      }
    nonempty += !expected_messages.empty();
    INFO("query '" << q.text() << "'" << (o.by_message ? " --by message" : "") << " --sort " << o.sort
                   << (o.session_runs ? "" : " (Xapian's collapse)") << (since ? " --since day 2" : "")
                   << " sessions " << sessions.size() << " scope " << static_cast<int>(o.scope) << " exact to "
                   << o.exact_total_docs);
    // Pages of 4, then the rest in one page: the same hits, none twice, the same total.
    std::set<std::string> paged_messages;
    std::map<std::string, uint64_t> paged_sessions;
    for (size_t offset = 0, limit = 4;; offset += limit) {
      if (offset == 20) limit = 100000;
      const QueryResult r = run_keyword(reader, q.text(), filters(limit, offset, since, sessions), o);
      REQUIRE_FALSE(r.truncated);
      const size_t expected_total = o.by_message ? expected_messages.size() : expected_sessions.size();
      if (o.exact_total_docs >= 20000) CHECK(r.total_exact);
      if (r.total_exact) CHECK(r.total == expected_total);
      if (!o.by_message && !r.total_exact) CHECK(r.total >= offset + r.hits.size());
      for (const Hit& h : r.hits) {
        if (h.memory) {
          const std::string key = "memory " + h.memory->id;
          CHECK((o.by_message ? paged_messages.insert(key).second : paged_sessions.emplace(key, 0).second));
          continue;
        }
        REQUIRE(h.message);
        if (o.by_message) {
          CHECK(paged_messages.insert(h.message->uuid).second);
        } else {
          CHECK(paged_sessions.emplace(h.session.id, h.match_count).second);
          CHECK(expected_messages.count(h.message->uuid) == 1);  // the best message is one that matches
        }
      }
      if (r.hits.size() < limit) break;
    }
    if (o.by_message)
      CHECK(paged_messages == expected_messages);
    else
      CHECK(paged_sessions == expected_sessions);
  }
  CHECK(nonempty > 150);
}
