#include "engine/query/search.h"
#include "engine/index/tokenizer.h"
#include "engine/query/snippet.h"

namespace osearch {

SessionScope::SessionScope(const IndexReader& reader, const Filters& f, Key key) {
  if (!f.has_session_level()) return;
  active_ = true;
  LmdbCursor cur(reader.txn(), reader.db().sessions);
  for (bool ok = cur.first(); ok; ok = cur.next()) {
    auto s = SessionRec::decode(cur.value());
    if (!s || !f.session_matches(*s)) continue;
    if (key == Key::Id)
      allowed_.insert(s->id);
    else if (auto v = reader.session_value(s->id))
      allowed_.insert(std::move(*v));
  }
}

namespace {
// The first place in `hay` (already in search form) where one of `terms` occurs.
bool find_in_folded(std::string_view hay, const std::vector<std::string>& terms, size_t& begin, size_t& end) {
  size_t best = std::string::npos, best_len = 0;
  for (const auto& t : terms) {
    if (t.empty()) continue;
    size_t at = 0, inside = std::string::npos;
    while ((at = hay.find(t, at)) != std::string::npos) {
      // Prefer whole-word hits: a term must not start inside an ASCII word. A piece of an
      // identifier ("server" in HTTPServerError) only ever starts inside one: its first place then.
      bool starts_word = at == 0 || !std::isalnum(static_cast<unsigned char>(hay[at - 1])) ||
                         static_cast<unsigned char>(t[0]) >= 0x80;
      if (starts_word) break;
      if (inside == std::string::npos) inside = at;
      ++at;
    }
    if (at == std::string::npos) at = inside;
    if (at != std::string::npos && at < best) {
      best = at;
      best_len = t.size();
    }
  }
  if (best == std::string::npos) return false;
  begin = best;
  end = best + best_len;
  return true;
}
}  // namespace

bool find_first_term(std::string_view text, const std::vector<std::string>& terms, size_t& begin, size_t& end) {
  // One folded copy of a bounded prefix keeps this linear; terms are in search form already.
  constexpr size_t kScanLimit = 1u << 20;
  text = text.substr(0, kScanLimit);
  if (is_ascii(text)) return find_in_folded(ascii_lower(text), terms, begin, end);
  const FoldedText f(text);
  if (!find_in_folded(f.folded, terms, begin, end)) return false;
  // Back to the characters of the original text the folded match came from.
  begin = f.from[begin];
  end = f.to[end - 1];
  return true;
}

}  // namespace osearch
