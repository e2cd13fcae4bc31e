// `content -F` takes any valid UTF-8 text literally, ASCII controls and DEL included (found by the
// regex fuzz target: Hyperscan refused a raw DEL as "not valid UTF-8").
#include <catch2/catch.hpp>

#include "engine/query/search.h"

using namespace osearch;

TEST_CASE("content -F: controls and DEL are literals, never a bad regex", "[search][fixed]") {
  for (const std::string& p : {std::string("\x7f"), std::string("a\x7f" "b"), std::string("tab\there"),
                              std::string("\x1b[31m"), std::string("x\x01y")}) {
    INFO(p);
    ContentOptions o;
    o.patterns = {p};
    o.fixed = true;
    for (bool w : {false, true})
      for (bool i : {false, true}) {
        o.word = w;
        o.ignore_case = i;
        CHECK_NOTHROW(check_content_patterns(o));
      }
  }
}
