// Helpers of the operations tests (read-only indexes, unreadable sources, signals, a full disk):
// running the CLI as a user that permissions stop, a CLI child to signal while it runs, and a
// small tmpfs of our own.
#pragma once

#include <sched.h>
#include <simdjson.h>
#include <sys/mount.h>

#include "tests/index_fixture.h"

namespace {

// The kind of the {"error":{"kind":…}} object on the first line of stderr.
inline std::string error_kind(const std::string& err) {
  simdjson::dom::parser parser;
  simdjson::dom::element j;
  std::string_view kind;
  const std::string line = err.substr(0, err.find('\n'));
  if (parser.parse(simdjson::padded_string(line)).get(j) != simdjson::SUCCESS ||
      j["error"]["kind"].get(kind) != simdjson::SUCCESS)
    return "(not a JSON error: " + err + ")";
  return std::string(kind);
}

// ---------------------------------------------------------------------------------------------
// Permissions that bite: CI runs the tests as root, whom chmod does not stop. There the CLI runs
// as nobody (65534) on files owned by root; as any other user it runs as that user on chmod'ed
// files.

constexpr int kNobody = 65534;

struct Runner {
  const bool root = ::geteuid() == 0;
  TempDir bin_dir{"ops-bin"};
  RunOptions opt;

  Runner() {
    if (!root) return;
    // The build tree may sit where nobody cannot reach it (/root/...): run a copy.
    opt.binary = bin_dir / "osearch";
    fs::copy_file(osearch_binary(), opt.binary);
    ::chmod(bin_dir.path().c_str(), 0755);
    ::chmod(opt.binary.c_str(), 0755);
    opt.run_as_uid = kNobody;
  }
  RunResult run(const std::vector<std::string>& args) const { return run_osearch(args, "", opt); }

  // Readable (dirs: searchable) but not writable by the runner, for everything under `root`.
  void read_only(const std::string& root) const { set_modes(root, root_user() ? 0755 : 0555, root_user() ? 0644 : 0444); }
  // Readable by the runner (the owner keeps write access).
  void readable(const std::string& root) const { set_modes(root, 0755, 0644); }
  // Not readable by the runner: a dir it cannot list, or a file it cannot open.
  void unreadable(const std::string& path) const { ::chmod(path.c_str(), root_user() ? 0700 : 0); }
  // Owned by the runner (so it may write there).
  void own(const std::string& path) const {
    if (root_user()) REQUIRE(::chown(path.c_str(), kNobody, kNobody) == 0);
  }
  bool root_user() const { return root; }

  static void set_modes(const std::string& root, unsigned dir_mode, unsigned file_mode) {
    std::vector<std::pair<std::string, bool>> entries{{root, fs::is_directory(root)}};
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it)
      entries.emplace_back(it->path().string(), it->is_directory());
    // Children first: a dir that loses its write bit still lets us reach them.
    for (auto e = entries.rbegin(); e != entries.rend(); ++e)
      REQUIRE(::chmod(e->first.c_str(), e->second ? dir_mode : file_mode) == 0);
  }
};

// ---------------------------------------------------------------------------------------------
// A CLI child that runs while the test reads its stderr and signals it.

