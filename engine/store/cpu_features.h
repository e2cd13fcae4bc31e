// The CPU's vector features as the dynamic loader found them (glibc's <sys/platform/x86.h>), so that
// osearch runs no CPUID of its own. `__builtin_cpu_supports` links libgcc's __cpu_indicator_init,
// a constructor that runs a sweep of CPUID instructions in every process before main; CPUID traps
// to the hypervisor, 6.8 µs each on this project's VMs: 0.14 ms of every command (even --version).
#pragma once

#if defined(__x86_64__)
#if defined(__clang__)
// glibc 2.36's header spells C's `_Bool`, which GCC's C++ accepts and clang's does not (the fuzz build).
#define _Bool bool
#include <sys/platform/x86.h>
#undef _Bool
#else
#include <sys/platform/x86.h>
#endif
#endif

namespace osearch::cpu {

#if defined(__x86_64__)
// "Active": the CPU has it and the kernel saves its registers (what __builtin_cpu_supports checks).
inline bool has_sse42() { return CPU_FEATURE_ACTIVE(SSE4_2); }
inline bool has_avx2() { return CPU_FEATURE_ACTIVE(AVX2); }
inline bool has_avx512bw() { return CPU_FEATURE_ACTIVE(AVX512BW); }
#endif

}  // namespace osearch::cpu
