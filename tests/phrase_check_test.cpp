// Phrases in messages without positions (engine/query/phrase_check.h): the text decides, as the
// indexer's positions decide in prose. The ASCII path (comparing the word runs around the longest
// word) must answer as tokenizing the whole text does; a keyword query must count only messages holding the
// phrase, whatever their kind.
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include <simdjson.h>

#include "tests/synthetic_index.h"

#include "engine/query/phrase_check.h"

using namespace osearch;
using namespace osearch_test;

TEST_CASE("phrase check: the ASCII path answers as tokenizing the whole text", "[keyword][phrase]") {
  std::mt19937 rng(20261207);
  const std::vector<std::string> words = {"error", "handling", "test", "failed", "Error", "HANDLING", "file", "not",
                                          "found", "x", "errorHandling", "error_handling", "a", "of", "ID"};
  const std::vector<std::string> seps = {" ", "  ", "\n", ". ", "-", ".", "_", "/", ": ", " -- ", "\x1b[1m", ")", "\t\n\n ",
                                         "é", "✓", " 漢字 ", "—", "→", " ─── ", "⚠️", "👍🏽", "\xff", "中", "Ω", "\xe2\x80"};
  PhraseScratch scratch;
  int found = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    for (size_t n = rng() % 40; n > 0; --n) {
      text += rng() % 17 == 0 ? std::string(70, 'q') : words[rng() % words.size()];  // (a word over 64 bytes)
      text += seps[rng() % (round % 2 ? seps.size() : 13)];  // every other text ASCII only
    }
    std::vector<std::string> terms;
    // (Mostly the first nine words; sometimes one of one or two bytes, a word's parts, or one over 64 bytes.)
    for (size_t n = 2 + rng() % 2; n > 0; --n)
      terms.push_back(rng() % 20 == 0 ? std::string(70, 'q') : search_form(words[rng() % (rng() % 4 ? 9 : words.size())]));
    const QueryPhrase phrase(terms);
    INFO("text [" << text << "] phrase " << terms[0] << " " << terms[1]);
    const bool whole = holds_phrase_tokenized(text, PreparedPhrase(phrase), scratch);
    CHECK(holds_phrase(text, PreparedPhrase(phrase), scratch) == whole);
    found += whole;
  }
  CHECK(found > 500);
}

namespace {
// The model: every positional term of `text` by position, and whether the phrase's words stand at
// start + offset, and at a gap's position a word without a term (the phrase's word for it, if given).
bool holds_by_model(std::string_view text, const QueryPhrase& p) {
  std::map<uint32_t, std::set<std::string>> at;
  std::map<uint32_t, std::string> gaps;
  Tokenizer tokenizer(true);
  const uint32_t positions = tokenizer.run(text, [&](std::string_view t, uint32_t pos, TermKind k) {
    if (is_positional(k)) at[pos].emplace(t);
    if (k == TermKind::Gap) gaps[pos] = t;
  });
  for (uint32_t start = 0; start + p.span() <= positions; ++start) {
    bool holds = true;
    for (uint32_t o = 0, k = 0; holds && o < p.span(); ++o) {
      const auto it = at.find(start + o);
      if (k < p.terms.size() && p.offsets[k] == o) {
        holds = it != at.end() && it->second.contains(p.terms[k++]);
      } else {
        const auto gap = gaps.find(start + o);
        holds = it == at.end() && gap != gaps.end() && (p.gap_word(o).empty() || gap->second == p.gap_word(o));
      }
    }
    if (holds) return true;
  }
  return false;
}
}  // namespace

