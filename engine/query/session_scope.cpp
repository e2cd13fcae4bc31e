#include "engine/query/search.h"
#include "engine/index/tokenizer.h"
#include "engine/query/snippet.h"
#include "engine/store/codec.h"
#include "engine/store/session_numbers.h"

#include <algorithm>
#include <cctype>

namespace osearch {

void for_each_session_entry(const IndexReader& reader, const Filters& f,
                            const std::function<void(std::string_view key, std::string_view value)>& visit) {
  LmdbCursor cur(reader.txn(), reader.db().sessions);
  if (f.sessions.empty()) {
    for (bool ok = cur.first(); ok; ok = cur.next()) visit(cur.key(), cur.value());
    return;
  }
  // Ranges may overlap ("ab" and "a"): in key order, each entry once.
  std::vector<std::pair<std::string, std::string>> ranges;  // [upper-case prefix, lower-case prefix]
  for (const auto& p : f.sessions) {
    std::string upper = p;
    for (char& c : upper)
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    ranges.emplace_back(std::move(upper), p);
  }
  std::sort(ranges.begin(), ranges.end());
  std::string_view done_to;  // the last key visited (views the txn's pages)
  bool any = false;
  for (const auto& [lo, hi] : ranges) {
    bool ok = cur.seek(lo);
    while (ok && any && cur.key() <= done_to) ok = cur.next();
    for (; ok && cur.key().substr(0, hi.size()) <= hi; ok = cur.next()) {
      if (f.session_id_may_match(cur.key())) visit(cur.key(), cur.value());
      done_to = cur.key();
      any = true;
    }
  }
}

void for_each_matching_session(const IndexReader& reader, const Filters& f,
                               const std::function<void(std::string_view key, const SessionFacets& s)>& visit) {
  SessionFacets s;
  for_each_session_entry(reader, f, [&](std::string_view key, std::string_view value) {
    IndexReader::view_session(value, s);
    if (f.session_matches(s)) visit(key, s);
  });
}

SessionScope::SessionScope(const IndexReader& reader, const Filters& f, Key key) : key_(key) {
  if (!f.has_session_level()) return;
  active_ = true;
  // The numbers are keyed by session id as the records are: one cursor walks both in key order,
  // instead of a lookup from the root per session.
  LmdbCursor numbers(reader.txn(), reader.db().session_numbers);
  const uint32_t last = last_session_number(reader.txn(), reader.db());  // (no number past it is given)
  const auto keep = [&](std::string_view id) {
    if (many_) return;
    if (few_.size() == kFew) {
      many_ = true;
      few_ = {};
    } else {
      few_.emplace_back(id);
    }
  };
  for_each_matching_session(reader, f, [&](std::string_view, const SessionFacets& s) {
    if (key == Key::Id) {
      allowed_.insert(std::string(s.id));
      keep(s.id);
    } else if (numbers.seek(s.id) && numbers.key() == s.id && numbers.value().size() == 4) {
      const uint32_t n = get_be32(numbers.value());
      if (n > last) return;
      if (n >= numbers_.size()) numbers_.resize(size_t{n} + 1);
      numbers_[n] = true;
      keep(s.id);
    }
  });
}

bool SessionScope::allows(std::string_view key) const {
  if (!active_) return true;
  if (key_ == Key::Id) return allowed_.find(key) != allowed_.end();
  const std::optional<uint32_t> n = number_of_session_value(key);
  return n && *n < numbers_.size() && numbers_[*n];
}

bool SessionScope::allows_id(const IndexReader& reader, std::string_view id) const {
  if (!active_ || key_ == Key::Id) return allows(id);
  const std::optional<uint32_t> n = find_session_number(reader.txn(), reader.db(), id);
  return n && *n < numbers_.size() && numbers_[*n];
}

std::optional<std::vector<std::string>> few_sessions_since(const IndexReader& reader, int64_t since_ms,
                                                           const SessionScope& scope) {
  constexpr size_t kMostVisited = 4 * SessionScope::kFew;
  std::vector<std::string> out;
  std::string from;
  put_be64(from, sortable_i64(since_ms));
  LmdbCursor cur(reader.txn(), reader.db().sess_by_time);
  size_t visited = 0;
  for (bool ok = cur.seek(from); ok; ok = cur.next()) {
    if (++visited > kMostVisited) return std::nullopt;
    const std::string_view id = parse_session_time_key(cur.key()).sid;
    if (!scope.allows_id(reader, id)) continue;
    if (out.size() == SessionScope::kFew) return std::nullopt;
    out.emplace_back(id);
  }
  return out;
}

std::optional<std::vector<std::string>> few_sessions(const IndexReader& reader, const Filters& f,
                                                     const SessionScope& scope) {
  std::optional<std::vector<std::string>> few;
  if (const std::vector<std::string>* scoped = scope.few()) few = *scoped;
  if (f.since_ms && *f.since_ms > 0)
    if (auto recent = few_sessions_since(reader, *f.since_ms, scope); recent && (!few || recent->size() < few->size()))
      few = std::move(recent);
  return few;
}

namespace {
constexpr size_t kNone = std::string::npos;

// A term must not start inside an ASCII word. A piece of an identifier ("server" in
// HTTPServerError) only ever starts inside one: its first place counts then.
bool starts_word(std::string_view hay, size_t at, std::string_view term) {
  return at == 0 || !std::isalnum(static_cast<unsigned char>(hay[at - 1])) || static_cast<unsigned char>(term[0]) >= 0x80;
}

// One term's search over a folded prefix that grows.
struct TermScan {
  size_t word = kNone;    // its first place starting a word: final
  size_t inside = kNone;  // its first place inside a word, while there is no `word`
  size_t resume = 0;      // every start below this was looked at
  // A term's answer: where it starts a word, or else where it first occurs.
  size_t answer() const { return word != kNone ? word : inside; }
};

void scan_more(std::string_view hay, std::string_view term, TermScan& s) {
  if (s.word != kNone) return;
  for (size_t at = s.resume; (at = hay.find(term, at)) != kNone; ++at) {
    if (starts_word(hay, at, term)) {
      s.word = at;
      return;
    }
    if (s.inside == kNone) s.inside = at;
  }
  if (hay.size() >= term.size()) s.resume = std::max(s.resume, hay.size() - term.size() + 1);
}

// No more text can change the answer: some term starts a word at p, and every other term's answer
// lies past p whatever follows (a term seen only inside a word before p may still start a word
// later, which would move its answer past p: it keeps the scan going).
bool settled(const std::vector<std::string>& terms, const std::vector<TermScan>& scans) {
  size_t p = kNone;
  for (const TermScan& s : scans) p = std::min(p, s.word);
  if (p == kNone) return false;
  for (size_t i = 0; i < terms.size(); ++i) {
    const TermScan& s = scans[i];
    if (terms[i].empty() || s.word != kNone) continue;
    if ((s.inside != kNone && s.inside <= p) || s.resume <= p) return false;
  }
  return true;
}

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }
}  // namespace

