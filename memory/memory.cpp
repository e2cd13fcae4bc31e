#include "memory/memory.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include "ingest/utf8.h"

namespace osearch::memory {
namespace {

constexpr std::string_view kDigits = "0123456789abcdefghjkmnpqrstvwxyz";  // Crockford base32, lower case
constexpr std::array<const char*, 4> kActions{"remember", "forget", "restore", "import"};
constexpr size_t kTextProbeBytes = 64 * 1024;

void append_base32(std::string& out, uint64_t v, int digits) {
  for (int i = digits - 1; i >= 0; --i) out.push_back(kDigits[(v >> (i * 5)) & 31]);
}

}  // namespace

const char* action_name(Action a) { return kActions[static_cast<size_t>(a)]; }

std::optional<Action> parse_action(std::string_view s) {
  for (size_t i = 0; i < kActions.size(); ++i)
    if (s == kActions[i]) return static_cast<Action>(i);
  return std::nullopt;
}

std::string new_id(int64_t now_ms) {
  std::random_device rd;
  const uint64_t random = ((static_cast<uint64_t>(rd()) << 32) | rd()) & ((uint64_t{1} << 40) - 1);
  std::string id = "m";
  append_base32(id, static_cast<uint64_t>(now_ms < 0 ? 0 : now_ms), 10);
  append_base32(id, random, 8);
  return id;
}

bool valid_id_text(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) return false;
  return true;
}

bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string resolve_path(std::string_view path, std::string_view base) {
  namespace fs = std::filesystem;
  if (path.empty()) throw InvalidMemory("bad-path", "--path is empty");
  if (!valid_utf8(path)) throw InvalidMemory("bad-path", "--path is not valid UTF-8");
  fs::path p{std::string(path)};
  if (p.is_relative()) p = fs::path(std::string(base)) / p;
  const std::string abs = p.lexically_normal().string();
  struct stat st {};
  if (::stat(abs.c_str(), &st) != 0)
    throw InvalidMemory("bad-path", abs + ": " + std::strerror(errno) + " (a memory is an existing file)");
  if (!S_ISREG(st.st_mode)) throw InvalidMemory("bad-path", abs + ": not a regular file");
  const int fd = ::open(abs.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InvalidMemory("bad-path", abs + ": " + std::strerror(errno));
  std::string head(kTextProbeBytes, '\0');
  ssize_t n;
  do {
    n = ::read(fd, head.data(), head.size());
  } while (n < 0 && errno == EINTR);
  ::close(fd);
  if (n < 0) throw InvalidMemory("bad-path", abs + ": " + std::strerror(errno));
  head.resize(static_cast<size_t>(n));
  if (head.find('\0') != std::string::npos) throw InvalidMemory("bad-path", abs + ": not a text file (it holds NUL bytes)");
  return abs;
}

Anchor parse_anchor(std::string_view text) {
  const size_t colon = text.find(':');
  auto bad = [&](const char* why) {
    return InvalidMemory("bad-anchor", "--anchor '" + std::string(text) + "': " + why + " (KIND:PATH[:LINE])");
  };
  if (colon == std::string_view::npos) throw bad("no ':'");
  Anchor a;
  a.kind = std::string(text.substr(0, colon));
  if (a.kind.empty()) throw bad("empty KIND");
  for (char c : a.kind)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
      throw bad("KIND is letters, digits, '_' and '-'");
  std::string_view rest = text.substr(colon + 1);
  const size_t last = rest.rfind(':');
  if (last != std::string_view::npos && last + 1 < rest.size() && last > 0) {
    std::string_view digits = rest.substr(last + 1);
    bool all = digits.size() <= 18;
    for (char c : digits) all = all && c >= '0' && c <= '9';
    if (all) {
      for (char c : digits) a.line = a.line * 10 + static_cast<uint64_t>(c - '0');
      rest = rest.substr(0, last);
    }
  }
  if (rest.empty()) throw bad("empty PATH");
  if (!valid_utf8(text)) throw bad("not valid UTF-8");
  a.path = std::string(rest);
  return a;
}

std::optional<std::string> read_text(const std::string& path, size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return std::nullopt;
  }
  std::string out;
  char buf[65536];
  while (out.size() < max_bytes) {
    const ssize_t n = ::read(fd, buf, std::min(sizeof buf, max_bytes - out.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace osearch::memory
