// Running processes from the tests: the built `osearch` CLI without a shell (run_osearch), and
// in-process children that a test can kill at any point (fork_child). Included by tests/test_util.h,
// whose helpers it uses.
#pragma once

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/sweep.h"

extern char** environ;

namespace osearch_test {

// ---------------------------------------------------------------------------------------------
// Processes

struct RunResult {
  int exit_code = -1;     // the exit status; 128+N when killed by signal N; 127 when exec failed
  int term_signal = 0;    // the signal that ended the process, 0 if it exited
  bool timed_out = false; // killed by run_osearch after RunOptions::timeout
  std::string out;        // everything written to stdout
  std::string err;        // everything written to stderr
  bool ok() const { return exit_code == 0; }
};

struct RunOptions {
  // Environment changes on top of the inherited environment: name -> value, or nullopt to unset.
  std::map<std::string, std::optional<std::string>> env;
  bool clear_env = false;       // start from an empty environment (then apply `env`)
  std::string cwd;              // working directory of the child ("" = inherit)
  std::chrono::milliseconds timeout{120000};  // SIGKILL after this long
  std::string binary;           // "" = OSEARCH_BINARY
  int run_as_uid = -1;          // >= 0: the child takes this uid (and gid) before exec (needs root)
};

namespace detail {

inline void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

inline void set_nonblock(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

inline std::vector<std::string> build_env(const RunOptions& opt) {
  std::map<std::string, std::string> vars;
  if (!opt.clear_env) {
    for (char** e = environ; e && *e; ++e) {
      std::string_view kv(*e);
      size_t eq = kv.find('=');
      if (eq == std::string_view::npos) continue;
      vars[std::string(kv.substr(0, eq))] = std::string(kv.substr(eq + 1));
    }
  }
  for (const auto& [k, v] : opt.env) {
    if (v) vars[k] = *v;
    else vars.erase(k);
  }
  std::vector<std::string> out;
  out.reserve(vars.size());
  for (const auto& [k, v] : vars) out.push_back(k + "=" + v);
  return out;
}

// Starts `path` with the pipes' ends as stdin, stdout and stderr, in `cwd` ("" = this one), with
// SIGPIPE at its default and no signal blocked, and no other descriptor open. Returns 0 or the
// errno of a failed start (exec included).
inline int spawn(const std::string& path, std::vector<char*>& argv, std::vector<char*>& envp, const int in_pipe[2],
                 const int out_pipe[2], const int err_pipe[2], const std::string& cwd, pid_t& pid) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawnattr_init(&attr);
  ::posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  ::posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  ::posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  if (!cwd.empty()) ::posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  ::posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  sigset_t defaults, none;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);  // ignored signals would survive exec
  sigemptyset(&none);
  ::posix_spawnattr_setsigdefault(&attr, &defaults);
  ::posix_spawnattr_setsigmask(&attr, &none);
  ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  const int rc = ::posix_spawn(&pid, path.c_str(), &actions, &attr, argv.data(), envp.data());
  ::posix_spawnattr_destroy(&attr);
  ::posix_spawn_file_actions_destroy(&actions);
  return rc;
}

// Under the sanitizers a child's LeakSanitizer pass at exit scans the instrumented binary's ~18 MB
// of globals: ~55 ms and 2,600 page faults, as much as a small query itself; and at start ASan
// registers those globals, poisoning the redzones around each (~24 ms and 1,450 of the 2,360 page
// faults of `--version`). The loops of the kill -9, damage and end-to-end tests run the same command
// hundreds of times, so a test process fully checks the first run of each command with each set of
// flags (its shape: `osearch keyword --index --no-refresh`, without terms, paths or flag values), and
// the others run without the leak check and without the overflow check on globals.
inline bool first_run_of_this_shape(const std::string& path, const std::vector<std::string>& args) {
  static std::mutex lock;  // a test may start children from several threads
  static std::set<std::string> seen;  // per test process: one ctest entry is one test file
  std::string shape = path;
  bool command = false;
  for (const auto& a : args)
    if (a.rfind("-", 0) == 0) shape += ' ' + a.substr(0, a.find('='));
    else if (!command) shape += ' ' + a, command = true;
  std::lock_guard<std::mutex> hold(lock);
  return seen.insert(shape).second;
}

inline void skip_repeat_checks(std::vector<std::string>& env) {
  constexpr const char* kRepeatRun = "detect_leaks=0:report_globals=0";
  for (auto& e : env)
    if (e.rfind("ASAN_OPTIONS=", 0) == 0) {
      e += std::string(":") + kRepeatRun;
      return;
    }
  env.push_back(std::string("ASAN_OPTIONS=") + kRepeatRun);
}

}  // namespace detail

