// Huge pages only for short commands where a page fault is dear (cli/huge_pages.h).
#include <catch2/catch.hpp>

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>

#include "cli/huge_pages.h"
#include "cli/query_index.h"
#include "tests/index_fixture.h"

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
int thp_disabled_after(const std::function<void()>& act) {
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

TEST_CASE("huge pages: a query's refresh that turns out to be a build turns them off", "[cli]") {
  const int inherited = osearch::huge_pages_off_by_parent() ? 1 : 0;
  CHECK(thp_disabled_after([] {
          osearch::keep_huge_pages(true);
          osearch::huge_pages_off_for_bulk_read(osearch::kBulkReadBytes - 1);
        }) == inherited);
  CHECK(thp_disabled_after([] {
          osearch::keep_huge_pages(true);
          osearch::huge_pages_off_for_bulk_read(osearch::kBulkReadBytes);
        }) == 1);

  // Through the default path's refresh: a first query on a new index of a small tree keeps them, of
  // a tree of kBulkReadBytes (a new index, a schema upgrade, a long catch-up) does not.
  TempDir tmp("bulk-refresh");
  const std::string small = tmp / "small", big = tmp / "big";
  write_file(small + "/-w-proj/s1.jsonl", user_line("s1", "u1", "a short session"));
  std::string lines;
  const std::string text(8000, 'x');
  for (size_t i = 0; lines.size() < osearch::kBulkReadBytes + (64u << 10); ++i)
    lines += user_line("s2", "u" + std::to_string(i), "turn " + std::to_string(i) + " " + text);
  write_file(big + "/-w-proj/s2.jsonl", lines);
  const auto first_query = [](const std::string& src, const std::string& idx) {
    return [src, idx] {
      osearch::keep_huge_pages(true);
      osearch::Context ctx;
      ctx.index_dir = idx;
      ctx.roots = roots_of(src);
      ctx.quiet = true;
      bool stale = false;
      if (osearch::refresh_before_query(ctx, stale) != 1) ::_exit(3);
    };
  };
  CHECK(thp_disabled_after(first_query(small, tmp / "idx-small")) == inherited);
  CHECK(thp_disabled_after(first_query(big, tmp / "idx-big")) == 1);
}
