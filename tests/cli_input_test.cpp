// Every argument reaches the engine byte for byte (CLI11 used to read "[a,b]" as a list), and every
// numeric and enum option is validated: exit 2 with a JSON error object, never a silent default.
#include <regex>

#include "tests/cli_input_fixture.h"

namespace {

const std::string kSidA = "11111111-aaaa-4000-8000-000000000001";
const std::string kSidB = "22222222-bbbb-4000-8000-000000000002";
const std::string kSidC = "33333333-cccc-4000-8000-000000000003";

// Message texts of session A; content counts are checked against std::regex over these.
const std::vector<std::string> kTexts = {
    "literal [0-9] bracket and [hook,xyzzy] and [a,b] here",
    "comma a,b text",
    "digits 12345 only",
    "onlylowercase",
    "back\\slash \"quoted\" 中文测试 and 🚀 launch",
    "dash -foo option and ---triple",
    "words index list status keyword content",
    "mark\x1f]end and x\x1f",
};

struct Fixture : SmallCorpus {
    Fixture() {
        add_session("-w-spotter", kSidA, "/w/spotter", kTexts);
        add_session("-w-dain", kSidB, "/w/dain", {"hook xyzzy in dain"}, "dev");
        add_session("-w-[spotter,dain]", kSidC, "/w/[a,b] dir", {"bracketed project hook"}, "[main,dev]");
        index();
    }
    int64_t total(const std::vector<std::string>& args) const { return json(args)["total"].i; }
};

int64_t expected_messages(const std::string& pattern) {
    const std::regex re(pattern);
    return std::count_if(kTexts.begin(), kTexts.end(), [&](const std::string& t) { return std::regex_search(t, re); });
}

std::vector<std::string> strings_of(const Json& arr) {
    std::vector<std::string> out;
    for (const auto& v : arr.a) out.push_back(v.s);
    return out;
}

}  // namespace

TEST_CASE("cli input: content patterns with brackets and commas are regexes, not lists", "[hardening][cli-input]") {
    Fixture f;
    for (const std::string pat : {"[0-9]", "[a,b]", "[^a-z]", "[hook,xyzzy]", "[0-9]+", "x[0-9],"}) {
        INFO(pat);
        const int64_t want = expected_messages(pat);
        for (const auto& args : std::vector<std::vector<std::string>>{
                 {"content", pat, "--by", "message", "--session", kSidA},
                 {"content", "-e", pat, "--by", "message", "--session", kSidA},
                 {"content", "--regexp=" + pat, "--by", "message", "--session", kSidA},
                 {"content", "--by", "message", "--session", kSidA, "--", pat}}) {
            INFO(Catch::Detail::stringify(args));
            Json j = f.json(args);
            CHECK(j["total"].i == want);
            CHECK(strings_of(j["patterns"]) == std::vector<std::string>{pat});
        }
    }
    // Two -e patterns stay two; one bracketed pattern stays one.
    Json two = f.json({"content", "-e", "[a,b]", "-e", "[0-9]", "--by", "message", "--session", kSidA});
    CHECK(strings_of(two["patterns"]) == std::vector<std::string>{"[a,b]", "[0-9]"});
    // "[^a-z]" used to become "^a-z" and find nothing.
    CHECK(expected_messages("[^a-z]") == static_cast<int64_t>(kTexts.size()) - 1);
}

