// Shared fixtures and helpers of the cli tests (split out of one long file).
#pragma once

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

#include "tests/corpus_sessions.h"
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
using osearch_test::code_points;
using osearch_test::valid_utf8;

bool is_iso_ms(const Json& j) {
    static const std::regex re("^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$");
    return j.is_str() && std::regex_match(j.s, re);
}

// ---------------------------------------------------------------------------------------------
// Fixture: temp copies of chosen real transcripts, indexed by the CLI.




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
