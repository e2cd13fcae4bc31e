// The CLI contract (SPEC §3, §5) through the built binary: JSON/JSONL/text output, exit codes and
// error objects, global options in any position, lazy refresh, and a golden check of session
// fields whose expected values were read from the transcripts by hand.
#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <simdjson.h>

#include <catch2/catch.hpp>

#include "tests/utf8_check.h"

#include "test_util.h"

using namespace osearch_test;

namespace {

// ---------------------------------------------------------------------------------------------
// A small owned JSON tree (simdjson's DOM lives only as long as its parser).

struct Json {
    enum class T { Null, Bool, Int, Double, Str, Arr, Obj } t = T::Null;
    bool b = false;
    int64_t i = 0;
    double d = 0;
    std::string s;
    std::vector<Json> a;
    std::vector<std::pair<std::string, Json>> o;

    bool is_null() const { return t == T::Null; }
    bool is_num() const { return t == T::Int || t == T::Double; }
    bool is_str() const { return t == T::Str; }
    bool is_obj() const { return t == T::Obj; }
    bool is_arr() const { return t == T::Arr; }
    bool is_bool() const { return t == T::Bool; }
    double num() const { return t == T::Int ? static_cast<double>(i) : d; }
    bool has(const std::string& k) const {
        return std::any_of(o.begin(), o.end(), [&](const auto& kv) { return kv.first == k; });
    }
    const Json& operator[](const std::string& k) const {
        for (const auto& kv : o)
            if (kv.first == k) return kv.second;
        FAIL("missing JSON key '" << k << "'");
        static Json none;
        return none;
    }
    const Json& operator[](size_t n) const {
        REQUIRE(n < a.size());
        return a[n];
    }
    std::vector<std::string> keys() const {
        std::vector<std::string> out;
        for (const auto& kv : o) out.push_back(kv.first);
        return out;
    }
};

Json to_json(simdjson::dom::element e) {
    Json j;
    switch (e.type()) {
        case simdjson::dom::element_type::ARRAY: {
            j.t = Json::T::Arr;
            simdjson::dom::array arr;
            if (e.get_array().get(arr) == simdjson::SUCCESS)
                for (simdjson::dom::element c : arr) j.a.push_back(to_json(c));
            break;
        }
        case simdjson::dom::element_type::OBJECT: {
            j.t = Json::T::Obj;
            simdjson::dom::object obj;
            if (e.get_object().get(obj) == simdjson::SUCCESS)
                for (auto f : obj) j.o.emplace_back(std::string(f.key), to_json(f.value));
            break;
        }
        case simdjson::dom::element_type::INT64:
            j.t = Json::T::Int;
            j.i = e.get_int64().value_unsafe();
            break;
        case simdjson::dom::element_type::UINT64:
            j.t = Json::T::Int;
            j.i = static_cast<int64_t>(e.get_uint64().value_unsafe());
            break;
        case simdjson::dom::element_type::DOUBLE:
            j.t = Json::T::Double;
            j.d = e.get_double().value_unsafe();
            break;
        case simdjson::dom::element_type::STRING:
            j.t = Json::T::Str;
            j.s = std::string(e.get_string().value_unsafe());
            break;
        case simdjson::dom::element_type::BOOL:
            j.t = Json::T::Bool;
            j.b = e.get_bool().value_unsafe();
            break;
        default:
            break;
    }
    return j;
}

bool try_parse(std::string_view text, Json& out) {
    simdjson::dom::parser parser;
    simdjson::padded_string padded(text);
    simdjson::dom::element e;
    if (parser.parse(padded).get(e) != simdjson::SUCCESS) return false;
    out = to_json(e);
    return true;
}

Json parse(std::string_view text) {
    Json j;
    INFO("JSON text: " << text.substr(0, 2000));
    REQUIRE(try_parse(text, j));
    return j;
}

std::vector<std::string> lines_of(const std::string& s) {
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos < s.size()) {
        size_t nl = s.find('\n', pos);
        if (nl == std::string::npos) nl = s.size();
        if (nl > pos) out.push_back(s.substr(pos, nl - pos));
        pos = nl + 1;
    }
    return out;
}

std::string last_line(const std::string& s) {
    auto l = lines_of(s);
    return l.empty() ? std::string() : l.back();
}

// Strict UTF-8 validity and code point count.
using osearch_test::valid_utf8;

