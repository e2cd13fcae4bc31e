#include "ingest/zstd_source.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace osearch {

ZstdSource::ZstdSource(int fd, uint64_t file_size)
    : dctx_(ZSTD_createDCtx()), fd_(fd), file_size_(file_size), in_buf_(ZSTD_DStreamInSize(), '\0') {}

bool ZstdSource::fill_input() {
  if (in_.pos < in_.size || file_pos_ >= file_size_) return true;
  for (;;) {
    size_t want = std::min<uint64_t>(in_buf_.size(), file_size_ - file_pos_);
    ssize_t n = ::pread(fd_, in_buf_.data(), want, static_cast<off_t>(file_pos_));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) file_size_ = file_pos_;  // the file shrank: its end is here
    file_pos_ += static_cast<uint64_t>(n);
    in_ = ZSTD_inBuffer{in_buf_.data(), static_cast<size_t>(n), 0};
    return true;
  }
}

ssize_t ZstdSource::fail(std::string message, std::string& error) {
  failed_ = true;
  error = std::move(message);
  return -1;
}

ssize_t ZstdSource::read(char* dst, size_t room, std::string& error) {
  if (!pending_error_.empty()) return fail(std::move(pending_error_), error);
  if (failed_) return fail("zstd: stream already failed", error);
  if (!dctx_) return fail("zstd: cannot create a decompression context", error);
  ZSTD_outBuffer out{dst, room, 0};
  // A failure after some output is kept for the next call: the caller gets the good bytes first.
  auto failure = [&](std::string msg) -> ssize_t {
    if (out.pos == 0) return fail(std::move(msg), error);
    pending_error_ = std::move(msg);
    return static_cast<ssize_t>(out.pos);
  };
  while (out.pos < out.size) {
    if (!fill_input()) return failure(std::string("zstd: read: ") + std::strerror(errno));
    if (input_exhausted()) {
      if (frame_done_) break;
      return failure("zstd: truncated stream (the last frame is incomplete)");
    }
    size_t ret = ZSTD_decompressStream(dctx_.get(), &out, &in_);
    if (ZSTD_isError(ret)) return failure(std::string("zstd: corrupt stream: ") + ZSTD_getErrorName(ret));
    frame_done_ = ret == 0;
  }
  return static_cast<ssize_t>(out.pos);
}

bool ZstdSource::skip(uint64_t n, std::string& error) {
  std::string scratch(std::min<uint64_t>(n, 1u << 16), '\0');
  while (n > 0) {
    ssize_t got = read(scratch.data(), std::min<uint64_t>(n, scratch.size()), error);
    if (got < 0) return false;
    if (got == 0) return true;
    n -= static_cast<uint64_t>(got);
  }
  return true;
}

}  // namespace osearch
