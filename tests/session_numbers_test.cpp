// Session numbers (engine/store/session_numbers.h): the text index's documents name their session by
// a number the records env gives once and never reuses. These tests hold the invariants a query's
// collapse, counts and epochs rest on: every session has exactly one number, both directions agree,
// every document's value names the session of its message key, and a session that is re-read,
// pruned or imported again keeps its number, so its older documents stay hidden.
#include "tests/index_fixture.h"

#include <sstream>

#include "engine/query/archive_ops.h"
#include "engine/query/check.h"
#include "engine/query/search.h"
#include "engine/store/codec.h"
#include "engine/store/session_numbers.h"

namespace {

// session id -> number, checked against both tables and every live document of the index.
std::map<std::string, uint32_t> checked_numbers(const std::string& idx) {
  IndexReader r(idx);
  std::map<std::string, uint32_t> numbers;
  std::set<uint32_t> seen;
  for (const auto& [id, s] : all_sessions(idx)) {
    INFO("session " << id);
    auto n = find_session_number(r.txn(), r.db(), id);
    REQUIRE(n);
    CHECK(session_of_number(r.txn(), r.db(), *n) == std::optional<std::string>(id));
    CHECK(seen.insert(*n).second);  // one session per number
    numbers[id] = *n;
  }
  CHECK(Store::entries(r.txn(), r.db().session_numbers) == Store::entries(r.txn(), r.db().sessions_by_number));
  Xapian::Database& x = r.xapian();
  size_t documents = 0;
  for (auto it = x.postlist_begin(""); it != x.postlist_end(""); ++it) {
    const Xapian::Document doc = x.get_document(*it);
    if (!doc.get_value(kSlotMemory).empty() || !is_live(doc, r.epochs())) continue;
    const std::string key = doc.get_value(kSlotKey);
    const std::optional<std::string> sid = r.session_of_value(doc.get_value(kSlotSession));
    REQUIRE(sid);
    if (!key.empty()) CHECK(*sid == session_of_message_key(key));  // a message's
    else CHECK(numbers.count(*sid));                               // a title's: a stored session
    ++documents;
  }
  CHECK(documents > 0);
  return numbers;
}

uint32_t number_of(const std::string& idx, const std::string& sid) {
  IndexReader r(idx);
  auto n = find_session_number(r.txn(), r.db(), sid);
  REQUIRE(n);
  return *n;
}

size_t keyword_messages(const std::string& idx, const std::string& q) {
  IndexReader reader(idx);
  Filters f;
  f.limit = 1000;
  KeywordOptions o;
  o.by_message = true;
  return run_keyword(reader, q, f, o).hits.size();
}

// An index of two sessions of the Claude sample (kAlex, kPosh).
struct TwoSessions {
  TempDir tmp;
  std::string src = tmp / "src", idx = tmp / "idx";
  explicit TwoSessions(const std::string& name) : tmp(name) {
    copy_subtree(claude_data_dir(), kAlex, src);
    copy_subtree(claude_data_dir(), kPosh, src);
    index_tree(idx, src);
  }
};

// What `check` names, a problem a line.
std::string check_problems(const std::string& idx) {
  std::string all;
  for (const auto& p : check_index(idx).parts)
    if (!p.ok) all += p.problem + "\n";
  return all;
}

}  // namespace

TEST_CASE("session numbers: one per session, both ways, in every document; new sessions continue the count",
          "[index][values]") {
  TwoSessions t("numbers");
  const std::string &src = t.src, &idx = t.idx;
  const auto first = checked_numbers(idx);
  REQUIRE(first.size() == 2);
  CHECK(index_ok(idx));

  copy_tree(claude_data_dir(), src);  // every other session of the sample, in a second run
  index_tree(idx, src);
  const auto second = checked_numbers(idx);
  CHECK(second.size() > first.size());
  const uint32_t last_first = std::max(first.begin()->second, std::next(first.begin())->second);
  for (const auto& [id, n] : second) {
    INFO(id);
    if (first.count(id)) CHECK(n == first.at(id));  // kept
    else CHECK(n > last_first);                     // given after the first run's
  }
  CHECK(index_ok(idx));

  SECTION("--full and --compact number afresh, consistently") {
    index_tree(idx, src, full_options());
    CHECK(checked_numbers(idx).size() == second.size());
    CHECK(index_ok(idx));
    RunResult r = run_osearch({"--index", idx, "--source", "claude=" + src, "index", "--compact"});
    INFO(r.err);
    REQUIRE(r.ok());
    CHECK(checked_numbers(idx).size() == second.size());
    CHECK(index_ok(idx));
  }
}

TEST_CASE("session numbers: a re-read session keeps its number, and its older documents stay hidden",
          "[index][values]") {
  TempDir tmp("numbers-reread");
  const std::string src = tmp / "src", idx = tmp / "idx";
  copy_subtree(claude_data_dir(), kAlex, src);
  const std::string file = src + "/" + kAlex;
  const std::string original = read_file(file);
  append_file(file, user_line(kAlexId, "aaaaaaaa-0000-4000-8000-000000000001", "quokkazebra appended once"));
  index_tree(idx, src);
  const uint32_t before = number_of(idx, kAlexId);
  CHECK(keyword_sessions(idx, "quokkazebra") == std::set<std::string>{kAlexId});

  write_file(file, original);  // shrank: the session is dropped and read again whole, a new epoch
  index_tree(idx, src);
  CHECK(number_of(idx, kAlexId) == before);
  CHECK(keyword_sessions(idx, "quokkazebra").empty());  // the older epoch's document is hidden
  CHECK(keyword_messages(idx, "quokkazebra") == 0);
  CHECK_FALSE(keyword_sessions(idx, "codeowners").empty());  // the new epoch's are found
  checked_numbers(idx);
  CHECK(index_ok(idx));
}

