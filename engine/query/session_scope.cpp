#include "engine/query/search.h"
#include "engine/index/tokenizer.h"

namespace osearch {

SessionScope::SessionScope(const IndexReader& reader, const Filters& f) {
  if (!f.has_session_level()) return;
  active_ = true;
  LmdbCursor cur(reader.txn(), reader.db().sessions);
  for (bool ok = cur.first(); ok; ok = cur.next()) {
    auto s = SessionRec::decode(cur.value());
    if (s && f.session_matches(*s)) allowed_.insert(s->id);
  }
}

bool find_first_term(std::string_view text, const std::vector<std::string>& terms, size_t& begin, size_t& end) {
  // One lower-cased copy of a bounded prefix keeps this linear; terms are already lower-case.
  constexpr size_t kScanLimit = 1u << 20;
  std::string hay(text.substr(0, kScanLimit));
  for (char& c : hay) c = ascii_lower(c);
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

}  // namespace osearch