size_t code_points(std::string_view s) {
    return static_cast<size_t>(
        std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

bool is_iso_ms(const Json& j) {
    static const std::regex re("^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$");
    return j.is_str() && std::regex_match(j.s, re);
}

// ---------------------------------------------------------------------------------------------
// Fixture: temp copies of chosen real transcripts, indexed by the CLI.

const std::string kAlex = "-Users-alex-workspace-cli/1b3e6441-62e3-4b41-8a0c-9d252f531f7a.jsonl";
const std::string kPosh = "D--oh-my-posh/88e16f61-d1b7-47a3-84f1-057e0f96521a.jsonl";
const std::string kSoph = "-Users-soph-Work-entire-devenv-cli/97007e37-53bd-4456-9a49-c0f8081081a7.jsonl";
const std::string kSpotterA = "-home-marco-projects-spotter/d6e0bada-1959-4eec-a9d2-0bfade768d8f.jsonl";
const std::string kSpotterB = "-home-marco-projects-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl";
const std::string kSample = "sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl";
const std::string kBlameDir = "-Users-cjm-repos-ai-blame-test";

const std::string kAlexId = "1b3e6441-62e3-4b41-8a0c-9d252f531f7a";
const std::string kPoshId = "88e16f61-d1b7-47a3-84f1-057e0f96521a";
const std::string kSophId = "97007e37-53bd-4456-9a49-c0f8081081a7";
const std::string kSpotterAId = "d6e0bada-1959-4eec-a9d2-0bfade768d8f";
const std::string kSpotterBId = "55604662-cf2a-4331-851a-ec234028f8ca";
const std::string kSampleId = "1af7fc5e-8455-4414-9ccd-011d40f70b2a";
const std::string kBlameId = "2c965cfd-41e4-4e31-8339-2986ebced03c";

std::string root_of(const std::string& rel) {
    for (const std::string& root : {claude_data_dir(), corpus_claude_dir()})
        if (fs::exists(root + "/" + rel)) return root;
    return {};
}

struct Cli {
    TempDir tmp{"cli"};
    std::string src = tmp / "claude";
    std::string idx = tmp / "index";

    explicit Cli(const std::vector<std::string>& rels, bool index_now = true) {
        fs::create_directories(src);
        for (const auto& rel : rels) {
            const std::string root = root_of(rel);
            INFO("transcript " << rel);
            REQUIRE_FALSE(root.empty());
            copy_subtree(root, rel, src);
        }
        if (index_now) index();
    }
    void index() {
        RunResult r = run_osearch({"index", "--index", idx, "--source", "claude=" + src});
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
    }
    std::string path(const std::string& rel) const { return src + "/" + rel; }
    // The command and its arguments, then the global options (SPEC §3 allows them after the command).
    RunResult run(std::vector<std::string> args, const std::string& format = "json") const {
        args.insert(args.end(), {"--index", idx, "--source", "claude=" + src});
        if (!format.empty()) args.insert(args.end(), {"--format", format});
        return run_osearch(args);
    }
    Json json(const std::vector<std::string>& args) const {
        RunResult r = run(args);
        INFO("args: " << Catch::Detail::stringify(args) << "\nstderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        return parse(r.out);
    }
};

std::set<std::string> field_set(const Json& results, const std::string& key) {
    std::set<std::string> out;
    for (const auto& h : results.a)
        if (h[key].is_str()) out.insert(h[key].s);
    return out;
}

const std::vector<std::string> kEnvelopeKeys = {"action", "query", "total", "returned", "took_ms", "index", "results"};
const std::vector<std::string> kSearchHitKeys = {
    "session_id", "agent",       "project",  "project_path", "cwd",   "git_branch", "time",
    "started_at", "ended_at",    "title",    "summary",      "snippet", "matched_terms", "message_uuid",
    "role",       "content_type", "score",   "match_count",  "path",  "message_count", "source_deleted",
    "resume_hint"};
const std::vector<std::string> kListHitKeys = {
    "session_id", "agent",         "project", "project_path", "cwd",           "git_branch",     "started_at",
    "ended_at",   "title",         "path",    "message_count", "models",       "tokens",         "subagent_count",
    "source_deleted", "resume_hint"};

void check_envelope(const Json& j, const std::string& action) {
    for (const auto& k : kEnvelopeKeys) {
        INFO("envelope key " << k);
        CHECK(j.has(k));
    }
    CHECK(j["action"].s == action);
    CHECK(j["total"].t == Json::T::Int);
    CHECK(j["returned"].t == Json::T::Int);
    CHECK(j["took_ms"].is_num());
    CHECK(j["took_ms"].num() >= 0);
    REQUIRE(j["results"].is_arr());
    CHECK(static_cast<size_t>(j["returned"].i) == j["results"].a.size());
    CHECK(j["total"].i >= j["returned"].i);
    const Json& ix = j["index"];
    REQUIRE(ix.is_obj());
    for (const char* k : {"sessions", "messages", "refreshed_files", "stale"}) {
        INFO("index key " << k);
        CHECK(ix.has(k));
    }
    CHECK(ix["sessions"].t == Json::T::Int);
    CHECK(ix["messages"].t == Json::T::Int);
    CHECK(ix["refreshed_files"].t == Json::T::Int);
    CHECK(ix["stale"].is_bool());
}

void check_search_hit(const Json& h) {
    for (const auto& k : kSearchHitKeys) {
        INFO("hit key " << k);
        CHECK(h.has(k));
    }
    CHECK(h["session_id"].is_str());
    CHECK(h["agent"].s == "claude");
    CHECK(is_iso_ms(h["time"]));
    CHECK(is_iso_ms(h["started_at"]));
    CHECK(is_iso_ms(h["ended_at"]));
    CHECK(h["started_at"].s <= h["ended_at"].s);
    CHECK(h["snippet"].is_str());
    CHECK(valid_utf8(h["snippet"].s));
    CHECK(h["matched_terms"].is_arr());
    const std::set<std::string> roles = {"user", "assistant", "tool", "system"};
    CHECK(roles.count(h["role"].s) == 1);
    const std::set<std::string> types = {"text", "thinking", "tool_use", "tool_result", "command", "summary", "memory"};
    CHECK(types.count(h["content_type"].s) == 1);
    CHECK(h["score"].is_num());
    CHECK(h["match_count"].t == Json::T::Int);
    CHECK(h["match_count"].i >= 1);
    CHECK(h["message_count"].t == Json::T::Int);
    CHECK(h["source_deleted"].is_bool());
    CHECK(h["resume_hint"].s.find("claude --resume " + h["session_id"].s) != std::string::npos);
    CHECK(h["resume_hint"].s.rfind("cd ", 0) == 0);
}

}  // namespace

// =============================================================================================
// JSON envelope and fields

TEST_CASE("cli: keyword JSON envelope and per-hit fields", "[cli]") {
    Cli cli({kAlex, kPosh});
    Json j = cli.json({"keyword", "CODEOWNERS"});
    check_envelope(j, "keyword");
    CHECK(j["query"].s == "CODEOWNERS");
    CHECK(j["index"]["sessions"].i == 2);
    CHECK(j["index"]["messages"].i == 13);  // 6 + 7 user/assistant lines
    CHECK(j["index"]["stale"].b == false);
    REQUIRE(j["results"].a.size() == 1);
    const Json& h = j["results"][0];
    check_search_hit(h);
    CHECK(h["session_id"].s == kAlexId);
    CHECK(h["project"].s == "-Users-alex-workspace-cli");
    CHECK(h["project_path"].s == "/Users/alex/workspace/cli");
    CHECK(h["cwd"].s == "/Users/alex/workspace/cli");
    CHECK(h["git_branch"].s == "alex/ent-98-move-helpgo-back-into-the-main-cli-package");
    CHECK(h["path"].s == cli.path(kAlex));
    CHECK(h["match_count"].i == 6);
    CHECK(h["message_count"].i == 6);
    CHECK(h["message_uuid"].is_str());
    CHECK(h["snippet"].s.find("CODEOWNERS") != std::string::npos);
    REQUIRE_FALSE(h["matched_terms"].a.empty());
    CHECK(h["matched_terms"][0].s == "codeowners");
    CHECK(h["source_deleted"].b == false);
    CHECK(h["resume_hint"].s == "cd /Users/alex/workspace/cli && claude --resume " + kAlexId);
}

TEST_CASE("cli: content JSON envelope and per-hit fields", "[cli]") {
    Cli cli({kAlex, kPosh});
    Json j = cli.json({"content", "CODE[O]WNERS"});
    check_envelope(j, "content");
    CHECK(j["query"].s == "CODE[O]WNERS");
    REQUIRE(j["results"].a.size() == 1);
    const Json& h = j["results"][0];
    check_search_hit(h);
    CHECK(h["session_id"].s == kAlexId);
    CHECK(h["match_count"].i == 6);
    CHECK(h["snippet"].s.find("CODEOWNERS") != std::string::npos);
    Json bm = cli.json({"content", "CODEOWNERS", "--by", "message"});
    check_envelope(bm, "content");
    CHECK(bm["results"].a.size() == 6);
    CHECK(field_set(bm["results"], "message_uuid").size() == 6);
    for (const auto& m : bm["results"].a) {
        check_search_hit(m);
        CHECK(m["match_count"].i == 1);
    }
}

TEST_CASE("cli: list JSON fields newest first", "[cli]") {
    Cli cli({kAlex, kPosh, kSpotterA, kSpotterB, kBlameDir});
    Json j = cli.json({"list"});
    check_envelope(j, "list");
    CHECK(j["query"].is_null());
    REQUIRE(j["results"].a.size() == 5);
    for (size_t n = 0; n < j["results"].a.size(); ++n) {
        const Json& h = j["results"][n];
        for (const auto& k : kListHitKeys) {
            INFO("list key " << k);
            CHECK(h.has(k));
        }
        CHECK(is_iso_ms(h["started_at"]));
        CHECK(is_iso_ms(h["ended_at"]));
        CHECK(h["models"].is_arr());
        for (const char* k : {"input", "output", "cache_creation", "cache_read"}) CHECK(h["tokens"][k].t == Json::T::Int);
        CHECK(h["subagent_count"].t == Json::T::Int);
        CHECK(h["message_count"].i >= 1);
        CHECK(h["resume_hint"].s == "cd " + h["cwd"].s + " && claude --resume " + h["session_id"].s);
        if (n > 0) CHECK(j["results"][n - 1]["ended_at"].s >= h["ended_at"].s);
    }
    std::vector<std::string> order;
    for (const auto& h : j["results"].a) order.push_back(h["session_id"].s);
    CHECK(order == std::vector<std::string>{kPoshId, kSpotterAId, kSpotterBId, kAlexId, kBlameId});
    const Json& blame = j["results"][4];
    CHECK(blame["subagent_count"].i == 2);
    CHECK(blame["models"].a.size() == 2);
}

TEST_CASE("cli: golden session fields of a real Windows transcript", "[cli]") {
    // Expected values read from D--oh-my-posh/88e16f61….jsonl: 2 user + 5 assistant lines, cwd D:\oh-my-posh,
    // gitBranch next, custom-title "Remove phantom nul file", first message 06:18:25.945Z, last 06:18:55.984Z,
    // usage of its two API messages (msg_011CcunR73…, msg_011CcunSea…) summed once each.
    Cli cli({kPosh, kAlex});
    Json j = cli.json({"list", "--session", "88e16f61"});
    REQUIRE(j["results"].a.size() == 1);
    const Json& h = j["results"][0];
    CHECK(h["session_id"].s == kPoshId);
    CHECK(h["agent"].s == "claude");
    CHECK(h["title"].s == "Remove phantom nul file");
    CHECK(h["project"].s == "D--oh-my-posh");
    CHECK(h["project_path"].s == "D:\\oh-my-posh");
    CHECK(h["cwd"].s == "D:\\oh-my-posh");
    CHECK(h["git_branch"].s == "next");
    CHECK(h["message_count"].i == 7);
    CHECK(h["started_at"].s == "2026-07-11T06:18:25.945Z");
    CHECK(h["ended_at"].s == "2026-07-11T06:18:55.984Z");
    CHECK(h["models"].a.size() == 1);
    CHECK(h["models"][0].s == "claude-fable-5");
    CHECK(h["tokens"]["input"].i == 11327);
    CHECK(h["tokens"]["output"].i == 814);
    CHECK(h["tokens"]["cache_creation"].i == 17283);
    CHECK(h["tokens"]["cache_read"].i == 55284);
    CHECK(h["subagent_count"].i == 0);
    CHECK(h["source_deleted"].b == false);
    CHECK(h["path"].s == cli.path(kPosh));
    CHECK(h["resume_hint"].s == "cd D:\\oh-my-posh && claude --resume 88e16f61-d1b7-47a3-84f1-057e0f96521a");

    // The same session fields on a keyword hit, plus the message's own.
    Json k = cli.json({"keyword", "\"reserved DOS device name\""});
    REQUIRE(k["results"].a.size() == 1);
    const Json& kh = k["results"][0];
    for (const char* key : {"session_id", "title", "project", "project_path", "git_branch", "started_at", "ended_at",
                            "resume_hint"})
        CHECK(kh[key].s == h[key].s);
    CHECK(kh["message_count"].i == 7);
    CHECK(kh["role"].s == "assistant");
    CHECK(kh["content_type"].s == "text");
    CHECK(kh["message_uuid"].s == "9e9672f9-4a39-4a11-91a8-f1e64f0fcfb5");
    CHECK(kh["time"].s >= h["started_at"].s);
    CHECK(kh["time"].s <= h["ended_at"].s);
}

TEST_CASE("cli: golden session fields of a real transcript titled by its first prompt", "[cli]") {
    // From -home-marco-projects-spotter/55604662….jsonl: 4 user + 5 assistant lines, first prompt
    // "mix phx.server doesnt seem to start", cwd /home/marco/projects/spotter, gitBranch master.
    Cli cli({kSpotterB, kSpotterA});
    Json j = cli.json({"list", "--session", kSpotterBId});
    REQUIRE(j["results"].a.size() == 1);
    const Json& h = j["results"][0];
    CHECK(h["session_id"].s == kSpotterBId);
    CHECK(h["title"].s == "mix phx.server doesnt seem to start");
    CHECK(h["project"].s == "-home-marco-projects-spotter");
    CHECK(h["project_path"].s == "/home/marco/projects/spotter");
    CHECK(h["cwd"].s == "/home/marco/projects/spotter");
    CHECK(h["git_branch"].s == "master");
    CHECK(h["message_count"].i == 9);
    CHECK(h["started_at"].s == "2026-02-10T21:11:56.846Z");
    CHECK(h["ended_at"].s == "2026-02-10T21:12:02.480Z");
    CHECK(h["models"].a.size() == 1);
    CHECK(h["models"][0].s == "claude-opus-4-6");
    CHECK(h["resume_hint"].s == "cd /home/marco/projects/spotter && claude --resume " + kSpotterBId);
}

TEST_CASE("cli: jsonl prints one object per result then a summary line", "[cli]") {
    Cli cli({kAlex, kPosh, kSoph});
    RunResult r = cli.run({"keyword", "file", "--by", "message", "--limit", "4"}, "jsonl");
    REQUIRE(r.exit_code == 0);
    auto lines = lines_of(r.out);
    REQUIRE(lines.size() == 5);
    for (size_t n = 0; n < 4; ++n) {
        Json h = parse(lines[n]);
        CHECK_FALSE(h["summary"].is_obj());  // a hit's "summary" is the session summary text
        check_search_hit(h);
    }
    Json last = parse(lines.back());
    REQUIRE(last.has("summary"));
    REQUIRE(last["summary"].is_obj());
    CHECK(last.keys() == std::vector<std::string>{"summary"});
    const Json& s = last["summary"];
    CHECK(s["action"].s == "keyword");
    CHECK(s["returned"].i == 4);
    CHECK(s["total"].i >= 4);
    CHECK(s["query"].s == "file");
    CHECK(s["index"]["sessions"].i == 3);
    CHECK_FALSE(s.has("results"));

    // Zero results: only the summary line.
    RunResult z = cli.run({"keyword", "zzzqqqxxx"}, "jsonl");
    REQUIRE(z.exit_code == 0);
    auto zl = lines_of(z.out);
    REQUIRE(zl.size() == 1);
    CHECK(parse(zl[0])["summary"]["total"].i == 0);

    // content and list too.
    RunResult c = cli.run({"content", "CODEOWNERS"}, "jsonl");
    REQUIRE(c.exit_code == 0);
    auto cl = lines_of(c.out);
    REQUIRE(cl.size() == 2);
    CHECK(parse(cl[0])["session_id"].s == kAlexId);
    CHECK(parse(cl[1])["summary"]["action"].s == "content");
    RunResult l = cli.run({"list"}, "jsonl");
    REQUIRE(l.exit_code == 0);
    auto ll = lines_of(l.out);
    REQUIRE(ll.size() == 4);
    CHECK(parse(ll[3])["summary"]["action"].s == "list");
    CHECK(parse(ll[3])["summary"]["total"].i == 3);
}

TEST_CASE("cli: snippets respect --snippet-chars and stay valid UTF-8 on CJK and emoji", "[cli]") {
    Cli cli({kSoph, kAlex});
    for (size_t n : {1u, 2u, 5u, 10u, 17u, 40u, 80u, 200u}) {
        const std::string chars = std::to_string(n);
        std::vector<std::vector<std::string>> queries = {
            {"keyword", "你好世界", "--by", "message"},
            {"content", "🎉", "--by", "message"},
            {"content", "你好世界", "--by", "message", "--include-meta"},
            {"content", "-F", "hello 🎉 world", "--by", "message"},
            {"keyword", "TruncateRunes", "--by", "message"},
        };
        for (auto q : queries) {
            q.insert(q.end(), {"--snippet-chars", chars});
            Json j = cli.json(q);
            REQUIRE_FALSE(j["results"].a.empty());
            for (const auto& h : j["results"].a) {
                const std::string& sn = h["snippet"].s;
                INFO(Catch::Detail::stringify(q) << " snippet [" << sn << "]");
                CHECK(valid_utf8(sn));
                CHECK(code_points(sn) <= n);
                CHECK_FALSE(sn.empty());
            }
        }
    }
    // Default: at most 200 characters, the match inside.
    Json d = cli.json({"content", "🎉", "--by", "message"});
    REQUIRE_FALSE(d["results"].a.empty());
    for (const auto& h : d["results"].a) {
        CHECK(code_points(h["snippet"].s) <= 200);
        CHECK(valid_utf8(h["snippet"].s));
        CHECK(h["snippet"].s.find("🎉") != std::string::npos);
    }
    Json c = cli.json({"keyword", "你好世界", "--by", "message", "--snippet-chars", "30"});
    for (const auto& h : c["results"].a) {
        INFO(h["snippet"].s);
        CHECK((h["snippet"].s.find("你好") != std::string::npos || h["snippet"].s.find("世界") != std::string::npos));
    }
}

TEST_CASE("cli: snippets are plain text without newlines or raw JSON escapes", "[cli]") {
    Cli cli({kSoph});
    Json j = cli.json({"content", "TruncateRunes\\(", "--by", "message", "--include-meta"});
    REQUIRE_FALSE(j["results"].a.empty());
    for (const auto& h : j["results"].a) {
        const std::string& sn = h["snippet"].s;
        INFO(sn);
        CHECK(sn.find("TruncateRunes(") != std::string::npos);
        CHECK(sn.find("\\\"") == std::string::npos);  // decoded text, not JSON source
        CHECK(sn.find("\\n") == std::string::npos);
    }
}

// =============================================================================================
// Exit codes and errors

TEST_CASE("cli: zero results exit 0 with an empty result list", "[cli]") {
    Cli cli({kAlex});
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"keyword", "zzzqqqxxx"},
             {"keyword", "数据库迁移"},
             {"content", "zzzqqqxxx"},
             {"content", "-F", "a.*b(c"},
             {"list", "--project", "no-such-project"},
             {"keyword", "CODEOWNERS", "--since", "1s"},
         }) {
        INFO(Catch::Detail::stringify(args));
        RunResult r = cli.run(args);
        INFO(r.err);
        CHECK(r.exit_code == 0);
        Json j = parse(r.out);
        CHECK(j["total"].i == 0);
        CHECK(j["returned"].i == 0);
        CHECK(j["results"].a.empty());
    }
}

