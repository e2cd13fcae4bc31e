// Transparent huge pages for a short command's heap, only where a page fault is dear.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

namespace osearch {

// The cheapest of a few first touches of fresh anonymous 4 KB pages: what the kernel (and the
// hypervisor, in a VM) charges for a page fault here. Zero when it cannot be measured.
std::chrono::nanoseconds page_fault_cost();

// Whether `command` (as argv names it, empty when unusual) should keep huge pages: a short command
// where a fault costs `fault`, kDearPageFault or more. Long-lived and bulk commands never do.
inline constexpr std::chrono::nanoseconds kDearPageFault{5000};
bool wants_huge_pages(std::string_view command, std::chrono::nanoseconds fault);

// Turns huge pages on (`keep`) or off for this process; they are off until this is called (a preinit
// function of the executable turns them off before jemalloc starts). A parent that turned them off
// (a build tool, a service manager) keeps them off. Best effort: an old kernel just says no.
void keep_huge_pages(bool keep);
// Whether this process started with huge pages turned off by its parent.
bool huge_pages_off_by_parent();

// A query's refresh that plans to read this much is a build (a first query on a new index, a schema
// upgrade, a long catch-up), not a short command: its heap is as large and sparse as `index`'s, and
// huge pages cost it as much. A 2 GB first `keyword` on this project's VM: 50 s and 78 s of CPU
// with them, 33 s and 50 s without (docs/BENCHMARKS.md); a short command gains under a millisecond.
inline constexpr uint64_t kBulkReadBytes = 4u << 20;
// Turns huge pages off for good when a run plans to read `bytes_planned` (kBulkReadBytes or more).
void huge_pages_off_for_bulk_read(uint64_t bytes_planned);

// keep_huge_pages(wants_huge_pages(command, page_fault_cost())), without the probe for a command
// that never keeps them. jemalloc asks for huge pages on every extent (malloc_conf in cli/main.cpp):
// this decides whether the kernel gives them.
void choose_huge_pages(std::string_view command);

}  // namespace osearch
