// Shared helpers for the osearch tests: temporary directories, file writing, copying corpus
// subtrees, forking in-process children, and running the built `osearch` CLI without a shell.
//
// Every test case runs in its own process under ctest (catch_discover_tests), so helpers keep no
// global state; everything they create lives under a TempDir that removes itself.
#pragma once

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

extern char** environ;

namespace osearch_test {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Locations

// tests/data in the source tree.
inline std::string test_data_dir() { return OSEARCH_TEST_DATA; }
// tests/data/claude: byte-for-byte copies of real corpus files (see its PROVENANCE.md).
inline std::string claude_data_dir() { return std::string(OSEARCH_TEST_DATA) + "/claude"; }
// ../shared/corpus (may be absent outside the development machine).
inline std::string corpus_dir() { return OSEARCH_CORPUS; }
inline std::string corpus_claude_dir() { return std::string(OSEARCH_CORPUS) + "/claude"; }

// The root holding a transcript: tests/data/claude when the file was copied there, else the shared corpus.
inline std::string root_of(const std::string& rel) {
  for (const std::string& root : {claude_data_dir(), corpus_claude_dir()})
    if (std::filesystem::exists(root + "/" + rel)) return root;
  return {};
}
// The built CLI.
inline std::string osearch_binary() { return OSEARCH_BINARY; }

// ---------------------------------------------------------------------------------------------
// Files

// Reads a whole file; throws when it cannot be opened.
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::string s;
  in.seekg(0, std::ios::end);
  s.resize(static_cast<size_t>(in.tellg()));
  in.seekg(0);
  in.read(s.data(), static_cast<std::streamsize>(s.size()));
  return s;
}

namespace detail {
inline void write_all(const std::string& path, std::string_view bytes, int flags) {
  fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  int fd = ::open(path.c_str(), flags | O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      throw std::runtime_error("cannot write " + path + ": " + std::strerror(e));
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
}
}  // namespace detail

// Creates (or truncates) `path` with exactly `bytes`; parent directories are created.
inline void write_file(const std::string& path, std::string_view bytes) {
  detail::write_all(path, bytes, O_TRUNC);
}

// Appends `bytes` to `path` (created when missing), as a transcript writer would.
inline void append_file(const std::string& path, std::string_view bytes) {
  detail::write_all(path, bytes, O_APPEND);
}

// Writes to a sibling temp file and renames it over `path`: same name, new inode.
inline void replace_file(const std::string& path, std::string_view bytes) {
  const std::string tmp = path + ".replace-tmp";
  write_file(tmp, bytes);
  fs::rename(tmp, path);
}

inline uint64_t file_size(const std::string& path) { return static_cast<uint64_t>(fs::file_size(path)); }

// Copies one file to `dst` (parents created), owner-writable whatever the source mode was.
inline void copy_file_to(const std::string& src, const std::string& dst) {
  fs::path d(dst);
  if (d.has_parent_path()) fs::create_directories(d.parent_path());
  fs::copy_file(src, dst, fs::copy_options::overwrite_existing);
  fs::permissions(dst, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read,
                  fs::perm_options::replace);
}

// Recursively copies the directory `src` into `dst` (created), byte for byte. The corpus is
// read-only (r-x dirs, r-- files); copies are made writable so tests can append, truncate and delete.
// Symlinks are not followed. Returns the number of regular files copied.
inline size_t copy_tree(const std::string& src, const std::string& dst) {
  size_t n = 0;
  fs::create_directories(dst);
  fs::permissions(dst, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                           fs::perms::others_exec,
                  fs::perm_options::replace);
  for (const auto& e : fs::directory_iterator(src)) {
    const fs::path to = fs::path(dst) / e.path().filename();
    std::error_code ec;
    if (e.is_symlink(ec)) continue;
    if (e.is_directory(ec)) {
      n += copy_tree(e.path().string(), to.string());
    } else if (e.is_regular_file(ec)) {
      copy_file_to(e.path().string(), to.string());
      ++n;
    }
  }
  return n;
}

// Copies `rel` (a file or a directory, relative to `src_root`) to the same relative place under
// `dst_root`, e.g. copy_subtree(corpus, "-Users-x/abc.jsonl", tmp) -> tmp/-Users-x/abc.jsonl.
inline size_t copy_subtree(const std::string& src_root, const std::string& rel, const std::string& dst_root) {
  const fs::path src = fs::path(src_root) / rel;
  const fs::path dst = fs::path(dst_root) / rel;
  if (fs::is_directory(src)) return copy_tree(src.string(), dst.string());
  copy_file_to(src.string(), dst.string());
  return 1;
}

// Every regular file under `root`, relative paths, sorted.
inline std::vector<std::string> list_files(const std::string& root) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file(ec)) out.push_back(fs::relative(it->path(), root).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// ---------------------------------------------------------------------------------------------
// Temporary directory

// A fresh directory /tmp/osearch-test-<tag>-XXXXXX, removed (recursively) by the destructor.
class TempDir {
 public:
  explicit TempDir(std::string_view tag = "t") {
    std::string tmpl = "/tmp/osearch-test-" + std::string(tag) + "-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr) throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
    path_ = buf.data();
  }
  ~TempDir() { remove(); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + rel
  std::string operator/(std::string_view rel) const { return path_ + "/" + std::string(rel); }
  std::string sub(std::string_view rel) const { return *this / rel; }

  void remove() {
    if (path_.empty()) return;
    std::error_code ec;
    // Tests may chmod things to 000; make everything removable first.
    for (auto it = fs::recursive_directory_iterator(path_, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      std::error_code ec2;
      if (it->is_directory(ec2) && !it->is_symlink(ec2)) fs::permissions(it->path(), fs::perms::owner_all,
                                                                          fs::perm_options::add, ec2);
    }
    fs::remove_all(path_, ec);
    path_.clear();
  }

 private:
  std::string path_;
};

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

}  // namespace detail

// Runs a program (argv[0] = path) with fork/execve, no shell: feeds `stdin_text` on stdin (then
// EOF), captures stdout and stderr completely (both drained concurrently, so large outputs cannot
// deadlock) and waits for the exit. Never throws for a failing child; throws only when the
// pipes/fork themselves fail.
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
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // Child: async-signal-safe calls only.
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

// Octal permission bits of a path (lstat).
inline unsigned mode_bits(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return 0xFFFF;
  return st.st_mode & 07777;
}

}  // namespace osearch_test
