// `content` over a few filtered sessions (a --project, --session or --since that only they reach)
// scans only the text log's ranges that hold their messages. It must answer as the scan of the whole
// log does: the same hits, counts, totals and snippets, by session and by message, on every page,
// for literals, regexes, -w and patterns scanned an entry at a time, before and after re-reads
// (whose superseded entries stay in the log). Reading the log in the map instead of copying it a block
// at a time changes no answer either.
#include "tests/index_fixture.h"

#include "ingest/timeutil.h"
#include "tests/synthetic_index.h"

namespace {

struct Asked {
  std::vector<std::string> patterns;
  bool word = false, ignore_case = false, by_message = false;
  FilterArgs args{};
  explicit Asked(std::vector<std::string> p, bool w = false, bool i = false)
      : patterns(std::move(p)), word(w), ignore_case(i) {}
};

std::string answer(const std::string& idx, const Asked& a, ContentOptions::ScopeScan scan,
                   std::optional<bool> read_in_map = false) {
  IndexReader reader(idx);
  ContentOptions o;
  o.patterns = a.patterns;
  o.word = a.word;
  o.ignore_case = a.ignore_case;
  o.by_message = a.by_message;
  o.scope_scan = scan;
  o.read_in_map = read_in_map;
  const QueryResult r = run_content(reader, parse_filters(a.args, 0, 20), o);
  std::string out = "total=" + std::to_string(r.total) + (r.total_exact ? "" : "~") + (r.truncated ? " truncated" : "");
  for (const Hit& h : r.hits)
    out += "\n" + h.session.id + "/" + (h.message ? h.message->uuid : std::string("-")) +
           " matches=" + std::to_string(h.match_count) + " " + h.snippet;
  return out;
}

void check_alike(const std::string& idx, const Asked& a) {
  std::string pats;
  for (const auto& p : a.patterns) pats += " [" + p + "]";
  INFO("patterns" << pats << " -w " << a.word << " -i " << a.ignore_case << " by_message " << a.by_message
                  << " offset " << a.args.offset << " since '" << a.args.since << "'");
  const std::string whole = answer(idx, a, ContentOptions::ScopeScan::Never);
  CHECK(answer(idx, a, ContentOptions::ScopeScan::Always) == whole);
  CHECK(answer(idx, a, ContentOptions::ScopeScan::ByCost) == whole);
  // The log read in the map instead of copied a block at a time: the same answers.
  CHECK(answer(idx, a, ContentOptions::ScopeScan::Never, true) == whole);
  CHECK(answer(idx, a, ContentOptions::ScopeScan::Always, true) == whole);
}

const std::vector<Asked> kPatterns = {
    Asked({"the"}),
    Asked({"error"}, true, true),    // -w -i over an ASCII literal: decided from the bytes around it
    Asked({"^Let me"}),              // looks outside its match: each entry scanned alone
    Asked({"[A-Z][a-z]+[0-9]{3}"}),  // no literal to skip to
    Asked({"TODO", "test"}),         // a literal set
    Asked({"(fix|bug)\\w*"}, false, true),
};

}  // namespace

TEST_CASE("content: a few sessions' ranges of the log answer as the whole log does, on real transcripts", "[query]") {
  TempDir t("content-scope");
  const std::string src = t.path() + "/src", idx = t.path() + "/idx";
  copy_tree(claude_data_dir(), src);
  index_tree(idx, src);
  std::vector<int64_t> ends;  // every session's ended_at, newest first
  for (const auto& [id, rec] : all_sessions(idx)) ends.push_back(rec.ended_at);
  std::sort(ends.rbegin(), ends.rend());
  REQUIRE(ends.size() > 8);
  for (const Asked& base : kPatterns)
    for (const std::string project : {"spotter", "cli", "zzz-none", ""})
      for (const std::string& since : {std::string(), format_iso8601_ms(ends[4] - 60000)})
        for (bool by_message : {false, true})
          for (size_t offset : {size_t{0}, size_t{2}}) {
            if (project.empty() && since.empty()) continue;  // no scope: the whole log either way
            Asked a = base;
            a.by_message = by_message;
            if (!project.empty()) a.args.project = {project};
            a.args.since = since;
            a.args.offset = offset;
            a.args.limit = 4;
            check_alike(idx, a);
          }
  // No filter: the whole log, read in the map or copied a block at a time.
  for (const Asked& base : kPatterns)
    for (bool by_message : {false, true}) {
      Asked a = base;
      a.by_message = by_message;
      INFO("pattern " << a.patterns[0] << " by_message " << by_message);
      CHECK(answer(idx, a, ContentOptions::ScopeScan::Never, true) == answer(idx, a, ContentOptions::ScopeScan::Never));
    }
  // --session prefixes: one session, a few.
  for (const std::string prefix : {"88e16f61", "b", "0"})
    for (const Asked& base : kPatterns) {
      Asked a = base;
      a.args.session = {prefix};
      check_alike(idx, a);
      a.by_message = true;
      check_alike(idx, a);
    }
}

TEST_CASE("content: a few sessions' ranges of the log answer as the whole log does, with re-read sessions", "[query]") {
  // 40 sessions of 6 messages; then three are rewritten (re-read: their older entries stay in the
  // log, superseded, until a compaction).
  std::vector<std::vector<std::string>> sessions(40);
  for (size_t s = 0; s < sessions.size(); ++s)
    for (size_t m = 0; m < 6; ++m)
      sessions[s].push_back("step " + std::to_string(m) + " of the kiwi plan " + std::string(s % 5 + 1, 'x'));
  SyntheticIndex ix(sessions);
  const auto check_all = [&] {
    for (const std::string prefix : {"0000000", "000001", "00000"})
      for (bool by_message : {false, true})
        for (const std::string pattern : {"kiwi", "^step [0-3]", "rewritten \\w+"}) {
          Asked a({pattern});
          a.by_message = by_message;
          a.args.session = {prefix};
          a.args.limit = 5;
          check_alike(ix.idx, a);
          a.args.offset = 3;
          check_alike(ix.idx, a);
        }
    // Only the rewritten sessions end on the later day.
    Asked a({"kiwi"});
    a.args.since = "2026-03-01T23:00:00Z";
    check_alike(ix.idx, a);
    a.by_message = true;
    check_alike(ix.idx, a);
  };
  check_all();
  for (size_t s : {size_t{1}, size_t{3}, size_t{12}}) ix.rewrite(s, {"rewritten kiwi", "and again kiwi, rewritten twice"});
  {
    IndexReader r(ix.idx);
    REQUIRE(Store::meta_u64(r.txn(), r.db(), meta_key::kTextGarbage) > 0);
  }
  check_all();
}
