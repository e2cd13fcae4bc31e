// How long a new worker waits before it first runs while its creator keeps its CPU busy (as the
// query's thread does beside the stat walk): std::thread against start_worker (ingest/worker_thread.h),
// alternating, ROUNDS of each (default 40). Prints the medians and the 90th percentiles in µs.
//
//   build/bench/thread_start [ROUNDS]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "ingest/worker_thread.h"

namespace {

using Clock = std::chrono::steady_clock;

// One round: the creator starts a worker and spins for 3 ms; the worker notes when it first ran.
template <class Start>
double wait_us(Start start) {
  std::atomic<int64_t> ran_after_ns{-1};
  const Clock::time_point t0 = Clock::now();
  std::thread worker = start([&] { ran_after_ns = (Clock::now() - t0).count(); });
  const Clock::time_point until = t0 + std::chrono::milliseconds(3);
  volatile uint64_t spins = 0;
  while (Clock::now() < until) spins = spins + 1;
  worker.join();
  return static_cast<double>(ran_after_ns.load()) / 1000.0;
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1))];
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 40;
  std::vector<double> plain, placed;
  for (int i = 0; i < rounds; ++i) {
    plain.push_back(wait_us([](auto f) { return std::thread(f); }));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // both CPUs idle again between rounds
    placed.push_back(wait_us([](auto f) { return osearch::start_worker(f); }));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::printf("{\"rounds\": %d, \"std_thread_us\": {\"median\": %.1f, \"p90\": %.1f}, "
              "\"start_worker_us\": {\"median\": %.1f, \"p90\": %.1f}}\n",
              rounds, percentile(plain, 0.5), percentile(plain, 0.9), percentile(placed, 0.5),
              percentile(placed, 0.9));
}
