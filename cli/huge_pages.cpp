#include "cli/huge_pages.h"

#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>

namespace osearch {

std::chrono::nanoseconds page_fault_cost() {
  constexpr size_t kPages = 8;
  const long page = ::sysconf(_SC_PAGESIZE);
  if (page <= 0) return {};
  const size_t bytes = kPages * static_cast<size_t>(page);
  void* map = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return {};
  auto* p = static_cast<volatile char*>(map);
  auto best = std::chrono::nanoseconds::max();
  for (size_t i = 0; i < kPages; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    p[i * static_cast<size_t>(page)] = 1;  // the first touch: one fault
    best = std::min(best, std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0));
  }
  ::munmap(map, bytes);
  return best;
}

namespace {
// A build's heap is large and sparse (huge pages cost it 30 % of peak RSS for 5 % of speed); the
// servers live long enough that their faults do not matter.
bool long_lived(std::string_view command) { return command == "index" || command == "mcp" || command == "serve"; }
}  // namespace

bool wants_huge_pages(std::string_view command, std::chrono::nanoseconds fault) {
  return !long_lived(command) && fault >= kDearPageFault;
}

namespace {
// Huge pages stay off until main() decides. jemalloc starts before any constructor of ours (libstdc++'s
// own start-up allocates), and with `thp:always` its first extents were faulted in as 2 MB pages that the
// kernel zeroes whole: 0.3 ms each where a 4 KB fault costs 1 µs, 0.5-0.8 ms of every short command
// (`--version` 2.45 -> 1.96 ms). The executable's preinit functions run before every library's.
// Written once there, before any thread exists; read after.
constinit bool g_off_by_parent = false;
void huge_pages_off_until_decided(int, char**, char**) {
  g_off_by_parent = ::prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1;
  ::prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
}
[[gnu::used, gnu::section(".preinit_array")]] void (*kHugePagesOffFirst)(int, char**, char**) =
    &huge_pages_off_until_decided;
}  // namespace

bool huge_pages_off_by_parent() { return g_off_by_parent; }

void keep_huge_pages(bool keep) { ::prctl(PR_SET_THP_DISABLE, keep && !g_off_by_parent ? 0 : 1, 0, 0, 0); }

void huge_pages_off_for_bulk_read(uint64_t bytes_planned) {
  if (bytes_planned >= kBulkReadBytes) keep_huge_pages(false);
}

void choose_huge_pages(std::string_view command) {
  keep_huge_pages(!long_lived(command) && wants_huge_pages(command, page_fault_cost()));
}

}  // namespace osearch
