// A first run killed inside LMDB's env creation leaves an empty data.mdb and nothing else: the
// next run starts the env over. The same empty file beside other parts of an index is damage.
#include "tests/index_fixture.h"

#include "engine/store/index_damage.h"

TEST_CASE("index: an empty data.mdb left by a first run killed at birth is started over", "[index][crash]") {
  TempDir tmp("unborn");
  const std::string src = tmp / "src";
  make_tree(src, {"-Users-user-project", kWindows});
  const std::string ref = tmp / "ref";
  index_tree(ref, src);

  const std::string idx = tmp / "idx";
  fs::create_directories(idx + "/records");
  write_file(idx + "/writer.lock", "");
  write_file(idx + "/records/data.mdb", "");
  IndexSummary s;
  REQUIRE_NOTHROW(s = index_tree(idx, src));
  CHECK(s.messages == counts_of(ref).messages);
  CHECK(fingerprint(idx) == fingerprint(ref));

  // Beside a text log, an empty data.mdb is a damaged index, never silently a new one.
  const std::string damaged = tmp / "damaged";
  fs::create_directories(damaged + "/records");
  write_file(damaged + "/records/data.mdb", "");
  write_file(damaged + "/text.log", "x");
  CHECK_THROWS_AS(index_tree(damaged, src), IndexDamaged);
}
