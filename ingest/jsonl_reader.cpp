#include "ingest/jsonl_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace osearch {
namespace {

constexpr size_t kChunkBytes = 8u << 20;

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

bool is_blank(const char* p, size_t len) {
  for (size_t i = 0; i < len; ++i)
    if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r') return false;
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

void JsonlReader::parse_line(const char* line, size_t len, uint64_t line_offset,
                             const JsonObjectHandler& on_object, JsonlReadResult& result) {
  simdjson::dom::element obj;
  if (parse_object(line, len, obj)) {
    ++result.objects;
    on_object(obj, line_offset);
    return;
  }
  // Glued objects: a raw `}{"` cannot occur inside a JSON string (quotes there are escaped), so
  // every occurrence is an object boundary.
  std::string_view sv(line, len);
  size_t start = 0;
  bool split = false;
  while (start < len) {
    size_t cut = sv.find("}{\"", start);
    size_t end = cut == std::string_view::npos ? len : cut + 1;
    if (cut != std::string_view::npos) split = true;
    if (!split) break;
    scratch_.assign(line + start, end - start);
    scratch_.append(simdjson::SIMDJSON_PADDING, ' ');
    if (parse_object(scratch_.data(), end - start, obj)) {
      ++result.objects;
      on_object(obj, line_offset);
    } else {
      ++result.bad_lines;
    }
    start = end;
  }
  if (!split) ++result.bad_lines;
}

size_t JsonlReader::parse_buffer(const char* data, size_t size, bool at_eof, uint64_t base_offset,
                                 const JsonObjectHandler& on_object, JsonlReadResult& result) {
  size_t pos = 0;
  while (pos < size) {
    const void* nl = std::memchr(data + pos, '\n', size - pos);
    if (nl == nullptr) {
      // Unterminated tail: take it only at EOF and only when it is complete JSON.
      if (!at_eof) break;
      size_t len = size - pos;
      if (is_blank(data + pos, len)) {
        pos = size;
        break;
      }
      simdjson::dom::element obj;
      if (!parse_object(data + pos, len, obj)) break;  // half-written: wait for more bytes
      ++result.lines;
      ++result.objects;
      on_object(obj, base_offset + pos);
      pos = size;
      break;
    }
    size_t end = static_cast<const char*>(nl) - data;
    size_t len = end - pos;
    if (!is_blank(data + pos, len)) {
      ++result.lines;
      parse_line(data + pos, len, base_offset + pos, on_object, result);
    }
    pos = end + 1;
  }
  return pos;
}

JsonlReadResult JsonlReader::read(const std::string& path, uint64_t offset, const JsonObjectHandler& on_object) {
  JsonlReadResult result;
  result.end_offset = offset;
  Fd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) {
    result.ok = false;
    result.error = path + ": " + std::strerror(errno);
    return result;
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) {
    result.ok = false;
    result.error = path + ": " + std::strerror(errno);
    return result;
  }
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  if (offset >= file_size) return result;

  std::string buf;
  uint64_t read_pos = offset;     // next byte to read from the file
  uint64_t buf_base = offset;     // file offset of buf[0]
  size_t filled = 0;
  size_t want = kChunkBytes;
  while (read_pos < file_size) {
    size_t room = std::min<uint64_t>(want, file_size - read_pos);
    buf.resize(filled + room + simdjson::SIMDJSON_PADDING);
    ssize_t n = ::pread(f.fd, buf.data() + filled, room, static_cast<off_t>(read_pos));
    if (n < 0) {
      if (errno == EINTR) continue;
      result.ok = false;
      result.error = path + ": " + std::strerror(errno);
      return result;
    }
    if (n == 0) break;  // file shrank under us: stop at what we have
    filled += static_cast<size_t>(n);
    read_pos += static_cast<uint64_t>(n);
    result.bytes_read += static_cast<uint64_t>(n);
    std::memset(buf.data() + filled, ' ', simdjson::SIMDJSON_PADDING);
    bool at_eof = read_pos >= file_size;
    size_t used = parse_buffer(buf.data(), filled, at_eof, buf_base, on_object, result);
    buf_base += used;
    result.end_offset = buf_base;
    if (used < filled) {
      std::memmove(buf.data(), buf.data() + used, filled - used);
      filled -= used;
      // A line longer than the chunk: read the next chunk on top of it.
      if (used == 0) want = std::max(want, filled);
    } else {
      filled = 0;
      want = kChunkBytes;
    }
  }
  return result;
}

}  // namespace osearch