TEST_CASE("cli: bad input exits 2 with a JSON error object on stderr", "[cli]") {
    Cli cli({kAlex});
    struct Case {
        std::vector<std::string> args;
        std::string kind;
    };
    const std::vector<Case> cases = {
        {{"keyword", "foo", "--no-such-flag"}, "usage"},
        {{"content", "foo", "--since", "yesterday"}, "bad-time"},
        {{"keyword", "foo", "--until", "2026-13-45"}, "bad-time"},
        {{"list", "--since", "5x"}, "bad-time"},
        {{"content", "(unclosed"}, "bad-regex"},
        {{"content", "a{3,1}"}, "bad-regex"},
        {{"keyword", "OR"}, "usage"},
        {{"keyword", "foo", "--role", "robot"}, "usage"},
        {{"keyword", "foo", "--agent", "gemini"}, "usage"},
        {{"keyword", "foo", "--sort", "sideways"}, "usage"},
        {{"list", "--limit", "0"}, "usage"},
    };
    for (const auto& c : cases) {
        INFO(Catch::Detail::stringify(c.args));
        RunResult r = cli.run(c.args);
        INFO("stdout: " << r.out << "\nstderr: " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.term_signal == 0);
        CHECK(r.out.empty());
        Json e;
        CHECK(try_parse(last_line(r.err), e));
        if (e.has("error")) {
            CHECK(e["error"]["kind"].s == c.kind);
            CHECK_FALSE(e["error"]["message"].s.empty());
        } else {
            FAIL_CHECK("no {\"error\":…} object on stderr");
        }
    }
}

