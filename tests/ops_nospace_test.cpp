// A full disk: every write failure of the index that is ENOSPC/EDQUOT (or LMDB's EIO for a short
// write on a full file system) says so plainly, exit 1 with kind "no-space", and the next run
// after space is freed ends like a clean build. The real test fills a small private tmpfs.
#include "tests/ops_fixture.h"

#include <sys/statvfs.h>

#include "engine/store/errors.h"

namespace {

uint64_t free_bytes(const std::string& path) {
  struct statvfs st {};
  REQUIRE(::statvfs(path.c_str(), &st) == 0);
  return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

// Fills the file system of `dir` until `room` bytes are left.
void leave_room(const std::string& filler, uint64_t room) {
  const uint64_t avail = free_bytes(fs::path(filler).parent_path().string());
  std::string chunk(1 << 20, 'f');
  uint64_t want = avail > room ? avail - room : 0;
  int fd = ::open(filler.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  REQUIRE(fd >= 0);
  while (want > 0) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(want, chunk.size()));
    ssize_t w = ::write(fd, chunk.data(), n);
    if (w <= 0) break;
    want -= static_cast<uint64_t>(w);
  }
  ::close(fd);
}

}  // namespace

TEST_CASE("ops: write errors map to no-space only for ENOSPC, EDQUOT and EIO on a full file system",
          "[hardening][ops][nospace]") {
  TempDir tmp("nospace-unit");
  CHECK(is_no_space(ENOSPC));
  CHECK(is_no_space(EDQUOT));
  CHECK_FALSE(is_no_space(EIO));
  CHECK(write_failed_for_space(ENOSPC, tmp.path()));
  CHECK(write_failed_for_space(EDQUOT, tmp / "missing/deeper"));
  CHECK_FALSE(write_failed_for_space(EACCES, tmp.path()));
  if (free_bytes(tmp.path()) > (16u << 20)) CHECK_FALSE(write_failed_for_space(EIO, tmp.path()));
  try {
    throw_write_error(ENOSPC, "write", tmp / "text.log");
    FAIL("no exception");
  } catch (const NoSpace& e) {
    CHECK(std::string(e.kind()) == "no-space");
    CHECK(std::string(e.what()).rfind("no space left on device writing " + tmp / "text.log", 0) == 0);
  }
  try {
    throw_write_error(EACCES, "write", tmp / "text.log");
    FAIL("no exception");
  } catch (const NoSpace&) {
    FAIL("EACCES is not a full disk");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("Permission denied") != std::string::npos);
  }
}

TEST_CASE("ops: a full disk fails index with kind no-space; after freeing space the next run ends like a clean build",
          "[hardening][ops][nospace]") {
  TempDir tmp("nospace");
  const std::string src = tmp / "src";
  copy_projects(src, "");
  const std::string ref = tmp / "ref";
  index_tree(ref, src);
  const auto ref_fp = fingerprint(ref);
  uint64_t index_bytes = 0;
  for (const auto& f : list_files(ref)) index_bytes += file_size(ref + "/" + f);

  // Only in a mount namespace of our own (as root, or as a user in a user namespace): where
  // neither can be made, no real ENOSPC can be produced, and the mapping is checked above only.
  PrivateTmpfs disk(tmp / "mnt", 64u << 20);
  if (disk.error() != 0) {
    WARN("no private tmpfs (" << std::strerror(disk.error()) << "): the real disk-full runs are left out");
    return;
  }
  REQUIRE(fs::exists(disk.path()));
  const std::string filler = disk.path() + "/filler";
  std::set<std::string> failures;
  int no_space_runs = 0;
  // From a few KB of room (the first LMDB or text log write fails) to nearly the whole index (the
  // last compaction or repack fails); fresh builds and an update of an existing index.
  const std::vector<uint64_t> rooms = {16u << 10, 256u << 10, index_bytes / 4, index_bytes / 2, index_bytes * 3 / 4,
                                       index_bytes - (index_bytes / 8)};
  for (size_t i = 0; i < rooms.size(); ++i) {
    const std::string idx = disk.path() + "/idx" + std::to_string(i);
    INFO("room " << rooms[i] << " of an index of " << index_bytes << " bytes");
    const bool update = i % 2 == 1;
    INFO((update ? "an update of an index of half the projects" : "a fresh build"));
    if (update) {
      // Half the projects indexed first (with room to spare), the rest on the full disk.
      std::vector<fs::path> projects;
      for (const auto& e : fs::directory_iterator(src)) projects.push_back(e.path());
      std::sort(projects.begin(), projects.end());
      const std::string hidden = tmp / "hidden";
      fs::create_directories(hidden);
      for (size_t k = 0; k < projects.size() / 2; ++k) fs::rename(projects[k], hidden + "/" + projects[k].filename().string());
      REQUIRE(run_osearch({"index", "--index", idx, "--source", "claude=" + src}).exit_code == 0);
      for (size_t k = 0; k < projects.size() / 2; ++k) fs::rename(hidden + "/" + projects[k].filename().string(), projects[k]);
    }
    leave_room(filler, rooms[i]);
    RunResult r = run_osearch({"index", "--index", idx, "--source", "claude=" + src, "--format", "json"});
    INFO("stderr: " << r.err);
    if (r.exit_code != 0) {
      CHECK(r.exit_code == 1);
      CHECK(error_kind(r.err) == "no-space");
      CHECK(r.err.find("no space left on device writing " + disk.path()) != std::string::npos);
      CHECK(r.err.find("Input/output error\"") == std::string::npos);
      ++no_space_runs;
      failures.insert(r.err.substr(0, 160));
      // A query on the full disk answers from what was committed, flagged stale (its refresh
      // failed), or finds no index.
      RunResult q = run_osearch({"list", "--index", idx, "--source", "claude=" + src, "--format", "json"});
      INFO("query stderr: " << q.err);
      CHECK((q.exit_code == 0 || error_kind(q.err) == "no-index"));
      if (q.exit_code == 0) CHECK(q.out.find("\"stale\":true") != std::string::npos);
    }
    fs::remove(filler);
    RunResult again = run_osearch({"index", "--index", idx, "--source", "claude=" + src, "--format", "json"});
    INFO("after freeing space: " << again.err);
    CHECK(again.exit_code == 0);
    CHECK_SAME_INDEX(idx, ref_fp);
    fs::remove_all(idx);
  }
  INFO("failures seen:\n" << [&] {
    std::string all;
    for (const auto& f : failures) all += f + "\n";
    return all;
  }());
  CHECK(no_space_runs >= 4);
}
