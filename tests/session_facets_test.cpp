// Session-level filters (--project, --model, --cwd, --agent, --session) decide over views of the
// session records in one pass in key order (SessionFacets; engine/query/list.cpp, session_scope.cpp,
// stats.cpp; overview.cpp views them in time order):
// the same sessions, in the same order, as a decode of every record and the time order give; a
// record that does not decode is named, never skipped.
#include "tests/agents_e2e_fixture.h"

#include <algorithm>

#include "engine/query/orient.h"
#include "engine/query/query.h"
#include "engine/query/reader.h"
#include "engine/query/search.h"
#include "engine/query/stats.h"
#include "engine/store/index_damage.h"
#include "engine/store/records_store.h"
#include "engine/store/store.h"

using namespace osearch;
using namespace agents_e2e;

namespace {

SessionRec full_record() {
  SessionRec r;
  r.id = "0b1c2d3e-0000-4000-8000-000000000001";
  r.agent = "codex";
  r.project = "-home-u-Proj";
  r.project_path = "/home/u/Proj";
  r.cwd = "/home/u/Proj/sub";
  r.jsonl_path = "/x/rollout.jsonl";
  r.git_branch = "feature/x";
  r.version = "0.5";
  r.custom_title = "custom";
  r.ai_title = "ai";
  r.summary_title = "summary";
  r.last_prompt = std::string(300, 'l');
  r.first_prompt = "first";
  r.away_summary = "away";
  r.summary_rank = "r";
  r.started_at = -5;
  r.ended_at = 1'800'000'000'000;
  r.message_count = 300;
  r.tool_call_count = 7;
  r.subagent_count = 2;
  r.has_main = true;
  r.models = {"gpt-5-codex", "o3"};
  r.tokens.input = 11;
  r.tokens.output = 22;
  r.full_id = "0b1c2d3e-0000-4000-8000-000000000001-and-a-tail";
  r.earlier_titles = {"older", "oldest"};
  return r;
}

void check_same(const SessionFacets& f, const SessionRec& r) {
  CHECK(f.id == r.id);
  CHECK(f.agent == r.agent);
  CHECK(f.project == r.project);
  CHECK(f.project_path == r.project_path);
  CHECK(f.cwd == r.cwd);
  CHECK(f.git_branch == r.git_branch);
  CHECK(f.full_id == r.full_id);
  CHECK(f.shown_id() == r.shown_id());
  CHECK(f.started_at == r.started_at);
  CHECK(f.ended_at == r.ended_at);
  CHECK(f.message_count == r.message_count);
  CHECK(std::vector<std::string>(f.models.begin(), f.models.end()) == r.models);
  CHECK(f.titles.title() == r.title());
  std::vector<std::string_view> titles;
  f.titles.searchable(titles);
  CHECK(std::vector<std::string>(titles.begin(), titles.end()) == r.searchable_titles());
}

std::vector<SessionRec> every_record(const IndexReader& reader) {
  std::vector<SessionRec> out;
  LmdbCursor cur(reader.txn(), reader.db().sessions);
  for (bool ok = cur.first(); ok; ok = cur.next()) {
    auto s = SessionRec::decode(cur.value());
    REQUIRE(s);
    out.push_back(std::move(*s));
  }
  return out;
}

std::vector<std::string> ids(const QueryResult& r) {
  std::vector<std::string> out;
  for (const auto& h : r.hits) out.push_back(h.session.id);
  return out;
}

}  // namespace

