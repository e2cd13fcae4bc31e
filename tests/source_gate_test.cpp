// SourceGate (engine/index/source_gate.h) on its own: trust only after a full check of a watched
// record, none while a caller has not confirmed the files it was handed, nothing it cannot narrow
// (a new file, another record), and no watches past its budget. The frontends' use of it, end to
// end, is tests/mcp_freshness_test.cpp.
#include "tests/index_fixture.h"

#include "engine/index/source_gate.h"
#include "engine/index/source_watch.h"
#include "engine/store/store.h"

namespace {

struct Tree {
  TempDir tmp{"gate"};
  std::string claude = tmp / "claude";
  std::string idx = tmp / "index";
  std::string transcript = claude + "/" + kB3;

  Tree() {
    make_tree(claude, {"-Users-user-project"});
    age_directories(claude, 3600);
    IndexOptions o;
    o.quick_check = true;
    run_index(idx, roots(), o);
  }
  std::vector<SourceRoot> roots() const { return {{"claude", claude}}; }
  std::string record() const {
    Store store(idx, Store::Mode::Read);
    std::optional<std::string> r = read_source_watch(store);
    REQUIRE(r);
    REQUIRE_FALSE(r->empty());
    return *r;
  }
};

const char* kLine =
    R"({"type":"user","uuid":"gate-u1","parentUuid":null,"sessionId":"b3edadab-bca0-4054-9b41-f7ffa6941260","timestamp":"2026-11-05T10:00:00.000Z","message":{"role":"user","content":"gateunitword"}})"
    "\n";

}  // namespace

TEST_CASE("source gate: trusted after a watched full check, until it cannot narrow a change", "[watch]") {
  Tree t;
  const std::string record = t.record();
  SourceGate gate(t.idx);
  CHECK_FALSE(gate.changes(record));  // nothing checked yet
  gate.trust(record);                 // nor does trust without a check count
  CHECK_FALSE(gate.changes(record));

  REQUIRE(gate.prepare(record));
  REQUIRE(check_source_watch(record, t.roots()).unchanged());
  gate.trust(record);
  auto quiet = gate.changes(record);
  REQUIRE(quiet);
  CHECK(quiet->empty());
  CHECK(gate.changes(record));  // still trusted: nothing happened

  // A transcript grows: named, and the gate waits for the caller to confirm.
  append_file(t.transcript, kLine);
  auto grown = gate.changes(record);
  REQUIRE(grown);
  CHECK(*grown == std::set<std::string>{t.transcript});
  CHECK_FALSE(gate.changes(record));  // unconfirmed: the full check again
  REQUIRE(gate.prepare(record));
  const WatchCheck full = check_source_watch(record, t.roots());
  REQUIRE(full.changed.size() == 1);
  gate.trust(full.updated_record);  // (as after a run that kept this record)
  CHECK_FALSE(gate.changes(record));  // another record than the trusted one
  REQUIRE(gate.prepare(full.updated_record));
  gate.trust(full.updated_record);
  REQUIRE(gate.changes(full.updated_record));

  // Confirmed after the narrowed check: trusted again.
  append_file(t.transcript, kLine);
  grown = gate.changes(full.updated_record);
  REQUIRE(grown);
  REQUIRE(grown->size() == 1);
  gate.trust(full.updated_record);
  CHECK(gate.changes(full.updated_record));

  // A new file in a watched directory is no in-place change: the full check decides.
  write_file(t.claude + "/-Users-user-project/new-session.jsonl", kLine);
  CHECK_FALSE(gate.changes(full.updated_record));
  CHECK_FALSE(gate.changes(full.updated_record));

  // Events about the index's own files do not count, even inside a watched directory.
  const std::string inside = t.claude + "/-Users-user-project/index";
  SourceGate own(inside);
  REQUIRE(own.prepare(full.updated_record));
  own.trust(full.updated_record);
  fs::create_directories(inside);
  write_file(inside + "/data", "x");
  auto none = own.changes(full.updated_record);
  CHECK(none);
  if (none) CHECK(none->empty());
}

TEST_CASE("source gate: no watches past its budget, and none for a record that does not decode", "[watch]") {
  Tree t;
  const std::string record = t.record();
  REQUIRE(source_watch_dirs(record).size() > 1);
  SourceGate small(t.idx, 1);
  CHECK_FALSE(small.prepare(record));
  small.trust(record);
  CHECK_FALSE(small.changes(record));
  SourceGate gate(t.idx);
  CHECK_FALSE(gate.prepare("not a record"));
  CHECK(gate.prepare(record));
}
