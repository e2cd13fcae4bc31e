#include "engine/text_log.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace osearch {
namespace {

constexpr size_t kBufferLimit = 4u << 20;

void write_all(int fd, const std::string& buf) {
  size_t done = 0;
  while (done < buf.size()) {
    ssize_t n = ::write(fd, buf.data() + done, buf.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("text log write: ") + std::strerror(errno));
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

int open_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error(path + ": " + std::strerror(errno));
  return fd;
}

}  // namespace

MappedFile::~MappedFile() {
  if (data_ && size_) ::munmap(data_, size_);
}

bool MappedFile::map(const std::string& path, uint64_t length) {
  if (length == 0) return true;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  void* p = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return false;
  data_ = p;
  size_ = length;
  return true;
}

TextLogWriter::~TextLogWriter() {
  if (log_fd_ >= 0) ::close(log_fd_);
  if (idx_fd_ >= 0) ::close(idx_fd_);
}

void TextLogWriter::open(const std::string& dir, uint64_t committed_bytes, uint64_t committed_entries,
                         const std::string& name) {
  log_fd_ = open_file(dir + "/" + name + ".log");
  idx_fd_ = open_file(dir + "/" + name + ".idx");
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
  write_all(log_fd_, log_buf_);
  write_all(idx_fd_, idx_buf_);
  log_buf_.clear();
  idx_buf_.clear();
}

void TextLogWriter::sync() {
  flush_buffers();
  ::fdatasync(log_fd_);
  ::fdatasync(idx_fd_);
}

bool TextLogReader::open(const std::string& dir, uint64_t committed_bytes, uint64_t committed_entries,
                         const std::string& name) {
  return log_.map(dir + "/" + name + ".log", committed_bytes) && idx_.map(dir + "/" + name + ".idx", committed_entries * 8);
}

std::span<const uint64_t> TextLogReader::starts() const {
  auto b = idx_.bytes();
  return {reinterpret_cast<const uint64_t*>(b.data()), b.size() / 8};
}

bool TextLogReader::entry_at(uint64_t start, TextEntry& out) const {
  std::string_view d = data();
  if (start + 4 > d.size()) return false;
  uint32_t klen = get_u32(d.data() + start);
  uint64_t tpos = start + 4 + klen + 1;
  if (tpos > d.size()) return false;
  out.flags = static_cast<uint8_t>(d[tpos - 1]);
  if (tpos + 4 > d.size()) return false;
  uint32_t tlen = get_u32(d.data() + tpos);
  if (tpos + 4 + tlen > d.size()) return false;
  out.start = start;
  out.key = d.substr(start + 4, klen);
  out.text_offset = tpos + 4;
  out.text = d.substr(tpos + 4, tlen);
  return true;
}

bool TextLogReader::entry_containing(uint64_t at, TextEntry& out) const {
  auto s = starts();
  auto it = std::upper_bound(s.begin(), s.end(), at);
  if (it == s.begin()) return false;
  return entry_at(*(it - 1), out);
}

std::string_view TextLogReader::text(uint64_t start, uint64_t len) const {
  TextEntry e;
  if (!entry_at(start, e)) return {};
  return e.text.substr(0, len);
}

}  // namespace osearch
