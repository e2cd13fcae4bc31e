// The fault guard (engine/store/index_damage.h): a fault inside an LMDB call is damage, reported
// with the guard's line and exit status 1; a fault anywhere else stays a fault for the handler from
// before (the default action, or a sanitizer's report). Each case runs in a forked child.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "engine/store/index_damage.h"

namespace {

constexpr const char* kGuardLine = "{\"error\":{\"kind\":\"index-damaged\",\"message\":\"test line\"}}";

struct GuardChildEnd {
  bool exited = false;
  int code = -1;
  std::string err;
};

// A read of an address no process maps, as LMDB's read through a null sub-cursor is.
[[gnu::noinline]] int read_unmapped_address() {
  volatile int* p = reinterpret_cast<volatile int*>(uintptr_t{0x188});
  return *p;
}

GuardChildEnd run_guard_child(void (*act)()) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(fds[1], STDERR_FILENO);
    ::close(fds[0]);
    act();
    ::_exit(0);
  }
  ::close(fds[1]);
  GuardChildEnd end;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) end.err.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  end.exited = WIFEXITED(status);
  if (end.exited) end.code = WEXITSTATUS(status);
  return end;
}

}  // namespace

TEST_CASE("fault guard: a fault inside an LMDB call is damage, elsewhere it stays a fault", "[hardening][damage]") {
  SECTION("inside an LMDB call") {
    GuardChildEnd end = run_guard_child([] {
      osearch::install_index_fault_guard(kGuardLine);
      osearch::LmdbCall in_lmdb;
      (void)read_unmapped_address();
    });
    CHECK(end.exited);
    CHECK(end.code == 1);
    CHECK(end.err == std::string(kGuardLine) + "\n");
  }
  SECTION("after the LMDB call returned") {
    GuardChildEnd end = run_guard_child([] {
      osearch::install_index_fault_guard(kGuardLine);
      { osearch::LmdbCall in_lmdb; }
      (void)read_unmapped_address();
    });
    CHECK(end.err.find("test line") == std::string::npos);
    CHECK_FALSE((end.exited && end.code == 0));  // killed by the signal, or a sanitizer's report
  }
  SECTION("with the guard removed (check's walking child)") {
    GuardChildEnd end = run_guard_child([] {
      osearch::install_index_fault_guard(kGuardLine);
      osearch::remove_index_fault_guard();
      osearch::LmdbCall in_lmdb;
      (void)read_unmapped_address();
    });
    CHECK(end.err.find("test line") == std::string::npos);
    CHECK_FALSE((end.exited && end.code == 0));
  }
}