TEST_CASE("cli: unsupported regex constructs are named in the error", "[cli]") {
    // SPEC §4: a construct that cannot run is a clear error naming the construct, exit 2. Backreferences and
    // fixed-length lookaround do run (Hyperscan prefilter + PCRE2, checked for exact answers elsewhere);
    // a variable-length lookbehind runs in neither engine.
    Cli cli({kAlex});
    struct Case {
        std::string pattern, construct;
    };
    for (const auto& c : std::vector<Case>{{"(?<=a+)b", "lookbehind"},
                                           {"(?<!\\w+)x", "lookbehind"}}) {
        INFO(c.pattern);
        RunResult r = cli.run({"content", c.pattern});
        INFO("stdout: " << r.out.substr(0, 300) << "\nstderr: " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.out.empty());
        Json e;
        CHECK(try_parse(last_line(r.err), e));
        if (e.has("error")) {
            CHECK(e["error"]["kind"].s == "bad-regex");
            std::string m = e["error"]["message"].s;
            std::transform(m.begin(), m.end(), m.begin(), [](unsigned char ch) { return std::tolower(ch); });
            CHECK(m.find(c.construct) != std::string::npos);
        } else {
            FAIL_CHECK("no {\"error\":…} object on stderr");
        }
    }
    // Text format: a readable message on stderr, still exit 2.
    RunResult t = cli.run({"content", "(?<=a+)b"}, "text");
    CHECK(t.exit_code == 2);
    CHECK(t.out.empty());
    CHECK(t.err.find("osearch") != std::string::npos);
    CHECK(t.err.find('{') == std::string::npos);
}

