// Phase timings on stderr when OSEARCH_TRACE is set: how benchmarks see where indexing time goes.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace osearch {

class PhaseTimer {
 public:
  explicit PhaseTimer(const char* scope) : scope_(scope), enabled_(std::getenv("OSEARCH_TRACE") != nullptr) {}
  void count(const char* what, size_t n) const {
    if (enabled_) std::fprintf(stderr, "trace %s/%s %zu\n", scope_, what, n);
  }
  // Peak and current resident memory, split into anonymous and file-backed (mapped LMDB pages).
  void memory() const {
    if (!enabled_) return;
    if (std::FILE* f = std::fopen("/proc/self/status", "r")) {
      char line[256];
      while (std::fgets(line, sizeof line, f))
        if (!std::strncmp(line, "VmHWM", 5) || !std::strncmp(line, "RssAnon", 7) || !std::strncmp(line, "RssFile", 7))
          std::fprintf(stderr, "trace %s/%s", scope_, line);
      std::fclose(f);
    }
  }
  void mark(const char* phase) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    std::fprintf(stderr, "trace %s/%s %.1f ms\n", scope_, phase,
                 std::chrono::duration<double, std::milli>(now - last_).count());
    last_ = now;
  }

 private:
  const char* scope_;
  bool enabled_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace osearch