TEST_CASE("session numbers: a pruned session imported again comes back under its number, found once",
          "[archive][values]") {
  TwoSessions t("numbers-prune");
  const std::string &src = t.src, &idx = t.idx;
  const uint32_t before = number_of(idx, kPoshId);
  fs::remove(src + "/" + kPosh);
  index_tree(idx, src);  // archived
  std::string lines;
  run_export(idx, ExportOptions{}, [&](std::string_view line) { lines.append(line).push_back('\n'); });
  REQUIRE(std::count(lines.begin(), lines.end(), '\n') == 1);
  REQUIRE(run_prune(idx, roots_of(src), PruneOptions{}).sessions.size() == 1);
  CHECK(keyword_sessions(idx, "gotcha").empty());

  std::istringstream in(lines);
  ImportResult r = run_import(idx, roots_of(src), in, ImportOptions{});
  CHECK(r.imported == 1);
  CHECK(number_of(idx, kPoshId) == before);
  CHECK(keyword_sessions(idx, "gotcha") == std::set<std::string>{kPoshId});
  const size_t once = keyword_messages(idx, "gotcha");
  CHECK(once > 0);
  checked_numbers(idx);
  CHECK(index_ok(idx));

  SECTION("into another index it gets that index's next number") {
    TempDir t2("numbers-other");
    const std::string other = t2 / "idx", other_src = t2 / "src";
    copy_subtree(claude_data_dir(), kSample, other_src);
    index_tree(other, other_src);
    std::istringstream again(lines);
    CHECK(run_import(other, roots_of(other_src), again, ImportOptions{}).imported == 1);
    CHECK(number_of(other, kPoshId) == number_of(other, kSampleId) + 1);
    CHECK(keyword_messages(other, "gotcha") == once);
    checked_numbers(other);
    CHECK(index_ok(other));
  }
}

TEST_CASE("session numbers: check names a session without one and a pair that disagrees", "[check][values]") {
  TwoSessions t("numbers-check");
  const std::string& idx = t.idx;
  REQUIRE(index_ok(idx));
  const uint32_t alex = number_of(idx, kAlexId);
  SECTION("a session without a number") {
    {
      Store store(idx, Store::Mode::Write);
      LmdbTxn w(store.env(), false);
      w.del(store.db().session_numbers, kAlexId);
      w.commit();
    }
    const std::string p = check_problems(idx);
    CHECK(p.find("1 sessions have no number") != std::string::npos);
    CHECK(p.find("sessions_by_number") != std::string::npos);  // its reverse entry names nobody now
  }
  SECTION("two directions that disagree") {
    {
      Store store(idx, Store::Mode::Write);
      LmdbTxn w(store.env(), false);
      std::string be;
      put_be32(be, alex);
      w.put(store.db().sessions_by_number, be, kPoshId);
      w.commit();
    }
    CHECK(check_problems(idx).find("do not decode") != std::string::npos);
  }
  SECTION("a msg_uuid entry under another session's number") {
    const uint32_t posh = number_of(idx, kPoshId);
    {
      Store store(idx, Store::Mode::Write);
      LmdbTxn w(store.env(), false);
      std::string key, value;
      {
        LmdbCursor cur(w, store.db().msg_uuid);
        REQUIRE(cur.first());
        key = cur.key();
        value = cur.value();
      }
      // The same uuid and message key, filed under the other session's number.
      std::string moved;
      put_be32(moved, get_be32(key) == alex ? posh : alex);
      moved.append(key.substr(4));
      w.put(store.db().msg_uuid, moved, value);
      w.commit();
    }
    CHECK(check_problems(idx).find("records of `msg_uuid` do not decode") != std::string::npos);
  }
}

// `list` and a --since (keyword's few sessions, content's ranges) find sessions through the time
// order: a session missing from it, or an entry that names no session's time, is damage check names.
TEST_CASE("check names a session missing from the time order, and an entry there that names no session's time",
          "[check]") {
  TwoSessions t("time-order-check");
  const std::string& idx = t.idx;
  REQUIRE(index_ok(idx));
  const int64_t ended = all_sessions(idx).at(kAlexId).ended_at;
  SECTION("a session missing") {
    {
      Store store(idx, Store::Mode::Write);
      LmdbTxn w(store.env(), false);
      REQUIRE(w.del(store.db().sess_by_time, session_time_key(ended, kAlexId)));
      w.commit();
    }
    const std::string p = check_problems(idx);
    INFO(p);
    CHECK(p.find("1 sessions are missing from the time order") != std::string::npos);
    CHECK(p.find("holds") == std::string::npos);  // (the count agrees with the one missing)
  }
  SECTION("an entry at a time that is no session's") {
    {
      Store store(idx, Store::Mode::Write);
      LmdbTxn w(store.env(), false);
      w.put(store.db().sess_by_time, session_time_key(ended + 1, kAlexId), "");
      w.commit();
    }
    const std::string p = check_problems(idx);
    INFO(p);
    CHECK(p.find("`sess_by_time` holds 3 entries for 2 sessions") != std::string::npos);
  }
}