class Spawned {
 public:
  // `stderr_pipe_bytes` > 0 shrinks the stderr pipe: a child that writes more than that without
  // the test reading blocks, mid-run, until the test drains it.
  Spawned(const std::vector<std::string>& args, int stderr_pipe_bytes = 0) {
    int out[2], err[2];
    REQUIRE(::pipe2(out, O_CLOEXEC) == 0);
    REQUIRE(::pipe2(err, O_CLOEXEC) == 0);
    if (stderr_pipe_bytes > 0) REQUIRE(::fcntl(err[1], F_SETPIPE_SZ, stderr_pipe_bytes) >= stderr_pipe_bytes);
    std::vector<std::string> argv_s{osearch_binary()};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::fflush(nullptr);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      ::dup2(out[1], 1);
      ::dup2(err[1], 2);
      int devnull = ::open("/dev/null", O_RDONLY);
      ::dup2(devnull, 0);
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(out[1]);
    ::close(err[1]);
    out_ = out[0];
    err_ = err[0];
  }
  ~Spawned() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) ::close(out_);
    if (err_ >= 0) ::close(err_);
  }
  Spawned(const Spawned&) = delete;
  Spawned& operator=(const Spawned&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& err_text() const { return err_text_; }

  // Reads stderr until `needle` has appeared (true) or it closes or the timeout passes (false).
  bool read_stderr_until(std::string_view needle, std::chrono::milliseconds timeout = std::chrono::seconds(120)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (err_text_.find(needle) == std::string::npos) {
      if (!wait_readable(err_, deadline) || !read_some(err_, err_text_)) return false;
    }
    return true;
  }
  // Waits until the child has written something to stderr, reading none of it.
  bool stderr_has_data(std::chrono::milliseconds timeout = std::chrono::seconds(120)) {
    return wait_readable(err_, std::chrono::steady_clock::now() + timeout);
  }
  // Reads both pipes to their end and reaps the child.
  RunResult finish(std::chrono::milliseconds timeout = std::chrono::seconds(120)) {
    RunResult r;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (out_ >= 0 || err_ >= 0) {
      pollfd fds[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        ::kill(pid_, SIGKILL);
        r.timed_out = true;
        break;
      }
      if (::poll(fds, 2, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
      if (out_ >= 0 && fds[0].revents && !read_some(out_, out_text_)) close_fd(out_);
      if (err_ >= 0 && fds[1].revents && !read_some(err_, err_text_)) close_fd(err_);
    }
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    r.out = out_text_;
    r.err = err_text_;
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) {
      r.term_signal = WTERMSIG(status);
      r.exit_code = 128 + r.term_signal;
    }
    return r;
  }

 private:
  static bool wait_readable(int fd, std::chrono::steady_clock::time_point deadline) {
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || fd < 0) return false;
      pollfd p{fd, POLLIN, 0};
      int rc = ::poll(&p, 1, static_cast<int>(left.count()));
      if (rc > 0) return true;
      if (rc < 0 && errno != EINTR) return false;
    }
  }
  static bool read_some(int fd, std::string& into) {
    char buf[65536];
    for (;;) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n > 0) {
        into.append(buf, static_cast<size_t>(n));
        return true;
      }
      if (n < 0 && errno == EINTR) continue;
      return false;  // EOF or error
    }
  }
  static void close_fd(int& fd) {
    ::close(fd);
    fd = -1;
  }

  pid_t pid_ = -1;
  int out_ = -1, err_ = -1;
  std::string out_text_, err_text_;
};

// ---------------------------------------------------------------------------------------------
// A tmpfs of a given size, mounted in the private mount namespace of a child process (as root, or
// as a user through a user namespace) that holds it until destroyed. This process reaches it
// through /proc/<child>/root, so the CLI needs no privilege to fill it up.

class PrivateTmpfs {
 public:
  PrivateTmpfs(const std::string& mountpoint, size_t bytes) {
    fs::create_directories(mountpoint);
    int ready[2], hold[2];
    REQUIRE(::pipe2(ready, O_CLOEXEC) == 0);
    REQUIRE(::pipe2(hold, O_CLOEXEC) == 0);
    const uid_t uid = ::geteuid();
    const gid_t gid = ::getegid();
    const std::string options = "size=" + std::to_string(bytes) + ",mode=0777";
    std::fflush(nullptr);
    holder_ = ::fork();
    REQUIRE(holder_ >= 0);
    if (holder_ == 0) {
      ::close(ready[0]);
      ::close(hold[1]);
      int err = 0;
      auto write_file_at = [](const char* path, const std::string& text) {
        int fd = ::open(path, O_WRONLY | O_CLOEXEC);
        bool ok = fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
        if (fd >= 0) ::close(fd);
        return ok;
      };
      if (uid != 0) {
        if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0 || !write_file_at("/proc/self/setgroups", "deny") ||
            !write_file_at("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1") ||
            !write_file_at("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1"))
          err = errno ? errno : EPERM;
      } else if (::unshare(CLONE_NEWNS) != 0) {
        err = errno;
      }
      if (!err && ::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) err = errno;
      if (!err && ::mount("tmpfs", mountpoint.c_str(), "tmpfs", 0, options.c_str()) != 0) err = errno;
      (void)!::write(ready[1], &err, sizeof err);
      char c;
      while (::read(hold[0], &c, 1) < 0 && errno == EINTR) {
      }
      ::_exit(0);
    }
    ::close(ready[1]);
    ::close(hold[0]);
    hold_ = hold[1];
    int err = EIO;
    if (::read(ready[0], &err, sizeof err) != static_cast<ssize_t>(sizeof err)) err = EIO;
    ::close(ready[0]);
    error_ = err;
    path_ = "/proc/" + std::to_string(holder_) + "/root" + fs::absolute(mountpoint).string();
  }
  ~PrivateTmpfs() {
    ::close(hold_);
    ::waitpid(holder_, nullptr, 0);
  }
  PrivateTmpfs(const PrivateTmpfs&) = delete;
  PrivateTmpfs& operator=(const PrivateTmpfs&) = delete;

  // 0, or why the tmpfs could not be made.
  int error() const { return error_; }
  // Where this process (and its children) reach the tmpfs.
  const std::string& path() const { return path_; }

 private:
  pid_t holder_ = -1;
  int hold_ = -1;
  int error_ = 0;
  std::string path_;
};

}  // namespace