TEST_CASE("cli: a JSON error is written whether --format json comes before or after the bad flag", "[cli]") {
    Cli cli({kAlex});
    const std::string idx = cli.idx, src = "claude=" + cli.src;
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"--format", "json", "--index", idx, "--source", src, "keyword", "foo", "--bogus"},
             {"keyword", "foo", "--bogus", "--format", "json", "--index", idx, "--source", src},
             {"--index", idx, "--source", src, "keyword", "foo", "--format", "json", "--bogus"},
         }) {
        INFO(Catch::Detail::stringify(args));
        RunResult r = run_osearch(args);
        INFO(r.err);
        CHECK(r.exit_code == 2);
        Json e;
        REQUIRE(try_parse(last_line(r.err), e));
        CHECK(e["error"]["kind"].s == "usage");
    }
}

TEST_CASE("cli: usage errors without --format exit 2", "[cli]") {
    Cli cli({kAlex});
    for (const auto& args : std::vector<std::vector<std::string>>{
             {}, {"nosuchcommand"}, {"keyword"}, {"content"}, {"--format", "xml", "list"}}) {
        INFO(Catch::Detail::stringify(args));
        std::vector<std::string> a = args;
        a.insert(a.end(), {"--index", cli.idx, "--source", "claude=" + cli.src});
        RunResult r = run_osearch(a);
        CHECK(r.exit_code == 2);
        CHECK(r.term_signal == 0);
        CHECK_FALSE(r.err.empty());
    }
}