TEST_CASE("a session's facets say what its decode says, in every record version", "[filters][records]") {
  const SessionRec r = full_record();
  const std::string v3 = r.encode();
  SessionFacets f;
  REQUIRE(f.decode(v3));
  check_same(f, r);
  // Versions 1 and 2 ended before full_id and before earlier_titles: a record without either,
  // re-labelled, is what an index written then holds.
  SessionRec plain = full_record();
  plain.full_id.clear();
  plain.earlier_titles.clear();
  const std::string bytes = plain.encode();
  REQUIRE(bytes.substr(bytes.size() - 2) == std::string(2, '\0'));
  for (const std::string& old : {"\x02" + bytes.substr(1, bytes.size() - 2), "\x01" + bytes.substr(1, bytes.size() - 3)}) {
    const auto rec = SessionRec::decode(old);
    REQUIRE(rec);
    REQUIRE(f.decode(old));
    check_same(f, *rec);
  }
  // Titles of every shape: empty or blank fields, several lines, past 200 bytes (cut on a character
  // boundary), an earlier title equal to a current one; content's title pass reads them viewed.
  for (int shape = 0; shape < 6; ++shape) {
    INFO("title shape " << shape);
    SessionRec t = full_record();
    t.custom_title = shape % 2 ? "" : "  \n  Custom  title \t\nsecond line";
    t.ai_title = shape < 2 ? "" : shape < 4 ? " \r\n " : "ai title";
    t.summary_title = shape == 1 ? std::string(199, 'x') + "\xc3\xa9\xc3\xa9" : "";  // a cut inside é
    t.last_prompt = shape == 3 ? "" : "last\nprompt";
    t.first_prompt = shape == 5 ? std::string(250, 'f') : "";
    t.earlier_titles = shape % 3 ? std::vector<std::string>{"ai title", "older"} : std::vector<std::string>{};
    const std::string encoded = t.encode();  // (the facets view it)
    REQUIRE(f.decode(encoded));
    check_same(f, t);
  }
  // Models an older build wrote in the order it read them are viewed and decoded sorted.
  SessionRec unsorted = full_record();
  unsorted.models = {"o3", "gpt-5-codex"};
  const std::string unsorted_bytes = unsorted.encode();  // (the facets view it)
  REQUIRE(f.decode(unsorted_bytes));
  CHECK(std::vector<std::string>(f.models.begin(), f.models.end()) == std::vector<std::string>{"gpt-5-codex", "o3"});
  CHECK(SessionRec::decode(unsorted_bytes)->models == std::vector<std::string>{"gpt-5-codex", "o3"});
  // A record cut anywhere is refused by both.
  for (size_t n = 0; n < v3.size(); ++n) {
    INFO("cut at " << n);
    CHECK(f.decode(v3.substr(0, n)) == SessionRec::decode(v3.substr(0, n)).has_value());
  }
}

