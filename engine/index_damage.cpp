#include "engine/index_damage.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
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

int open_index_file(const std::string& path, int flags, unsigned mode) {
  return ::open(path.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
}

}  // namespace osearch