TEST_CASE("phrase check: a phrase with gaps (words of one character) is found where its words stand",
          "[keyword][phrase]") {
  // "create a new file" is create@0 new@2 file@3: the query parser keeps the gap the indexer left,
  // and both paths must place the words there, with no term in the gap ("create the new file").
  PhraseScratch scratch;
  const QueryPhrase create_a_new_file({"create", "new", "file"}, {0, 2, 3});
  for (const char* text : {"please create a new file now", "Create a NEW file", "create x new file", "create\na new-file",
                           "so: create 4 new file."}) {
    INFO(text);
    CHECK(holds_phrase_tokenized(text, PreparedPhrase(create_a_new_file), scratch));
    CHECK(holds_phrase(text, PreparedPhrase(create_a_new_file), scratch));
  }
  for (const char* text : {"create the new file", "create new file", "create a  brand new file", "create a new",
                           "create a 漢 new file", "create a new files"}) {
    INFO(text);
    CHECK_FALSE(holds_phrase_tokenized(text, PreparedPhrase(create_a_new_file), scratch));
    CHECK_FALSE(holds_phrase(text, PreparedPhrase(create_a_new_file), scratch));
  }
  // As the query parser makes them, the gaps name their words: "create a new file" is not "create x
  // new file", and "python 3" (one word and a gap) is not "python 2" nor "python" alone.
  const QueryPhrase named({"create", "new", "file"}, {0, 2, 3}, 4, {"", "a", "", ""});
  const QueryPhrase python_3({"python"}, {0}, 2, {"", "3"});
  const QueryPhrase i_need_to({"need", "to"}, {1, 2}, 3, {"i", "", ""});
  const struct {
    const char* text;
    const QueryPhrase& phrase;
    bool holds;
  } cases[] = {{"please create A new file", named, true}, {"create a\nnew file", named, true},
               {"create x new file", named, false},      {"create é new file", named, false},
               {"with Python 3.12", python_3, true},      {"python 2 or python 3", python_3, true},
               {"python 2", python_3, false},             {"python", python_3, false},
               {"python 33", python_3, false},            {"so I need to go", i_need_to, true},
               {"I don't need to", i_need_to, false},     {"need to", i_need_to, false}};
  for (const auto& c : cases) {
    INFO(c.text);
    CHECK(holds_phrase_tokenized(c.text, PreparedPhrase(c.phrase), scratch) == c.holds);
    CHECK(holds_phrase(c.text, PreparedPhrase(c.phrase), scratch) == c.holds);
  }
  // Random texts and gapped phrases: both paths answer as the model does.
  std::mt19937 rng(20261208);
  const std::vector<std::string> words = {"error", "handling", "test", "x", "a", "I", "4", std::string(70, 'q'), "file",
                                          "not", "ErrorHandling", "of"};
  const std::vector<std::string> seps = {" ", "\n", ". ", "-", "\x1b[38;2;9;9;9m", "/", " — ", "→", " 漢 ", "👍", "é"};
  int found = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    for (size_t n = rng() % 30; n > 0; --n) text += words[rng() % words.size()] + seps[rng() % (round % 2 ? seps.size() : 6)];
    std::vector<std::string> terms;
    std::vector<uint32_t> offsets;
    const uint32_t lead = rng() % 4 == 0 ? 1 : 0, trail = rng() % 4 == 0 ? 1 : 0;  // gaps at the ends
    for (uint32_t o = lead, n = 1 + rng() % 4; terms.size() < n; ++o) {
      if (!terms.empty() && rng() % 3 == 0) continue;  // a gap
      terms.push_back(search_form(words[rng() % 3 == 0 ? 9 + rng() % 3 : rng() % 3]));
      offsets.push_back(o);
    }
    // Half of the phrases name their gaps' words (as the query parser does), the others take any.
    std::vector<std::string> fillers;
    if (round % 4 < 2) {
      fillers.resize(offsets.back() + 1 + trail);
      for (auto& f : fillers) f = search_form(words[3 + rng() % 5]);  // x, a, i, 4, q×70
      for (const uint32_t o : offsets) fillers[o].clear();
    }
    const QueryPhrase phrase(terms, offsets, offsets.back() + 1 + trail, fillers);
    INFO("text [" << text << "] phrase of " << terms.size() << " over " << phrase.span() << " gaps named " << !fillers.empty());
    const bool model = holds_by_model(text, phrase);
    CHECK(holds_phrase_tokenized(text, PreparedPhrase(phrase), scratch) == model);
    CHECK(holds_phrase(text, PreparedPhrase(phrase), scratch) == model);
    found += model;
  }
  CHECK(found > 200);
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
    // The words and positions as the indexer places them: a word of one character leaves a gap.
    std::vector<std::string> words;
    std::vector<uint32_t> positions;
    uint32_t last = UINT32_MAX;
    tokenizer.run(from, [&](std::string_view w, uint32_t pos, TermKind k) {
      if (is_positional(k) && words.size() < 2000 && pos != last) {
        words.emplace_back(w);
        positions.push_back(pos);
        last = pos;
      }
    });
    if (words.size() < 3) continue;
    const size_t at = rng() % (words.size() - 2), n = 2 + rng() % 2;
    std::vector<uint32_t> offsets;
    for (size_t k = at; k < at + n; ++k) offsets.push_back(positions[k] - positions[at]);
    const QueryPhrase phrase(std::vector<std::string>(words.begin() + static_cast<std::ptrdiff_t>(at),
                                                      words.begin() + static_cast<std::ptrdiff_t>(at + n)),
                             offsets);
    INFO("text [" << text << "] phrase " << phrase.terms[0] << " " << phrase.terms[1] << " over " << phrase.span());
    const bool whole = holds_phrase_tokenized(text, PreparedPhrase(phrase), scratch);
    CHECK(holds_phrase(text, PreparedPhrase(phrase), scratch) == whole);
    if (&from == &text) CHECK(whole);  // a phrase taken from a text is found in it
    ++checks;
    found += whole;
  }
  CHECK(checks > 10000);
  CHECK(found > checks / 4);
}

