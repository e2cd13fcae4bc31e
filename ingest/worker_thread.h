// Threads osearch starts for its own work never take process-directed signals (SIGINT, SIGTERM,
// SIGHUP, ...). The kernel hands such a signal to any thread that does not block it, so two
// signals sent together could otherwise run the owner's handler on two threads at once and race
// it (`osearch index` treats the second stop signal as "kill now"). Blocking them in workers
// sends every one to the thread that started the run, one at a time. Faults (SIGSEGV, SIGBUS,
// ...) stay unblocked: they belong to the thread that faults, and the index's fault guard
// catches SIGBUS there.
#pragma once

#include <pthread.h>
#include <signal.h>

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
}  // namespace detail

// std::thread(f, args...), started with the asynchronous signals blocked (a new thread inherits
// its creator's mask); the creating thread's own mask is unchanged afterwards.
template <class F, class... Args>
std::thread start_worker(F&& f, Args&&... args) {
  detail::AsyncSignalsBlocked blocked;
  return std::thread(std::forward<F>(f), std::forward<Args>(args)...);
}

}  // namespace osearch
