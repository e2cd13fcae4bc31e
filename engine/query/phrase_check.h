// A phrase's words in a message without positions. Prose is indexed with positions, so Xapian
// matches a phrase there exactly; tool input and output and thinking are not (positions would cost
// a third of indexing throughput), so Xapian can only say that such a message holds every word of
// the phrase. The keyword deciders ask this for those messages: the words must stand at the
// positions the phrase gives them (consecutive, but for its gaps), as the indexer tokenized the text,
// and each gap filled by the query's word for it. A phrase with gaps ("create a new file", "python
// 3") is checked in prose too: Xapian's window does not place the words exactly, and the index
// holds no term for what fills a gap. A session's title is checked on its shown text; a memory on
// its positions: its words must stand in place with no term in a gap, but which word fills it is not read.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <xapian.h>

#include "engine/index/tokenizer.h"
#include "engine/query/literal_filter.h"
#include "engine/query/query_parser.h"
#include "engine/query/reader.h"

namespace osearch {

// What a check reuses from one message to the next.
struct PhraseScratch {
  Tokenizer tokenizer{true};      // (with the words of gaps)
  std::string lower;              // the text, its ASCII letters lower-cased
  std::vector<uint32_t> open;     // matches under way: their start positions
  std::vector<char> here;         // which of the phrase's positions the current position fills
};

// A phrase's words (search forms and positions, as the query parser made them), with what
// holds_phrase looks for in each text: its longest word (the anchor) and a filter for it, made once
// per query.
struct PreparedPhrase {
  explicit PreparedPhrase(QueryPhrase words);
  QueryPhrase phrase;
  // Per position of the span: the index of the word standing there, or kGap.
  static constexpr size_t kGap = SIZE_MAX;
  std::vector<size_t> slots;
  bool ascii_words = false;  // every word is one an ASCII run of word bytes can stand for
  size_t anchor = 0;
  std::optional<LiteralFilter> anchor_filter;  // (none for a word of two bytes)
};

// Whether the words stand at their positions of `text` (positional kinds only, as the indexer gives
// prose its positions), and at a gap's position a word without a term: the phrase's word for that gap
// (QueryPhrase::gap_word), or any when it has none. The first tokenizes all of `text`; the
// second, when the phrase's words and every word of the text are ASCII, compares the word runs
// around each place its anchor stands (the same answer, without tokenizing), and else tokenizes.
bool holds_phrase_tokenized(std::string_view text, const PreparedPhrase& phrase, PhraseScratch& scratch);
bool holds_phrase(std::string_view text, const PreparedPhrase& phrase, PhraseScratch& scratch);

class PhraseCheck {
 public:
  // `required`: phrases a match must hold (each a clause ANDed into the query); `forbidden`: negated
  // phrases it must not hold. A phrase of one word and no gap is a plain term: none is given here.
  // Each message costs a read and a pass over its text: a query whose phrase has common words reads
  // thousands at 2 GB (docs/BENCHMARKS.md). Past `budget` the rest are taken unchecked, and cut() says so.
  PhraseCheck(const IndexReader& reader, const std::vector<QueryPhrase>& required,
              const std::vector<QueryPhrase>& forbidden,
              std::chrono::milliseconds budget = std::chrono::milliseconds(5000));
  bool active() const { return !required_.empty() || !forbidden_.empty(); }
  // Whether the document holds every required phrase and no forbidden one: for a message without
  // positions by its text; with positions by what Xapian decided, and for a phrase with gaps by its
  // text; for a title's or a memory's document by what Xapian decided, and for a phrase with gaps by
  // the positions of its words.
  bool holds(const Xapian::Document& doc) const;
  // The budget ran out: messages were taken on their words alone.
  bool cut() const { return cut_; }

 private:
  const IndexReader& reader_;
  std::vector<PreparedPhrase> required_, forbidden_;
  bool any_gaps_ = false;  // a phrase prose is checked for too
  mutable PhraseScratch scratch_;
  mutable std::string text_buffer_, gutter_scratch_;
  // A query asks of the same message in several passes (count, ranked, per-session counts).
  mutable std::unordered_map<std::string, bool> seen_;
  std::chrono::steady_clock::time_point deadline_;
  mutable bool cut_ = false;
};

}  // namespace osearch
