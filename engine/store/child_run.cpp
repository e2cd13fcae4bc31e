#include "engine/store/child_run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace osearch {
namespace {
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Reads the child's pipe until it closes, killing the child when it stays silent past `silence`
// or runs past `end`.
void read_child(int fd, pid_t pid, const ChildLimits& limits, Clock::time_point end, ChildResult& a) {
  auto last = Clock::now();
  char buf[65536];
  for (;;) {
    const auto now = Clock::now();
    milliseconds wait{1000};
    if (limits.total.count() > 0) {
      const auto left = std::chrono::duration_cast<milliseconds>(end - now);
      if (left.count() <= 0) {
        a.timed_out = true;
        break;
      }
      wait = std::min(wait, left);
    }
    if (limits.silence.count() > 0) {
      const auto left = limits.silence - std::chrono::duration_cast<milliseconds>(now - last);
      if (left.count() <= 0) {
        a.silent = true;
        break;
      }
      wait = std::min(wait, left);
    }
    pollfd p{fd, POLLIN, 0};
    const int rc = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(wait.count(), 1)));
    if (rc <= 0) continue;  // timeout or EINTR: the deadlines are checked above
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // closed: the child is done (or dead)
    a.output.append(buf, static_cast<size_t>(n));
    last = Clock::now();
  }
  ::kill(pid, SIGKILL);  // SIGTERM may be caught by a handler the child inherited
}

// One fork: its output, status and how it ended replace those of the attempt before.
void run_once(const std::function<int(int, int)>& body, const ChildLimits& limits, Clock::time_point end,
              ChildResult& a) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(err));
  }
  if (pid == 0) {
    ::close(fds[0]);
#ifdef __linux__
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);     // a killed parent takes the child down with it
    if (::getppid() != parent) ::_exit(1);  // it died before the prctl
#endif
    int code = 1;
    try {
      code = body(fds[1], a.attempts);
    } catch (...) {
    }
    ::_exit(code);
  }
  ::close(fds[1]);
  a.output.clear();
  a.silent = a.timed_out = false;
  ++a.attempts;
  read_child(fds[0], pid, limits, end, a);
  ::close(fds[0]);
  while (::waitpid(pid, &a.status, 0) < 0 && errno == EINTR) {
  }
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGBUS: return "SIGBUS";
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    default: return "signal " + std::to_string(sig);
  }
}
}  // namespace

bool write_all(int fd, std::string_view s) {
  while (!s.empty()) {
    const ssize_t w = ::write(fd, s.data(), s.size());
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    s.remove_prefix(static_cast<size_t>(w));
  }
  return true;
}

ChildResult run_in_child(const std::function<int(int, int)>& body, const ChildLimits& limits) {
  const auto end = Clock::now() + limits.total;
  ChildResult r;
  for (;;) {
    run_once(body, limits, end, r);
    const bool again = r.silent && r.attempts < limits.attempts && (r.output.empty() || limits.retry_after_output);
    if (!again) return r;
  }
}

bool ChildResult::exited_ok() const {
  return !silent && !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string ChildResult::ending() const {
  if (timed_out) return "ran past its time limit and was stopped";
  if (silent) {
    std::string s = "stopped responding and was stopped";
    if (attempts > 1) s += " (" + std::to_string(attempts) + " attempts)";
    return s;
  }
  if (WIFSIGNALED(status)) return "crashed with " + signal_name(WTERMSIG(status));
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) return "exited with code " + std::to_string(WEXITSTATUS(status));
  return "";
}

}  // namespace osearch