// =============================================================================================
// Formats and options

TEST_CASE("cli: --format text prints a readable block", "[cli]") {
    Cli cli({kAlex, kPosh});
    RunResult r = cli.run({"keyword", "CODEOWNERS"}, "text");
    REQUIRE(r.exit_code == 0);
    Json ignored;
    CHECK_FALSE(try_parse(r.out, ignored));
    CHECK(r.out.find(kAlexId) != std::string::npos);
    CHECK(r.out.find("CODEOWNERS") != std::string::npos);
    CHECK(r.out.find("claude --resume " + kAlexId) != std::string::npos);
    CHECK(r.out.find("\033[") == std::string::npos);  // no colour when stdout is not a terminal
    CHECK(valid_utf8(r.out));
    RunResult l = cli.run({"list"}, "text");
    REQUIRE(l.exit_code == 0);
    CHECK(l.out.find("Remove phantom nul file") != std::string::npos);
    CHECK(l.out.find(kPoshId) != std::string::npos);
    // Default format when stdout is not a terminal: JSON.
    RunResult d = cli.run({"list"}, "");
    REQUIRE(d.exit_code == 0);
    Json j = parse(d.out);
    CHECK(j["action"].s == "list");
}

TEST_CASE("cli: global options are accepted before or after the command", "[cli]") {
    Cli cli({kAlex, kPosh});
    const std::string idx = cli.idx, src = "claude=" + cli.src;
    const std::vector<std::vector<std::string>> forms = {
        {"keyword", "CODEOWNERS", "--index", idx, "--source", src, "--format", "json"},
        {"--index", idx, "--source", src, "--format", "json", "keyword", "CODEOWNERS"},
        {"--index", idx, "keyword", "--format", "json", "CODEOWNERS", "--source", src},
        {"--format=json", "keyword", "CODEOWNERS", "--index=" + idx, "--source=" + src, "--no-refresh", "-q"},
    };
    for (const auto& f : forms) {
        INFO(Catch::Detail::stringify(f));
        RunResult r = run_osearch(f);
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        Json j = parse(r.out);
        CHECK(j["action"].s == "keyword");
        CHECK(j["index"]["sessions"].i == 2);
        REQUIRE(j["results"].a.size() == 1);
        CHECK(j["results"][0]["session_id"].s == kAlexId);
    }
    // $OSEARCH_INDEX and $OSEARCH_SOURCES stand in for the options.
    RunOptions env;
    env.env["OSEARCH_INDEX"] = idx;
    env.env["OSEARCH_SOURCES"] = src;
    RunResult e = run_osearch({"list", "--format", "json"}, "", env);
    REQUIRE(e.exit_code == 0);
    CHECK(parse(e.out)["results"].a.size() == 2);
}

