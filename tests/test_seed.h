// The seed of a random test. Fixed by default, so that a red run can be run again as it was;
// OSEARCH_TEST_SEED=N explores other draws (N is mixed into the fixed seed), and the seed used is
// printed with any failure. Example: for n in $(seq 1 200); do OSEARCH_TEST_SEED=$n build/tests/osearch_tests
// --filenames-as-tags "[#keyword_random_test]" || echo "seed $n"; done
#pragma once

#include <cstdint>
#include <cstdlib>

namespace osearch_test {

inline uint32_t test_seed(uint32_t fixed) {
  const char* env = std::getenv("OSEARCH_TEST_SEED");
  if (env == nullptr || *env == '\0') return fixed;
  return fixed ^ static_cast<uint32_t>(std::strtoul(env, nullptr, 10) * 2654435761u);
}

}  // namespace osearch_test
