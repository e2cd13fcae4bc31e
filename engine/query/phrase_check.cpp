// PhraseCheck: phrases in messages without positions (engine/query/phrase_check.h).
#include "engine/query/phrase_check.h"

#include <string.h>  // memmem

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>

#include "engine/index/memory_index.h"
#include "engine/index/term_counter.h"
#include "engine/index/text_index.h"
#include "engine/query/literal_filter.h"

namespace osearch {

namespace {

// (A byte outside ASCII is never one: the callers check such characters on their own.)
bool is_word_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x80 && detail::kAscii.c[u] == detail::CharClass::Word;
}

// What lower_ascii_copy saw in the text.
struct CopiedText {
  bool other_bytes = false;  // a byte outside ASCII
  bool escape = false;       // an ESC (a terminal escape sequence, which the tokenizer skips)
};

// `text` with its ASCII letters lower-cased into `out`, and what it holds. (Through plain pointers
// and without branches, so the compiler vectorizes it: every candidate's whole text passes here.)
CopiedText lower_ascii_copy(std::string_view text, std::string& out) {
  out.resize(text.size());
  char* const dst = out.data();
  const auto* const src = reinterpret_cast<const unsigned char*>(text.data());
  unsigned char seen = 0, escapes = 0;
  for (size_t i = 0, n = text.size(); i < n; ++i) {
    const unsigned char c = src[i];
    seen |= c;
    escapes |= static_cast<unsigned char>(c == 0x1b);
    dst[i] = static_cast<char>(c + (static_cast<unsigned char>(c - 'A') < 26 ? 32 : 0));
  }
  return {seen >= 0x80, escapes != 0};
}

// The first byte outside ASCII at or after `from` (text.size() when none), eight bytes at a time.
size_t next_non_ascii(std::string_view text, size_t from) {
  size_t i = from;
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, text.data() + i, 8);
    if (w & 0x8080808080808080ULL) break;
  }
  while (i < text.size() && static_cast<unsigned char>(text[i]) < 0x80) ++i;
  return i;
}

// Whether the characters of text[from, to) outside ASCII (from at a character's start) hold one the
// tokenizer gives a position of its own: a CJK character or a symbol.
bool has_positioned_character(std::string_view text, size_t from, size_t to) {
  for (size_t i = next_non_ascii(text, from); i < to; i = next_non_ascii(text, i)) {
    size_t len = 1;
    const detail::CharClass c = detail::classify_multibyte(text, i, len);
    if (c == detail::CharClass::Cjk || c == detail::CharClass::Symbol) return true;
    i += len;
  }
  return false;
}

// Whether every character outside ASCII is outside words (a word with one folds: café is cafe).
bool no_word_outside_ascii(std::string_view text) {
  for (size_t i = next_non_ascii(text, 0); i < text.size(); i = next_non_ascii(text, i)) {
    size_t len = 1;
    if (detail::classify_multibyte(text, i, len) == detail::CharClass::Word) return false;
    i += len;
  }
  return true;
}

}  // namespace

bool holds_phrase_tokenized(std::string_view text, const PreparedPhrase& p, PhraseScratch& scratch) {
  const QueryPhrase& phrase = p.phrase;
  const std::vector<std::string>& terms = phrase.terms;
  const uint32_t span = phrase.span();
  if (terms.empty()) return true;
  // One text position at a time (several terms share one: an emoji sequence and its symbols):
  // `here[o]` whether it fills the phrase's position o. Every word takes a position and gives a term
  // or a gap, so a match under way (`open`: its start) goes on only at the next position.
  auto& open = scratch.open;
  auto& here = scratch.here;
  open.clear();
  here.assign(span, 0);
  uint32_t at = 0;
  bool started = false, found = false;
  const auto settle = [&] {
    size_t kept = 0;
    for (const uint32_t start : open) {
      const uint32_t o = at - start;
      if (o >= span || !here[o]) continue;
      if (o + 1 == span) found = true;
      else open[kept++] = start;
    }
    open.resize(kept);
    if (!found && here[0]) {
      if (span == 1) found = true;
      else open.push_back(at);
    }
  };
  scratch.tokenizer.run(text, [&](std::string_view t, uint32_t pos, TermKind kind) {
    if (found || !(is_positional(kind) || kind == TermKind::Gap)) return;
    if (started && pos != at) {
      settle();
      std::fill(here.begin(), here.end(), 0);
      // A position without a word (none is expected) ends every match under way.
      if (pos != at + 1) open.clear();
    }
    at = pos;
    started = true;
    if (found) return;
    for (uint32_t o = 0; o < span; ++o) {
      if (p.slots[o] != PreparedPhrase::kGap) {
        if (kind != TermKind::Gap && terms[p.slots[o]] == t) here[o] = 1;
      } else if (kind == TermKind::Gap) {
        const std::string_view want = phrase.gap_word(o);
        if (want.empty() || want == t) here[o] = 1;
      }
    }
  });
  if (started && !found) settle();
  return found;
}

