#include "engine/index/parse_ahead.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include "ingest/worker_thread.h"

namespace osearch {
namespace {
// Chunks of about this much text: big enough to amortize the hand-over, small enough that a huge
// transcript does not sit in memory twice.
constexpr size_t kChunkBytes = 1u << 20;
// ...and at most this many lines, so tiny lines are handed over (and committed) in bounded runs too.
constexpr size_t kChunkLines = 4096;
// The first line re-read by itself (omp's title slot is 256 bytes; a longer first line is skipped).
constexpr size_t kHeadBytes = 64u << 10;

// The first line of `path`, newline included, with simdjson's padding after it; empty when the
// file cannot be read or its first line is not complete within kHeadBytes.
std::string read_head_line(const std::string& path) {
  std::string buf(kHeadBytes, '\0');
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  ssize_t n = ::pread(fd, buf.data(), buf.size(), 0);
  ::close(fd);
  if (n <= 0) return {};
  const void* nl = std::memchr(buf.data(), '\n', static_cast<size_t>(n));
  if (nl == nullptr) return {};
  buf.resize(static_cast<size_t>(static_cast<const char*>(nl) - buf.data()) + 1);
  return buf;
}
}  // namespace

ParseAhead::ParseAhead(std::vector<ParseJob> jobs, size_t max_bytes_ahead, size_t max_line_bytes)
    : jobs_(std::move(jobs)),
      max_bytes_ahead_(max_bytes_ahead),
      max_line_bytes_(max_line_bytes),
      thread_(start_worker(&ParseAhead::run, this)) {}

ParseAhead::~ParseAhead() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

bool ParseAhead::next(ParsedChunk& out) {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return !queue_.empty() || done_; });
  if (queue_.empty()) {
    if (error_) std::rethrow_exception(error_);
    return false;
  }
  out = std::move(queue_.front().first);
  queued_bytes_ -= queue_.front().second;
  queue_.pop_front();
  lock.unlock();
  cv_.notify_all();
  return true;
}

void ParseAhead::push(ParsedChunk chunk, size_t bytes) {
  std::unique_lock lock(mu_);
  // Always let one chunk through, however big, so a huge line cannot stall the run.
  cv_.wait(lock, [&] { return stop_ || queue_.empty() || queued_bytes_ + bytes <= max_bytes_ahead_; });
  if (stop_) throw Stopped{};
  queued_bytes_ += bytes;
  queue_.emplace_back(std::move(chunk), bytes);
  lock.unlock();
  cv_.notify_all();
}

void ParseAhead::run() {
  try {
    JsonlReader reader(max_line_bytes_);
    for (size_t j = 0; j < jobs_.size(); ++j) {
      ParsedChunk chunk;
      chunk.job = j;
      size_t bytes = 0;
      const ParseJob& job = jobs_[j];
      FileCarry carry = job.carry ? *job.carry : FileCarry{};
      if (job.jsonl && job.reread_head && job.offset > 0) {
        // Rewritten in place: only its records are taken (its counts were taken on the first read).
        std::string head = read_head_line(job.path);
        const size_t len = head.size();
        head.append(simdjson::SIMDJSON_PADDING, ' ');
        JsonlReadResult ignored;
        FileCarry scratch = carry;
        reader.parse_buffer(head.data(), len, false, 0, [&](simdjson::dom::element obj, uint64_t off) {
          ParsedLine line;
          line.offset = off;
          // Only a slot is rewritten in place; a first line naming the session is a header, whose
          // facts (an omp fork's header title) must not override what later lines said.
          if (parse_object(job.format, obj, off, scratch, line.rec) && line.rec.session_id_field.empty())
            chunk.lines.push_back(std::move(line));
        }, ignored);
      }
      if (job.jsonl) {
        auto on_object = [&](simdjson::dom::element obj, uint64_t off) {
          ParsedLine line;
          line.offset = off;
          if (!parse_object(job.format, obj, off, carry, line.rec)) return;
          bytes += approx_bytes(line.rec);
          chunk.lines.push_back(std::move(line));
        };
        // Chunks end at line boundaries, where the read could resume.
        auto on_line_done = [&](uint64_t next_offset, const JsonlReadResult& so_far) {
          if (bytes < kChunkBytes && chunk.lines.size() < kChunkLines) return;
          chunk.result = so_far;
          chunk.result.end_offset = next_offset;
          chunk.carry = carry;
          push(std::move(chunk), bytes);
          chunk = ParsedChunk{};
          chunk.job = j;
          bytes = 0;
        };
        chunk.result = reader.read(job.path, job.offset, on_object, on_line_done);
      }
      chunk.carry = carry;
      chunk.last = true;
      push(std::move(chunk), bytes);
    }
  } catch (const Stopped&) {
    // The consumer is gone: nothing to hand over.
  } catch (...) {
    std::lock_guard lock(mu_);
    error_ = std::current_exception();
  }
  {
    std::lock_guard lock(mu_);
    done_ = true;
  }
  cv_.notify_all();
}

}  // namespace osearch
