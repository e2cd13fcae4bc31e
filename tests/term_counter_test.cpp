// TermCounter (the indexer's per-document wdf table) and the Read-tool gutter blanking.
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <string>

#include "engine/index/term_counter.h"

using namespace osearch;

namespace {
std::map<std::string, uint32_t> counted(const TermCounter& c) {
  std::map<std::string, uint32_t> out;
  c.for_each([&](std::string_view t, uint32_t n) { out.emplace(std::string(t), n); });
  return out;
}
}  // namespace

TEST_CASE("term counter: counts distinct terms across growth and reuse", "[index][terms]") {
  TermCounter c;
  std::map<std::string, uint32_t> expected;
  std::mt19937 rng(7);
  // Enough distinct terms to grow the table several times, with repeats.
  for (int i = 0; i < 20000; ++i) {
    std::string t = "t" + std::to_string(rng() % 5000);
    c.add(t);
    ++expected[t];
  }
  c.add("");
  ++expected[""];
  CHECK(counted(c) == expected);
  CHECK(c.size() == expected.size());

  // Reused for the next document: nothing of the first one remains.
  c.clear();
  c.add("alpha");
  c.add("beta");
  c.add("alpha");
  CHECK(counted(c) == std::map<std::string, uint32_t>{{"alpha", 2}, {"beta", 1}});
  // First-seen order.
  std::vector<std::string> order;
  c.for_each([&](std::string_view t, uint32_t) { order.emplace_back(t); });
  CHECK(order == std::vector<std::string>{"alpha", "beta"});
}

TEST_CASE("read-tool line-number gutters are blanked, nothing else moves", "[index][terms]") {
  std::string scratch;
  const std::string read = "     1→import os\n     2→x = 42\n    10→  # 7→ inside code stays\n";
  std::string_view out = blank_line_number_gutters(read, scratch);
  REQUIRE(out.size() == read.size());
  CHECK(out.find("1→") == std::string_view::npos);
  CHECK(out.find("10→") == std::string_view::npos);
  CHECK(out.find("import os") == read.find("import os"));
  CHECK(out.find("x = 42") != std::string_view::npos);
  CHECK(out.find("# 7→ inside code stays") != std::string_view::npos);  // not at a line start

  const std::string plain = "no gutters → here\n12 apples";
  CHECK(blank_line_number_gutters(plain, scratch) == plain);  // an arrow, but no gutter
  const std::string none = "no arrow at all";
  CHECK(blank_line_number_gutters(none, scratch).data() == none.data());  // not even copied
  const std::string no_newline = "     3→last";  // 5 spaces, a digit, a 3-byte arrow
  CHECK(blank_line_number_gutters(no_newline, scratch) == std::string(9, ' ') + "last");
}
