// A walk that reads every text of the log once (check, export, a compaction): the pages it read stay
// mapped, and the process's RSS would grow to the log's size (1.1 GB for a 2 GB corpus's index).
// Counting what it read, TextReads releases them every `every` bytes; they stay in the page cache.
#pragma once

#include <cstdint>

#include "engine/store/text_log.h"

namespace osearch {

class TextReads {
 public:
  static constexpr uint64_t kEvery = 32u << 20;
  explicit TextReads(const TextLogReader& log, uint64_t every = kEvery) : log_(log), every_(every) {}

  // Counts `bytes` more read through the log's map; releases its resident pages once `every` were.
  // Whether it did (a caller may trim an env's pages beside).
  bool read(uint64_t bytes) {
    if ((read_ += bytes) < every_) return false;
    log_.release_resident_pages();
    read_ = 0;
    return true;
  }

 private:
  const TextLogReader& log_;
  uint64_t every_;
  uint64_t read_ = 0;
};

}  // namespace osearch
