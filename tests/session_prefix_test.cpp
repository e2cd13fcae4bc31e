// --session takes id prefixes, compared without regard to ASCII case (SPEC §3). The loops over every
// session read only the key ranges those prefixes can name (engine/query/session_scope.cpp,
// for_each_session_entry): ids in both cases, prefixes in either, overlapping prefixes, in list,
// keyword and content, each against the same answer worked out here.
#include "tests/cli_fixture.h"

namespace {

const std::vector<std::string> kIds = {
    "ABcd0001-0000-4000-8000-000000000001", "abCD0002-0000-4000-8000-000000000002",
    "ab000003-0000-4000-8000-000000000003", "a0000004-0000-4000-8000-000000000004",
    "b0000005-0000-4000-8000-000000000005", "Zz000006-0000-4000-8000-000000000006",
    "0b000007-0000-4000-8000-000000000007", "_x000008-0000-4000-8000-000000000008",
};

std::string line(const std::string& sid, int n) {
  return R"({"parentUuid":null,"isSidechain":false,"type":"user","cwd":"/w/p","sessionId":")" + sid +
         R"(","version":"2.1.29","message":{"role":"user","content":"prefixword session )" + std::to_string(n) +
         R"("},"uuid":"00000000-0000-4000-8000-0000000000)" + (n < 10 ? "0" : "") + std::to_string(n) +
         R"(","timestamp":"2026-03-01T10:00:0)" + std::to_string(n % 10) + ".000Z\"}\n";
}

std::set<std::string> expected(const std::vector<std::string>& prefixes) {
  std::set<std::string> out;
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  for (const auto& id : kIds)
    for (const auto& p : prefixes)
      if (lower(id).rfind(lower(p), 0) == 0) out.insert(id);
  return out;
}

std::set<std::string> sessions_of(const Json& j) {
  std::set<std::string> out;
  for (const auto& h : j["results"].a) out.insert(h["session_id"].s);
  return out;
}

}  // namespace

TEST_CASE("filters: --session prefixes in any case select the same sessions in list, keyword and content", "[cli][filters]") {
  TempDir tmp("session-prefix");
  const std::string src = tmp / "src", idx = tmp / "idx";
  for (size_t i = 0; i < kIds.size(); ++i) write_file(src + "/-w-p/" + kIds[i] + ".jsonl", line(kIds[i], static_cast<int>(i + 1)));
  auto run = [&](std::vector<std::string> args) {
    args.insert(args.end(), {"--index", idx, "--source", "claude=" + src, "--format", "json", "--limit", "50"});
    RunResult r = run_osearch(args);
    INFO("args: " << Catch::Detail::stringify(args) << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    return parse(r.out);
  };
  REQUIRE(sessions_of(run({"list"})).size() == kIds.size());
  const std::vector<std::vector<std::string>> cases = {
      {"ab"}, {"AB"}, {"aB"}, {"a"}, {"a", "ab"}, {"ab", "a"}, {"abcd"}, {"ABCD0001"}, {"z"}, {"ZZ0"},
      {"b"}, {"0b"}, {"0B"}, {"_"}, {"ab", "zz", "0"}, {"abcd0001-0000-4000-8000-000000000001"}, {"q"}};
  for (const auto& prefixes : cases) {
    INFO("--session " << Catch::Detail::stringify(prefixes));
    std::vector<std::string> filter;
    for (const auto& p : prefixes) filter.insert(filter.end(), {"--session", p});
    auto with = [&](std::vector<std::string> args) {
      args.insert(args.end(), filter.begin(), filter.end());
      return sessions_of(run(args));
    };
    const std::set<std::string> want = expected(prefixes);
    CHECK(with({"list"}) == want);
    CHECK(with({"keyword", "prefixword"}) == want);
    CHECK(with({"content", "prefixword"}) == want);
    CHECK(with({"content", "session"}) == want);
  }
}
