#include "engine/store/text_log.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "engine/store/errors.h"
#include "engine/store/index_damage.h"

namespace osearch {
namespace {

constexpr size_t kBufferLimit = 4u << 20;

void write_all(int fd, const std::string& buf, const std::string& path) {
  size_t done = 0;
  while (done < buf.size()) {
    ssize_t n = ::write(fd, buf.data() + done, buf.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_write_error(errno, "write", path);
    }
    done += static_cast<size_t>(n);
  }
}

void put_u32(std::string& out, uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); }
uint32_t get_u32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

bool read_at(int fd, void* buf, size_t n, uint64_t off) {
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(fd, static_cast<char*>(buf) + done, n - done, static_cast<off_t>(off + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    done += static_cast<size_t>(r);
  }
  return true;
}

// Opens an index file without following a link. A file LMDB says holds committed bytes must be
// there and at least that long: a shorter one is a SIGBUS for readers, and extending it with
// zeros (ftruncate) would silently lose the committed entries.
int open_committed(const std::string& path, const char* part, int flags, uint64_t committed) {
  int fd = open_index_file(path, flags | (committed ? 0 : O_CREAT));
  if (fd < 0) {
    const int err = errno;
    refuse_symlink(path, part);
    if (err == ENOENT) throw IndexDamaged(part, "missing (the index records " + std::to_string(committed) + " committed bytes)");
    if ((flags & O_ACCMODE) != O_RDONLY) throw_write_error(err, "open", path);  // ENOSPC said plainly
    throw std::runtime_error(path + ": " + std::strerror(err));
  }
  struct stat st{};
  std::string problem;
  if (::fstat(fd, &st) != 0)
    problem = std::strerror(errno);
  else if (!S_ISREG(st.st_mode))
    problem = "not a regular file";
  else if (static_cast<uint64_t>(st.st_size) < committed)
    problem = "truncated: " + std::to_string(st.st_size) + " bytes, the index records " + std::to_string(committed) +
              " committed";
  if (!problem.empty()) {
    ::close(fd);
    throw IndexDamaged(part, problem);
  }
  return fd;
}

}  // namespace

std::string text_log_tail_problem(int log_fd, int idx_fd, uint64_t committed_bytes, uint64_t committed_entries) {
  if (committed_entries == 0)
    return committed_bytes == 0 ? "" : "text.idx: no entries, but the index records " + std::to_string(committed_bytes) + " bytes of text.log";
  uint64_t first = 0, last = 0;
  if (!read_at(idx_fd, &first, 8, 0) || !read_at(idx_fd, &last, 8, (committed_entries - 1) * 8))
    return "text.idx: cannot be read";
  if (first != 0 || last >= committed_bytes)
    return "text.idx: entry starts outside text.log's committed " + std::to_string(committed_bytes) + " bytes";
  // The last entry must end exactly where the committed bytes do: a zeroed or overwritten tail
  // does not.
  uint32_t klen = 0, tlen = 0;
  const std::string bad = "text.log: the last entry (byte " + std::to_string(last) + ") does not end at the committed size " +
                          std::to_string(committed_bytes) + " (zeroed or overwritten)";
  if (!read_at(log_fd, &klen, 4, last)) return bad;
  const uint64_t tpos = last + 4 + klen + 1;
  if (tpos + 4 > committed_bytes || !read_at(log_fd, &tlen, 4, tpos) || tpos + 4 + tlen != committed_bytes) return bad;
  return "";
}

namespace {
// Splits "text.log: …" into IndexDamaged's part and problem.
[[noreturn]] void throw_tail_problem(const std::string& p) {
  const size_t colon = p.find(": ");
  throw IndexDamaged(p.substr(0, colon), p.substr(colon + 2));
}
}  // namespace

MappedFile::~MappedFile() {
  if (data_ && size_) ::munmap(data_, size_);
}

void MappedFile::map(int fd, uint64_t length) {
  if (data_ && size_) ::munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
  if (length == 0) return;
  void* p = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) throw std::runtime_error(std::string("mmap text log: ") + std::strerror(errno));
  data_ = p;
  size_ = length;
  register_index_map(p, length);  // a file cut under a live map faults here: damage, see index_damage.h
}

void MappedFile::release_resident_pages() const {
  if (data_ && size_) ::madvise(data_, size_, MADV_DONTNEED);
}

void MappedFile::release_pages(uint64_t from, uint64_t to) const {
  static const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  to = std::min<uint64_t>(to, size_);
  from = (from + page - 1) / page * page;
  to = to / page * page;
  if (data_ && from < to) ::madvise(static_cast<char*>(data_) + from, to - from, MADV_DONTNEED);
}

TextLogWriter::~TextLogWriter() {
  if (log_fd_ >= 0) ::close(log_fd_);
  if (idx_fd_ >= 0) ::close(idx_fd_);
}

void TextLogWriter::open(const std::string& dir, uint64_t committed_bytes, uint64_t committed_entries,
                         const std::string& name) {
  log_path_ = dir + "/" + name + ".log";
  idx_path_ = dir + "/" + name + ".idx";
  log_fd_ = open_committed(log_path_, (name + ".log").c_str(), O_RDWR, committed_bytes);
  idx_fd_ = open_committed(idx_path_, (name + ".idx").c_str(), O_RDWR, committed_entries * 8);
  if (std::string p = text_log_tail_problem(log_fd_, idx_fd_, committed_bytes, committed_entries); !p.empty())
    throw_tail_problem(p);
  // Cuts what an interrupted run wrote past the committed sizes (never extends: checked above).
  if (::ftruncate(log_fd_, static_cast<off_t>(committed_bytes)) != 0 ||
      ::ftruncate(idx_fd_, static_cast<off_t>(committed_entries * 8)) != 0)
    throw std::runtime_error(std::string("text log truncate: ") + std::strerror(errno));
  ::lseek(log_fd_, 0, SEEK_END);
  ::lseek(idx_fd_, 0, SEEK_END);
  bytes_ = committed_bytes;
  entries_ = committed_entries;
}

