// Threads osearch starts for its own work never take process-directed signals (SIGINT, SIGTERM,
// SIGHUP, ...). The kernel hands such a signal to any thread that does not block it, so two
// signals sent together could otherwise run the owner's handler on two threads at once and race
// it (`osearch index` treats the second stop signal as "kill now"). Blocking them in workers
// sends every one to the thread that started the run, one at a time. Faults (SIGSEGV, SIGBUS,
// ...) stay unblocked: they belong to the thread that faults, and the index's fault guard
// catches SIGBUS there.
//
// A new thread is also queued on its creator's CPU, and while the creator stays busy there it
// waited 0.3-3 ms on this project's 2-CPU VMs before the scheduler moved it: most of a 4 ms stat
// walk done by one thread instead of two (docs/BENCHMARKS.md, "A fast VM": bench/thread_start).
// So a worker starts on another CPU its creator may use, then widens its mask back to the
// creator's, free to move like any other thread.
#pragma once

#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include <atomic>
#include <functional>
#include <memory>
#include <thread>
#include <utility>

namespace osearch {

namespace detail {
// Blocks the asynchronous signals in the calling thread for its lifetime, then restores the mask.
class AsyncSignalsBlocked {
 public:
  AsyncSignalsBlocked() {
    sigset_t block;
    sigfillset(&block);
    for (int fault : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS}) sigdelset(&block, fault);
    ::pthread_sigmask(SIG_BLOCK, &block, &saved_);
  }
  ~AsyncSignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }
  AsyncSignalsBlocked(const AsyncSignalsBlocked&) = delete;
  AsyncSignalsBlocked& operator=(const AsyncSignalsBlocked&) = delete;

 private:
  sigset_t saved_{};
};

// Where a new worker starts: on a CPU of its creator's mask other than the one the creator runs on,
// when there is one. The worker then takes the creator's whole mask again (settle), but only once
// the creator has moved it (moved), so that the narrow mask is never the last word.
class StartElsewhere {
 public:
  StartElsewhere() {
    const int here = ::sched_getcpu();
    if (here < 0 || ::sched_getaffinity(0, sizeof allowed_, &allowed_) != 0) return;
    elsewhere_ = allowed_;
    CPU_CLR(here, &elsewhere_);
    wanted_ = CPU_COUNT(&elsewhere_) > 0;
  }
  StartElsewhere(const StartElsewhere&) = delete;
  StartElsewhere& operator=(const StartElsewhere&) = delete;

  // In the creator, right after the thread exists (it has most likely not run yet). A failure
  // leaves the worker where the kernel put it.
  void move(pthread_t worker) {
    if (wanted_) ::pthread_setaffinity_np(worker, sizeof elsewhere_, &elsewhere_);
    moved_.store(true, std::memory_order_release);
  }
  // First thing in the worker.
  void settle() {
    if (!wanted_) return;
    while (!moved_.load(std::memory_order_acquire)) std::this_thread::yield();
    ::sched_setaffinity(0, sizeof allowed_, &allowed_);
  }

 private:
  cpu_set_t allowed_{}, elsewhere_{};
  bool wanted_ = false;
  std::atomic<bool> moved_{false};
};
}  // namespace detail

// std::thread(f, args...) (or a std::jthread), started with the asynchronous signals blocked (a new
// thread inherits its creator's mask) and on another CPU (above); the creating thread's own signal
// mask and CPU mask are unchanged afterwards.
template <class Thread = std::thread, class F, class... Args>
Thread start_worker(F&& f, Args&&... args) {
  detail::AsyncSignalsBlocked blocked;
  auto placement = std::make_shared<detail::StartElsewhere>();
  Thread worker([placement, f = std::forward<F>(f), ... args = std::forward<Args>(args)]() mutable {
    placement->settle();
    std::invoke(std::move(f), std::move(args)...);
  });
  placement->move(worker.native_handle());
  return worker;
}

}  // namespace osearch