TEST_CASE("cli input: hostile argument bytes reach the engine exactly", "[hardening][cli-input]") {
    Fixture f;
    const std::vector<std::string> values = {
        "[hook,xyzzy]", "[a,b]", "[^a-z]", "[x]", "[]", "[", "]", "a,b", "\"quoted\"", "'single'", "back\\slash",
        "中文测试", "🚀", "-foo", "--foo", "---triple", "index", "list", "status", "keyword", "content", "--",
        "x\x1f", "]\x1f", "[\x1f]", "\x1f\x1f]", "a b  c", "tab\there", "new\nline", "$(touch owned) `id`"};
    for (const auto& v : values) {
        INFO("value: " << Catch::Detail::stringify(v));
        // content: a fixed string after "--" (leading dashes included), echoed in "patterns".
        Json c = f.json({"content", "-F", "--", v});
        CHECK(strings_of(c["patterns"]) == std::vector<std::string>{v});
        CHECK(c["query"].s == v);
        Json e = f.json({"content", "-F", "-e", v});
        CHECK(strings_of(e["patterns"]) == std::vector<std::string>{v});
        Json eq = f.json({"content", "-F", "--regexp=" + v});
        CHECK(strings_of(eq["patterns"]) == std::vector<std::string>{v});
        // keyword: the query echo is the words joined by one space.
        RunResult k = f.run({"keyword", "--", v, "zzz"});
        INFO(k.err);
        if (k.exit_code == 0) {
            CHECK(parse(k.out)["query"].s == v + " zzz");
        } else {
            check_usage_error(k);  // e.g. "--" alone: nothing searchable
        }
    }
    // Literal strings in the corpus are found with -F, one message each.
    for (const std::string v : {"[0-9]", "[hook,xyzzy]", "[a,b]", "back\\slash \"quoted\" 中文", "-foo", "🚀", "---triple",
                                "mark\x1f]end", "x\x1f"}) {
        INFO("literal: " << Catch::Detail::stringify(v));
        CHECK(f.total({"content", "-F", "--by", "message", "--", v}) == 1);
        CHECK(f.total({"content", "-F", "--by", "message", "-e", v}) == 1);
    }
}

TEST_CASE("cli input: keyword words keep their brackets and subcommand names", "[hardening][cli-input]") {
    Fixture f;
    CHECK(f.json({"keyword", "[hook,xyzzy]"})["query"].s == "[hook,xyzzy]");
    CHECK(f.json({"keyword", "[hook,xyzzy]", "[a,b]"})["query"].s == "[hook,xyzzy] [a,b]");
    CHECK(f.json({"keyword", "--sort=newest", "[hook]"})["query"].s == "[hook]");
    // A word equal to a subcommand name is a word.
    Json idx = f.json({"keyword", "index"});
    CHECK(idx["query"].s == "index");
    CHECK(idx["total"].i == 1);
    CHECK(f.json({"keyword", "status", "list"})["query"].s == "status list");
    CHECK(f.json({"content", "keyword"})["query"].s == "keyword");
    // A leading dash after "--" is the NOT operator of the query language, echoed as typed.
    CHECK(f.json({"keyword", "hook", "--", "-dain"})["query"].s == "hook -dain");
}

TEST_CASE("cli input: keyword's -term words need no --", "[hardening][cli-input]") {
    Fixture f;
    // Each as the same query given as one string after "--".
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"keyword", "hook", "-dain"}, "hook -dain"},
        {{"keyword", "-dain", "hook"}, "-dain hook"},
        {{"keyword", "-dain hook"}, "-dain hook"},
        {{"keyword", "hook", "-dain", "--limit", "5"}, "hook -dain"},
        {{"keyword", "hook", "-project:dain"}, "hook -project:dain"},
        {{"keyword", "hook", "-handling"}, "hook -handling"},  // starts like -h (help): a word
    };
    for (const auto& [args, query] : cases) {
        INFO(Catch::Detail::stringify(args));
        Json j = f.json(args);
        CHECK(j["query"].s == query);
        CHECK(j["total"].i == f.total({"keyword", "--", query}));
    }
    CHECK(f.total({"keyword", "hook"}) == 3);
    CHECK(f.total({"keyword", "hook", "-dain"}) == 2);  // A and C: B holds "dain"
    // The command's own short flags stay flags (-q, -v, -h, together too); values keep a leading dash.
    CHECK(f.json({"keyword", "hook", "-q"})["query"].s == "hook");
    CHECK(f.json({"keyword", "hook", "-qv"})["query"].s == "hook");
    RunResult help = f.run({"keyword", "hook", "-h"});
    CHECK(help.exit_code == 0);
    CHECK(help.out.find("Usage:") != std::string::npos);
    CHECK(f.total({"keyword", "hook", "--branch", "-dev"}) == 0);
    // A word that names one of its options is a mistyped option, not a NOT word: exit 2, not a search.
    for (const auto& args : std::vector<std::vector<std::string>>{{"keyword", "hook", "-limit", "5"},
                                                                  {"keyword", "hook", "-project=dain"},
                                                                  {"keyword", "hook", "-format", "json"},
                                                                  {"keyword", "-since", "7d", "hook"}}) {
        INFO(Catch::Detail::stringify(args));
        check_usage_error(f.run(args));
    }
    CHECK(f.total({"keyword", "--", "hook -limit"}) == 3);  // after "--" it is a word
    // Only keyword reads them so: content takes its patterns as rg does (-e or --).
    check_usage_error(f.run({"content", "-dain"}));
    check_usage_error(f.run({"list", "-dain"}));
}

