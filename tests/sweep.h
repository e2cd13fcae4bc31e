// The points a crash or damage sweep tries: all of them in the plain build, a named subset in the
// sanitizer build (`make test`'s ASan/UBSan pass). Each point there costs five times as much, and
// what ASan adds is the memory checks of code paths any point reaches; which point a kill lands on
// is the plain build's to cover, point by point. (The brief keeps `make test` well under 15 min.)
#pragma once

#include <initializer_list>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define OSEARCH_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OSEARCH_TEST_SANITIZED 1
#endif
#endif

#ifdef OSEARCH_TEST_SANITIZED
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif

// `all` in the plain build; `sanitized` (points of `all`) in the sanitizer build.
template <typename T>
std::vector<T> sweep(std::initializer_list<T> all, std::initializer_list<T> sanitized) {
  return kSanitizedBuild ? std::vector<T>(sanitized) : std::vector<T>(all);
}

// first, first + step, ... up to last: every `step` in the plain build, every `sanitized_step` under
// the sanitizers.
inline std::vector<int> sweep_range(int first, int last, int step, int sanitized_step) {
  std::vector<int> out;
  for (int v = first; v <= last; v += kSanitizedBuild ? sanitized_step : step) out.push_back(v);
  return out;
}
