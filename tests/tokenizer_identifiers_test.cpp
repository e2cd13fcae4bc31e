// Identifier parts (issue 9): what a person remembers of an identifier finds it. Tokenizer terms
// here; whole-query behaviour in query_recall_test.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/index/tokenizer.h"
#include "tests/tokenizer_fixture.h"

using namespace osearch;
using namespace osearch_test;

namespace {

std::vector<std::string> pieces(std::string_view word) {
  std::vector<std::string> out;
  for_each_identifier_piece(word, [&](std::string_view p) { out.emplace_back(p); });
  return out;
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("tokenizer: leading and trailing underscores are also stripped", "[tokenizer][identifiers]") {
  auto t = tokenize("def _process_nested_tar(self): pass");
  CHECK(has(t, "_process_nested_tar", TermKind::Word));
  CHECK(has(t, "process_nested_tar", TermKind::Part));
  CHECK(has(t, "process", TermKind::Part));
  CHECK(has(t, "nested", TermKind::Part));
  CHECK(has(t, "tar", TermKind::Part));
  auto d = tokenize("__init__ and _csrf_token_");
  CHECK(has(d, "__init__", TermKind::Word));
  CHECK(has(d, "init", TermKind::Part));
  CHECK(has(d, "csrf_token", TermKind::Part));
  CHECK(has(d, "csrf", TermKind::Part));
  CHECK(has(d, "token", TermKind::Part));
  // Nothing but underscores and one letter: no empty or one-letter parts.
  for (const auto& p : texts_of(tokenize("___ _a_ __x"), TermKind::Part)) CHECK(p.size() > 1);
}

TEST_CASE("tokenizer: camelCase and PascalCase words give their pieces", "[tokenizer][identifiers]") {
  CHECK(pieces("getFileTypeBadge") ==
        V{"get", "file", "type", "badge", "getfile", "filetype", "typebadge", "getfiletype", "filetypebadge"});
  CHECK(pieces("HTTPServerError") == V{"http", "server", "error", "httpserver", "servererror"});
  CHECK(pieces("parseJSON") == V{"parse", "json"});
  CHECK(pieces("utf8Decode") == V{"utf8", "decode"});
  CHECK(pieces("IOError") == V{"io", "error"});
  CHECK(pieces("snake_case_word") == V{"snake", "case", "word"});
  CHECK(pieces("get_FileType") == V{"get", "filetype", "file", "type"});
  CHECK(pieces("MAX_WORD_BYTES") == V{"max", "word", "bytes"});
  CHECK(pieces("getXCoord") == V{"get", "coord", "getx", "xcoord"});
  CHECK(pieces("plain").empty());
  CHECK(pieces("Capitalized").empty());
  CHECK(pieces("ALLCAPS").empty());
  CHECK(pieces("aB").empty());  // pieces of one letter are dropped, the whole word is the word itself
  // Past six pieces, no runs: the pieces alone.
  CHECK(pieces("aaBbCcDdEeFfGg") == V{"aa", "bb", "cc", "dd", "ee", "ff", "gg"});
  auto t = tokenize("call getFileTypeBadge() now");
  CHECK(has(t, "getfiletypebadge", TermKind::Word));
  CHECK(has(t, "badge", TermKind::Part));
  CHECK(has(t, "file", TermKind::Part));
  // Parts share their word's position; the words around keep theirs.
  uint32_t word_pos = 0;
  for (const auto& x : t)
    if (x.text == "getfiletypebadge") word_pos = x.pos;
  for (const auto& x : t)
    if (x.kind == TermKind::Part) CHECK(x.pos == word_pos);
  CHECK(has(tokenize("HTTPServerError"), "server", TermKind::Part));
  // Inside a dotted name, each word is split too.
  auto d = tokenize("stateStore.getValue()");
  CHECK(has(d, "statestore.getvalue", TermKind::Compound));
  CHECK(has(d, "store", TermKind::Part));
  CHECK(has(d, "value", TermKind::Part));
}

TEST_CASE("tokenizer: a v-prefixed version is also its bare number", "[tokenizer][identifiers]") {
  auto t = tokenize("released v1.2.3 and V2.0.74-beta, not version.1");
  CHECK(has(t, "v1.2.3", TermKind::Compound));
  CHECK(has(t, "1.2.3", TermKind::Compound));
  CHECK(has(t, "2.0.74-beta", TermKind::Compound));
  CHECK_FALSE(has(t, "ersion.1", TermKind::Compound));
  // "v2" alone is a word, not a version compound.
  CHECK_FALSE(has(tokenize("v2 only"), "2", TermKind::Compound));
}