TEST_CASE("cli: --version and --help exit 0", "[cli]") {
    RunResult v = run_osearch({"--version"});
    CHECK(v.exit_code == 0);
    CHECK(v.out.find("osearch") != std::string::npos);
    CHECK(std::regex_search(v.out, std::regex("\\d+\\.\\d+\\.\\d+")));
    RunResult h = run_osearch({"--help"});
    CHECK(h.exit_code == 0);
    for (const char* cmd : {"index", "keyword", "content", "list", "--index", "--format"})
        CHECK(h.out.find(cmd) != std::string::npos);
    RunResult kh = run_osearch({"keyword", "--help"});
    CHECK(kh.exit_code == 0);
    for (const char* opt : {"--by", "--sort", "--project", "--since", "--until", "--limit"})
        CHECK(kh.out.find(opt) != std::string::npos);
    RunResult ch = run_osearch({"content", "--help"});
    CHECK(ch.exit_code == 0);
    for (const char* opt : {"-F", "-i", "-w", "-e"}) CHECK(ch.out.find(opt) != std::string::npos);
}

TEST_CASE("cli: every filter flag is wired to the engine", "[cli]") {
    Cli cli({kAlex, kPosh, kSpotterA, kSpotterB, kSample, kBlameDir});
    auto sessions = [&](std::vector<std::string> args) {
        Json j = cli.json(args);
        return field_set(j["results"], "session_id");
    };
    const std::set<std::string> spotter = {kSpotterAId, kSpotterBId};
    CHECK(sessions({"list", "--project", "SPOTTER"}) == spotter);
    CHECK(sessions({"list", "--agent", "claude"}).size() == 6);
    CHECK(sessions({"list", "--agent", "codex"}).empty());
    CHECK(sessions({"list", "--session", "d6e0", "--session", "5560"}) == spotter);
    CHECK(sessions({"list", "--since", "2026-02-01", "--until", "2026-02-12"}) == spotter);
    CHECK(sessions({"list", "--since", "2026-07-11T14:00:00+08:00", "--until", "2026-07-11T14:30:00+08:00"}) ==
          std::set<std::string>{kPoshId});
    CHECK(sessions({"list", "--since", "100000d"}).size() == 6);
    CHECK(sessions({"list", "--since", "1h"}).empty());
    CHECK(sessions({"list", "--branch", "master"}) == spotter);
    CHECK(sessions({"list", "--model", "haiku"}) == std::set<std::string>{kBlameId});
    CHECK(sessions({"list", "--cwd", "/home/marco"}) == spotter);
    CHECK(sessions({"keyword", "file", "--model", "fable"}) == std::set<std::string>{kPoshId});

    Json tool = cli.json({"content", "No files found", "--role", "tool", "--by", "message"});
    REQUIRE(tool["results"].a.size() >= 5);
    for (const auto& h : tool["results"].a) {
        CHECK(h["role"].s == "tool");
        CHECK(h["content_type"].s == "tool_result");
    }
    CHECK(cli.json({"content", "No files found", "--role", "user"})["total"].i == 0);
    Json types = cli.json({"keyword", "the", "--type", "thinking", "--by", "message"});
    REQUIRE_FALSE(types["results"].a.empty());
    for (const auto& h : types["results"].a) CHECK(h["content_type"].s == "thinking");
    Json w = cli.json({"keyword", "CODEOWNERS", "--tool", "Write", "--by", "message"});
    CHECK(field_set(w["results"], "message_uuid") ==
          std::set<std::string>{"33c6b8d0-d4d2-4b07-b926-46adc29db0f0", "1aa717b0-64e9-4003-9bce-845587cafe55"});
    // Meta hidden by default; --include-meta shows it.
    CHECK(cli.json({"content", "-F", "Please analyze this codebase"})["total"].i == 0);
    CHECK(cli.json({"content", "-F", "Please analyze this codebase", "--include-meta"})["total"].i == 1);
    CHECK(cli.json({"content", "-F", "<command-name>/init", "--type", "command"})["total"].i == 1);
    // --limit / --offset.
    Json all = cli.json({"list"});
    Json page = cli.json({"list", "--limit", "2", "--offset", "1"});
    REQUIRE(page["results"].a.size() == 2);
    CHECK(page["total"].i == all["total"].i);
    CHECK(page["results"][0]["session_id"].s == all["results"][1]["session_id"].s);
    CHECK(page["results"][1]["session_id"].s == all["results"][2]["session_id"].s);
    Json kl = cli.json({"keyword", "the", "--by", "message", "--limit", "3"});
    CHECK(kl["returned"].i == 3);
    CHECK(kl["total"].i > 3);
}

TEST_CASE("cli: keyword --by message and --sort", "[cli]") {
    Cli cli({kAlex, kPosh, kSpotterB});
    Json s = cli.json({"keyword", "the"});
    CHECK(field_set(s["results"], "session_id").size() == s["results"].a.size());
    Json m = cli.json({"keyword", "CODEOWNERS", "--by", "message"});
    CHECK(m["results"].a.size() == 6);
    CHECK(field_set(m["results"], "message_uuid").size() == 6);
    Json n = cli.json({"keyword", "the", "--by", "message", "--sort", "newest", "--limit", "100"});
    Json o = cli.json({"keyword", "the", "--by", "message", "--sort", "oldest", "--limit", "100"});
    REQUIRE(n["results"].a.size() >= 5);
    for (size_t k = 1; k < n["results"].a.size(); ++k) CHECK(n["results"][k - 1]["time"].s >= n["results"][k]["time"].s);
    for (size_t k = 1; k < o["results"].a.size(); ++k) CHECK(o["results"][k - 1]["time"].s <= o["results"][k]["time"].s);
    CHECK(n["results"][0]["session_id"].s == kPoshId);
    CHECK(o["results"][0]["session_id"].s == kAlexId);
}

