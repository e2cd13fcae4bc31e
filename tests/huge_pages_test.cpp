// Huge pages only for short commands where a page fault is dear (cli/huge_pages.h).
#include <catch2/catch.hpp>

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/huge_pages.h"

using namespace std::chrono_literals;
using osearch::wants_huge_pages;

TEST_CASE("huge pages: short commands keep them where a fault is dear, bulk and servers never", "[cli]") {
  for (const char* cmd : {"keyword", "list", "content", "thread", "stats", ""}) {
    INFO(cmd);
    CHECK(wants_huge_pages(cmd, osearch::kDearPageFault));
    CHECK(wants_huge_pages(cmd, 30us));
    CHECK_FALSE(wants_huge_pages(cmd, osearch::kDearPageFault - 1ns));
    CHECK_FALSE(wants_huge_pages(cmd, 2us));
    CHECK_FALSE(wants_huge_pages(cmd, 0ns));  // not measured: the default
  }
  for (const char* cmd : {"index", "mcp", "serve"}) {
    INFO(cmd);
    CHECK_FALSE(wants_huge_pages(cmd, 1s));
  }
}

namespace {
// PR_GET_THP_DISABLE in a child after `act`, so this process keeps its setting.
int thp_disabled_after(void (*act)()) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    act();
    ::_exit(::prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1 ? 1 : 0);
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}
}  // namespace

TEST_CASE("huge pages: the fault probe measures a cost; the builder and the servers turn them off", "[cli]") {
  const auto cost = osearch::page_fault_cost();
  CHECK(cost > 0ns);
  CHECK(cost < 1s);
  // Off from before main() (the preinit function), whatever the parent left.
  CHECK(::prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1);
  // A parent that turned them off (a build tool, a service manager) leaves them off here.
  const int inherited = osearch::huge_pages_off_by_parent() ? 1 : 0;
  CHECK(thp_disabled_after([] { osearch::keep_huge_pages(false); }) == 1);
  CHECK(thp_disabled_after([] { osearch::keep_huge_pages(true); }) == inherited);
  CHECK(thp_disabled_after([] { osearch::choose_huge_pages("index"); }) == 1);
  CHECK(thp_disabled_after([] { osearch::choose_huge_pages("mcp"); }) == 1);
  CHECK(thp_disabled_after([] { osearch::choose_huge_pages("serve"); }) == 1);
}