bool find_first_term(std::string_view text, const std::vector<std::string>& terms, size_t& begin, size_t& end,
                     size_t window) {
  // A bounded prefix keeps this linear; terms are in search form already. The prefix is folded a
  // window at a time until the answer is settled: most messages show a term early, and folding a
  // whole 1 MB tool output took 15 ms of a keyword query's 25.
  constexpr size_t kScanLimit = 1u << 20;
  text = text.substr(0, kScanLimit);
  window = std::max<size_t>(window, 1);
  FoldedText f;
  std::vector<TermScan> scans(terms.size());
  for (size_t at = 0; at < text.size();) {
    // Cut before a byte no UTF-8 sequence can continue into (a lead, or a fourth continuation
    // byte in a row): the pieces then fold as the whole would.
    size_t cut = std::min(text.size(), at + window);
    for (int k = 0; k < 3 && cut < text.size() && is_continuation(text[cut]); ++k) ++cut;
    f.append(text.substr(at, cut - at), at);
    at = cut;
    for (size_t i = 0; i < terms.size(); ++i)
      if (!terms[i].empty()) scan_more(f.folded, terms[i], scans[i]);
    if (settled(terms, scans)) break;
  }
  size_t best = kNone, best_len = 0;
  for (size_t i = 0; i < terms.size(); ++i)
    if (!terms[i].empty() && scans[i].answer() < best) {
      best = scans[i].answer();
      best_len = terms[i].size();
    }
  if (best == kNone) return false;
  // Back to the characters of the original text the folded match came from.
  begin = f.from[best];
  end = f.to[best + best_len - 1];
  return true;
}

}  // namespace osearch
