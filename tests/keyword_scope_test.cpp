// `keyword` with session-level filters, memories and re-read sessions: a decider reading each
// candidate's session, or (for a few sessions) their terms in the query, whichever costs less; the
// decider's part asked in the own collapse (by session runs) or by Xapian's. All must give the same
// answer: the same hits, scores, counts and totals, by session and by message, on every page and sort.
#include "tests/index_fixture.h"

#include "engine/query/memories.h"
#include "engine/query/search.h"
#include "tests/synthetic_index.h"
#include "ingest/timeutil.h"

namespace {

struct Asked {
  std::string query;
  FilterArgs args;
  bool by_message = false;
  std::string sort = "relevance";
  size_t bound = KeywordOptions{}.exact_total_docs;  // small: the count past it runs too
};

QueryResult ask(const std::string& idx, const Asked& a, KeywordOptions::Scope scope, bool session_runs = true) {
  IndexReader reader(idx);
  KeywordOptions o;
  o.session_runs = session_runs;
  o.by_message = a.by_message;
  o.sort = a.sort;
  o.scope = scope;
  o.exact_total_docs = a.bound;
  return run_keyword(reader, a.query, parse_filters(a.args, 0, 20), o);
}

std::string answer_of(const QueryResult& r) {
  // An estimated total is each path's own (Xapian estimates a filter and a decider differently).
  std::string out = r.total_exact ? "total=" + std::to_string(r.total) : std::string("total estimated");
  for (const Hit& h : r.hits)
    out += "\n" + (h.memory ? "memory " + h.memory->id + " " : std::string()) + h.session.id + "/" + (h.message ? h.message->uuid : std::string("-")) + " score=" +
           std::to_string(h.score) + " matches=" + std::to_string(h.match_count) + " " + h.snippet;
  return out;
}

void check_alike(const std::string& idx, const Asked& a) {
  INFO("query '" << a.query << "' by_message " << a.by_message << " sort " << a.sort << " offset " << a.args.offset
                  << " bound " << a.bound);
  // Xapian's collapse with the decider, the way that asks nothing of the session runs.
  const std::string decider = answer_of(ask(idx, a, KeywordOptions::Scope::Decider, false));
  CHECK(answer_of(ask(idx, a, KeywordOptions::Scope::Decider)) == decider);
  CHECK(answer_of(ask(idx, a, KeywordOptions::Scope::Terms)) == decider);
  CHECK(answer_of(ask(idx, a, KeywordOptions::Scope::ByCost)) == decider);
}

// check_alike within the exact-count bound, then past a `small` one (the count past it runs too).
void check_alike_within_and_past(const std::string& idx, Asked a, size_t small) {
  check_alike(idx, a);
  a.bound = small;
  check_alike(idx, a);
}

}  // namespace

TEST_CASE("keyword: a few sessions filter by their terms as the decider does, on real transcripts", "[query]") {
  TempDir t("scope");
  const std::string src = t.path() + "/src", idx = t.path() + "/idx";
  copy_tree(claude_data_dir(), src);
  index_tree(idx, src);
  // Memories too: the decider filters them by their own project on either path.
  for (const std::string project : {"/home/marco/projects/spotter", "/elsewhere/cli-tool", ""}) {
    const std::string note = t.path() + "/note-" + std::to_string(project.size()) + ".md";
    write_file(note, "the error in this file was a test of the build");
    RememberInput in;
    in.path = note;
    in.summary = "the file error, remembered";
    in.project = project;
    remember_memory(idx, in, 1700000000000);
  }
  {
    Asked a{"remembered", {}};
    a.args.project = {"spotter"};
    for (auto scope : {KeywordOptions::Scope::Decider, KeywordOptions::Scope::Terms}) {
      const QueryResult r = ask(idx, a, scope);
      REQUIRE(r.hits.size() == 1);  // the spotter memory, not the others
      CHECK(r.hits[0].memory.has_value());
    }
  }
  for (const std::string project : {"spotter", "cli", "users", "zzz-none", ""})
    for (const std::string query : {"the", "error", "file*", "\"the file\"", "test OR build", "remembered OR error"})
      for (bool by_message : {false, true})
        for (const std::string sort : {"relevance", "newest"})
          for (size_t offset : {size_t{0}, size_t{3}}) {
            Asked a{query, {}, by_message, sort};
            if (!project.empty()) a.args.project = {project};
            a.args.offset = offset;
            a.args.limit = 5;
            check_alike_within_and_past(idx, a, 30);
          }
}

