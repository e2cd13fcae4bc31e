#include "ingest/jsonl_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>

#include "ingest/zstd_source.h"

namespace osearch {
namespace {

constexpr size_t kChunkBytes = 8u << 20;

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

bool has_suffix(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The bytes of a transcript from an offset on: the file itself, or the decompressed stream of a
// `.zst` file (offsets then count decompressed bytes).
class ByteSource {
 public:
  // False when the file cannot be opened or the offset not reached (`error` says why).
  bool open(const std::string& path, uint64_t offset, std::string& error) {
    f_.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (f_.fd < 0 || ::fstat(f_.fd, &st) != 0) {
      error = std::strerror(errno);
      return false;
    }
    size_ = static_cast<uint64_t>(st.st_size);
    if (!has_suffix(path, ".zst")) {
      pos_ = offset;
      return true;
    }
    zstd_.emplace(f_.fd, size_);
    return zstd_->skip(offset, error);
  }
  bool at_end() const { return zstd_ ? zstd_->at_end() : pos_ >= size_; }
  // How much the next read may fill: no more than the plain file still holds.
  size_t max_next(size_t want) const { return zstd_ ? want : std::min<uint64_t>(want, size_ - std::min(pos_, size_)); }
  // Up to `room` bytes: the count, 0 at the end, -1 on an error (`error` says why).
  ssize_t read(char* dst, size_t room, std::string& error) {
    if (zstd_) return zstd_->read(dst, room, error);
    room = max_next(room);
    if (room == 0) return 0;
    for (;;) {
      ssize_t n = ::pread(f_.fd, dst, room, static_cast<off_t>(pos_));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        error = std::strerror(errno);
        return -1;
      }
      if (n == 0) size_ = pos_;  // the file shrank under us: stop at what we have
      pos_ += static_cast<uint64_t>(n);
      return n;
    }
  }

 private:
  Fd f_;
  uint64_t size_ = 0;
  uint64_t pos_ = 0;
  std::optional<ZstdSource> zstd_;
};

// Blank: spaces, tabs, CRs and NULs (the padding of preallocated files) only.
bool is_blank(const char* p, size_t len) {
  for (size_t i = 0; i < len; ++i)
    if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\0') return false;
  return true;
}

}  // namespace

bool JsonlReader::parse_object(const char* p, size_t len, simdjson::dom::element& out) {
  simdjson::dom::element doc;
  if (parser_.parse(p, len, false).get(doc) != simdjson::SUCCESS) return false;
  if (!doc.is_object()) return false;
  out = doc;
  return true;
}

bool JsonlReader::parse_or_repair(const char* p, size_t len, simdjson::dom::element& out, bool& repaired) {
  repaired = false;
  if (parse_object(p, len, out)) return true;
  // Costs nothing for lines that parse: only a rejected line is copied and repaired.
  if (!repair_.repair(std::string_view(p, len), repaired_)) return false;
  const size_t n = repaired_.size();
  repaired_.append(simdjson::SIMDJSON_PADDING, ' ');
  repaired = parse_object(repaired_.data(), n, out);
  repaired_.resize(n);
  return repaired;
}

void JsonlReader::parse_line(const char* line, size_t len, uint64_t line_offset,
                             const JsonObjectHandler& on_object, JsonlReadResult& result) {
  simdjson::dom::element obj;
  bool repaired = false;
  if (parse_or_repair(line, len, obj, repaired)) {
    ++result.objects;
    if (repaired) ++result.repaired_lines;
    on_object(obj, line_offset);
    return;
  }
  // Glued objects: a raw `}{"` cannot occur inside a JSON string (quotes there are escaped), so
  // every occurrence is an object boundary. Each piece gets its own repair pass.
  std::string_view sv(line, len);
  size_t start = 0;
  bool split = false, any_repaired = false;
  while (start < len) {
    size_t cut = sv.find("}{\"", start);
    size_t end = cut == std::string_view::npos ? len : cut + 1;
    if (cut != std::string_view::npos) split = true;
    if (!split) break;
    scratch_.assign(line + start, end - start);
    scratch_.append(simdjson::SIMDJSON_PADDING, ' ');
    if (parse_or_repair(scratch_.data(), end - start, obj, repaired)) {
      ++result.objects;
      any_repaired |= repaired;
      on_object(obj, line_offset);
    } else {
      ++result.bad_lines;
    }
    start = end;
  }
  if (!split) ++result.bad_lines;
  if (any_repaired) ++result.repaired_lines;
}

size_t JsonlReader::parse_buffer(const char* data, size_t size, bool at_eof, uint64_t base_offset,
                                 const JsonObjectHandler& on_object, JsonlReadResult& result) {
  size_t pos = 0;
  while (pos < size) {
    const size_t line_start = pos;
    const void* nl = std::memchr(data + pos, '\n', size - pos);
    if (nl == nullptr) {
      // Unterminated tail: take it only at EOF and only when it is complete JSON.
      if (!at_eof) break;
      size_t len = size - pos;
      if (is_blank(data + pos, len)) {
        // NUL padding may be a preallocated tail that is overwritten in place later: leave it, so
        // the next run reads those bytes again. Plain blanks are consumed.
        if (std::memchr(data + pos, '\0', len) != nullptr) break;
        pos = size;
        line_done(base_offset + pos, std::string_view(data + line_start, pos - line_start), result);
        break;
      }
      if (len > max_line_bytes_) break;  // read() counts it as oversized
      simdjson::dom::element obj;
      bool repaired = false;
      if (!parse_or_repair(data + pos, len, obj, repaired)) break;  // half-written: wait for more bytes
      ++result.lines;
      ++result.objects;
      if (repaired) ++result.repaired_lines;
      on_object(obj, base_offset + pos);
      // Trailing NUL padding stays unconsumed (see above): the line itself is taken.
      while (len > 0 && data[pos + len - 1] == '\0') --len;
      pos += len;
      line_done(base_offset + pos, std::string_view(data + line_start, pos - line_start), result);
      break;
    }
    size_t end = static_cast<const char*>(nl) - data;
    size_t len = end - pos;
    if (!is_blank(data + pos, len)) {
      ++result.lines;
      if (len > max_line_bytes_) {
        ++result.oversized_lines;  // whole in the buffer (a test's small limit): skipped all the same
      } else {
        parse_line(data + pos, len, base_offset + pos, on_object, result);
      }
    }
    pos = end + 1;
    line_done(base_offset + pos, std::string_view(data + line_start, pos - line_start), result);
  }
  return pos;
}

void JsonlReader::keep_tail(std::string& tail, std::string_view consumed) {
  if (consumed.size() >= kTailBytes) {
    tail.assign(consumed.substr(consumed.size() - kTailBytes));
    return;
  }
  tail.append(consumed);
  if (tail.size() > kTailBytes) tail.erase(0, tail.size() - kTailBytes);
}

JsonlReadResult JsonlReader::read(const std::string& path, uint64_t offset, const JsonObjectHandler& on_object,
                                  const LineDoneHandler& on_line_done) {
  JsonlReadResult result;
  result.end_offset = offset;
  on_line_done_ = &on_line_done;
  struct Unset {
    const LineDoneHandler*& p;
    ~Unset() { p = nullptr; }
  } unset{on_line_done_};
  ByteSource src;
  std::string error;
  if (!src.open(path, offset, error)) {
    result.ok = false;
    result.error = path + ": " + error;
    return result;
  }

  std::string buf;
  uint64_t buf_base = offset;  // offset of buf[0]
  size_t filled = 0;
  bool skipping = false;  // inside an oversized line: drop bytes up to its newline
  bool at_eof = src.at_end();
  while (!at_eof) {
    // A partial line grows the buffer, but never past max_line_bytes + 1 (then it is oversized).
    size_t want = filled == 0 ? kChunkBytes : std::min(std::max(kChunkBytes, filled), max_line_bytes_ + 1 - filled);
    want = src.max_next(want);
    buf.resize(filled + want + simdjson::SIMDJSON_PADDING);
    ssize_t n = src.read(buf.data() + filled, want, error);
    if (n < 0) {  // every complete line before the damage is consumed already
      result.ok = false;
      result.error = path + ": " + error;
      return result;
    }
    filled += static_cast<size_t>(n);
    result.bytes_read += static_cast<uint64_t>(n);
    at_eof = n == 0 || src.at_end();
    std::memset(buf.data() + filled, ' ', simdjson::SIMDJSON_PADDING);
    size_t start = 0;
    if (skipping) {
      const void* nl = std::memchr(buf.data(), '\n', filled);
      if (nl == nullptr) {  // still inside it; end_offset stays at its start
        buf_base += filled;
        filled = 0;
        continue;
      }
      start = static_cast<const char*>(nl) - buf.data() + 1;
      skipping = false;
      result.end_offset = buf_base + start;
      result.tail.clear();  // the line's earlier bytes were dropped: the tail is what is left of it
      line_done(result.end_offset, std::string_view(buf.data(), start), result);
    }
    size_t used = start + parse_buffer(buf.data() + start, filled - start, at_eof, buf_base + start, on_object, result);
    buf_base += used;
    result.end_offset = buf_base;
    filled -= used;
    if (used > 0 && filled > 0) std::memmove(buf.data(), buf.data() + used, filled);
    if (filled > max_line_bytes_) {
      ++result.lines;
      ++result.oversized_lines;
      if (at_eof) break;  // unterminated: left for the next run, and reported again then
      skipping = true;
      buf_base += filled;
      filled = 0;
      buf = std::string();  // give the big buffer back
    }
  }
  return result;
}

}  // namespace osearch
