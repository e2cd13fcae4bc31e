#include "engine/index/parse_ahead.h"

#include "ingest/claude.h"

namespace osearch {
namespace {
// Chunks of about this much text: big enough to amortize the hand-over, small enough that a huge
// transcript does not sit in memory twice.
constexpr size_t kChunkBytes = 1u << 20;
// ...and at most this many lines, so tiny lines are handed over (and committed) in bounded runs too.
constexpr size_t kChunkLines = 4096;
}  // namespace

ParseAhead::ParseAhead(std::vector<ParseJob> jobs, size_t max_bytes_ahead, size_t max_line_bytes)
    : jobs_(std::move(jobs)),
      max_bytes_ahead_(max_bytes_ahead),
      max_line_bytes_(max_line_bytes),
      thread_(&ParseAhead::run, this) {}

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
      if (jobs_[j].jsonl) {
        auto on_object = [&](simdjson::dom::element obj, uint64_t off) {
          ParsedLine line;
          line.offset = off;
          if (!parse_claude_object(obj, line.rec)) return;
          bytes += approx_bytes(line.rec);
          chunk.lines.push_back(std::move(line));
        };
        // Chunks end at line boundaries, where the read could resume.
        auto on_line_done = [&](uint64_t next_offset, const JsonlReadResult& so_far) {
          if (bytes < kChunkBytes && chunk.lines.size() < kChunkLines) return;
          chunk.result = so_far;
          chunk.result.end_offset = next_offset;
          push(std::move(chunk), bytes);
          chunk = ParsedChunk{};
          chunk.job = j;
          bytes = 0;
        };
        chunk.result = reader.read(jobs_[j].path, jobs_[j].offset, on_object, on_line_done);
      }
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
