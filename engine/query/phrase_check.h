// A phrase's words in a message without positions. Prose is indexed with positions, so Xapian
// matches a phrase there exactly; tool input and output and thinking are not (positions would cost
// a third of indexing throughput), so Xapian can only say that such a message holds every word of
// the phrase. The keyword deciders ask this for those messages: the words must stand at consecutive
// positions of their text, as the indexer tokenized it.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <xapian.h>

#include "engine/index/tokenizer.h"
#include "engine/query/literal_filter.h"
#include "engine/query/reader.h"

namespace osearch {

// What a check reuses from one message to the next.
struct PhraseScratch {
  Tokenizer tokenizer;
  std::string lower;              // the text, its ASCII letters lower-cased
  std::vector<char> before, now;  // the matcher's state at two positions
};

// A phrase's words (search forms, as the query parser made them), with what holds_phrase looks for
// in each text: its longest word (the anchor) and a filter for it, made once per query.
struct PreparedPhrase {
  explicit PreparedPhrase(std::vector<std::string> words);
  std::vector<std::string> terms;
  bool ascii_words = false;  // every word is one an ASCII run of word bytes can stand for
  size_t anchor = 0;
  std::optional<LiteralFilter> anchor_filter;  // (none for a word of two bytes)
};

// Whether the words stand at consecutive positions of `text` (positional kinds only, as the indexer
// gives prose its positions). The first tokenizes all of `text`; the second, when the phrase's words
// and every word of the text are ASCII, compares the word runs around each place its anchor stands
// (the same answer, without tokenizing), and else tokenizes.
bool holds_phrase_tokenized(std::string_view text, const std::vector<std::string>& terms, PhraseScratch& scratch);
bool holds_phrase(std::string_view text, const PreparedPhrase& phrase, PhraseScratch& scratch);

class PhraseCheck {
 public:
  // `required`: phrases a match must hold (each a clause ANDed into the query); `forbidden`: negated
  // phrases it must not hold. Phrases of one word are plain terms: none is given here.
  // Each message costs a read and a pass over its text: a query whose phrase has common words reads
  // thousands at 2 GB (docs/BENCHMARKS.md). Past `budget` the rest are taken unchecked, and cut() says so.
  PhraseCheck(const IndexReader& reader, const std::vector<std::vector<std::string>>& required,
              const std::vector<std::vector<std::string>>& forbidden,
              std::chrono::milliseconds budget = std::chrono::milliseconds(5000));
  bool active() const { return !required_.empty() || !forbidden_.empty(); }
  // True for a title's or a memory's document and a message with positions (Xapian decided); else
  // whether the message text holds every required phrase and no forbidden one.
  bool holds(const Xapian::Document& doc) const;
  // The budget ran out: messages were taken on their words alone.
  bool cut() const { return cut_; }

 private:
  const IndexReader& reader_;
  std::vector<PreparedPhrase> required_, forbidden_;
  mutable PhraseScratch scratch_;
  mutable std::string text_buffer_, gutter_scratch_;
  // A query asks of the same message in several passes (count, ranked, per-session counts).
  mutable std::unordered_map<std::string, bool> seen_;
  std::chrono::steady_clock::time_point deadline_;
  mutable bool cut_ = false;
};

}  // namespace osearch
