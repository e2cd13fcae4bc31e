#include "engine/store/index_damage.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <cstdlib>

namespace osearch {

IndexDamaged::IndexDamaged(std::string part, std::string problem)
    : std::runtime_error(part + ": " + problem + " — run `osearch check`, `osearch index --full` rebuilds"),
      part_(std::move(part)),
      problem_(std::move(problem)) {}

std::string symlink_problem(const std::string& path) {
  struct stat st{};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return "";
  return "is a symbolic link (refused: index parts must be plain files and directories)";
}

void refuse_symlink(const std::string& path, const std::string& part) {
  if (std::string p = symlink_problem(path); !p.empty()) throw IndexDamaged(part, p);
}

namespace {
std::atomic<DamageReporter> damage_reporter{nullptr};  // see set_damage_reporter
}  // namespace

void set_damage_reporter(DamageReporter reporter) { damage_reporter.store(reporter); }

void report_fatal_damage(const IndexDamaged& damage) {
  if (DamageReporter r = damage_reporter.load()) {
    r(damage);
    std::fflush(nullptr);
    ::_exit(1);
  }
  std::fprintf(stderr, "osearch: %s\n", damage.what());
  std::abort();
}

namespace {
// Async-signal-safe state: fixed slots and a fixed buffer, written before the guard is installed.
constexpr size_t kMapSlots = 16;
std::atomic<uintptr_t> map_start[kMapSlots], map_end[kMapSlots];
std::atomic<size_t> map_count{0};
char fault_line[2048];
std::atomic<size_t> fault_line_len{0};
struct sigaction before_bus{}, before_segv{};  // the actions the guard replaced
// How deep the thread is in LmdbCall scopes (initial-exec TLS: readable in a signal handler).
thread_local unsigned lmdb_depth = 0;

bool inside_index_map(uintptr_t at) {
  const size_t n = std::min(map_count.load(), kMapSlots);
  for (size_t i = 0; i < n; ++i)
    if (at >= map_start[i].load() && at < map_end[i].load()) return true;
  return false;
}

void on_fault(int sig, siginfo_t* info, void*) {
  if (inside_index_map(reinterpret_cast<uintptr_t>(info->si_addr)) || (sig == SIGSEGV && lmdb_depth > 0)) {
    ssize_t w = ::write(STDERR_FILENO, fault_line, fault_line_len.load());
    (void)w;
    ::_exit(1);
  }
  // Not ours: the action from before the guard takes it when the instruction faults again.
  ::sigaction(sig, sig == SIGBUS ? &before_bus : &before_segv, nullptr);
}
}  // namespace

LmdbCall::LmdbCall() noexcept { ++lmdb_depth; }
LmdbCall::~LmdbCall() { --lmdb_depth; }

void register_index_map(const void* start, size_t length) {
  const auto lo = reinterpret_cast<uintptr_t>(start);
  const size_t n = std::min(map_count.load(), kMapSlots);
  for (size_t i = 0; i < n; ++i)
    if (map_start[i].load() == lo) {
      map_end[i].store(lo + length);
      return;
    }
  const size_t slot = map_count.fetch_add(1) % kMapSlots;  // (old maps are unmapped by then)
  map_start[slot].store(lo);
  map_end[slot].store(lo + length);
}

void install_index_fault_guard(std::string_view error_line) {
  const size_t n = std::min(error_line.size(), sizeof fault_line - 1);
  std::memcpy(fault_line, error_line.data(), n);
  fault_line[n] = '\n';
  fault_line_len.store(n + 1);
  struct sigaction sa{};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  struct sigaction bus{}, segv{};
  ::sigaction(SIGBUS, &sa, &bus);
  ::sigaction(SIGSEGV, &sa, &segv);
  if (bus.sa_sigaction != on_fault) before_bus = bus;  // (installed twice: keep the first's)
  if (segv.sa_sigaction != on_fault) before_segv = segv;
}

void remove_index_fault_guard() {
  ::sigaction(SIGBUS, &before_bus, nullptr);
  ::sigaction(SIGSEGV, &before_segv, nullptr);
}

int open_index_file(const std::string& path, int flags, unsigned mode) {
  return ::open(path.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
}

}  // namespace osearch
