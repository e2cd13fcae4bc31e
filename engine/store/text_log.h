// The text log: every message's full decoded text, appended once, in one contiguous file so a
// content scan streams through it with a single Hyperscan call (mmap'd). Entry layout:
//   [u32 key_len][key bytes][u8 flags][u32 text_len][text bytes]
// The flags (hidden, role, content type) and the key (session id, time) let a content scan filter
// and group its candidates without reading LMDB.
// `text.idx` holds the u64 start offset of every entry, in order, so a match offset maps back to
// its entry by binary search. LMDB's meta records how many bytes of each file are committed; the
// writer truncates any uncommitted tail on open (kill -9 safety), readers never look past it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace osearch {

// Entry flags: bit 0 hidden by default (meta/command), bits 1-2 role, bits 3-5 content type.
inline uint8_t entry_flags(bool hidden, unsigned role, unsigned content_type) {
  return static_cast<uint8_t>((hidden ? 1u : 0u) | ((role & 3u) << 1) | ((content_type & 7u) << 3));
}
// And back (also for the flags a content candidate carries without its entry).
inline bool flags_hidden(uint8_t flags) { return flags & 1u; }
inline unsigned flags_role(uint8_t flags) { return (flags >> 1) & 3u; }
inline unsigned flags_content_type(uint8_t flags) { return (flags >> 3) & 7u; }

struct TextEntry {
  uint64_t start = 0;
  std::string_view key;
  uint8_t flags = 0;
  bool hidden() const { return flags_hidden(flags); }
  unsigned role() const { return flags_role(flags); }
  unsigned content_type() const { return flags_content_type(flags); }
  std::string_view text;
  uint64_t text_offset = 0;  // file offset of text[0]
};

// "" when the committed sizes describe the files: text.idx's first entry at 0 and its last inside
// text.log, and that last entry ending exactly at the committed size. Otherwise "<file>: <what>".
// Reads three small headers (pread), so every open can afford it.
std::string text_log_tail_problem(int log_fd, int idx_fd, uint64_t committed_bytes, uint64_t committed_entries);

class MappedFile {
 public:
  MappedFile() = default;
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  void map(int fd, uint64_t length);  // the first `length` bytes, which the caller checked exist
  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }
  // Drops this process's mapping of the pages read so far (they stay in the page cache): a pass
  // over every page would otherwise hold the whole file in its RSS.
  void release_resident_pages() const;
  // The same for the pages wholly inside bytes [from, to).
  void release_pages(uint64_t from, uint64_t to) const;

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

class TextLogWriter {
 public:
  TextLogWriter() = default;
  ~TextLogWriter();
  TextLogWriter(const TextLogWriter&) = delete;
  TextLogWriter& operator=(const TextLogWriter&) = delete;
  // Opens <dir>/<name>.log and .idx (`name` comes from LMDB meta, engine/index/index_parts.h), creating
  // them while nothing is committed, and cuts them to the committed sizes. Throws IndexDamaged when
  // either is a link, missing, shorter than committed, or its last entry does not end at the
  // committed size: extending a short log would lose entries silently.
  void open(const std::string& dir, uint64_t committed_bytes, uint64_t committed_entries,
            const std::string& name = "text");
  // Appends an entry (buffered); returns its start offset.
  uint64_t append(std::string_view key, uint8_t flags, std::string_view text);
  // Writes buffered bytes and fdatasyncs both files; returns {bytes, entries} now durable.
  void sync();
  uint64_t bytes() const { return bytes_; }
  uint64_t entries() const { return entries_; }

 private:
  void flush_buffers();
  int log_fd_ = -1, idx_fd_ = -1;
  std::string log_path_, idx_path_;
  uint64_t bytes_ = 0, entries_ = 0;
  std::string log_buf_, idx_buf_;
};

class TextLogReader {
 public:
  TextLogReader() = default;
  ~TextLogReader();
  TextLogReader(const TextLogReader&) = delete;
  TextLogReader& operator=(const TextLogReader&) = delete;
  // Maps the committed bytes of both files; throws IndexDamaged as TextLogWriter::open does.
  void open(const std::string& dir, uint64_t committed_bytes, uint64_t committed_entries,
            const std::string& name = "text");
  std::string_view data() const { return log_.bytes(); }
  // Copies the committed bytes [offset, offset + n) of the log into `out` with pread: a bulk scan
  // reads this way, since mapping page-cache pages costs more than copying them on this project's
  // VMs (docs/BENCHMARKS.md: 4-5x for the 437 MB log). False when the file gives fewer bytes (cut
  // under us): the caller then reads data(), whose fault names the damage.
  bool read(uint64_t offset, char* out, size_t n) const;
  std::span<const uint64_t> starts() const;
  // Where the entry holding file offset `at` starts (nullopt before the first one).
  std::optional<uint64_t> entry_start_of(uint64_t at) const;
  bool entry_at(uint64_t start, TextEntry& out) const;
  // entry_at over `copy`, which holds the log's bytes from file offset `copy_at` on (a block read()
  // gave): out.key and out.text view `copy`, the offsets are the file's. False when the entry is
  // not whole inside `copy`, or does not fit the log.
  bool entry_in(std::string_view copy, uint64_t copy_at, uint64_t start, TextEntry& out) const;
  std::string_view text(uint64_t start, uint64_t len) const;  // text span recorded in a MessageRec
  // text(), read with pread into `buffer` (the view is of it): a query that reads a few entries
  // scattered over the log (a page of hits) pays a read each instead of the map's page faults,
  // which cost 5-20x more on this project's VMs. The map's view when the read fails.
  std::string_view text_copy(uint64_t start, uint64_t len, std::string& buffer) const;
  void release_resident_pages() const { log_.release_resident_pages(); }
  void release_pages(uint64_t from, uint64_t to) const { log_.release_pages(from, to); }

 private:
  MappedFile log_, idx_;
  int log_fd_ = -1;  // kept for read()
};

}  // namespace osearch