namespace {

// A term an ASCII word can stand for: 2 to kMaxWordBytes word bytes (the tokenizer gives a shorter or
// longer word its position but no term).
bool is_ascii_word_term(std::string_view t) {
  return t.size() >= 2 && t.size() <= kMaxWordBytes && std::all_of(t.begin(), t.end(), is_word_byte);
}

}  // namespace

PreparedPhrase::PreparedPhrase(QueryPhrase words) : phrase(std::move(words)) {
  const std::vector<std::string>& terms = phrase.terms;
  slots.assign(phrase.span(), kGap);
  for (size_t k = 0; k < terms.size(); ++k) slots[phrase.offsets[k]] = k;
  ascii_words = !terms.empty() && std::all_of(terms.begin(), terms.end(), [](const std::string& t) {
    return is_ascii_word_term(t);
  });
  // The longest word: likely the rarest, and a filter finds it in one pass over the text.
  for (size_t k = 1; k < terms.size(); ++k)
    if (terms[k].size() > terms[anchor].size()) anchor = k;
  if (ascii_words) anchor_filter = LiteralFilter::make(terms[anchor], false);
}

namespace {

// Each place the phrase's anchor stands as a whole ASCII word of `text` (`lower`: its lower-cased
// copy); f(at, end) returns whether to go on.
template <typename F>
void for_each_anchor(std::string_view text, std::string_view lower, const PreparedPhrase& p, F&& f) {
  const std::string& term = p.phrase.terms[p.anchor];
  for (size_t from = 0; from + term.size() <= lower.size();) {
    size_t at;
    if (p.anchor_filter) {
      at = p.anchor_filter->find(lower.substr(from));
      if (at == std::string_view::npos) return;
      at += from;
    } else {  // (a word of two bytes)
      const void* hit = ::memmem(lower.data() + from, lower.size() - from, term.data(), term.size());
      if (!hit) return;
      at = static_cast<size_t>(static_cast<const char*>(hit) - lower.data());
    }
    const size_t end = at + term.size();
    from = at + 1;
    if ((at > 0 && is_word_byte(text[at - 1])) || (end < text.size() && is_word_byte(text[end]))) continue;
    if (!f(at, end)) return;
  }
}

}  // namespace

bool holds_phrase(std::string_view text, const PreparedPhrase& p, PhraseScratch& scratch) {
  const std::vector<std::string>& terms = p.phrase.terms;
  if (terms.empty()) return true;
  if (!p.ascii_words) return holds_phrase_tokenized(text, p, scratch);
  const CopiedText copied = lower_ascii_copy(text, scratch.lower);
  const bool other_bytes = copied.other_bytes;
  // (A terminal escape sequence is no text: its bytes are not runs, the tokenizer skips them.)
  if (copied.escape || (other_bytes && !no_word_outside_ascii(text))) return holds_phrase_tokenized(text, p, scratch);
  // Words of ASCII alone: the tokenizer gives each maximal run of word bytes one position, in order,
  // and its term is the run lower-cased (none for a run of one byte or over kMaxWordBytes: a gap's
  // run); between two runs only a CJK character or a symbol takes a position
  // (engine/index/tokenizer.h). So the phrase stands where its positions are consecutive runs with
  // no such character between them: around each place its anchor word stands as a whole run, the
  // runs before and after it are compared with the other words. No tokenization.
  const std::string_view lower = scratch.lower;
  const auto run_fits = [&](size_t slot, size_t b, size_t e) {
    if (e == b) return false;
    if (p.slots[slot] == PreparedPhrase::kGap) {
      if (e - b != 1 && e - b <= kMaxWordBytes) return false;  // a term stands there
      const std::string_view want = p.phrase.gap_word(static_cast<uint32_t>(slot));
      return want.empty() || lower.substr(b, e - b) == want;
    }
    return lower.substr(b, e - b) == terms[p.slots[slot]];
  };
  const size_t anchor_at = p.phrase.offsets[p.anchor], span = p.slots.size();
  bool found = false;
  for_each_anchor(text, lower, p, [&](size_t at, size_t end) {
    bool holds = true;
    for (size_t s = anchor_at, b = at; holds && s-- > 0;) {  // the runs before, nearest first
      const size_t gap_end = b;
      while (b > 0 && !is_word_byte(text[b - 1])) --b;
      const size_t e = b;
      while (b > 0 && is_word_byte(text[b - 1])) --b;
      holds = run_fits(s, b, e) && !(other_bytes && has_positioned_character(text, e, gap_end));
    }
    for (size_t s = anchor_at + 1, e = end; holds && s < span; ++s) {  // the runs after
      const size_t gap = e;
      while (e < text.size() && !is_word_byte(text[e])) ++e;
      const size_t b = e;
      while (e < text.size() && is_word_byte(text[e])) ++e;
      holds = run_fits(s, b, e) && !(other_bytes && has_positioned_character(text, gap, b));
    }
    found = holds;
    return !found;
  });
  return found;
}