// A --since that only a few sessions reach narrows the query by their terms too; times picked
// inside sessions' spans, so the value range still has messages of those sessions to refuse.
TEST_CASE("keyword: a --since only a few sessions reach filters by their terms as the value range alone does",
          "[query]") {
  TempDir t("scope-since");
  const std::string src = t.path() + "/src", idx = t.path() + "/idx";
  copy_tree(claude_data_dir(), src);
  index_tree(idx, src);
  std::vector<std::pair<int64_t, int64_t>> spans;  // (ended_at, started_at) of the longer ones, newest first
  std::vector<int64_t> ends;                       // every session's ended_at
  for (const auto& [id, rec] : all_sessions(idx)) {
    ends.push_back(rec.ended_at);
    if (rec.ended_at > rec.started_at) spans.emplace_back(rec.ended_at, rec.started_at);
  }
  std::sort(spans.rbegin(), spans.rend());
  REQUIRE(spans.size() > 6);
  std::vector<int64_t> since;
  for (size_t k : {size_t{0}, size_t{2}, size_t{5}}) since.push_back(spans[k].second + (spans[k].first - spans[k].second) / 2);
  since.push_back(spans.back().second);  // (every session: more than a few in a big index, all here)
  for (int64_t at : since) {
    INFO("since " << format_iso8601_ms(at));
    {
      IndexReader r(idx);
      Filters f = parse_filters({}, 0, 20);
      const auto recent = few_sessions_since(r, at, SessionScope(r, f, SessionScope::Key::DocumentValue));
      REQUIRE(recent.has_value());
      const auto reaching = static_cast<size_t>(std::count_if(ends.begin(), ends.end(), [&](int64_t e) { return e >= at; }));
      CHECK(recent->size() == reaching);
    }
    for (const std::string project : {"", "spotter"})
      for (const std::string query : {"the", "file*"})
        for (bool by_message : {false, true})
          for (const std::string sort : {"relevance", "newest"}) {
            Asked a{query, {}, by_message, sort};
            a.args.since = format_iso8601_ms(at);
            if (!project.empty()) a.args.project = {project};
            a.args.limit = 5;
            check_alike_within_and_past(idx, a, 30);
          }
  }
}

TEST_CASE("keyword: a few sessions filter by their terms as the decider does, past the bound and with re-read sessions",
          "[query]") {
  // 300 sessions of 8 messages with the word; --session prefixes pick 10 or 100 of them. Then some
  // are rewritten (re-read: their older documents stay, of an older epoch, for the decider to refuse).
  std::vector<std::vector<std::string>> sessions(300);
  for (size_t s = 0; s < sessions.size(); ++s)
    for (size_t m = 0; m < 8; ++m)
      sessions[s].push_back("note " + std::to_string(m) + " about kiwi " + std::string(s % 7 + 1, 'x'));
  SyntheticIndex ix(sessions);
  std::set<size_t> rewritten;
  // Every session's matching messages, past the bound too, known here: 8, or 2 once rewritten.
  const auto check_counts = [&](size_t bound) {
    Asked a{"kiwi", {}};
    a.args.limit = 50;
    a.bound = bound;
    for (auto scope : {KeywordOptions::Scope::Decider, KeywordOptions::Scope::Terms}) {
      const QueryResult r = ask(ix.idx, a, scope);
      REQUIRE(r.hits.size() == 50);
      size_t rewritten_seen = 0;
      for (const Hit& h : r.hits) {
        const size_t s = std::stoul(h.session.id.substr(0, 8));
        INFO("session " << s << " bound " << bound);
        CHECK(h.match_count == (rewritten.count(s) ? 2u : 8u));
        rewritten_seen += rewritten.count(s);
      }
      CHECK(rewritten_seen == rewritten.size());  // (their short messages rank them first)
    }
  };
  const auto check_all = [&] {
    check_counts(40);
    check_counts(KeywordOptions{}.exact_total_docs);
    for (const std::string prefix : {"0000000", "000001", "00000", ""})
      for (bool by_message : {false, true})
        for (size_t offset : {size_t{0}, size_t{4}}) {
          Asked a{"kiwi", {}, by_message};
          if (!prefix.empty()) a.args.session = {prefix};
          a.args.offset = offset;
          a.args.limit = 6;
          check_alike_within_and_past(ix.idx, a, 40);
        }
    // Every session reaches the first time (too many: the value range alone decides), only the
    // rewritten ones (a day later) the second, and their older documents are before it.
    for (const std::string since : {"2026-03-01T10:00:04Z", "2026-03-01T23:00:00Z"})
      for (const std::string prefix : {"00000", ""})
        for (bool by_message : {false, true}) {
          Asked a{"kiwi", {}, by_message};
          a.args.since = since;
          if (!prefix.empty()) a.args.session = {prefix};
          a.args.limit = 6;
          check_alike_within_and_past(ix.idx, a, 40);
        }
  };
  check_all();
  for (size_t s : {size_t{1}, size_t{12}, size_t{150}}) {
    ix.rewrite(s, {"rewritten kiwi", "and again kiwi kiwi"});
    rewritten.insert(s);
  }
  REQUIRE_FALSE(IndexReader(ix.idx).epochs().empty());
  check_all();
}
