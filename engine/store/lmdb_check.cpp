#include "engine/store/lmdb_check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

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
  uint64_t roots[2] = {0, 0};  // the free DB's, the main DB's
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

// Page and node layout (mdb.c, 64-bit): a page header is pgno u64, pad u16, flags u16, then
// lower/upper u16 (an overflow page's page count u32 in their place) and the node offsets, u16 each.
// A node is lo/hi u16 (a leaf's data size; a branch's child page with flags as its top word),
// flags u16, key size u16, then key and data.
constexpr uint16_t kPageBranch = 0x01, kPageLeaf = 0x02, kPageOverflow = 0x04;
constexpr uint16_t kNodeBigData = 0x01;
constexpr size_t kNodeHeader = 8;
constexpr int kMaxDepth = 64;
constexpr size_t kMaxPagesRead = size_t{1} << 16;

// Whether every page from `first` to `last` (inclusive) is on the free list `m` commits. LMDB does
// not write a page it allocated and freed in one transaction (a loose page, or an overflow run
// given back to the free list), yet counts it in last_pg: a sound file may end before last_pg, and
// only pages past the end that nothing but the free list names tell that apart from truncation.
// Walks the free DB with pread; any page it needs outside the file or malformed is a "no".
class FreeListWalk {
 public:
  FreeListWalk(int fd, uint64_t page_size, uint64_t file_pages) : fd_(fd), page_size_(page_size), file_pages_(file_pages) {}

  bool covers(const Meta& m, uint64_t first, uint64_t last) {
    if (m.roots[0] == kInvalidPage) return false;
    if (!walk(m.roots[0], 0)) return false;
    std::sort(free_.begin(), free_.end());
    free_.erase(std::unique(free_.begin(), free_.end()), free_.end());
    auto lo = std::lower_bound(free_.begin(), free_.end(), first);
    auto hi = std::upper_bound(lo, free_.end(), last);
    return static_cast<uint64_t>(hi - lo) == last - first + 1;
  }

 private:
  bool read_page(uint64_t pgno, std::vector<unsigned char>& page) {
    if (pgno < 2 || pgno >= file_pages_ || ++pages_read_ > kMaxPagesRead) return false;
    page.resize(page_size_);
    return read_at(fd_, page.data(), page_size_, pgno * page_size_) && load<uint64_t>(page.data()) == pgno;
  }

  bool walk(uint64_t pgno, int depth) {
    std::vector<unsigned char> page;
    if (depth > kMaxDepth || !read_page(pgno, page)) return false;
    const uint16_t flags = load<uint16_t>(page.data() + 10);
    const uint16_t lower = load<uint16_t>(page.data() + 12);
    if ((flags & (kPageBranch | kPageLeaf)) == 0 || lower < kPageHeader || lower > page_size_) return false;
    const size_t keys = (lower - kPageHeader) / 2;
    for (size_t i = 0; i < keys; ++i) {
      const size_t at = load<uint16_t>(page.data() + kPageHeader + 2 * i);
      if (at < lower || at + kNodeHeader > page_size_) return false;
      const unsigned char* node = page.data() + at;
      const uint64_t lo = load<uint16_t>(node), hi = load<uint16_t>(node + 2), node_flags = load<uint16_t>(node + 4);
      const size_t key_size = load<uint16_t>(node + 6);
      if (flags & kPageBranch) {
        if (!walk(lo | (hi << 16) | (node_flags << 32), depth + 1)) return false;
        continue;
      }
      const size_t data_size = lo | (hi << 16);
      const size_t data_at = at + kNodeHeader + key_size;
      if (node_flags & kNodeBigData) {
        if (data_at + 8 > page_size_ || !read_overflow(load<uint64_t>(page.data() + data_at), data_size)) return false;
      } else if (data_at + data_size > page_size_ || !take_ids(page.data() + data_at, data_size)) {
        return false;
      }
    }
    return true;
  }

  bool read_overflow(uint64_t pgno, size_t data_size) {
    std::vector<unsigned char> head;
    if (!read_page(pgno, head) || (load<uint16_t>(head.data() + 10) & kPageOverflow) == 0) return false;
    const uint64_t run = load<uint32_t>(head.data() + 12);
    if (run == 0 || pgno + run > file_pages_ || kPageHeader + data_size > run * page_size_) return false;
    std::vector<unsigned char> data(data_size);
    return read_at(fd_, data.data(), data_size, pgno * page_size_ + kPageHeader) && take_ids(data.data(), data_size);
  }

  // An IDL: a count, then that many page numbers (u64 each).
  bool take_ids(const unsigned char* data, size_t size) {
    if (size < 8) return false;
    const uint64_t count = load<uint64_t>(data);
    if (count > (size - 8) / 8) return false;
    for (uint64_t i = 1; i <= count; ++i)
      if (const uint64_t id = load<uint64_t>(data + 8 * i); id >= file_pages_) free_.push_back(id);
    return true;
  }

  int fd_;
  uint64_t page_size_, file_pages_;
  size_t pages_read_ = 0;
  std::vector<uint64_t> free_;  // free pages at or past the end of the file
};

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
      // never shrinks, so both must lie inside it (but for pages only their free list names). A
      // writer may have committed since the fstat above (it writes its pages before the meta that
      // names them): measure the file again now that the metas are read, or a live index under
      // load looks truncated.
      struct stat now{};
      const uint64_t grown = ::fstat(fd, &now) == 0 ? static_cast<uint64_t>(now.st_size) : size;
      const uint64_t pages = std::max(size, grown) / m0.page_size;
      for (const Meta* m : {&m0, &m1}) {
        if (!problem.empty()) break;
        if (m->last_page >= pages && !FreeListWalk(fd, m0.page_size, pages).covers(*m, pages, m->last_page)) {
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
