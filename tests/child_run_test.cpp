// run_in_child (engine/store/child_run.h): crashes are reported, and a child stuck at the fork on a
// lock another thread held is killed and forked again, never waited on forever.
#include <catch2/catch.hpp>

#include <csignal>
#include <future>
#include <mutex>
#include <thread>

#include "engine/store/child_run.h"

using namespace osearch;
using namespace std::chrono_literals;

namespace {

// Holds a mutex in another thread for as long as it lives: a child forked meanwhile that locks it
// hangs for good, as the integrity check's child did on ASan's allocator lock in `osearch serve`.
class HeldLock {
 public:
  HeldLock() {
    std::promise<void> locked;
    auto is_locked = locked.get_future();
    holder_ = std::thread([this, &locked] {
      std::lock_guard<std::mutex> hold(mutex_);
      locked.set_value();
      release_.get_future().wait();
    });
    is_locked.wait();
  }
  ~HeldLock() {
    release_.set_value();
    holder_.join();
  }
  std::mutex& mutex() { return mutex_; }

 private:
  std::mutex mutex_;
  std::promise<void> release_;
  std::thread holder_;
};

ChildLimits quick_silence(int attempts) {
  ChildLimits l;
  l.silence = 300ms;
  l.attempts = attempts;
  return l;
}

}  // namespace

TEST_CASE("run_in_child: the child's report and exit code come back", "[child_run]") {
  ChildResult r = run_in_child([](int fd, int) { return write_all(fd, "hello\n") ? 0 : 9; }, ChildLimits{});
  CHECK(r.output == "hello\n");
  CHECK(r.exited_ok());
  CHECK(r.ending().empty());
  CHECK(r.attempts == 1);

  r = run_in_child([](int, int) { return 3; }, ChildLimits{});
  CHECK_FALSE(r.exited_ok());
  CHECK(r.ending() == "exited with code 3");

  r = run_in_child([](int, int) -> int { throw std::runtime_error("x"); }, ChildLimits{});
  CHECK(r.ending() == "exited with code 1");
}

TEST_CASE("run_in_child: a crash is reported and not retried", "[child_run]") {
  const ChildResult r = run_in_child(
      [](int fd, int) {
        write_all(fd, "before\n");
        std::signal(SIGSEGV, SIG_DFL);  // not Catch2's handler (nor a sanitizer's): a plain crash
        std::raise(SIGSEGV);
        return 0;
      },
      quick_silence(3));
  CHECK(r.output == "before\n");
  CHECK(r.ending() == "crashed with SIGSEGV");
  CHECK(r.attempts == 1);
  CHECK_FALSE(r.silent);
}

TEST_CASE("run_in_child: a child stuck on a lock held at fork is killed and forked again", "[child_run]") {
  HeldLock held;
  const ChildResult r = run_in_child(
      [&](int fd, int attempt) {
        if (attempt == 0) held.mutex().lock();  // the race lost: hangs
        write_all(fd, "walked\n");
        return 0;
      },
      quick_silence(3));
  CHECK(r.output == "walked\n");
  CHECK(r.exited_ok());
  CHECK(r.attempts == 2);
  CHECK_FALSE(r.silent);
}

TEST_CASE("run_in_child: a child that never gets past the fork is given up, and says so", "[child_run]") {
  HeldLock held;
  const ChildResult r = run_in_child(
      [&](int fd, int) {
        held.mutex().lock();
        write_all(fd, "unreachable\n");
        return 0;
      },
      quick_silence(3));
  CHECK(r.silent);
  CHECK(r.attempts == 3);
  CHECK(r.output.empty());
  CHECK_FALSE(r.exited_ok());
  CHECK(r.ending() == "stopped responding and was stopped (3 attempts)");
}

TEST_CASE("run_in_child: a silent child that had reported is retried only when that is harmless", "[child_run]") {
  HeldLock held;
  auto body = [&](int fd, int attempt) {
    write_all(fd, "step " + std::to_string(attempt) + "\n");
    if (attempt == 0) held.mutex().lock();
    return 0;
  };
  ChildResult r = run_in_child(body, quick_silence(3));
  CHECK(r.silent);
  CHECK(r.attempts == 1);
  CHECK(r.output == "step 0\n");  // what it said before it stopped is kept

  ChildLimits rerun = quick_silence(3);
  rerun.retry_after_output = true;
  r = run_in_child(body, rerun);
  CHECK(r.exited_ok());
  CHECK(r.attempts == 2);
  CHECK(r.output == "step 1\n");  // the report of the attempt that finished, alone
}

TEST_CASE("run_in_child: a busy child is stopped at the time limit, not retried", "[child_run]") {
  ChildLimits l = quick_silence(3);
  l.total = 400ms;
  const ChildResult r = run_in_child(
      [](int fd, int) {
        for (;;) {  // alive, never done
          write_all(fd, ".");
          std::this_thread::sleep_for(20ms);
        }
        return 0;
      },
      l);
  CHECK(r.timed_out);
  CHECK_FALSE(r.silent);
  CHECK(r.attempts == 1);
  CHECK(r.ending() == "ran past its time limit and was stopped");
}