uint64_t TextLogWriter::append(std::string_view key, uint8_t flags, std::string_view text) {
  uint64_t start = bytes_;
  put_u32(log_buf_, static_cast<uint32_t>(key.size()));
  log_buf_.append(key);
  log_buf_.push_back(static_cast<char>(flags));
  put_u32(log_buf_, static_cast<uint32_t>(text.size()));
  log_buf_.append(text);
  idx_buf_.append(reinterpret_cast<const char*>(&start), 8);
  bytes_ += 9 + key.size() + text.size();
  ++entries_;
  if (log_buf_.size() > kBufferLimit) flush_buffers();
  return start;
}

void TextLogWriter::flush_buffers() {
  write_all(log_fd_, log_buf_, log_path_);
  write_all(idx_fd_, idx_buf_, idx_path_);
  log_buf_.clear();
  idx_buf_.clear();
}

void TextLogWriter::sync() {
  flush_buffers();
  // LMDB points into these bytes after this: a failed sync (ENOSPC on NFS, EIO) must stop the run.
  if (::fdatasync(log_fd_) != 0) throw_write_error(errno, "fdatasync", log_path_);
  if (::fdatasync(idx_fd_) != 0) throw_write_error(errno, "fdatasync", idx_path_);
}

void TextLogReader::open(const std::string& dir, uint64_t committed_bytes, uint64_t committed_entries,
                         const std::string& name) {
  // Sizes are checked before mapping: touching a mapped page past the end of the file is a SIGBUS.
  const int log_fd = open_committed(dir + "/" + name + ".log", (name + ".log").c_str(), O_RDONLY, committed_bytes);
  int idx_fd = -1;
  try {
    idx_fd = open_committed(dir + "/" + name + ".idx", (name + ".idx").c_str(), O_RDONLY, committed_entries * 8);
    if (std::string p = text_log_tail_problem(log_fd, idx_fd, committed_bytes, committed_entries); !p.empty())
      throw_tail_problem(p);
    log_.map(log_fd, committed_bytes);
    idx_.map(idx_fd, committed_entries * 8);
  } catch (...) {
    ::close(log_fd);
    if (idx_fd >= 0) ::close(idx_fd);
    throw;
  }
  ::close(idx_fd);
  if (log_fd_ >= 0) ::close(log_fd_);
  log_fd_ = log_fd;
}

TextLogReader::~TextLogReader() {
  if (log_fd_ >= 0) ::close(log_fd_);
}

bool TextLogReader::read(uint64_t offset, char* out, size_t n) const {
  if (log_fd_ < 0 || offset > data().size() || n > data().size() - offset) return false;
  return read_at(log_fd_, out, n, offset);
}

std::span<const uint64_t> TextLogReader::starts() const {
  auto b = idx_.bytes();
  return {reinterpret_cast<const uint64_t*>(b.data()), b.size() / 8};
}

bool TextLogReader::entry_at(uint64_t start, TextEntry& out) const { return entry_in(data(), 0, start, out); }

bool TextLogReader::entry_in(std::string_view copy, uint64_t copy_at, uint64_t start, TextEntry& out) const {
  // The entry must fit the committed log as well as the copy (a copy is never read past it).
  if (start < copy_at || copy_at > data().size()) return false;
  const std::string_view d = copy.substr(0, data().size() - copy_at);
  start -= copy_at;
  if (start + 4 > d.size()) return false;
  uint32_t klen = get_u32(d.data() + start);
  uint64_t tpos = start + 4 + klen + 1;
  if (tpos > d.size()) return false;
  out.flags = static_cast<uint8_t>(d[tpos - 1]);
  if (tpos + 4 > d.size()) return false;
  uint32_t tlen = get_u32(d.data() + tpos);
  if (tpos + 4 + tlen > d.size()) return false;
  out.start = copy_at + start;
  out.key = d.substr(start + 4, klen);
  out.text_offset = copy_at + tpos + 4;
  out.text = d.substr(tpos + 4, tlen);
  return true;
}

std::string_view TextLogReader::text_copy(uint64_t start, uint64_t len, std::string& buffer) const {
  // One read covers the header too while the key is shorter than a guess (ids and a time are ~50
  // bytes); a longer key is read again whole, now that its length is known. Whatever these bytes
  // cannot answer (an entry past the log, a span shorter than its text), text() decides.
  constexpr uint64_t kKeyGuess = 256;
  const uint64_t size = data().size();
  uint64_t want = 9 + kKeyGuess + len;
  for (int attempt = 0; attempt < 2 && start < size; ++attempt) {
    const uint64_t n = std::min(size - start, want);
    buffer.resize(n);
    TextEntry e;
    if (!read(start, buffer.data(), n)) break;
    if (entry_in(buffer, start, start, e)) return e.text.substr(0, len);
    if (n < 4) break;
    want = 9 + uint64_t{get_u32(buffer.data())} + len;
  }
  return text(start, len);
}

std::optional<uint64_t> TextLogReader::entry_start_of(uint64_t at) const {
  auto s = starts();
  auto it = std::upper_bound(s.begin(), s.end(), at);
  if (it == s.begin()) return std::nullopt;
  return *(it - 1);
}

std::string_view TextLogReader::text(uint64_t start, uint64_t len) const {
  TextEntry e;
  if (!entry_at(start, e)) return {};
  return e.text.substr(0, len);
}

}  // namespace osearch
