// PhraseCheck: phrases in messages without positions (engine/query/phrase_check.h).
#include "engine/query/phrase_check.h"

#include <algorithm>

#include "engine/index/term_counter.h"
#include "engine/index/text_index.h"

namespace osearch {

namespace {

bool is_word_byte(char c) { return detail::kAscii.c[static_cast<unsigned char>(c) & 0x7f] == detail::CharClass::Word; }
bool is_span_byte(char c) { return detail::kAscii.in_span(c); }

// `text` lower-cased into `out`; false when it holds a byte outside ASCII.
bool lower_ascii_copy(std::string_view text, std::string& out) {
  out.resize(text.size());
  unsigned char seen = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    seen |= c;
    out[i] = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  }
  return seen < 0x80;
}

}  // namespace

bool holds_phrase_tokenized(std::string_view text, const std::vector<std::string>& terms, PhraseScratch& scratch) {
  const size_t n = terms.size();
  if (n == 0) return true;
  // before[i]: terms[0..i] stand at the positions ending one before the current one; now[i]: ending
  // at the current one (several terms may share a position: an emoji sequence and its symbols).
  std::vector<char>& before = scratch.before;
  std::vector<char>& now = scratch.now;
  before.assign(n, 0);
  now.assign(n, 0);
  uint32_t at = 0;
  bool started = false, found = false;
  scratch.tokenizer.run(text, [&](std::string_view t, uint32_t pos, TermKind kind) {
    if (found || !is_positional(kind)) return;
    if (!started || pos != at) {
      if (started && pos == at + 1) before.swap(now);
      else std::fill(before.begin(), before.end(), 0);
      std::fill(now.begin(), now.end(), 0);
      at = pos;
      started = true;
    }
    for (size_t i = 0; i < n; ++i)
      if ((i == 0 || before[i - 1]) && terms[i] == t) now[i] = 1;
    found = now[n - 1] != 0;
  });
  return found;
}

namespace {

// Each place `term` stands as a whole ASCII word of `text` (`lower`: its lower-cased copy).
template <typename F>
void for_each_word(std::string_view text, std::string_view lower, std::string_view term, F&& f) {
  for (size_t at = lower.find(term); at != std::string_view::npos; at = lower.find(term, at + 1)) {
    const size_t end = at + term.size();
    if ((at > 0 && is_word_byte(text[at - 1])) || (end < text.size() && is_word_byte(text[end]))) continue;
    if (!f(at, end)) return;
  }
}

}  // namespace

bool holds_phrase(std::string_view text, const std::vector<std::string>& terms, PhraseScratch& scratch) {
  if (terms.empty()) return true;
  for (const auto& t : terms)
    for (char c : t)
      if (static_cast<unsigned char>(c) >= 0x80) return holds_phrase_tokenized(text, terms, scratch);
  if (!lower_ascii_copy(text, scratch.lower)) return holds_phrase_tokenized(text, terms, scratch);
  // ASCII text: a word is a run of word bytes, lower-cased, and a span (words and connectors) is
  // tokenized alone, its positions counted on. So each word of the phrase is a place where its term
  // stands with no word byte beside it; around the rarest one, tokenizing from k spans with a word
  // before its span (k: its index in the phrase) to the n-1-k such spans after it (each at least one
  // position) finds the phrase if it stands there.
  const std::string_view lower = scratch.lower;
  size_t anchor = 0, fewest = SIZE_MAX;
  for (size_t k = 0; k < terms.size() && fewest > 0; ++k) {
    size_t count = 0;
    for_each_word(text, lower, terms[k], [&](size_t, size_t) { return ++count < fewest; });
    if (count < fewest) fewest = count, anchor = k;
  }
  if (fewest == 0) return false;  // a term present only inside a longer word (an identifier's part)
  bool found = false;
  for_each_word(text, lower, terms[anchor], [&](size_t at, size_t end) {
    size_t b = at, e = end;
    while (b > 0 && is_span_byte(text[b - 1])) --b;
    for (size_t spans = 0; spans < anchor && b > 0;) {
      while (b > 0 && !is_span_byte(text[b - 1])) --b;
      bool word = false;
      for (; b > 0 && is_span_byte(text[b - 1]); --b) word = word || is_word_byte(text[b - 1]);
      if (word) ++spans;
    }
    while (e < text.size() && is_span_byte(text[e])) ++e;
    for (size_t spans = anchor + 1; spans < terms.size() && e < text.size();) {
      while (e < text.size() && !is_span_byte(text[e])) ++e;
      bool word = false;
      for (; e < text.size() && is_span_byte(text[e]); ++e) word = word || is_word_byte(text[e]);
      if (word) ++spans;
    }
    found = holds_phrase_tokenized(text.substr(b, e - b), terms, scratch);
    return !found;
  });
  return found;
}

bool PhraseCheck::holds(const Xapian::Document& doc) const {
  std::string key = doc.get_value(kSlotKey);
  if (key.empty()) return true;  // a title's document (its shown title has positions) or a memory's
  if (auto it = seen_.find(key); it != seen_.end()) return it->second;
  if (cut_ || std::chrono::steady_clock::now() > deadline_) {
    cut_ = true;
    return true;
  }
  const std::optional<MessageRec> m = reader_.message(key);
  bool holds = true;
  if (m && !wants_positions(*m)) {  // (a record gone since: the page drops it anyway)
    std::string_view text = reader_.message_text(*m, text_buffer_);
    // What the indexer tokenized (DocBuilder::message): a tool result without its line-number gutters.
    if (m->content_type == ContentType::ToolResult) text = blank_line_number_gutters(text, gutter_scratch_);
    for (const auto& p : required_) holds = holds && holds_phrase(text, p, scratch_);
    for (const auto& p : forbidden_) holds = holds && !holds_phrase(text, p, scratch_);
  }
  seen_.emplace(std::move(key), holds);
  return holds;
}

}  // namespace osearch