TEST_CASE("cli input: keyword names the words it left out", "[hardening][cli-input]") {
    // One letter or over 64 bytes: no term to ask for. The answer finds more than the query said, and
    // says which words it did not search (JSON, text, and so MCP and the web API, which print the same).
    Fixture f;
    Json j = f.json({"keyword", "hook", "a", "-x"});
    REQUIRE(j["ignored_words"].is_arr());
    REQUIRE(j["ignored_words"].a.size() == 2);
    CHECK(j["ignored_words"][0].s == "a");
    CHECK(j["ignored_words"][1].s == "-x");
    CHECK(j["total"].i == f.total({"keyword", "hook"}));
    CHECK_FALSE(f.json({"keyword", "hook"}).has("ignored_words"));
    RunResult t = f.run({"keyword", "hook", "a"}, "text");
    CHECK(t.exit_code == 0);
    CHECK(t.out.find("left out") != std::string::npos);
}

TEST_CASE("cli input: filter values with brackets and commas are one value", "[hardening][cli-input]") {
    Fixture f;
    // --project "[spotter,dain]" is a substring of one project, not spotter OR dain.
    for (const auto& args : std::vector<std::vector<std::string>>{{"list", "--project", "[spotter,dain]"},
                                                                  {"list", "--project=[spotter,dain]"}}) {
        INFO(Catch::Detail::stringify(args));
        Json j = f.json(args);
        REQUIRE(j["total"].i == 1);
        CHECK(j["results"][0]["session_id"].s == kSidC);
    }
    CHECK(f.total({"list", "--project", "spotter", "--project", "dain"}) == 3);
    // Session prefixes, branches, models, tools: the bracketed value matches nothing.
    CHECK(f.total({"list", "--session", "[11111111,22222222]"}) == 0);
    CHECK(f.total({"list", "--session=[11111111,22222222]"}) == 0);
    CHECK(f.total({"list", "--session", "11111111", "--session", "22222222"}) == 2);
    CHECK(f.total({"keyword", "hook", "--branch", "[main,dev]"}) == 1);  // session C's branch, literally
    CHECK(f.total({"keyword", "hook", "--branch", "dev"}) == 1);
    // A value equal to a subcommand name, CJK, emoji, leading dashes: one value, exit 0.
    for (const std::string v : {"list", "index", "keyword", "中文", "\U0001F680", "-x", "--y", "\\"}) {
        INFO(Catch::Detail::stringify(v));
        CHECK(f.total({"list", "--project", v}) == 0);
        CHECK(f.total({"list", "--project=" + v}) == 0);
        CHECK(f.total({"keyword", "hook", "--branch", v}) == 0);
    }
    CHECK(f.total({"list", "--project", "a,b"}) == 1);  // session C's path "/w/[a,b] dir"; split, "a" would match dain too
    CHECK(f.total({"list", "--cwd", "/w/[a,b] dir"}) == 1);
    CHECK(f.total({"list", "--cwd=/w/[a,b] dir"}) == 1);
    // Enum filters: the bracketed value is not a list of two valid values.
    check_usage_error(f.run({"list", "--agent", "[claude,pi]"}));
    check_usage_error(f.run({"keyword", "hook", "--role", "[user,assistant]"}));
    check_usage_error(f.run({"keyword", "hook", "--type=[text,thinking]"}));
    check_usage_error(f.run({"list", "--since", "[2026-01-01]"}), "bad-time");
    // Repeatable options take one value each: a second word is not a second project.
    check_usage_error(f.run({"list", "--project", "spotter", "dain"}));
    // --source "[claude=a,claude=b]" is one (bad) source, not two.
    RunResult s = run_osearch({"--format", "json", "--index", f.idx, "--source", "[claude=" + f.src + ",claude=" + f.src + "]",
                               "--no-refresh", "list"});
    check_usage_error(s);
}

