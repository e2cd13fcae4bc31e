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

// Replaces the content of `path` through the same inode (O_TRUNC, as writeFileSync does), its mtime
// moved 5 s on from the old one: a rewrite within the clock's tick still shows.
inline void rewrite_in_place(const std::string& path, std::string_view bytes) {
  struct stat before {};
  if (::stat(path.c_str(), &before) != 0) throw std::runtime_error("cannot stat " + path);
  write_file(path, bytes);
  struct stat after {};
  if (::stat(path.c_str(), &after) != 0 || after.st_ino != before.st_ino)
    throw std::runtime_error("not rewritten in place: " + path);
  struct timespec times[2] = {after.st_atim, before.st_mtim};
  times[1].tv_sec += 5;
  if (::utimensat(AT_FDCWD, path.c_str(), times, 0) != 0) throw std::runtime_error("cannot set the mtime of " + path);
}

inline uint64_t file_size(const std::string& path) { return static_cast<uint64_t>(fs::file_size(path)); }

// Sets the mtime of `root` and of every directory under it `seconds_back` into the past: the quick
// check keeps a source-watch record only for directories whose mtime has settled (2 s).
inline void age_directories(const std::string& root, int seconds_back) {
  const auto when = fs::file_time_type::clock::now() - std::chrono::seconds(seconds_back);
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_directory()) fs::last_write_time(e.path(), when);
  fs::last_write_time(root, when);
}

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

// Octal permission bits of a path (lstat).
inline unsigned mode_bits(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return 0xFFFF;
  return st.st_mode & 07777;
}

}  // namespace osearch_test

#include "tests/test_process.h"  // IWYU pragma: export