namespace {
// The hits of `q`, sorted: message uuids, or by session the ids' first 8 characters; `total` must count them.
std::vector<std::string> hit_ids(IndexReader& reader, const std::string& q, bool by_message) {
  KeywordOptions o;
  o.by_message = by_message;
  const QueryResult r = run_keyword(reader, q, limit_filters(50), o);
  std::vector<std::string> out;
  for (const Hit& h : r.hits) out.push_back(by_message ? h.message->uuid : h.session.id.substr(0, 8));
  std::sort(out.begin(), out.end());
  CHECK(r.total == out.size());
  return out;
}
}  // namespace

TEST_CASE("keyword: a phrase in tool output and thinking matches only where its words stand together",
          "[keyword][phrase]") {
  // Message 1 of each session is prose; 3 is a tool result, 6 thinking (SyntheticIndex, every 3rd).
  SyntheticIndex ix({{"opening remarks", "hello there", "x", "zorblax gamma quuxify", "x", "x", "quuxify zorblax"},
                     {"opening remarks", "hello there", "x", "zorblax quuxify together", "x", "x", "nothing"},
                     {"opening remarks", "we saw quuxify zorblax in prose", "x", "nothing", "x", "x", "zorblax, quuxify!"}},
                    3);
  IndexReader reader(ix.idx);
  const auto ids = [&](const std::string& q, bool by_message) { return hit_ids(reader, q, by_message); };
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

TEST_CASE("keyword: a phrase with a word of one character is found in prose, tool output and thinking",
          "[keyword][phrase]") {
  // The indexer gives "a" (and "4", and a word over 64 bytes) a position but no term; the query's
  // phrase keeps that gap. Before, its words had to stand side by side, so "create a new file"
  // matched nothing anywhere, and a negated one excluded nothing.
  SyntheticIndex ix({{"opening remarks", "please create a new file now", "x", "so create a new file here", "x", "x",
                      "create the new file"},
                     {"opening remarks", "create the new file", "x", "create new file", "x", "x", "I will create a new file"},
                     {"opening remarks", "claude-sonnet-4-5-20250929 answered", "x", "nothing", "x", "x", "create new file"},
                     {"create the new file", "and a new file"},  // (its title, and no message with the phrase)
                     {"create the new file", "so create a new file"}},  // (one message with it, not its title)
                    3);
  IndexReader reader(ix.idx);
  const auto ids = [&](const std::string& q, bool by_message = true) { return hit_ids(reader, q, by_message); };
  using V = std::vector<std::string>;
  CHECK(ids("\"create a new file\"") == V{"u-0-1", "u-0-3", "u-1-6", "u-4-1"});
  // By session, titles too: session 3's title "create the new file" is not the phrase.
  CHECK(ids("\"create a new file\"", false) == V{"00000000", "00000001", "00000004"});
  CHECK(ids("\"create the new file\"", false) == V{"00000000", "00000001", "00000003", "00000004"});
  // Its messages counted, not its title, whichever collapse counted them.
  for (const bool runs : {true, false}) {
    KeywordOptions o;
    o.session_runs = runs;
    const QueryResult r = run_keyword(reader, "\"create a new file\"", limit_filters(50), o);
    INFO("session runs " << runs);
    REQUIRE(r.hits.size() == 3);
    for (const Hit& h : r.hits) CHECK(h.match_count == (h.session.id.starts_with("00000000") ? 2 : 1));
  }
  // A gap at an end is a word without a term too: not "the", not the text's start.
  CHECK(ids("\"a new file\"") == V{"u-0-1", "u-0-3", "u-1-6", "u-3-1", "u-4-1"});
  CHECK(ids("\"create a new file now\"") == V{"u-0-1"});
  CHECK(ids("\"new file x\"").empty());
  CHECK(ids("\"create the new file\"") == V{"u-0-6", "u-1-1", "u-3-0", "u-4-0"});
  CHECK(ids("\"claude-sonnet-4-5-20250929\"") == V{"u-2-1"});  // create@0 sonnet@1 20250929@4
  // Negated: the messages holding the phrase are left out, in prose too; "create new file" is not it.
  CHECK(ids("file -\"create a new file\"") == V{"u-0-6", "u-1-1", "u-1-3", "u-2-6", "u-3-0", "u-3-1", "u-4-0"});
}

TEST_CASE("keyword: a phrase's gaps are its own words; one word and a gap; a quoted version", "[keyword][phrase]") {
  // "python 3" was the word python alone (every message naming python), and "create a new file" took
  // "create x new file".
  SyntheticIndex ix({{"opening remarks", "we need python 3 here", "x", "python 2 only", "x", "x", "upgrade to python 3"},
                     {"opening remarks", "python is fine", "x", "create x new file", "x", "x", "release 1.7.0 is out"},
                     {"opening remarks", "create a new file", "x", "version 1.7.0 shipped", "x", "x", "Python 3.12"}},
                    3);
  IndexReader reader(ix.idx);
  const auto ids = [&](const std::string& q, bool by_message = true) { return hit_ids(reader, q, by_message); };
  using V = std::vector<std::string>;
  CHECK(ids("\"python 3\"") == V{"u-0-1", "u-0-6", "u-2-6"});  // prose, thinking; "3.12" starts with 3
  CHECK(ids("\"python 3\"", false) == V{"00000000", "00000002"});
  CHECK(ids("python -\"python 3\"") == V{"u-0-3", "u-1-1"});
  CHECK(ids("\"create a new file\"") == V{"u-2-1"});
  CHECK(ids("\"create x new file\"") == V{"u-1-3"});
  CHECK(ids("1.7.0") == V{"u-1-6", "u-2-3"});  // (unquoted: the identifier)
  CHECK(ids("\"version 1.7.0\"") == V{"u-2-3"});
  CHECK(ids("\"release 1.7.0 is\"") == V{"u-1-6"});
  CHECK(ids("\"version 1.7.1\"").empty());
  // Nothing but words without terms: nothing to search, said so. (The phrase "1.7.0" also stands in
  // 2.1.7.0, which the identifier's term does not: refused, not answered in part.)
  CHECK_THROWS_AS(run_keyword(reader, "\"a b\"", limit_filters(50), KeywordOptions()), BadInput);
  CHECK_THROWS_AS(run_keyword(reader, "\"1.7.0\"", limit_filters(50), KeywordOptions()), BadInput);
}

TEST_CASE("keyword: a phrase's first word held only as an identifier's part does not stand before the text",
          "[keyword][phrase]") {
  // Xapian 1.4 reads a term a document holds without positions (the part "run" of runWingmanReview)
  // as standing at position 0 when a phrase asks for its first word there; texts began at position 1,
  // so "run all" matched a message starting "All clean" (from the shared corpus), and its title too.
  SyntheticIndex ix({{"Tests pass after runTests", "All clean. runWingmanReview triggers it", "x", "nothing", "x", "x",
                      "we run all of them"}},
                    3);
  IndexReader reader(ix.idx);
  const auto ids = [&](const std::string& q, bool by_message = true) { return hit_ids(reader, q, by_message); };
  using V = std::vector<std::string>;
  CHECK(ids("\"run all\"") == V{"u-0-6"});
  CHECK(ids("\"all clean\"") == V{"u-0-1"});
  CHECK(ids("clean -\"run all\"") == V{"u-0-1"});
  CHECK(ids("\"run tests\"").empty());
  CHECK(ids("\"run tests\"", false).empty());  // (nor the session's title, the same text)
  CHECK(ids("\"tests pass\"", false) == V{"00000000"});
}

TEST_CASE("keyword: words and phrases in coloured terminal output", "[keyword][phrase][tokenizer]") {
  // Claude Code's local command output and coloured tool output hold CSI sequences: "\x1b[1mopusplan"
  // (a real /model reply) was the term "1mopusplan", so `keyword opusplan` missed it.
  SyntheticIndex ix({{"opening remarks", "Set model to \x1b[1mopusplan\x1b[22m", "x",
                      "\x1b[32m PASS \x1b[39m src/tokenizer.test.ts\n\x1b[31;1mtests failed\x1b[0m: 3", "x", "x",
                      "\x1b[2mCompacted (ctrl+o to see full summary)\x1b[22m"}},
                    3);
  IndexReader reader(ix.idx);
  const auto ids = [&](const std::string& q) { return hit_ids(reader, q, true); };

  using V = std::vector<std::string>;
  CHECK(ids("opusplan") == V{"u-0-1"});
  CHECK(ids("pass") == V{"u-0-3"});
  CHECK(ids("\"tests failed\"") == V{"u-0-3"});  // a tool result: checked on its text
  CHECK(ids("\"pass src/tokenizer.test.ts\"") == V{"u-0-3"});
  CHECK(ids("compacted") == V{"u-0-6"});
}