TEST_CASE("list and keyword with session-level filters pick what a decode of every record picks", "[filters][agents]") {
  Mixed fx;
  IndexReader reader(fx.idx);
  const std::vector<SessionRec> all = every_record(reader);
  REQUIRE(all.size() >= 10);
  // Filters from the sessions' own fields (a piece of each project and path, each cwd and its
  // parent, each model), in both cases, alone and combined, and some that match nothing.
  std::vector<FilterArgs> cases;
  auto add = [&](auto set) {
    FilterArgs a;
    set(a);
    cases.push_back(a);
  };
  for (const auto& s : all) {
    if (s.project.size() > 3) add([&](FilterArgs& a) { a.project = {s.project.substr(1, 3)}; });
    if (!s.project_path.empty()) add([&](FilterArgs& a) { a.project = {s.project_path}; });
    if (!s.cwd.empty()) {
      add([&](FilterArgs& a) { a.cwd = s.cwd; });
      add([&](FilterArgs& a) { a.cwd = s.cwd.substr(0, s.cwd.rfind('/') ? s.cwd.rfind('/') : 1); });
    }
    for (const auto& m : s.models) add([&](FilterArgs& a) { a.model = {m.substr(0, 3)}; });
    add([&](FilterArgs& a) {
      a.agent = {s.agent};
      a.project = {"WORK"};
    });
    add([&](FilterArgs& a) { a.session = {s.id.substr(0, 2)}; });
  }
  add([&](FilterArgs& a) { a.project = {"no-such-project"}; });
  add([&](FilterArgs& a) { a.cwd = "/"; });
  add([&](FilterArgs& a) {
    a.model = {"gpt", "claude"};
    a.project = {"proj"};
  });
  add([&](FilterArgs& a) {
    a.project = {"proj"};
    a.since = "2020-01-01";
  });
  size_t listed = 0, found = 0, refused = 0;  // cases whose answers were not empty (or were)
  for (const auto& args : cases) {
    const Filters f = parse_filters(args, 0, 100);
    std::vector<const SessionRec*> expected;
    for (const auto& s : all)
      if (f.session_matches(s) && (!f.since_ms || s.ended_at >= *f.since_ms)) expected.push_back(&s);
    // The time order: ended_at, then id, newest first.
    std::sort(expected.begin(), expected.end(), [](const SessionRec* a, const SessionRec* b) {
      return a->ended_at != b->ended_at ? a->ended_at > b->ended_at : a->id > b->id;
    });
    std::vector<std::string> want;
    for (const auto* s : expected) want.push_back(s->id);
    INFO("project " << Catch::Detail::stringify(args.project) << " model " << Catch::Detail::stringify(args.model)
                    << " cwd " << args.cwd << " agent " << Catch::Detail::stringify(args.agent) << " session "
                    << Catch::Detail::stringify(args.session));
    const QueryResult list = run_list(reader, f);
    CHECK(ids(list) == want);
    (want.empty() ? refused : listed) += 1;
    CHECK(list.total == want.size());
    FilterArgs paged = args;
    paged.offset = 1;
    paged.limit = 2;
    const QueryResult page = run_list(reader, parse_filters(paged, 0, 100));
    CHECK(page.total == want.size());
    CHECK(ids(page) == std::vector<std::string>(want.begin() + std::min<size_t>(1, want.size()),
                                                want.begin() + std::min<size_t>(3, want.size())));
    // keyword: the unfiltered answer's sessions that the filter keeps, in its order.
    for (const std::string q : {"the", "codexresultword OR ompuserword OR pithinkword OR error"}) {
      FilterArgs loose;
      loose.limit = 100;
      const QueryResult everything = run_keyword(reader, q, parse_filters(loose, 0, 100), KeywordOptions{});
      std::vector<std::string> kept;
      for (const auto& h : everything.hits)
        if (std::find(want.begin(), want.end(), h.session.id) != want.end()) kept.push_back(h.session.id);
      const QueryResult scoped = run_keyword(reader, q, f, KeywordOptions{});
      CHECK(ids(scoped) == kept);
      CHECK(scoped.total == kept.size());
      found += !kept.empty();
    }
  }
  CHECK(listed > cases.size() / 2);
  CHECK(refused >= 1);
  CHECK(found > cases.size() / 2);
}

TEST_CASE("a session record that does not decode is named by a filtered list, keyword, stats and overview", "[filters][hardening]") {
  Mixed fx;
  std::string victim;
  {
    IndexReader reader(fx.idx);
    victim = every_record(reader).front().id;
  }
  {
    Store store(fx.idx, Store::Mode::Write);
    LmdbTxn w(store.env(), false);
    REQUIRE(w.get(store.db().sessions, victim));
    w.put(store.db().sessions, victim, std::string("\x03\x05\xff\xff", 4));
    w.commit();
  }
  IndexReader reader(fx.idx);
  FilterArgs args;
  args.project = {"w"};
  const Filters f = parse_filters(args, 0, 20);
  CHECK_THROWS_AS(run_list(reader, f), IndexDamaged);
  CHECK_THROWS_AS(run_keyword(reader, "the", f, KeywordOptions{}), IndexDamaged);
  // stats views the session of each aggregate row it groups or filters by.
  StatsOptions by_session;
  by_session.by = "session";
  CHECK_THROWS_AS(run_stats(reader, parse_filters(FilterArgs{}, 0, 20), by_session), IndexDamaged);
  StatsOptions tools;
  tools.kind = StatsKind::Tools;
  CHECK_THROWS_AS(run_stats(reader, f, tools), IndexDamaged);
  // overview views every session in time order.
  CHECK_THROWS_AS(run_overview(reader, OverviewOptions{}), IndexDamaged);
}
