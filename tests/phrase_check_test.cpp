// Phrases in messages without positions (engine/query/phrase_check.h): the text decides, as the
// indexer's positions decide in prose. The ASCII path (comparing the word runs around the longest
// word) must answer as tokenizing the whole text does; a keyword query must count only messages holding the
// phrase, whatever their kind.
#include <filesystem>
#include <random>

#include <simdjson.h>

#include "tests/synthetic_index.h"

#include "engine/query/phrase_check.h"

using namespace osearch;
using namespace osearch_test;

TEST_CASE("phrase check: the ASCII path answers as tokenizing the whole text", "[keyword][phrase]") {
  std::mt19937 rng(20261207);
  const std::vector<std::string> words = {"error", "handling", "test", "failed", "Error", "HANDLING", "file", "not",
                                          "found", "x", "errorHandling", "error_handling", "a", "of", "ID"};
  const std::vector<std::string> seps = {" ", "  ", "\n", ". ", "-", ".", "_", "/", ": ", " -- ", "(", ")", "\t\n\n ",
                                         "é", "✓", " 漢字 ", "—", "→", " ─── ", "⚠️", "👍🏽", "\xff", "中", "Ω", "\xe2\x80"};
  PhraseScratch scratch;
  int found = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    for (size_t n = rng() % 40; n > 0; --n) {
      text += rng() % 17 == 0 ? std::string(70, 'q') : words[rng() % words.size()];  // (a word over 64 bytes)
      text += seps[rng() % (round % 2 ? seps.size() : 13)];  // every other text ASCII only
    }
    std::vector<std::string> phrase;
    // (Mostly the first nine words; sometimes one of one or two bytes, a word's parts, or one over 64 bytes.)
    for (size_t n = 2 + rng() % 2; n > 0; --n)
      phrase.push_back(rng() % 20 == 0 ? std::string(70, 'q') : search_form(words[rng() % (rng() % 4 ? 9 : words.size())]));
    INFO("text [" << text << "] phrase " << phrase[0] << " " << phrase[1]);
    const bool whole = holds_phrase_tokenized(text, phrase, scratch);
    CHECK(holds_phrase(text, PreparedPhrase(phrase), scratch) == whole);
    found += whole;
  }
  CHECK(found > 500);
}

namespace {
void phrase_texts_of(simdjson::dom::element e, std::vector<std::string>& out) {
  std::string_view s;
  if (e.get(s) == simdjson::SUCCESS) {
    if (s.size() > 20) out.emplace_back(s);
  } else if (e.is_array()) {
    for (auto x : e.get_array()) phrase_texts_of(x, out);
  } else if (e.is_object()) {
    for (auto kv : e.get_object()) phrase_texts_of(kv.value, out);
  }
}
}  // namespace

TEST_CASE("phrase check: on the strings of real transcripts, as tokenizing the whole text", "[keyword][phrase]") {
  // Every string of tests/data's transcripts (Claude Code, omp, pi, Codex; the hostile ones too), each
  // asked for a run of 2-3 consecutive words of itself or of another string.
  std::vector<std::string> texts;
  simdjson::dom::parser parser;
  for (const auto& f : fs::recursive_directory_iterator(test_data_dir())) {
    if (!f.is_regular_file() || f.path().extension() != ".jsonl") continue;
    for (const auto& line : lines_of(read_file(f.path().string()))) {
      simdjson::dom::element e;
      if (parser.parse(line).get(e) == simdjson::SUCCESS) phrase_texts_of(e, texts);
    }
  }
  REQUIRE(texts.size() > 10000);
  std::mt19937 rng(20261207);
  PhraseScratch scratch;
  Tokenizer tokenizer;
  size_t checks = 0, found = 0;
  for (int round = 0; round < 20000; ++round) {
    const std::string& text = texts[rng() % texts.size()];
    const std::string& from = rng() % 4 == 0 ? texts[rng() % texts.size()] : text;
    std::vector<std::string> words;
    tokenizer.run(from, [&](std::string_view w, uint32_t, TermKind k) {
      if (is_positional(k) && words.size() < 2000) words.emplace_back(w);
    });
    if (words.size() < 3) continue;
    const size_t at = rng() % (words.size() - 2);
    const std::vector<std::string> phrase(words.begin() + static_cast<std::ptrdiff_t>(at),
                                          words.begin() + static_cast<std::ptrdiff_t>(at + 2 + rng() % 2));
    INFO("text [" << text << "] phrase " << phrase[0] << " " << phrase[1]);
    const bool whole = holds_phrase_tokenized(text, phrase, scratch);
    CHECK(holds_phrase(text, PreparedPhrase(phrase), scratch) == whole);
    ++checks;
    found += whole;
  }
  CHECK(checks > 10000);
  CHECK(found > checks / 4);
}

TEST_CASE("keyword: a phrase in tool output and thinking matches only where its words stand together",
          "[keyword][phrase]") {
  // Message 1 of each session is prose; 3 is a tool result, 6 thinking (SyntheticIndex, every 3rd).
  SyntheticIndex ix({{"opening remarks", "hello there", "x", "zorblax gamma quuxify", "x", "x", "quuxify zorblax"},
                     {"opening remarks", "hello there", "x", "zorblax quuxify together", "x", "x", "nothing"},
                     {"opening remarks", "we saw quuxify zorblax in prose", "x", "nothing", "x", "x", "zorblax, quuxify!"}},
                    3);
  IndexReader reader(ix.idx);
  const auto ids = [&](const std::string& q, bool by_message) {
    KeywordOptions o;
    o.by_message = by_message;
    const QueryResult r = run_keyword(reader, q, limit_filters(50), o);
    std::vector<std::string> out;
    for (const Hit& h : r.hits) out.push_back(by_message ? h.message->uuid : h.session.id.substr(0, 8));
    std::sort(out.begin(), out.end());
    CHECK(r.total == out.size());
    return out;
  };
  using V = std::vector<std::string>;
  // Tool result of session 1 and thinking of session 2 ("zorblax, quuxify!": punctuation between).
  CHECK(ids("\"zorblax quuxify\"", true) == V{"u-1-3", "u-2-6"});
  CHECK(ids("\"quuxify zorblax\"", true) == V{"u-0-6", "u-2-1"});  // thinking, and prose (positions)
  CHECK(ids("\"zorblax quuxify\"", false) == V{"00000001", "00000002"});
  // Negated: only messages holding the phrase are left out; all its words elsewhere are not.
  CHECK(ids("zorblax -\"zorblax quuxify\"", true) == V{"u-0-3", "u-0-6", "u-2-1"});
  // A phrase ORed with another clause keeps "all its words" where there are no positions, and says so.
  KeywordOptions o;
  o.by_message = true;
  const QueryResult loose = run_keyword(reader, "\"zorblax quuxify\" OR together", limit_filters(50), o);
  CHECK(loose.loose_phrases);
  CHECK_FALSE(run_keyword(reader, "\"zorblax quuxify\"", limit_filters(50), o).loose_phrases);
}
