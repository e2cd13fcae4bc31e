// Reads and parses an index run's transcript files on a thread of its own, a bounded distance ahead
// of the thread that applies the records. Parsing is a pure function of the bytes (ingest/ does no
// I/O beyond reading), so it can run while the previous batch is being written; the records are
// still applied in file order, on one thread, so idempotency checks see every earlier line.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ingest/adapter.h"
#include "ingest/jsonl_reader.h"
#include "ingest/records.h"

namespace osearch {

struct ParseJob {
  ParseJob() = default;
  ParseJob(std::string p, uint64_t off, bool is_jsonl) : path(std::move(p)), offset(off), jsonl(is_jsonl) {}
  std::string path;
  uint64_t offset = 0;
  bool jsonl = true;  // false: the consumer reads the file itself (workflow JSON)
  SourceFormat format = SourceFormat::Claude;
  // The adapter's carry at `offset`; null for a file read from the start. (A pointer: a run plans
  // a job per file, tens of thousands in a Codex tree, and most carry nothing.)
  std::shared_ptr<const FileCarry> carry;
  bool reread_head = false;  // parse the first line again before reading on (omp's title slot)
};

struct ParsedLine {
  LineRecords rec;
  uint64_t offset = 0;
};

// A run of one file's parsed lines. A file arrives as one or more chunks, each ending at a line
// boundary; `result` holds the counts and the resume offset (end_offset) up to the chunk's end,
// so a batch may be committed after any chunk. The last one has `last` set and the final result
// (errors too).
struct ParsedChunk {
  size_t job = 0;
  std::vector<ParsedLine> lines;
  bool last = false;
  JsonlReadResult result;
  FileCarry carry;  // the adapter's carry after the chunk's last line (stored with result.end_offset)
};


class ParseAhead {
 public:
  // Parses at most about `max_bytes_ahead` of text beyond what the consumer has taken; JSONL lines
  // above `max_line_bytes` are skipped and counted (JsonlReader).
  ParseAhead(std::vector<ParseJob> jobs, size_t max_bytes_ahead, size_t max_line_bytes = kDefaultMaxLineBytes);
  ~ParseAhead();  // stops the parser and waits for it
  ParseAhead(const ParseAhead&) = delete;
  ParseAhead& operator=(const ParseAhead&) = delete;

  // The next chunk in job order; false when every job is done. Rethrows the parser's error.
  bool next(ParsedChunk& out);

 private:
  struct Stopped {};
  void run();
  void push(ParsedChunk chunk, size_t bytes);  // blocks while too far ahead; throws Stopped

  std::vector<ParseJob> jobs_;
  const size_t max_bytes_ahead_;
  const size_t max_line_bytes_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<ParsedChunk, size_t>> queue_;
  size_t queued_bytes_ = 0;
  bool done_ = false, stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: started once everything above exists
};

}  // namespace osearch
