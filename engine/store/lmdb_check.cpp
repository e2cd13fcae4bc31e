#include "engine/store/lmdb_check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace osearch {
namespace {

// LMDB 0.9 on a 64-bit host (mdb.c): a 16-byte page header (pgno, pad, flags, lower/upper), then
// MDB_meta: magic u32, version u32, address u64, mapsize u64, two MDB_db of 48 bytes (pad u32 —
// the page size in the free DB's —, flags u16, depth u16, branch/leaf/overflow/entries u64, root
// u64), last_pg u64, txnid u64.
constexpr size_t kPageHeader = 16;
constexpr size_t kMetaBytes = kPageHeader + 4 + 4 + 8 + 8 + 2 * 48 + 8 + 8;
constexpr uint32_t kMagic = 0xBEEFC0DE;
constexpr uint32_t kDataVersion = 1;
constexpr uint16_t kPageMeta = 0x08;
constexpr uint64_t kInvalidPage = ~uint64_t{0};

template <typename T>
T load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

struct Meta {
  bool sound = false;
  uint32_t page_size = 0;
  uint64_t roots[2] = {0, 0};
  uint64_t last_page = 0, txnid = 0;
};

Meta parse_meta(const unsigned char* page) {
  Meta m;
  const unsigned char* meta = page + kPageHeader;
  if ((load<uint16_t>(page + 10) & kPageMeta) == 0) return m;
  if (load<uint32_t>(meta) != kMagic || load<uint32_t>(meta + 4) != kDataVersion) return m;
  const unsigned char* dbs = meta + 24;
  m.page_size = load<uint32_t>(dbs);  // the free DB's md_pad
  m.roots[0] = load<uint64_t>(dbs + 40);
  m.roots[1] = load<uint64_t>(dbs + 48 + 40);
  m.last_page = load<uint64_t>(dbs + 96);
  m.txnid = load<uint64_t>(dbs + 104);
  m.sound = m.page_size >= 512 && m.page_size <= (1u << 16) && (m.page_size & (m.page_size - 1)) == 0;
  return m;
}

bool read_at(int fd, unsigned char* buf, size_t n, uint64_t off) {
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(fd, buf + done, n - done, static_cast<off_t>(off + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    done += static_cast<size_t>(r);
  }
  return true;
}

std::string one_look(const std::string& env_dir) {
  const std::string path = env_dir + "/data.mdb";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) return "";
    return path + ": " + std::strerror(errno);
  }
  struct stat st{};
  unsigned char first[kMetaBytes], second[kMetaBytes];
  std::string problem;
  if (::fstat(fd, &st) != 0) {
    problem = path + ": " + std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    problem = path + ": not a regular file";
  } else if (static_cast<uint64_t>(st.st_size) < kMetaBytes || !read_at(fd, first, kMetaBytes, 0)) {
    problem = path + ": too short for an LMDB file (" + std::to_string(st.st_size) + " bytes)";
  } else {
    const Meta m0 = parse_meta(first);
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    if (!m0.sound) {
      problem = path + ": meta page 0 is damaged";
    } else if (size < 2ull * m0.page_size || !read_at(fd, second, kMetaBytes, m0.page_size)) {
      problem = path + ": truncated to " + std::to_string(size) + " bytes (the meta pages alone take " +
                std::to_string(2ull * m0.page_size) + ")";
    } else if (const Meta m1 = parse_meta(second); !m1.sound || m1.page_size != m0.page_size) {
      problem = path + ": meta page 1 is damaged";
    } else {
      // LMDB uses the meta with the higher transaction id and falls back to the other; the file
      // never shrinks, so both must lie inside it. A writer may have committed since the fstat
      // above (it writes its pages before the meta that names them): measure the file again now
      // that the metas are read, or a live index under load looks truncated.
      struct stat now{};
      const uint64_t grown = ::fstat(fd, &now) == 0 ? static_cast<uint64_t>(now.st_size) : size;
      const uint64_t pages = std::max(size, grown) / m0.page_size;
      for (const Meta* m : {&m0, &m1}) {
        if (!problem.empty()) break;
        if (m->last_page >= pages) {
          problem = path + ": truncated: " + std::to_string(std::max(size, grown)) + " bytes hold " + std::to_string(pages) +
                    " pages, the committed data needs " + std::to_string(m->last_page + 1);
          break;
        }
        for (uint64_t root : m->roots)
          if (root != kInvalidPage && (root < 2 || root > m->last_page))
            problem = path + ": a B-tree root points outside the file (page " + std::to_string(root) + ")";
      }
    }
  }
  ::close(fd);
  return problem;
}

}  // namespace

// A live writer pwrites a meta page while this preads it, so one look can mix two commits' fields
// (seen once under load). Damage stays put: a problem is reported only when three looks, a little
// apart, all see one.
std::string lmdb_data_problem(const std::string& env_dir) {
  std::string problem;
  for (int look = 0; look < 3; ++look) {
    if (look > 0) ::usleep(2000);
    problem = one_look(env_dir);
    if (problem.empty()) return problem;
  }
  return problem;
}

}  // namespace osearch