// =============================================================================================
// Index lifecycle as seen by queries

TEST_CASE("cli: content finds a session whose source file was deleted", "[cli]") {
    Cli cli({kAlex, kPosh});
    fs::remove(cli.path(kAlex));
    // Without a refresh the index still answers from what it has.
    Json nr = cli.json({"content", "CODEOWNERS", "--no-refresh"});
    REQUIRE(nr["results"].a.size() == 1);
    CHECK(nr["results"][0]["session_id"].s == kAlexId);
    CHECK(nr["results"][0]["match_count"].i == 6);
    // The refresh before a query notices the deletion; the session stays searchable.
    Json r = cli.json({"content", "CODEOWNERS"});
    REQUIRE(r["results"].a.size() == 1);
    CHECK(r["results"][0]["session_id"].s == kAlexId);
    CHECK(r["results"][0]["source_deleted"].b == true);
    CHECK(r["results"][0]["match_count"].i == 6);
    Json again = cli.json({"content", "CODEOWNERS", "--no-refresh"});
    REQUIRE(again["results"].a.size() == 1);
    CHECK(again["results"][0]["source_deleted"].b == true);
    Json k = cli.json({"keyword", "CODEOWNERS"});
    REQUIRE(k["results"].a.size() == 1);
    CHECK(k["results"][0]["source_deleted"].b == true);
    Json l = cli.json({"list", "--session", kAlexId});
    REQUIRE(l["results"].a.size() == 1);
    CHECK(l["results"][0]["source_deleted"].b == true);
    CHECK(l["results"][0]["message_count"].i == 6);
}

TEST_CASE("cli: queries refresh appended transcript bytes unless --no-refresh", "[cli]") {
    Cli cli({kPosh}, false);
    const std::string full = read_file(root_of(kAlex) + "/" + kAlex);
    // The first 4 lines (through the first assistant chunk), then the rest; the file ends without a newline.
    size_t cut = 0;
    for (int n = 0; n < 4; ++n) cut = full.find('\n', cut) + 1;
    REQUIRE(full.back() != '\n');
    write_file(cli.path(kAlex), full.substr(0, cut));
    cli.index();
    Json before = cli.json({"content", "CODEOWNERS", "--by", "message"});
    CHECK(before["results"].a.size() == 2);
    append_file(cli.path(kAlex), full.substr(cut));
    Json stale = cli.json({"content", "CODEOWNERS", "--by", "message", "--no-refresh"});
    CHECK(stale["results"].a.size() == 2);
    CHECK(stale["index"]["refreshed_files"].i == 0);
    Json fresh = cli.json({"content", "CODEOWNERS", "--by", "message"});
    CHECK(fresh["index"]["refreshed_files"].i >= 1);
    CHECK(fresh["results"].a.size() == 6);
    // The complete last line without a trailing newline is taken.
    CHECK(field_set(fresh["results"], "message_uuid").count("f04ae514-b96a-44f0-9edd-c0a53182f746") == 1);
    Json k = cli.json({"keyword", "CODEOWNERS"});
    REQUIRE(k["results"].a.size() == 1);
    CHECK(k["results"][0]["match_count"].i == 6);
    CHECK(k["index"]["refreshed_files"].i == 0);  // unchanged corpus: nothing re-read
    CHECK(k["index"]["messages"].i == 13);
}

TEST_CASE("cli: the index directory is private with 0700 dirs and 0600 files", "[cli]") {
    Cli cli({kAlex});
    CHECK(mode_bits(cli.idx) == 0700);
    auto files = list_files(cli.idx);
    REQUIRE_FALSE(files.empty());
    for (const auto& f : files) {
        INFO(f);
        CHECK((mode_bits(cli.idx + "/" + f) & 077) == 0);
    }
    for (auto it = fs::recursive_directory_iterator(cli.idx); it != fs::recursive_directory_iterator(); ++it) {
        if (!it->is_directory()) continue;
        INFO(it->path().string());
        CHECK((mode_bits(it->path().string()) & 077) == 0);
    }
}

TEST_CASE("cli: a query on a missing index creates it from the sources", "[cli]") {
    Cli cli({kAlex}, false);
    Json j = cli.json({"keyword", "CODEOWNERS"});
    CHECK(j["index"]["sessions"].i == 1);
    CHECK(j["index"]["refreshed_files"].i >= 1);
    REQUIRE(j["results"].a.size() == 1);
    CHECK(j["results"][0]["session_id"].s == kAlexId);
}

TEST_CASE("cli: queries on an empty index answer zero results, not an error", "[cli]") {
    // A first run where the source root exists but holds no transcripts yet (a fresh ~/.claude/projects).
    Cli cli({}, true);
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"keyword", "error"}, {"content", "error"}, {"list"}, {"keyword", "foo", "--by", "message"}}) {
        INFO(args.front());
        RunResult r = cli.run(args);
        INFO("stderr: " << r.err);
        CHECK(r.exit_code == 0);
        Json j;
        REQUIRE(try_parse(r.out, j));
        CHECK(j["total"].i == 0);
    }
}