TEST_CASE("cli input: global option values keep brackets, commas and leading dashes", "[hardening][cli-input]") {
    SmallCorpus c;
    c.idx = c.tmp / "idx [1,2]";
    c.src = c.tmp / "src [a,b]";
    c.add_session("-w-p", kSidA, "/w/p", {"hello bracketed roots"});
    c.index();
    CHECK(fs::exists(c.idx));
    CHECK(c.json({"keyword", "bracketed"})["total"].i == 1);
    RunResult st = run_osearch({"status", "--index=" + c.idx, "--format=json"});
    REQUIRE(st.exit_code == 0);
    CHECK(parse(st.out)["index_dir"].s == c.idx);
}

TEST_CASE("cli input: numeric options are whole numbers in range", "[hardening][cli-input]") {
    Fixture f;
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"list", "--offset", "-5"}, {"list", "--offset=-5"}, {"list", "--offset", "abc"},
             {"list", "--offset", "1.5"}, {"list", "--offset", "0x10"}, {"list", "--offset", " 5"},
             {"list", "--offset", "99999999999999999999999"}, {"list", "--offset", "5000000000"},
             {"list", "--limit", "0"}, {"list", "--limit", "-1"}, {"list", "--limit", "100001"},
             {"list", "--limit", "1e3"}, {"list", "--limit", "+5"}, {"list", "--limit", "5 "},
             {"keyword", "hook", "--snippet-chars", "-1"}, {"keyword", "hook", "--snippet-chars", "x"},
             {"keyword", "hook", "--snippet-chars", "100001"}, {"content", "hook", "--snippet-chars=-1"},
             {"list", "--limit", ""}, {"list", "--offset", "[5]"}}) {
        INFO(Catch::Detail::stringify(args));
        check_usage_error(f.run(args));
    }
    // Accepted: decimal with leading zeros (not octal), 0 snippet chars (no snippet), the bounds.
    CHECK(f.json({"list", "--limit", "010"})["returned"].i == 3);
    CHECK(f.json({"list", "--limit", "2"})["returned"].i == 2);
    CHECK(f.json({"list", "--offset", "1"})["returned"].i == 2);
    CHECK(f.json({"list", "--offset", "1000000000"})["returned"].i == 0);
    CHECK(f.json({"list", "--limit", "100000"})["returned"].i == 3);
    Json none = f.json({"keyword", "hook", "--snippet-chars", "0"});
    REQUIRE(none["returned"].i >= 1);
    CHECK(none["results"][0]["snippet"].s.empty());
    Json some = f.json({"keyword", "hook", "--snippet-chars", "5"});
    CHECK(code_points(some["results"][0]["snippet"].s) <= 5);
}

