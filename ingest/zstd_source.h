// The decompressed bytes of a zstd file (Codex's `rollout-….jsonl.zst`), read front to back with
// the streaming API: memory is one input chunk plus the decoder's window, whatever the file's size.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>

#include <zstd.h>

namespace osearch {

class ZstdSource {
 public:
  // Decompresses the file open at `fd` (not owned), `file_size` bytes long.
  ZstdSource(int fd, uint64_t file_size);

  // Discards the next `n` decompressed bytes (fewer when the stream ends first); false when the
  // stream is damaged or the file unreadable (`error` says why).
  bool skip(uint64_t n, std::string& error);
  // Up to `room` decompressed bytes into `dst`: the count (> 0), 0 at the end of the stream, or -1
  // when the stream is damaged, truncated or unreadable (`error` says why). Bytes decoded before
  // the damage are returned first; the failure comes with the next call.
  ssize_t read(char* dst, size_t room, std::string& error);
  // The whole file was decoded and its last frame is complete.
  bool at_end() const { return !failed_ && frame_done_ && input_exhausted(); }

 private:
  bool input_exhausted() const { return in_.pos == in_.size && file_pos_ >= file_size_; }
  // Reads the next input chunk when the current one is used up; false on a read error.
  bool fill_input();
  ssize_t fail(std::string message, std::string& error);

  struct FreeDctx {
    void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
  };
  std::unique_ptr<ZSTD_DCtx, FreeDctx> dctx_;
  int fd_;
  uint64_t file_size_;
  uint64_t file_pos_ = 0;
  std::string in_buf_;
  ZSTD_inBuffer in_{nullptr, 0, 0};
  bool frame_done_ = true;   // no frame is partly decoded (so a stream may end here)
  bool failed_ = false;
  std::string pending_error_;  // a failure met after some bytes were returned
};

}  // namespace osearch
