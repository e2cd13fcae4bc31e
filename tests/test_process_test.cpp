// The tests' process runner (tests/test_process.h): under the sanitizers a child skips its leak check
// and the registration of its globals only when a child of the same shape already had both in this
// test process; elsewhere nothing changes.
#include <catch2/catch.hpp>

#include "tests/test_util.h"

using namespace osearch_test;

namespace {

// The ASAN_OPTIONS a child started with these arguments sees.
std::string child_asan_options(const std::vector<std::string>& args) {
  RunOptions opt;
  opt.env["ASAN_OPTIONS"] = "verbosity=0";
  std::vector<std::string> sh_args = {"-c", "printf '%s' \"$ASAN_OPTIONS\"", "sh"};
  sh_args.insert(sh_args.end(), args.begin(), args.end());
  RunResult r = run_process("/bin/sh", sh_args, "", opt);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

}  // namespace

TEST_CASE("run_process: one fully checked child per command shape under the sanitizers", "[testutil]") {
  // The flags after the script make the shape; their values do not.
  const std::string first = child_asan_options({"--shape-a=1"});
  const std::string again = child_asan_options({"--shape-a=2"});
  const std::string other = child_asan_options({"--shape-a", "--shape-b"});
  CHECK(first == "verbosity=0");
  CHECK(other == "verbosity=0");
  // Later runs of a shape skip the leak check and the globals' registration (test_process.h).
  CHECK(again == (kSanitizedBuild ? "verbosity=0:detect_leaks=0:report_globals=0" : "verbosity=0"));
}