PhraseCheck::PhraseCheck(const IndexReader& reader, const std::vector<QueryPhrase>& required,
                         const std::vector<QueryPhrase>& forbidden, std::chrono::milliseconds budget)
    : reader_(reader), deadline_(std::chrono::steady_clock::now() + budget) {
  for (const auto& p : required) required_.emplace_back(p);
  for (const auto& p : forbidden) forbidden_.emplace_back(p);
  for (const auto* ps : {&required_, &forbidden_})
    for (const auto& p : *ps) any_gaps_ = any_gaps_ || p.phrase.has_gaps();
}

namespace {

// Whether the phrase's words stand at their offsets from one start in `doc`'s positions (a title's
// or a memory's document: its text has positions, and its database termlists, unlike messages'),
// with no term at a gap's position (which word fills it, the positions do not say).
bool placed(const Xapian::Document& doc, const QueryPhrase& p) {
  std::vector<std::vector<Xapian::termpos>> at(p.terms.size());
  for (size_t k = 0; k < p.terms.size(); ++k) {
    Xapian::TermIterator t = doc.termlist_begin();
    t.skip_to(p.terms[k]);
    if (t != doc.termlist_end() && *t == p.terms[k])
      for (auto it = t.positionlist_begin(), end = t.positionlist_end(); it != end; ++it) at[k].push_back(*it);
    if (at[k].empty()) return false;
  }
  std::vector<Xapian::termpos> taken;  // every position holding a term (for a phrase with gaps)
  if (p.has_gaps()) {
    for (auto t = doc.termlist_begin(); t != doc.termlist_end(); ++t)
      for (auto it = t.positionlist_begin(), end = t.positionlist_end(); it != end; ++it) taken.push_back(*it);
    std::sort(taken.begin(), taken.end());
  }
  const auto gap_free = [&](Xapian::termpos origin) {
    for (uint32_t o = 0, k = 0; o < p.span(); ++o) {
      if (k < p.offsets.size() && p.offsets[k] == o) {
        ++k;
        continue;
      }
      // (Positions start at kFirstPosition. Where the text ends, the positions do not say: a word
      // without a term past the last term is taken to be there.)
      const Xapian::termpos gap = origin + o;
      if (gap < kFirstPosition || std::binary_search(taken.begin(), taken.end(), gap)) return false;
    }
    return true;
  };
  for (const Xapian::termpos start : at[0]) {
    if (start < p.offsets[0] + kFirstPosition) continue;
    bool holds = true;
    for (size_t k = 1; holds && k < at.size(); ++k)
      holds = std::binary_search(at[k].begin(), at[k].end(), start + p.offsets[k] - p.offsets[0]);
    if (holds && (!p.has_gaps() || gap_free(start - p.offsets[0]))) return true;
  }
  return false;
}

// Whether every required phrase holds (by `holds_one`) and no forbidden one does; with `gapped_only`,
// only the phrases with gaps are asked (Xapian decided the others).
template <typename Holds>
bool holds_phrases(const std::vector<PreparedPhrase>& required, const std::vector<PreparedPhrase>& forbidden,
                   bool gapped_only, Holds&& holds_one) {
  for (const auto& p : required)
    if ((!gapped_only || p.phrase.has_gaps()) && !holds_one(p)) return false;
  for (const auto& p : forbidden)
    if ((!gapped_only || p.phrase.has_gaps()) && holds_one(p)) return false;
  return true;
}

}  // namespace

bool PhraseCheck::holds(const Xapian::Document& doc) const {
  std::string key = doc.get_value(kSlotKey);
  if (key.empty()) {  // a title's or a memory's document: Xapian decided phrases without gaps
    if (!any_gaps_) return true;
    // A title's: its shown title (the text with positions), read as a message's; a memory's: the
    // positions of the words (its file may have changed since).
    std::optional<std::string> title;
    if (doc.get_value(kSlotMemory).empty())
      if (auto sid = reader_.session_of_value(doc.get_value(kSlotSession)))
        if (auto s = reader_.session(*sid)) {
          std::vector<std::string> titles = s->searchable_titles();
          title = titles.empty() ? std::string() : std::move(titles.front());
        }
    return holds_phrases(required_, forbidden_, true, [&](const PreparedPhrase& p) {
      return title ? holds_phrase(*title, p, scratch_) : placed(doc, p.phrase);
    });
  }
  if (auto it = seen_.find(key); it != seen_.end()) return it->second;
  if (cut_ || std::chrono::steady_clock::now() > deadline_) {
    cut_ = true;
    return true;
  }
  const std::optional<MessageRec> m = reader_.message(key);
  bool holds = true;
  // (A record gone since: the page drops it anyway.) Prose has positions: Xapian placed a phrase's
  // words there, but for a phrase with gaps only within its window.
  const bool positions = m && wants_positions(*m);
  if (m && (!positions || any_gaps_)) {
    std::string_view text = reader_.message_text(*m, text_buffer_);
    // What the indexer tokenized (DocBuilder::message): a tool result without its line-number gutters.
    if (m->content_type == ContentType::ToolResult) text = blank_line_number_gutters(text, gutter_scratch_);
    holds = holds_phrases(required_, forbidden_, positions,
                          [&](const PreparedPhrase& p) { return holds_phrase(text, p, scratch_); });
  }
  seen_.emplace(std::move(key), holds);
  return holds;
}

}  // namespace osearch
