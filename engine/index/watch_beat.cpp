#include "engine/index/watch_beat.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "engine/store/codec.h"
#include "engine/store/errors.h"
#include "engine/store/index_damage.h"
#include "engine/store/store.h"

namespace osearch {
namespace {

// Layout: "osb1", be64 checked_at_ns (CLOCK_BOOTTIME), be64 pid, host and roots (engine/store/codec
// strings), be64 FNV-1a of everything before it.
constexpr std::string_view kMagic = "osb1";
constexpr size_t kMaxBeatBytes = 64 * 1024;

std::string beat_path(const std::string& index_dir) { return index_dir + "/watch.beat"; }

std::string roots_key(const std::vector<SourceRoot>& roots) {
  std::string key;
  for (const auto& r : roots) {
    key += r.agent;
    key.push_back('\0');
    // Absolute: the same relative root from another working directory is another directory.
    std::error_code ec;
    const std::filesystem::path abs = std::filesystem::absolute(r.dir, ec);
    key += ec ? r.dir : abs.lexically_normal().string();
    key.push_back('\n');
  }
  return key;
}

std::string host_name() {
  struct utsname u {};
  if (::uname(&u) != 0) return {};
  return u.nodename;
}

struct Beat {
  int64_t checked_at_ns = 0;
  long pid = 0;
  std::string_view host, roots;
};

// The fixed-width time and pid keep every rewrite the same length.
std::string encode(int64_t checked_at_ns, std::string_view host, std::string_view roots) {
  Encoder e;
  e.bytes().append(kMagic);
  put_be64(e.bytes(), static_cast<uint64_t>(checked_at_ns));
  put_be64(e.bytes(), static_cast<uint64_t>(::getpid()));
  e.str(host);
  e.str(roots);
  put_be64(e.bytes(), fnv1a64(e.bytes()));
  return e.take();
}

std::optional<Beat> decode(std::string_view bytes) {
  if (!bytes.starts_with(kMagic) || bytes.size() < kMagic.size() + 16 + 8) return std::nullopt;
  Beat b;
  b.checked_at_ns = static_cast<int64_t>(get_be64(bytes, kMagic.size()));
  b.pid = static_cast<long>(get_be64(bytes, kMagic.size() + 8));
  Decoder r(bytes, kMagic.size() + 16);
  b.host = r.str();
  b.roots = r.str();
  if (!r.ok() || bytes.size() - r.pos() != 8) return std::nullopt;
  if (get_be64(bytes, r.pos()) != fnv1a64(bytes.substr(0, r.pos()))) return std::nullopt;
  return b;
}

// Opens the beat file and, when a live watcher holds it, reads the beat (nullopt: no live watcher,
// or nothing believable in the file).
struct Observed {
  bool held = false;
  std::optional<Beat> beat;
  std::string bytes;  // what `beat` points into
};
Observed observe(const std::string& index_dir) {
  Observed o;
  const int fd = ::open(beat_path(index_dir).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return o;
  if (::flock(fd, LOCK_SH | LOCK_NB) == 0) {  // nobody holds it: no watcher alive
    ::close(fd);
    return o;
  }
  o.held = errno == EWOULDBLOCK;
  if (o.held) {
    // Usually a few hundred bytes: one small read, a bigger one only for very long roots.
    for (size_t want : {size_t{4096}, kMaxBeatBytes}) {
      o.bytes.resize(want);
      const ssize_t n = ::pread(fd, o.bytes.data(), o.bytes.size(), 0);
      o.bytes.resize(n > 0 ? static_cast<size_t>(n) : 0);
      if (o.bytes.size() < want) break;
    }
    o.beat = decode(o.bytes);
  }
  ::close(fd);
  return o;
}

bool believed(const Observed& o, const std::vector<SourceRoot>& roots) {
  if (!o.held || !o.beat) return false;
  const int64_t age = boottime_ns() - o.beat->checked_at_ns;
  return age >= 0 && age <= kBeatTrustNs && o.beat->roots == roots_key(roots) && o.beat->host == host_name();
}

}  // namespace

int64_t boottime_ns() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_BOOTTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

WatchBeat::WatchBeat(const std::string& index_dir, const std::vector<SourceRoot>& roots) : roots_(roots_key(roots)) {
  make_private_dir(index_dir);
  const std::string path = beat_path(index_dir);
  fd_ = open_index_file(path, O_RDWR | O_CREAT);
  if (fd_ < 0) {
    refuse_symlink(path, "watch.beat");
    if (errno == EACCES || errno == EPERM || errno == EROFS) throw ReadOnlyIndex(path + ": " + std::strerror(errno));
    throw_write_error(errno, "open", path);
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    if (err != EWOULDBLOCK) throw_write_error(err, "lock", path);
    Observed o = observe(index_dir);
    const std::string who = o.beat ? " (pid " + std::to_string(o.beat->pid) + ")" : "";
    throw IndexError("watcher-running", "another `osearch index --watch`" + who + " is watching the index at " +
                                            index_dir + "; stop it first");
  }
  withdraw();
}

WatchBeat::~WatchBeat() {
  if (fd_ < 0) return;
  withdraw();  // (the lock goes with the close anyway; this makes the file say so too)
  ::close(fd_);
}

void WatchBeat::write(int64_t checked_at_ns) {
  std::string out = encode(checked_at_ns, host_name(), roots_);
  if (out.size() > kMaxBeatBytes) out = encode(0, {}, {});  // roots too long to vouch for: never believed
  // A rewrite in place: a reader sees the old beat, the new one or a mix the checksum refuses.
  // Errors only cost the queries their shortcut.
  if (::pwrite(fd_, out.data(), out.size(), 0) == static_cast<ssize_t>(out.size()))
    (void)::ftruncate(fd_, static_cast<off_t>(out.size()));
}

void WatchBeat::beat(int64_t checked_at_ns) { write(checked_at_ns); }

void WatchBeat::withdraw() { write(0); }

bool watcher_keeps_current(const std::string& index_dir, const std::vector<SourceRoot>& roots) {
  return believed(observe(index_dir), roots);
}

WatcherState watcher_state(const std::string& index_dir, const std::vector<SourceRoot>& roots) {
  const Observed o = observe(index_dir);
  WatcherState s;
  if (o.held && o.beat) s.pid = o.beat->pid;
  s.current = believed(o, roots);
  return s;
}

}  // namespace osearch
