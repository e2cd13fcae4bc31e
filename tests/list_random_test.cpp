// Random `list` calls (--since, --until, --project, --branch, --session, pages) against the sessions'
// own times, over an index that was refreshed after sessions grew and after a source file went away:
// `list` walks a time-ordered secondary index (and with no filter but --since, decides by its keys
// alone), which every re-read of a session must keep in step with the records.
#include <filesystem>
#include <random>

#include "tests/synthetic_index.h"
#include "tests/test_seed.h"

using namespace osearch;
using namespace osearch_test;

namespace {

struct Session {
  std::string sid, slug, cwd, branch;
  std::vector<int> minutes;  // each line's time, in minutes from 2026-03-01T00:00Z
  int64_t started() const { return *std::min_element(minutes.begin(), minutes.end()); }
  int64_t ended() const { return *std::max_element(minutes.begin(), minutes.end()); }
};

std::string iso(int minute) {
  char ts[40];
  std::snprintf(ts, sizeof ts, "2026-03-%02dT%02d:%02d:00.000Z", 1 + minute / 1440, minute / 60 % 24, minute % 60);
  return ts;
}

std::string lines_of(const Session& s, size_t from) {
  std::string out;
  for (size_t i = from; i < s.minutes.size(); ++i)
    out += R"({"type":"user","cwd":")" + s.cwd + R"(","sessionId":")" + s.sid + R"(","gitBranch":")" + s.branch +
           R"(","message":{"role":"user","content":"step )" + std::to_string(i) + R"("},"uuid":")" + s.sid.substr(0, 8) +
           "-" + std::to_string(i) + R"(","timestamp":")" + iso(s.minutes[i]) + "\"}\n";
  return out;
}

}  // namespace

TEST_CASE("list: random filters and pages give the sessions their times say, newest first", "[list][hardening]") {
  const uint32_t seed = osearch_test::test_seed(20261208);
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  TempDir tmp{"list-random"};
  const std::string src = tmp / "claude", idx = tmp / "index";
  const std::vector<std::pair<std::string, std::string>> projects = {
      {"-w-alpha", "/w/alpha"}, {"-w-beta", "/w/beta"}, {"-x-gamma", "/x/gamma"}, {"-x-alphabet", "/x/alphabet"}};
  std::vector<Session> sessions;
  std::set<int> used;  // every line's minute differs, so the order is one
  const auto fresh_minute = [&](int lo, int hi) {
    for (;;) {
      const int m = lo + static_cast<int>(rng() % static_cast<unsigned>(hi - lo));
      if (used.insert(m).second) return m;
    }
  };
  for (int i = 0; i < 60; ++i) {
    Session s;
    s.sid = random_session_id(rng, i);
    std::tie(s.slug, s.cwd) = projects[rng() % projects.size()];
    s.branch = rng() % 3 == 0 ? "dev" : "main";
    const int start = fresh_minute(0, 20 * 1440);
    s.minutes = {start};
    for (size_t n = rng() % 5; n > 0; --n) s.minutes.push_back(fresh_minute(start + 1, start + 600));
    write_file(src + "/" + s.slug + "/" + s.sid + ".jsonl", lines_of(s, 0));
    sessions.push_back(std::move(s));
  }
  REQUIRE(run_index(idx, {{"claude", src}}, IndexOptions{}).bad_lines == 0);
  // A second run: some sessions go on days later (their place in the order moves), one file goes
  // away (its session stays, archived).
  for (int k = 0; k < 8; ++k) {
    Session& s = sessions[rng() % sessions.size()];
    if (&s == &sessions[7]) continue;  // (its file goes away before the run could read what it gained)
    const size_t before = s.minutes.size();
    s.minutes.push_back(fresh_minute(20 * 1440, 25 * 1440));
    append_file(src + "/" + s.slug + "/" + s.sid + ".jsonl", lines_of(s, before));
  }
  std::filesystem::remove(src + "/" + sessions[7].slug + "/" + sessions[7].sid + ".jsonl");
  REQUIRE(run_index(idx, {{"claude", src}}, IndexOptions{}).bad_lines == 0);
  IndexReader reader(idx);

  for (int round = 0; round < 300; ++round) {
    FilterArgs args;
    std::optional<int> since, until;
    if (round % 3 == 1) since = static_cast<int>(rng() % (25 * 1440));
    if (round % 4 == 2) until = static_cast<int>(rng() % (25 * 1440));
    if (since) args.since = iso(*since);
    if (until) args.until = iso(*until);
    if (round % 5 == 3) args.project = {std::vector<std::string>{"alpha", "BETA", "/x/", "w-"}[rng() % 4]};
    if (round % 7 == 4) args.branch = {"dev"};
    if (round % 6 == 5) args.session = {sessions[rng() % sessions.size()].sid.substr(0, 1 + rng() % 8)};
    std::vector<const Session*> expected;
    for (const Session& s : sessions) {
      if (since && s.ended() < *since) continue;
      if (until && s.started() >= *until) continue;
      if (!args.project.empty()) {
        std::string p = args.project[0];
        std::transform(p.begin(), p.end(), p.begin(), [](unsigned char c) { return std::tolower(c); });
        if (s.slug.find(p) == std::string::npos && s.cwd.find(p) == std::string::npos) continue;
      }
      if (!args.branch.empty() && s.branch != args.branch[0]) continue;
      if (!args.session.empty() && !s.sid.starts_with(args.session[0])) continue;
      expected.push_back(&s);
    }
    std::sort(expected.begin(), expected.end(), [](const Session* a, const Session* b) { return a->ended() > b->ended(); });
    INFO("since " << (since ? iso(*since) : "-") << " until " << (until ? iso(*until) : "-") << " project "
                  << (args.project.empty() ? "-" : args.project[0]) << " branch " << (args.branch.empty() ? "-" : "dev")
                  << " session " << (args.session.empty() ? "-" : args.session[0]));
    // Pages of 5, then the rest in one: together, the whole order, each page saying the same total.
    std::vector<std::string> got;
    for (size_t offset = 0, limit = 5;; offset += limit) {
      if (offset == 15) limit = 1000;
      args.limit = limit;
      args.offset = offset;
      const QueryResult r = run_list(reader, parse_filters(args, 0, 50));
      CHECK(r.total == expected.size());
      for (const Hit& h : r.hits) got.push_back(h.session.id);
      if (r.hits.size() < limit) break;
    }
    std::vector<std::string> want;
    for (const Session* s : expected) want.push_back(s->sid);
    CHECK(got == want);
  }
}
