// Files written by the real omp and pi session code (tests/data/omp-writer, tests/data/pi: see their
// PROVENANCE.md) indexed together: every word placed in a message, a thinking block, a tool call, a
// tool result, a bash/python execution, a summary or a title is found by keyword and content, with
// its session first, the right agent and the resume hint that reopens it.
#include "index_fixture.h"

#include "engine/query/query.h"
#include "engine/query/reader.h"
#include "engine/query/resume_hint.h"
#include "engine/query/search.h"

namespace {

const std::string kWriterOmpId = "01a2314a-32c0-739f-8e31-893a9a80d771";

std::vector<SourceRoot> writer_roots() {
  return {SourceRoot{"omp", test_data_dir() + "/omp-writer/sessions"},
          SourceRoot{"pi", test_data_dir() + "/pi/.pi/agent/sessions/--tmp-osearch-pi-writer-project--"}};
}

Filters filters(bool include_meta = false) {
  FilterArgs a;
  a.include_meta = include_meta;
  return parse_filters(a, 0, 20);
}

}  // namespace

TEST_CASE("real writers: omp and pi words are found by keyword and content", "[agents][writers]") {
  TempDir tmp("writers");
  const std::string idx = tmp / "idx";
  IndexSummary s = run_index(idx, writer_roots(), {});
  CHECK(s.bad_lines == 0);
  CHECK(s.sessions == 2);
  IndexReader reader(idx);

  // word -> (content type of the best message, hidden by default?)
  const std::vector<std::pair<std::string, bool>> omp_words = {
      {"capybara", false},       {"gazelleparse", false},  {"meerkat", false},   {"narwhal_parser", false},
      {"armadillo", false},      {"parseTapirDate", false}, {"wolverine", false}, {"pangolincheck", false},
      {"okapiresult", false},    {"axolotlcode", false},   {"axolotlout", false}, {"lemurgoal", false},
      {"quetzalregex", false},   {"platypuslib", false},   {"hedgehogtitle", false},
      {"kinkajou", true},        {"wombatcontext", true}};
  for (const auto& [word, hidden] : omp_words) {
    INFO(word);
    for (bool meta : {false, true}) {
      QueryResult kw = run_keyword(reader, word, filters(meta), KeywordOptions{});
      ContentOptions co;
      co.patterns = {word};
      QueryResult ct = run_content(reader, filters(meta), co);
      if (hidden && !meta) {
        CHECK(kw.hits.empty());
        CHECK(ct.hits.empty());
        continue;
      }
      for (const QueryResult* r : {&kw, &ct}) {
        REQUIRE_FALSE(r->hits.empty());
        const Hit& h = r->hits.front();
        CHECK(h.session.shown_id() == kWriterOmpId);
        CHECK(h.session.agent == "omp");
        CHECK(resume_hint(h.session) == "cd '/tmp/osearch omp writer/project' && omp --resume " + kWriterOmpId);
      }
    }
  }
  // The title slot says the latest name; the session's summary is the branch summary written last.
  QueryResult list = run_list(reader, filters());
  REQUIRE(list.hits.size() == 2);
  for (const auto& h : list.hits) {
    if (h.session.agent != "omp") continue;
    CHECK(h.session.title() == "Renamed to hedgehogtitle");
    CHECK(h.session.project == "-tmp-osearch-omp-writer-project");
    CHECK(h.session.project_path == "/tmp/osearch omp writer/project");
  }
  // omp cut the ~540 KB tool output at 500,000 characters: its last word is not in the file at all.
  CHECK(run_keyword(reader, "ocelotfinalword", filters(true), KeywordOptions{}).hits.empty());
  // Image data never becomes text (omp's blob reference, pi's inline base64).
  ContentOptions blob;
  blob.patterns = {"blob:sha256|iVBORw0KGgo"};
  CHECK(run_content(reader, filters(true), blob).hits.empty());

  // pi's own file: words of its messages, its branch and its summaries, under agent pi.
  for (const std::string word : {"quokka", "parseQuokkaDate", "platypus", "regex", "timezone"}) {
    INFO(word);
    QueryResult kw = run_keyword(reader, word, filters(), KeywordOptions{});
    REQUIRE_FALSE(kw.hits.empty());
    CHECK(kw.hits.front().session.agent == "pi");
    const std::string hint = resume_hint(kw.hits.front().session);
    CHECK(hint.rfind("cd /tmp/osearch-pi-writer/project && pi --session ", 0) == 0);
    CHECK(hint.find(".jsonl") != std::string::npos);
  }
}