TEST_CASE("cli input: an option of one value given twice takes the last, as in rg and git", "[hardening][cli-input]") {
    // It was "--limit: At Most 1 required but received 2", exit 2; a repeatable filter still ORs its values.
    Fixture f;
    CHECK(f.json({"list", "--limit", "1", "--limit", "2"})["returned"].i == 2);
    CHECK(f.json({"list", "--limit", "2", "--limit=1"})["returned"].i == 1);
    CHECK(f.json({"list", "--offset", "2", "--offset", "0", "--limit", "50"})["returned"].i == 3);
    CHECK(f.json({"list", "--format", "text", "--format", "json"})["returned"].i == 3);
    Json last = f.json({"keyword", "hook", "--snippet-chars", "50", "--snippet-chars", "0"});
    REQUIRE(last["returned"].i >= 1);
    CHECK(last["results"][0]["snippet"].s.empty());
    CHECK(f.json({"list", "--project", "-w-dain", "--project", "-w-spotter"})["returned"].i == 2);
    check_usage_error(f.run({"list", "--limit", "2", "--limit", "0"}));  // the last is still checked
}

TEST_CASE("cli input: enum options reject unknown values", "[hardening][cli-input]") {
    Fixture f;
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"keyword", "hook", "--by", "thread"}, {"keyword", "hook", "--by", ""}, {"content", "hook", "--by=files"},
             {"keyword", "hook", "--sort", "random"}, {"keyword", "hook", "--sort="},
             {"keyword", "hook", "--role", "system"}, {"keyword", "hook", "--role", "robot"},
             {"keyword", "hook", "--type", "image"}, {"list", "--agent", "gemini"}, {"list", "--agent", ""},
             {"list", "--project", ""}, {"list", "--session="}, {"list", "--cwd", ""}, {"list", "--since", ""}}) {
        INFO(Catch::Detail::stringify(args));
        RunResult r = f.run(args);
        INFO(r.err);
        CHECK(r.exit_code == 2);
        Json e;
        REQUIRE(try_parse(last_line(r.err), e));
        CHECK(e["error"]["message"].is_str());
    }
    // --format: empty or unknown is a usage error, never the default.
    for (const auto& fmt : std::vector<std::string>{"", "xml", "JSON ", "[json]"}) {
        INFO("--format " << Catch::Detail::stringify(fmt));
        RunResult r = run_osearch({"--index", f.idx, "--no-refresh", "--format", fmt, "list"});
        CHECK(r.exit_code == 2);
        CHECK(r.out.empty());
        // Not a terminal: the default error format is JSON.
        Json e;
        CHECK(try_parse(last_line(r.err), e));
    }
}

TEST_CASE("cli input: errors from global options honour --format json", "[hardening][cli-input]") {
    Fixture f;
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"--format", "json", "--index", f.idx, "--source", "claude=", "list"},
             {"list", "--index", f.idx, "--source=claude=", "--format=json"},
             {"--format", "json", "--index", f.idx, "--source", "nosuch=/tmp", "list"},
             {"--format", "json", "--index", f.idx, "--source", "claude", "status"},
             {"--format", "jsonl", "--index", f.idx, "--source", "=x", "index"},
             {"--format", "json", "--index", "", "list"},
             {"--format", "json", "--index", f.idx, "--no-refresh", "list", "--bogus"},
             {"--format", "json", "--index", f.idx, "--no-refresh", "keyword"},
             {"--format", "json", "--index", f.idx, "--no-refresh", "nosuchcommand"}}) {
        INFO(Catch::Detail::stringify(args));
        check_usage_error(run_osearch(args));
    }
    // Text asked: a readable line, no JSON.
    RunResult t = run_osearch({"--format", "text", "--index", f.idx, "--source", "claude=", "list"});
    CHECK(t.exit_code == 2);
    CHECK(t.err.rfind("osearch: ", 0) == 0);
    CHECK(t.err.find('{') == std::string::npos);
}