// Runs a program (argv[0] = path) with posix_spawn (fork/execve to run as another user), no shell: feeds `stdin_text` on stdin (then
// EOF), captures stdout and stderr completely (both drained concurrently, so large outputs cannot
// deadlock) and waits for the exit. Never throws for a failing child; throws only when the
// pipes or fork themselves fail.
inline RunResult run_process(const std::string& path, const std::vector<std::string>& args,
                             const std::string& stdin_text, const RunOptions& opt) {
  RunResult r;
  int in_pipe[2], out_pipe[2], err_pipe[2], exec_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  if (::pipe2(exec_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");

  // Everything the child needs is prepared before fork (no allocation after it).
  std::vector<std::string> argv_s;
  argv_s.push_back(path);
  for (const auto& a : args) argv_s.push_back(a);
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s = detail::build_env(opt);
  if (kSanitizedBuild && !detail::first_run_of_this_shape(path, args)) detail::skip_repeat_checks(env_s);
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = -1;
  if (opt.run_as_uid < 0) {
    // posix_spawn (a vfork): fork() copied the test process's page tables for each call, which in
    // the sanitizer build (a large address space) was a quarter of the kill -9 loops' time.
    if (const int e = detail::spawn(path, argv, envp, in_pipe, out_pipe, err_pipe, opt.cwd, pid); e != 0) {
      for (int* p : {in_pipe, out_pipe, err_pipe, exec_pipe}) ::close(p[0]), ::close(p[1]);
      r.exit_code = 127;
      r.err = "run_process: cannot exec " + path + ": " + std::strerror(e) + "\n";
      return r;
    }
  } else if ((pid = ::fork()) < 0) {
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // Child (a run as another user): async-signal-safe calls only.
    ::dup2(in_pipe[0], 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    struct sigaction sa {};
    sa.sa_handler = SIG_DFL;
    ::sigaction(SIGPIPE, &sa, nullptr);  // ignored signals would survive exec
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (opt.run_as_uid >= 0 && (::setgroups(0, nullptr) != 0 || ::setgid(static_cast<gid_t>(opt.run_as_uid)) != 0 ||
                                ::setuid(static_cast<uid_t>(opt.run_as_uid)) != 0)) {
      int e = errno;
      (void)!::write(exec_pipe[1], &e, sizeof e);
      ::_exit(127);
    }
    if (!opt.cwd.empty() && ::chdir(opt.cwd.c_str()) != 0) {
      int e = errno;
      (void)!::write(exec_pipe[1], &e, sizeof e);
      ::_exit(127);
    }
    // Nothing of the test process leaks into the child past exec (exec_pipe[1] closes on success).
    if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
      for (int fd = 3; fd < 4096; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    ::execve(path.c_str(), argv.data(), envp.data());
    int e = errno;
    (void)!::write(exec_pipe[1], &e, sizeof e);
    ::_exit(127);
  }

  // Parent.
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ::close(exec_pipe[1]);
  int in_fd = in_pipe[1], out_fd = out_pipe[0], err_fd = err_pipe[0], exec_fd = exec_pipe[0];
  detail::set_nonblock(in_fd);
  detail::set_nonblock(out_fd);
  detail::set_nonblock(err_fd);

  // Writing into a pipe whose reader exited must not kill the test process.
  struct sigaction ign {}, old_pipe {};
  ign.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ign, &old_pipe);

  size_t in_done = 0;
  if (stdin_text.empty()) detail::close_fd(in_fd);
  const auto deadline = std::chrono::steady_clock::now() + opt.timeout;
  char buf[65536];
  while (out_fd >= 0 || err_fd >= 0) {
    pollfd fds[3];
    int n = 0;
    int i_out = -1, i_err = -1, i_in = -1;
    if (out_fd >= 0) { fds[n] = {out_fd, POLLIN, 0}; i_out = n++; }
    if (err_fd >= 0) { fds[n] = {err_fd, POLLIN, 0}; i_err = n++; }
    if (in_fd >= 0) { fds[n] = {in_fd, POLLOUT, 0}; i_in = n++; }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      ::kill(pid, SIGKILL);
      r.timed_out = true;
      break;
    }
    int rc = ::poll(fds, n, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (rc < 0) {
      if (errno == EINTR) continue;
      break;
    }
    auto drain = [&](int& fd, std::string& into) {
      for (;;) {
        ssize_t k = ::read(fd, buf, sizeof buf);
        if (k > 0) { into.append(buf, static_cast<size_t>(k)); continue; }
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        detail::close_fd(fd);  // EOF or error
        return;
      }
    };
    if (i_out >= 0 && fds[i_out].revents) drain(out_fd, r.out);
    if (i_err >= 0 && fds[i_err].revents) drain(err_fd, r.err);
    if (i_in >= 0 && fds[i_in].revents) {
      if (fds[i_in].revents & (POLLERR | POLLHUP)) {
        detail::close_fd(in_fd);
      } else {
        ssize_t k = ::write(in_fd, stdin_text.data() + in_done, stdin_text.size() - in_done);
        if (k > 0) in_done += static_cast<size_t>(k);
        else if (k < 0 && errno != EAGAIN && errno != EINTR) detail::close_fd(in_fd);
        if (in_done >= stdin_text.size()) detail::close_fd(in_fd);
      }
    }
  }
  detail::close_fd(in_fd);
  detail::close_fd(out_fd);
  detail::close_fd(err_fd);

  // The child may have closed its outputs and still run: keep honouring the deadline.
  int status = 0;
  for (;;) {
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (!r.timed_out && std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      r.timed_out = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ::sigaction(SIGPIPE, &old_pipe, nullptr);

  int exec_errno = 0;
  if (::read(exec_fd, &exec_errno, sizeof exec_errno) == static_cast<ssize_t>(sizeof exec_errno) && exec_errno != 0)
    r.err += "run_process: cannot exec " + path + ": " + std::strerror(exec_errno) + "\n";
  ::close(exec_fd);

  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.term_signal = WTERMSIG(status);
    r.exit_code = 128 + r.term_signal;
  }
  return r;
}

// Runs the built osearch CLI with `args` (no shell, so no quoting issues) and `stdin_text`.
inline RunResult run_osearch(std::vector<std::string> args, std::string stdin_text = "") {
  return run_process(osearch_binary(), args, stdin_text, RunOptions{});
}

inline RunResult run_osearch(std::vector<std::string> args, std::string stdin_text, const RunOptions& opt) {
  return run_process(opt.binary.empty() ? osearch_binary() : opt.binary, args, stdin_text, opt);
}

// Forks a child that runs `fn` and _exits with its return value (99 on an exception). The child
// never returns into the test framework. Open no LMDB environment across the fork in the parent
// if the child is going to use the same index.
inline pid_t fork_child(const std::function<int()>& fn) {
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    int code = 99;
    try {
      code = fn();
    } catch (...) {
      code = 99;
    }
    ::_exit(code);
  }
  return pid;
}

// Polls `ready` every `every` until it holds or `limit` passes; whether it held. A kill test waits
// this way for a point in its child's run: a loop without the sleep spun a core the child and the
// test ctest runs beside it needed (index_finish_test's user CPU was a third spinning).
template <class Pred>
bool poll_until(Pred&& ready, std::chrono::milliseconds limit,
                std::chrono::microseconds every = std::chrono::microseconds(100)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (ready()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(every);
  }
}

struct ChildStatus {
  bool exited = false;
  int exit_code = -1;
  int term_signal = 0;
};

// Waits for a forked child (SIGKILLs it after `timeout`).
inline ChildStatus wait_child(pid_t pid, std::chrono::milliseconds timeout = std::chrono::milliseconds(120000)) {
  ChildStatus s;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return s;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (WIFEXITED(status)) {
    s.exited = true;
    s.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    s.term_signal = WTERMSIG(status);
  }
  return s;
}

}  // namespace osearch_test
