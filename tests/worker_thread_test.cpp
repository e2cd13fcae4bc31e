// start_worker (ingest/worker_thread.h): the worker runs what it was given, with the asynchronous
// signals blocked, and it ends up with its creator's CPU mask whatever CPU it started on; the
// creator's own masks are unchanged.
#include <catch2/catch.hpp>

#include <sched.h>
#include <signal.h>

#include <memory>
#include <thread>
#include <vector>

#include "ingest/worker_thread.h"

using osearch::start_worker;

namespace {

cpu_set_t worker_test_own_cpus() {
  cpu_set_t s;
  CPU_ZERO(&s);
  REQUIRE(::sched_getaffinity(0, sizeof s, &s) == 0);
  return s;
}

// What a worker saw from inside, first thing in its function.
struct WorkerView {
  cpu_set_t cpus{};
  bool sigterm_blocked = false;
  int value = 0;

  void look(int v) {
    CPU_ZERO(&cpus);
    ::sched_getaffinity(0, sizeof cpus, &cpus);
    sigset_t mask;
    ::pthread_sigmask(SIG_BLOCK, nullptr, &mask);
    sigterm_blocked = sigismember(&mask, SIGTERM) == 1;
    value = v;
  }
};

}  // namespace

TEST_CASE("start_worker: the worker runs with its creator's CPU mask, signals blocked", "[worker_thread]") {
  const cpu_set_t before = worker_test_own_cpus();
  WorkerView view;
  std::thread t = start_worker(&WorkerView::look, &view, 7);  // a member function and its arguments
  t.join();
  CHECK(view.value == 7);
  CHECK(view.sigterm_blocked);
  CHECK(CPU_EQUAL(&view.cpus, &before));  // started elsewhere, then widened back before the function
  const cpu_set_t after = worker_test_own_cpus();
  CHECK(CPU_EQUAL(&after, &before));
  sigset_t mask;
  ::pthread_sigmask(SIG_BLOCK, nullptr, &mask);
  CHECK_FALSE(sigismember(&mask, SIGTERM) == 1);
}

TEST_CASE("start_worker: a jthread, move-only arguments, and many workers at once", "[worker_thread]") {
  const cpu_set_t before = worker_test_own_cpus();
  auto box = std::make_unique<int>(41);
  int seen = 0;
  {
    std::jthread j = start_worker<std::jthread>([&seen](std::unique_ptr<int> p) { seen = *p + 1; }, std::move(box));
  }
  CHECK(seen == 42);
  constexpr int kWorkers = 16;
  WorkerView views[kWorkers];
  std::vector<std::thread> pool;
  for (int i = 0; i < kWorkers; ++i) pool.push_back(start_worker(&WorkerView::look, &views[i], i));
  for (auto& t : pool) t.join();
  for (int i = 0; i < kWorkers; ++i) {
    CHECK(views[i].value == i);
    CHECK(CPU_EQUAL(&views[i].cpus, &before));
  }
}

TEST_CASE("start_worker: a creator confined to one CPU starts its worker there", "[worker_thread]") {
  const cpu_set_t before = worker_test_own_cpus();
  const int here = ::sched_getcpu();
  REQUIRE(here >= 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(here, &one);
  REQUIRE(::sched_setaffinity(0, sizeof one, &one) == 0);
  WorkerView view;
  std::thread t = start_worker(&WorkerView::look, &view, 1);
  t.join();
  REQUIRE(::sched_setaffinity(0, sizeof before, &before) == 0);
  CHECK(view.value == 1);
  CHECK(CPU_EQUAL(&view.cpus, &one));  // no other CPU to start on: its creator's mask, as before
}
