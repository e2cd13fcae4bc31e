// Compiled Hyperscan databases kept on disk (engine/query/pattern_cache.h).
#include "engine/query/pattern_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <filesystem>
#include <fstream>
#include <vector>

#include "engine/store/codec.h"

namespace osearch {
namespace fs = std::filesystem;
namespace {

// An entry: the magic, the key (length-prefixed), an FNV-1a checksum of the database's bytes, the
// serialized database. A refusal: its own magic, the key, nothing after.
constexpr std::string_view kMagic = "oshs2\n";
constexpr std::string_view kRefusalMagic = "oshsR\n";
constexpr uint64_t kMaxFileBytes = 256u << 20;

std::string entry_path(const std::string& dir, std::string_view key) {
  const uint64_t h = fnv1a64(key);
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.hsdb", static_cast<unsigned long long>(h));
  return dir + "/" + name;
}

// Past kPatternCacheMaxEntries, the least recently used entries go (a hit touches its entry), and
// so do temporary files a killed writer left behind.
void evict_oldest(const std::string& dir) {
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  std::error_code ec;
  const auto stale = fs::file_time_type::clock::now() - std::chrono::minutes(10);
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const auto t = e.last_write_time(ec);
    if (ec) continue;
    if (e.path().extension() == ".hsdb")
      entries.emplace_back(t, e.path());
    else if (e.path().filename().string().find(".hsdb.tmp") != std::string::npos && t < stale)
      fs::remove(e.path(), ec);
  }
  if (entries.size() <= kPatternCacheMaxEntries) return;
  std::sort(entries.begin(), entries.end());
  for (size_t i = 0; i + kPatternCacheMaxEntries < entries.size(); ++i) fs::remove(entries[i].second, ec);
}

// Writes `bytes` as the entry of `key` (a temporary file renamed over it), then evicts.
void write_entry(const std::string& dir, std::string_view key, const std::string& bytes) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return;
  const std::string path = entry_path(dir, key);
  const std::string tmp = path + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(::gettid());  // per writer thread
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return;
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const bool closed = ::close(fd) == 0;
  if (done != bytes.size() || !closed || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return;
  }
  evict_oldest(dir);
}

}  // namespace

std::string pattern_cache_key(const char* const* expressions, const unsigned* flags, const unsigned* ids,
                              unsigned count, unsigned mode) {
  std::string key = "hyperscan ";
  key += hs_version();
  hs_platform_info_t platform{};
  if (hs_populate_platform(&platform) == HS_SUCCESS) {
    key += " tune " + std::to_string(platform.tune) + " features " + std::to_string(platform.cpu_features);
  }
  key += " mode " + std::to_string(mode) + "\n";
  for (unsigned i = 0; i < count; ++i) {
    const std::string_view expr = expressions[i];
    key += "flags " + std::to_string(flags[i]) + " id " + std::to_string(ids[i]) + " bytes " +
           std::to_string(expr.size()) + "\n";
    key += expr;
    key += '\n';
  }
  return key;
}

hs_database_t* load_cached_database(const std::string& dir, std::string_view key, bool* refused) {
  if (refused) *refused = false;
  const std::string path = entry_path(dir, key);
  std::ifstream in(path, std::ios::binary);
  if (!in) return nullptr;
  in.seekg(0, std::ios::end);
  const auto size = static_cast<uint64_t>(std::max<std::streamoff>(0, in.tellg()));
  if (size > kMaxFileBytes) return nullptr;
  in.seekg(0);
  std::string bytes(size, '\0');
  if (!in.read(bytes.data(), static_cast<std::streamsize>(size))) return nullptr;
  if (std::string_view(bytes).starts_with(kRefusalMagic)) {
    Decoder r(bytes, kRefusalMagic.size());
    if (refused && r.str() == key && r.ok() && r.pos() == bytes.size()) {
      *refused = true;
      ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
    }
    return nullptr;
  }
  if (!std::string_view(bytes).starts_with(kMagic)) return nullptr;
  Decoder r(bytes, kMagic.size());
  if (r.str() != key || !r.ok() || bytes.size() - r.pos() < 8) return nullptr;  // a collision, or damage
  const std::string_view db_bytes = std::string_view(bytes).substr(r.pos() + 8);
  // Hyperscan checks a database's header, not every byte of it: a damaged one could load.
  if (get_be64(bytes, r.pos()) != fnv1a64(db_bytes)) return nullptr;
  hs_database_t* db = nullptr;
  if (hs_deserialize_database(db_bytes.data(), db_bytes.size(), &db) != HS_SUCCESS) return nullptr;
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // recently used: the last to be evicted
  return db;
}

void keep_cached_database(const std::string& dir, std::string_view key, const hs_database_t* db) {
  char* raw = nullptr;
  size_t len = 0;
  if (hs_serialize_database(db, &raw, &len) != HS_SUCCESS) return;
  std::unique_ptr<char, decltype(&std::free)> serialized(raw, &std::free);
  Encoder e;
  e.bytes().append(kMagic);
  e.str(key);
  put_be64(e.bytes(), fnv1a64(std::string_view(raw, len)));
  e.bytes().append(raw, len);
  write_entry(dir, key, e.take());
}

void keep_refusal(const std::string& dir, std::string_view key) {
  Encoder e;
  e.bytes().append(kRefusalMagic);
  e.str(key);
  write_entry(dir, key, e.take());
}

}  // namespace osearch
