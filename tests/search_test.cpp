// Search semantics (SPEC §3 filters, §4) through the engine API: run_index over temp copies of a
// few real transcripts, then run_keyword / run_content / run_list on an IndexReader. Expected
// answers come from the transcripts themselves (decoded here with simdjson), never from osearch.
#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <simdjson.h>

#include <catch2/catch.hpp>

#include "test_util.h"

#include "engine/indexer.h"
#include "engine/query.h"
#include "engine/reader.h"
#include "engine/search.h"
#include "ingest/timeutil.h"

using namespace osearch;
using namespace osearch_test;

namespace {

// ---------------------------------------------------------------------------------------------
// The real transcripts the tests use (paths relative to a Claude projects root).

const std::string kAlex = "-Users-alex-workspace-cli/1b3e6441-62e3-4b41-8a0c-9d252f531f7a.jsonl";
const std::string kAlexLinear = "-Users-alex-workspace-cli/8b418ea5-895d-4ad5-abe8-4489d36e454f.jsonl";
const std::string kPosh = "D--oh-my-posh/88e16f61-d1b7-47a3-84f1-057e0f96521a.jsonl";
const std::string kPoshBig = "D--oh-my-posh/bf77db8f-a917-4fc4-be70-ca1927a57d56.jsonl";
const std::string kSoph = "-Users-soph-Work-entire-devenv-cli/97007e37-53bd-4456-9a49-c0f8081081a7.jsonl";
const std::string kSpotterA = "-home-marco-projects-spotter/d6e0bada-1959-4eec-a9d2-0bfade768d8f.jsonl";
const std::string kSpotterB = "-home-marco-projects-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl";
const std::string kCaptureDir = "-private-var-folders-t5-6tq8cxtj20z035rv8hsnzwvh0000gn-T-capture-caLMT9";
const std::string kBlameDir = "-Users-cjm-repos-ai-blame-test";
const std::string kSample = "sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl";
const std::string kClaudeP = "-src-experiments-claude_p/2b4ed4c0-b905-41de-9238-273db3ec737a.jsonl";

const std::string kAlexId = "1b3e6441-62e3-4b41-8a0c-9d252f531f7a";
const std::string kAlexLinearId = "8b418ea5-895d-4ad5-abe8-4489d36e454f";
const std::string kPoshId = "88e16f61-d1b7-47a3-84f1-057e0f96521a";
const std::string kPoshBigId = "bf77db8f-a917-4fc4-be70-ca1927a57d56";
const std::string kSophId = "97007e37-53bd-4456-9a49-c0f8081081a7";
const std::string kSpotterAId = "d6e0bada-1959-4eec-a9d2-0bfade768d8f";
const std::string kSpotterBId = "55604662-cf2a-4331-851a-ec234028f8ca";
const std::string kCaptureId = "c2fc3a3f-66d5-4c87-9f78-1a31dd719471";
const std::string kBlameId = "2c965cfd-41e4-4e31-8339-2986ebced03c";
const std::string kSampleId = "1af7fc5e-8455-4414-9ccd-011d40f70b2a";
const std::string kClaudePId = "2b4ed4c0-b905-41de-9238-273db3ec737a";

// Nine sessions: every filter has something to keep and something to drop.
const std::vector<std::string> kAll = {kAlex, kPosh, kSoph, kSpotterA, kSpotterB, kCaptureDir, kBlameDir, kSample, kClaudeP};

// tests/data/claude when the file was copied there, else the shared corpus.
std::string root_of(const std::string& rel) {
    for (const std::string& root : {claude_data_dir(), corpus_claude_dir()})
        if (fs::exists(root + "/" + rel)) return root;
    return {};
}

struct Fixture {
    TempDir tmp{"search"};
    std::string src = tmp / "claude";
    std::string idx = tmp / "index";

    explicit Fixture(const std::vector<std::string>& rels) {
        fs::create_directories(src);
        for (const auto& rel : rels) {
            const std::string root = root_of(rel);
            INFO("transcript " << rel);
            REQUIRE_FALSE(root.empty());
            copy_subtree(root, rel, src);
        }
        reindex();
    }
    IndexSummary reindex() {
        IndexSummary s = run_index(idx, {{"claude", src}}, IndexOptions{});
        REQUIRE(s.files_unreadable == 0);
        return s;
    }
    std::string path(const std::string& rel) const { return src + "/" + rel; }
};

int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

using SetFilters = std::function<void(FilterArgs&)>;

Filters make_filters(const SetFilters& set, size_t default_limit = 1000) {
    FilterArgs a;
    if (set) set(a);
    return parse_filters(a, now_ms(), default_limit);
}

QueryResult kw(const Fixture& fx, const std::string& q, const SetFilters& set = {}, bool by_message = false,
               const std::string& sort = "relevance", size_t snippet_chars = 200) {
    IndexReader r(fx.idx);
    KeywordOptions o;
    o.by_message = by_message;
    o.sort = sort;
    o.snippet_chars = snippet_chars;
    return run_keyword(r, q, make_filters(set), o);
}

QueryResult kw_msg(const Fixture& fx, const std::string& q, const SetFilters& set = {}) {
    return kw(fx, q, set, true);
}

struct ContentArgs {
    std::vector<std::string> patterns;
    bool fixed = false, ignore_case = false, word = false, by_message = false;
};

QueryResult ct(const Fixture& fx, const ContentArgs& c, const SetFilters& set = {}) {
    IndexReader r(fx.idx);
    ContentOptions o;
    o.patterns = c.patterns;
    o.fixed = c.fixed;
    o.ignore_case = c.ignore_case;
    o.word = c.word;
    o.by_message = c.by_message;
    return run_content(r, make_filters(set), o);
}

QueryResult ls(const Fixture& fx, const SetFilters& set = {}) {
    IndexReader r(fx.idx);
    return run_list(r, make_filters(set, 50));
}

std::set<std::string> session_ids(const QueryResult& r) {
    std::set<std::string> out;
    for (const auto& h : r.hits) out.insert(h.session.id);
    return out;
}

std::set<std::string> message_uuids(const QueryResult& r) {
    std::set<std::string> out;
    for (const auto& h : r.hits)
        if (h.message) out.insert(h.message->uuid);
    return out;
}

// The message of a message hit (a hit on a session title has none).
MessageRec msg(const Hit& h) {
    REQUIRE(h.message.has_value());
    return *h.message;
}

// Identity of a hit for order comparisons: the message uuid, or the session for a title hit.
std::string hit_key(const Hit& h) { return h.message ? msg(h).uuid : "title/" + h.session.id; }

const Hit* hit_for(const QueryResult& r, const std::string& sid) {
    for (const auto& h : r.hits)
        if (h.session.id == sid) return &h;
    return nullptr;
}

// ---------------------------------------------------------------------------------------------
// An independent reading of a transcript: every user/assistant line with a uuid is a message whose
// searchable text is its text blocks, thinking, tool names + every string of tool inputs, and
// tool results' text (SPEC §4: "every message's text, tool inputs and outputs").

struct CorpusMessage {
    std::string uuid, session_id, type, timestamp;
    bool meta = false;         // isMeta / isCompactSummary lines
    bool tool_result = false;  // carries a tool_result block
    std::string text;
};

void append_part(std::string& out, std::string_view part) {
    if (part.empty()) return;
    if (!out.empty()) out.push_back('\n');
    out.append(part);
}

void string_leaves(simdjson::dom::element e, std::string& out) {
    switch (e.type()) {
        case simdjson::dom::element_type::STRING:
            append_part(out, std::string_view(e.get_string().value_unsafe()));
            break;
        case simdjson::dom::element_type::ARRAY: {
            simdjson::dom::array arr;
            if (e.get_array().get(arr) == simdjson::SUCCESS)
                for (simdjson::dom::element c : arr) string_leaves(c, out);
            break;
        }
        case simdjson::dom::element_type::OBJECT: {
            simdjson::dom::object obj;
            if (e.get_object().get(obj) == simdjson::SUCCESS)
                for (auto f : obj) string_leaves(f.value, out);
            break;
        }
        default:
            break;
    }
}

std::string_view str(simdjson::dom::element e, const char* key) {
    std::string_view v;
    if (e[key].get_string().get(v) != simdjson::SUCCESS) return {};
    return v;
}

bool flag(simdjson::dom::element e, const char* key) {
    bool b = false;
    if (e[key].get_bool().get(b) != simdjson::SUCCESS) return false;
    return b;
}

std::vector<CorpusMessage> read_transcript(const std::string& path) {
    std::vector<CorpusMessage> out;
    const std::string data = read_file(path);
    simdjson::dom::parser parser;
    size_t pos = 0;
    while (pos < data.size()) {
        size_t nl = data.find('\n', pos);
        if (nl == std::string::npos) nl = data.size();
        std::string_view line(data.data() + pos, nl - pos);
        pos = nl + 1;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
        simdjson::padded_string padded(line);
        simdjson::dom::element o;
        if (parser.parse(padded).get(o) != simdjson::SUCCESS || !o.is_object()) continue;
        std::string_view type = str(o, "type");
        if ((type != "user" && type != "assistant") || str(o, "uuid").empty()) continue;
        CorpusMessage m;
        m.uuid = std::string(str(o, "uuid"));
        m.session_id = std::string(str(o, "sessionId"));
        m.type = std::string(type);
        m.timestamp = std::string(str(o, "timestamp"));
        m.meta = flag(o, "isMeta") || flag(o, "isCompactSummary");
        simdjson::dom::element content;
        if (o["message"]["content"].get(content) == simdjson::SUCCESS) {
            std::string_view s;
            if (content.get_string().get(s) == simdjson::SUCCESS) {
                m.text.assign(s);
            } else if (simdjson::dom::array blocks; content.get_array().get(blocks) == simdjson::SUCCESS) {
                for (simdjson::dom::element b : blocks) {
                    std::string_view bt = str(b, "type");
                    if (bt == "text") {
                        append_part(m.text, str(b, "text"));
                    } else if (bt == "thinking") {
                        append_part(m.text, str(b, "thinking"));
                    } else if (bt == "tool_use") {
                        append_part(m.text, str(b, "name"));
                        simdjson::dom::element input;
                        if (b["input"].get(input) == simdjson::SUCCESS) string_leaves(input, m.text);
                    } else if (bt == "tool_result") {
                        m.tool_result = true;
                        simdjson::dom::element c;
                        if (b["content"].get(c) == simdjson::SUCCESS) {
                            std::string_view cs;
                            if (c.get_string().get(cs) == simdjson::SUCCESS) {
                                append_part(m.text, cs);
                            } else if (simdjson::dom::array parts; c.get_array().get(parts) == simdjson::SUCCESS) {
                                for (simdjson::dom::element cb : parts)
                                    if (str(cb, "type") == "text") append_part(m.text, str(cb, "text"));
                            }
                        }
                    }
                }
            }
        }
        out.push_back(std::move(m));
    }
    return out;
}

std::set<std::string> uuids_where(const std::vector<CorpusMessage>& msgs,
                                  const std::function<bool(const CorpusMessage&)>& pred) {
    std::set<std::string> out;
    for (const auto& m : msgs)
        if (pred(m)) out.insert(m.uuid);
    return out;
}

auto contains(const std::string& needle) {
    return [needle](const CorpusMessage& m) { return m.text.find(needle) != std::string::npos; };
}

auto matches(const std::string& re, std::regex::flag_type flags = std::regex::ECMAScript) {
    auto rx = std::make_shared<std::regex>(re, flags);
    return [rx](const CorpusMessage& m) { return std::regex_search(m.text, *rx); };
}

int64_t iso_ms(const std::string& iso) {
    auto v = parse_iso8601_ms(iso);
    REQUIRE(v.has_value());
    return *v;
}

bool icontains(std::string hay, std::string needle) {
    std::transform(hay.begin(), hay.end(), hay.begin(), [](unsigned char c) { return std::tolower(c); });
    std::transform(needle.begin(), needle.end(), needle.begin(), [](unsigned char c) { return std::tolower(c); });
    return hay.find(needle) != std::string::npos;
}

}  // namespace

// =============================================================================================
// keyword: identifiers verbatim

TEST_CASE("search: keyword finds a UUID verbatim", "[search]") {
    Fixture fx({kAlexLinear, kAlex});
    const std::string id = "2eb22709-c7b4-4a11-9270-468079c0739f";
    auto msgs = read_transcript(fx.path(kAlexLinear));
    auto expect = uuids_where(msgs, contains(id));
    REQUIRE(expect.size() == 5);
    auto r = kw_msg(fx, id, [](FilterArgs& a) { a.include_meta = true; });
    CHECK(message_uuids(r) == expect);
    auto s = kw(fx, id);
    REQUIRE(s.hits.size() == 1);
    CHECK(s.hits[0].session.id == kAlexLinearId);
    CHECK(s.hits[0].snippet.find(id) != std::string::npos);
    CHECK(s.hits[0].match_count == expect.size());
}

TEST_CASE("search: keyword finds a toolu_ id written in message text", "[search]") {
    Fixture fx({kPoshBig, kPosh});
    const std::string id = "toolu_01DMPWtUcWvPwAxdVeAfJ1vV";
    auto expect = uuids_where(read_transcript(fx.path(kPoshBig)), contains(id));
    REQUIRE(expect == std::set<std::string>{"3cccb789-24d1-4943-b96d-9151ffc8636b"});
    // The message is a <task-notification> (injected), so it needs --include-meta.
    auto r = kw_msg(fx, id, [](FilterArgs& a) { a.include_meta = true; });
    // Besides the message that writes it, the call itself and its result carry the id (indexed verbatim).
    auto found = message_uuids(r);
    CHECK(std::includes(found.begin(), found.end(), expect.begin(), expect.end()));
    for (const auto& h : r.hits) {
        REQUIRE(h.message);
        if (expect.count(h.message->uuid)) {
            CHECK(h.snippet.find(id) != std::string::npos);
        } else {
            CHECK((h.message->content_type == ContentType::ToolUse || h.message->content_type == ContentType::ToolResult));
            CHECK(std::find(h.message->tool_call_ids.begin(), h.message->tool_call_ids.end(), id) !=
                  h.message->tool_call_ids.end());
        }
    }
}

TEST_CASE("search: keyword finds a tool call by its toolu_ id", "[search]") {
    // The id of a tool call (tool_use.id, tool_result.tool_use_id) is how transcripts, hooks and
    // error messages name a call (SPEC §4 "a toolu_… id found in a transcript is found verbatim").
    Fixture fx({kAlex});
    auto r = kw_msg(fx, "toolu_01YSSAHQnxsQC5wBW4QHXLbF");
    const std::set<std::string> call_or_result = {"33c6b8d0-d4d2-4b07-b926-46adc29db0f0",
                                                  "1aa717b0-64e9-4003-9bce-845587cafe55"};
    CHECK_FALSE(r.hits.empty());
    for (const auto& u : message_uuids(r)) CHECK(call_or_result.count(u) == 1);
}

TEST_CASE("search: keyword finds snake_case and camelCase names verbatim", "[search]") {
    Fixture fx({kSoph, kClaudeP});
    auto soph = read_transcript(fx.path(kSoph));
    for (const std::string name : {"existing_checkpoint_id", "sessions_with_content", "stripCheckpointTrailer"}) {
        INFO(name);
        auto expect = uuids_where(soph, contains(name));
        REQUIRE_FALSE(expect.empty());
        auto r = kw_msg(fx, name);
        CHECK(message_uuids(r) == expect);
        for (const auto& h : r.hits) CHECK(icontains(h.snippet, name));
    }
    auto claude_p = read_transcript(fx.path(kClaudeP));
    auto expect = uuids_where(claude_p, matches("\\ballowedTools\\b", std::regex::ECMAScript | std::regex::icase));
    REQUIRE(expect.size() == 3);
    auto r = kw_msg(fx, "allowedTools");
    CHECK(message_uuids(r) == expect);
    // camelCase is case-insensitive, as a word.
    CHECK(message_uuids(kw_msg(fx, "allowedtools")) == expect);
}

TEST_CASE("search: keyword finds a hyphenated id verbatim", "[search]") {
    Fixture fx({kClaudeP, kSoph});
    auto msgs = read_transcript(fx.path(kClaudeP));
    // "--dangerously-skip-permissions" occurs on its own line of `claude --help` output.
    auto expect = uuids_where(msgs, matches("(^|[^-\\w])--dangerously-skip-permissions\\b"));
    REQUIRE(expect.size() == 2);
    auto r = kw_msg(fx, "dangerously-skip-permissions");
    CHECK(message_uuids(r) == expect);
    auto p = kw_msg(fx, "prepare-commit-msg");
    CHECK(session_ids(p) == std::set<std::string>{kSophId});
}

TEST_CASE("search: keyword finds a file path verbatim", "[search]") {
    Fixture fx({kAlex, kPosh});
    const std::string path = "/Users/alex/workspace/cli/.github/CODEOWNERS";
    auto expect = uuids_where(read_transcript(fx.path(kAlex)), contains(path));
    REQUIRE(expect == std::set<std::string>{"33c6b8d0-d4d2-4b07-b926-46adc29db0f0", "1aa717b0-64e9-4003-9bce-845587cafe55"});
    auto r = kw_msg(fx, path);
    CHECK(message_uuids(r) == expect);
    for (const auto& h : r.hits) CHECK(h.snippet.find(path) != std::string::npos);
}

TEST_CASE("search: keyword finds a file name that occurs inside a longer path", "[search]") {
    // "stringutil_test.go" appears mostly as ".../cli/stringutil/stringutil_test.go".
    Fixture fx({kSoph});
    auto expect = uuids_where(read_transcript(fx.path(kSoph)), contains("stringutil_test.go"));
    REQUIRE(expect.size() >= 5);
    auto r = kw_msg(fx, "stringutil_test.go");
    CHECK(message_uuids(r) == expect);
}

TEST_CASE("search: keyword finds a version string verbatim", "[search]") {
    Fixture fx({kBlameDir, kAlex});
    auto msgs = read_transcript(fx.path(kBlameDir + "/" + kBlameId + ".jsonl"));
    auto expect = uuids_where(msgs, contains("0.1.0"));
    REQUIRE(expect.size() == 2);
    auto r = kw_msg(fx, "0.1.0");
    CHECK(message_uuids(r) == expect);
    auto one = kw_msg(fx, "1.0.0");
    CHECK(message_uuids(one) == uuids_where(msgs, contains("1.0.0")));
    CHECK(kw(fx, "0.1.1").hits.empty());
}

TEST_CASE("search: keyword field prefixes work on a real index", "[search]") {
    Fixture fx(kAll);
    CHECK(session_ids(kw(fx, "CODEOWNERS project:alex")) == std::set<std::string>{kAlexId});
    CHECK(session_ids(kw(fx, "file project:SPOTTER")) == std::set<std::string>{kSpotterAId, kSpotterBId});
    CHECK(session_ids(kw(fx, "file model:haiku")) == std::set<std::string>{kCaptureId, kBlameId});
    CHECK(session_ids(kw(fx, "file branch:master")) == std::set<std::string>{kSpotterAId, kSpotterBId});
    CHECK(session_ids(kw(fx, "file session:97007e")) == std::set<std::string>{kSophId});
    CHECK(session_ids(kw(fx, "CODEOWNERS agent:claude")) == std::set<std::string>{kAlexId});
    CHECK(kw(fx, "CODEOWNERS agent:codex").hits.empty());
    auto tool = kw_msg(fx, "CODEOWNERS tool:Write");
    CHECK(message_uuids(tool) == std::set<std::string>{"33c6b8d0-d4d2-4b07-b926-46adc29db0f0",
                                                       "1aa717b0-64e9-4003-9bce-845587cafe55"});
    auto role = kw_msg(fx, "CODEOWNERS role:tool");
    CHECK(message_uuids(role) == std::set<std::string>{"1aa717b0-64e9-4003-9bce-845587cafe55"});
    auto think = kw_msg(fx, "CODEOWNERS type:thinking");
    REQUIRE_FALSE(think.hits.empty());
    for (const auto& h : think.hits) CHECK(msg(h).content_type == ContentType::Thinking);
    CHECK(message_uuids(kw_msg(fx, "CODEOWNERS -type:thinking")).size() + think.hits.size() ==
          message_uuids(kw_msg(fx, "CODEOWNERS")).size());
}

TEST_CASE("search: keyword project: or model: naming nothing gives zero results", "[search]") {
    Fixture fx(kAll);
    // A field filter that matches no session must not be dropped (that would answer the query unfiltered).
    CHECK(kw(fx, "CODEOWNERS project:no-such-project").hits.empty());
    CHECK(kw(fx, "CODEOWNERS model:gpt-9").hits.empty());
    QueryResult r;
    CHECK_NOTHROW(r = kw(fx, "project:no-such-project"));
    CHECK(r.hits.empty());
}

// =============================================================================================
// keyword: CJK

TEST_CASE("search: CJK keyword query finds its session", "[search]") {
    Fixture fx({kSoph, kAlex, kPosh});
    auto msgs = read_transcript(fx.path(kSoph));
    auto expect = uuids_where(msgs, contains("你好世界"));
    REQUIRE(expect.size() == 5);
    auto r = kw(fx, "你好世界");
    REQUIRE(r.hits.size() == 1);
    CHECK(r.hits[0].session.id == kSophId);
    CHECK(r.hits[0].match_count >= expect.size());
    const std::string& sn = r.hits[0].snippet;
    CHECK((sn.find("你好") != std::string::npos || sn.find("世界") != std::string::npos));
    auto bm = kw_msg(fx, "你好世界");
    auto got = message_uuids(bm);
    for (const auto& u : expect) CHECK(got.count(u) == 1);
    // A two-character query.
    CHECK(session_ids(kw(fx, "世界")) == std::set<std::string>{kSophId});
}

TEST_CASE("search: CJK keyword query not in the corpus gives zero results", "[search]") {
    Fixture fx({kSoph, kAlex});
    for (const std::string q : {"数据库迁移", "テスト", "한국어", "世界你好"}) {
        INFO(q);
        QueryResult r;
        REQUIRE_NOTHROW(r = kw(fx, q));
        CHECK(r.hits.empty());
        CHECK(r.total == 0);
    }
}

// =============================================================================================
// keyword: grouping, counts, sort

TEST_CASE("search: keyword gives one result per session with match_count = matching messages", "[search]") {
    Fixture fx(kAll);
    auto soph = read_transcript(fx.path(kSoph));
    auto expect = uuids_where(soph, matches("\\bTruncateRunes\\b", std::regex::ECMAScript | std::regex::icase));
    REQUIRE(expect.size() >= 10);
    auto r = kw(fx, "TruncateRunes", [](FilterArgs& a) { a.include_meta = true; });
    REQUIRE(r.hits.size() == 1);
    CHECK(r.hits[0].session.id == kSophId);
    CHECK(r.hits[0].match_count == expect.size());
    REQUIRE(r.hits[0].message);
    CHECK(expect.count(msg(r.hits[0]).uuid) == 1);  // the best message stands for the session
    auto bm = kw_msg(fx, "TruncateRunes", [](FilterArgs& a) { a.include_meta = true; });
    CHECK(bm.hits.size() == expect.size());
    CHECK(message_uuids(bm) == expect);
    for (const auto& h : bm.hits) CHECK(h.match_count == 1);

    // A query in many sessions: never two results for one session.
    auto many = kw(fx, "file");
    CHECK(many.hits.size() >= 5);
    CHECK(session_ids(many).size() == many.hits.size());
    for (const auto& h : many.hits) CHECK(h.match_count >= 1);
}

TEST_CASE("search: keyword match_count across sessions equals matching messages per session", "[search]") {
    Fixture fx({kSpotterA, kSpotterB, kAlex});
    std::map<std::string, size_t> expect;
    for (const auto& rel : {kSpotterA, kSpotterB, kAlex})
        for (const auto& m : read_transcript(fx.path(rel)))
            if (std::regex_search(m.text, std::regex("\\bphoenix\\b", std::regex::ECMAScript | std::regex::icase)))
                ++expect[m.session_id];
    REQUIRE_FALSE(expect.empty());
    auto r = kw(fx, "phoenix", [](FilterArgs& a) { a.include_meta = true; });
    CHECK(r.hits.size() == expect.size());
    for (const auto& [sid, n] : expect) {
        INFO(sid);
        const Hit* h = hit_for(r, sid);
        REQUIRE(h);
        CHECK(h->match_count == n);
    }
}

TEST_CASE("search: keyword --sort newest and oldest order by time", "[search]") {
    Fixture fx(kAll);
    auto newest = kw(fx, "file", {}, true, "newest");
    auto oldest = kw(fx, "file", {}, true, "oldest");
    REQUIRE(newest.hits.size() >= 10);
    REQUIRE(oldest.hits.size() == newest.hits.size());
    // A title hit (no message) stands at its session's end time.
    auto t = [](const Hit& h) { return h.message ? h.message->timestamp_ms : h.session.ended_at; };
    for (size_t i = 1; i < newest.hits.size(); ++i) CHECK(t(newest.hits[i - 1]) >= t(newest.hits[i]));
    for (size_t i = 1; i < oldest.hits.size(); ++i) CHECK(t(oldest.hits[i - 1]) <= t(oldest.hits[i]));
    // The extremes really are the newest / oldest matching messages.
    CHECK(newest.hits.front().session.id == kPoshId);
    CHECK(oldest.hits.front().session.id == kSampleId);

    auto sess_new = kw(fx, "file", {}, false, "newest");
    REQUIRE(sess_new.hits.size() >= 5);
    for (size_t i = 1; i < sess_new.hits.size(); ++i) CHECK(t(sess_new.hits[i - 1]) >= t(sess_new.hits[i]));
    CHECK(session_ids(sess_new).size() == sess_new.hits.size());
    auto sess_old = kw(fx, "file", {}, false, "oldest");
    for (size_t i = 1; i < sess_old.hits.size(); ++i) CHECK(t(sess_old.hits[i - 1]) <= t(sess_old.hits[i]));
}

// =============================================================================================
// Filters (SPEC §3 "Common filters")

TEST_CASE("search: --project is a case-insensitive substring of slug or path", "[search]") {
    Fixture fx(kAll);
    const std::set<std::string> spotter = {kSpotterAId, kSpotterBId};
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.project = {"spotter"}; })) == spotter);
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.project = {"SPOTTER"}; })) == spotter);
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.project = {"/home/marco/projects"}; })) == spotter);  // path
    CHECK(session_ids(kw(fx, "file", [](FilterArgs& a) { a.project = {"Spotter"}; })) == spotter);
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.project = {"oh-my-posh"}; })) == std::set<std::string>{kPoshId});
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.project = {"spotter", "oh-my"}; })) ==
          std::set<std::string>{kSpotterAId, kSpotterBId, kPoshId});
    CHECK(ls(fx, [](FilterArgs& a) { a.project = {"no-such-project"}; }).hits.empty());
    auto c = ct(fx, {{"phoenix"}}, [](FilterArgs& a) { a.project = {"SPOTTER"}; });
    CHECK_FALSE(c.hits.empty());
    for (const auto& h : c.hits) CHECK(spotter.count(h.session.id) == 1);
}

TEST_CASE("search: --agent filters by agent kind", "[search]") {
    Fixture fx({kAlex, kPosh, kSpotterB});
    CHECK(ls(fx, [](FilterArgs& a) { a.agent = {"claude"}; }).hits.size() == 3);
    CHECK(ls(fx, [](FilterArgs& a) { a.agent = {"codex"}; }).hits.empty());
    CHECK(kw(fx, "file", [](FilterArgs& a) { a.agent = {"omp"}; }).hits.empty());
    CHECK(ct(fx, {{"file"}}, [](FilterArgs& a) { a.agent = {"pi"}; }).hits.empty());
    CHECK_FALSE(kw(fx, "file", [](FilterArgs& a) { a.agent = {"claude"}; }).hits.empty());
    CHECK_THROWS_AS(make_filters([](FilterArgs& a) { a.agent = {"gemini"}; }), BadInput);
}

TEST_CASE("search: --session takes id prefixes and repeats", "[search]") {
    Fixture fx(kAll);
    CHECK(session_ids(kw(fx, "file", [](FilterArgs& a) { a.session = {"97007e"}; })) == std::set<std::string>{kSophId});
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.session = {kPoshId}; })) == std::set<std::string>{kPoshId});
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.session = {"97007E37"}; })) == std::set<std::string>{kSophId});
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.session = {"9700", "5560"}; })) ==
          std::set<std::string>{kSophId, kSpotterBId});
    auto c = ct(fx, {{"file"}}, [](FilterArgs& a) { a.session = {"d6e0"}; });
    CHECK(session_ids(c) == std::set<std::string>{kSpotterAId});
    CHECK(ls(fx, [](FilterArgs& a) { a.session = {"ffffffff"}; }).hits.empty());
}

TEST_CASE("search: --since and --until take dates and ISO times with offsets and relative times and until is exclusive", "[search]") {
    Fixture fx(kAll);
    // Dates (local midnight) with a day of margin on both sides.
    auto feb = [](FilterArgs& a) {
        a.since = "2026-02-01";
        a.until = "2026-02-12";
    };
    const std::set<std::string> in_feb = {kCaptureId, kSpotterAId, kSpotterBId};
    CHECK(session_ids(kw(fx, "the", feb)) == in_feb);
    CHECK(session_ids(ct(fx, {{"the"}}, feb)) == in_feb);
    CHECK(session_ids(ls(fx, feb)) == in_feb);

    // The last message of kAlex is at 03:15:25.841Z: --until that instant excludes it, --since includes it.
    const std::string last_uuid = "f04ae514-b96a-44f0-9edd-c0a53182f746";
    auto base = kw_msg(fx, "CODEOWNERS");
    REQUIRE(message_uuids(base).count(last_uuid) == 1);
    auto before = kw_msg(fx, "CODEOWNERS", [](FilterArgs& a) { a.until = "2026-01-19T03:15:25.841Z"; });
    CHECK(message_uuids(before).count(last_uuid) == 0);
    CHECK(before.hits.size() == base.hits.size() - 1);
    auto from = kw_msg(fx, "CODEOWNERS", [](FilterArgs& a) { a.since = "2026-01-19T03:15:25.841Z"; });
    CHECK(message_uuids(from) == std::set<std::string>{last_uuid});
    // The same instants written with a +08:00 offset.
    auto before8 = kw_msg(fx, "CODEOWNERS", [](FilterArgs& a) { a.until = "2026-01-19T11:15:25.841+08:00"; });
    CHECK(message_uuids(before8) == message_uuids(before));
    auto from8 = ct(fx, {{"CODEOWNERS"}, false, false, false, true},
                    [](FilterArgs& a) { a.since = "2026-01-19T11:15:25.841+08:00"; });
    CHECK(message_uuids(from8) == std::set<std::string>{last_uuid});
    auto until_c = ct(fx, {{"CODEOWNERS"}, false, false, false, true},
                      [](FilterArgs& a) { a.until = "2026-01-19T03:15:25.841Z"; });
    CHECK(message_uuids(until_c).count(last_uuid) == 0);
    CHECK_FALSE(until_c.hits.empty());

    // Relative: N days back from now reaches the newest session (2026-07-11) but not the February ones.
    const int64_t day = 86400000;
    const int64_t posh_start = iso_ms("2026-07-11T06:18:25.945Z");
    const int64_t days = (now_ms() - posh_start) / day + 1;
    REQUIRE(now_ms() - days * day > iso_ms("2026-02-10T22:59:46.748Z"));
    const std::string rel = std::to_string(days) + "d";
    CHECK(session_ids(kw(fx, "the", [&](FilterArgs& a) { a.since = rel; })) == std::set<std::string>{kPoshId});
    CHECK(session_ids(ls(fx, [&](FilterArgs& a) { a.since = rel; })) == std::set<std::string>{kPoshId});
    CHECK(session_ids(ls(fx, [&](FilterArgs& a) { a.since = std::to_string(days * 24) + "h"; })) ==
          std::set<std::string>{kPoshId});
    CHECK_FALSE(session_ids(ls(fx, [&](FilterArgs& a) { a.until = rel; })).count(kPoshId));
    CHECK(ls(fx, [](FilterArgs& a) { a.since = "1s"; }).hits.empty());
    CHECK(ls(fx, [](FilterArgs& a) { a.until = "1s"; }).hits.size() == kAll.size());

    // Bad times are BadInput("bad-time").
    for (const char* bad : {"yesterday", "2026-13-45", "5x", "-3d", ""}) {
        if (std::string(bad).empty()) continue;
        INFO(bad);
        try {
            make_filters([&](FilterArgs& a) { a.since = bad; });
            FAIL("no error for --since " << bad);
        } catch (const BadInput& e) {
            CHECK(e.kind == "bad-time");
        }
    }
}

TEST_CASE("search: --branch is the exact git branch", "[search]") {
    Fixture fx(kAll);
    const std::set<std::string> master = {kSpotterAId, kSpotterBId};
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.branch = {"master"}; })) == master);
    CHECK(session_ids(kw(fx, "file", [](FilterArgs& a) { a.branch = {"master"}; })) == master);
    CHECK(session_ids(ct(fx, {{"the"}}, [](FilterArgs& a) { a.branch = {"master"}; })) == master);
    const std::string alex_branch = "alex/ent-98-move-helpgo-back-into-the-main-cli-package";
    CHECK(session_ids(kw(fx, "CODEOWNERS", [&](FilterArgs& a) { a.branch = {alex_branch}; })) ==
          std::set<std::string>{kAlexId});
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.branch = {"next", "master"}; })) ==
          std::set<std::string>{kSpotterAId, kSpotterBId, kPoshId});
    CHECK(ls(fx, [](FilterArgs& a) { a.branch = {"mast"}; }).hits.empty());
    CHECK(kw(fx, "file", [](FilterArgs& a) { a.branch = {"no-such-branch"}; }).hits.empty());
}

TEST_CASE("search: --model is a substring of the session's models", "[search]") {
    Fixture fx(kAll);
    const std::set<std::string> haiku = {kCaptureId, kBlameId};
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.model = {"haiku"}; })) == haiku);
    CHECK(session_ids(kw(fx, "file", [](FilterArgs& a) { a.model = {"HAIKU"}; })) == haiku);
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.model = {"claude-opus-4-6"}; })) ==
          std::set<std::string>{kSpotterAId, kSpotterBId});
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.model = {"sonnet"}; })) == std::set<std::string>{kSampleId});
    CHECK(session_ids(ct(fx, {{"the"}}, [](FilterArgs& a) { a.model = {"fable"}; })) == std::set<std::string>{kPoshId});
    CHECK(ls(fx, [](FilterArgs& a) { a.model = {"gpt-5"}; }).hits.empty());
}

TEST_CASE("search: --role keeps roles and tool results are role tool never user", "[search]") {
    Fixture fx(kAll);
    auto sample = read_transcript(fx.path(kSample));
    auto no_files = uuids_where(sample, contains("No files found"));
    REQUIRE(no_files.size() >= 5);
    for (const auto& m : sample)
        if (no_files.count(m.uuid)) REQUIRE(m.tool_result);

    auto tool = ct(fx, {{"No files found"}, false, false, false, true}, [](FilterArgs& a) {
        a.role = {"tool"};
        a.session = {kSampleId};
    });
    CHECK(message_uuids(tool) == no_files);
    for (const auto& h : tool.hits) CHECK(msg(h).role == Role::Tool);
    CHECK(ct(fx, {{"No files found"}, false, false, false, true}, [](FilterArgs& a) { a.role = {"user"}; }).hits.empty());
    auto kt = kw_msg(fx, "\"No files found\"", [](FilterArgs& a) { a.role = {"tool"}; a.session = {kSampleId}; });
    CHECK(message_uuids(kt) == no_files);
    CHECK(kw_msg(fx, "\"No files found\"", [](FilterArgs& a) { a.role = {"user"}; }).hits.empty());

    auto users = kw_msg(fx, "file", [](FilterArgs& a) { a.role = {"user"}; });
    CHECK_FALSE(users.hits.empty());
    for (const auto& h : users.hits) {
        CHECK(msg(h).role == Role::User);
        CHECK(msg(h).content_type != ContentType::ToolResult);
    }
    auto asst = kw_msg(fx, "file", [](FilterArgs& a) { a.role = {"assistant"}; });
    CHECK_FALSE(asst.hits.empty());
    for (const auto& h : asst.hits) CHECK(msg(h).role == Role::Assistant);
    auto both = kw_msg(fx, "file", [](FilterArgs& a) { a.role = {"user", "tool"}; });
    for (const auto& h : both.hits) CHECK(msg(h).role != Role::Assistant);
    // Every tool_result in the corpus is role tool.
    auto results = kw_msg(fx, "file", [](FilterArgs& a) { a.type = {"tool_result"}; });
    CHECK_FALSE(results.hits.empty());
    for (const auto& h : results.hits) CHECK(msg(h).role == Role::Tool);
    CHECK_THROWS_AS(make_filters([](FilterArgs& a) { a.role = {"robot"}; }), BadInput);
}

TEST_CASE("search: --type filters by content type", "[search]") {
    Fixture fx(kAll);
    for (const auto& [name, type] : std::vector<std::pair<std::string, ContentType>>{
             {"tool_use", ContentType::ToolUse}, {"tool_result", ContentType::ToolResult},
             {"thinking", ContentType::Thinking}, {"text", ContentType::Text}}) {
        INFO(name);
        auto k = kw_msg(fx, "the", [&](FilterArgs& a) { a.type = {name}; });
        CHECK_FALSE(k.hits.empty());
        for (const auto& h : k.hits) CHECK(msg(h).content_type == type);
        auto c = ct(fx, {{"the"}, false, false, false, true}, [&](FilterArgs& a) { a.type = {name}; });
        CHECK_FALSE(c.hits.empty());
        for (const auto& h : c.hits) CHECK(msg(h).content_type == type);
    }
    CHECK_THROWS_AS(make_filters([](FilterArgs& a) { a.type = {"image"}; }), BadInput);
}

TEST_CASE("search: --tool keeps tool calls and results of that tool", "[search]") {
    Fixture fx(kAll);
    auto r = kw_msg(fx, "CODEOWNERS", [](FilterArgs& a) { a.tool = {"Write"}; });
    CHECK(message_uuids(r) == std::set<std::string>{"33c6b8d0-d4d2-4b07-b926-46adc29db0f0",
                                                    "1aa717b0-64e9-4003-9bce-845587cafe55"});
    auto lower = kw_msg(fx, "CODEOWNERS", [](FilterArgs& a) { a.tool = {"write"}; });
    CHECK(message_uuids(lower) == message_uuids(r));
    auto c = ct(fx, {{"CODEOWNERS"}, false, false, false, true}, [](FilterArgs& a) { a.tool = {"Write"}; });
    CHECK(message_uuids(c) == message_uuids(r));
    CHECK(kw(fx, "CODEOWNERS", [](FilterArgs& a) { a.tool = {"Bash"}; }).hits.empty());
    auto ps = kw_msg(fx, "nul", [](FilterArgs& a) { a.tool = {"PowerShell"}; });
    CHECK(session_ids(ps) == std::set<std::string>{kPoshId});
    for (const auto& h : ps.hits)
        CHECK((msg(h).content_type == ContentType::ToolUse || msg(h).content_type == ContentType::ToolResult));
}

TEST_CASE("search: --cwd is a directory prefix of the session's cwd", "[search]") {
    Fixture fx(kAll);
    const std::set<std::string> spotter = {kSpotterAId, kSpotterBId};
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.cwd = "/home/marco/projects/spotter"; })) == spotter);
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.cwd = "/home/marco"; })) == spotter);
    CHECK(session_ids(ls(fx, [](FilterArgs& a) { a.cwd = "/home/marco/"; })) == spotter);
    CHECK(ls(fx, [](FilterArgs& a) { a.cwd = "/home/mar"; }).hits.empty());
    CHECK(session_ids(kw(fx, "the", [](FilterArgs& a) { a.cwd = "/Users/alex/workspace/cli"; })) ==
          std::set<std::string>{kAlexId});
    CHECK(session_ids(ct(fx, {{"the"}}, [](FilterArgs& a) { a.cwd = "/tmp/workspace"; })) ==
          std::set<std::string>{kCaptureId});
}

TEST_CASE("search: meta and command messages are hidden unless --include-meta", "[search]") {
    Fixture fx(kAll);
    auto sample = read_transcript(fx.path(kSample));
    const std::string meta_text = "Please analyze this codebase and create a CLAUDE.md file";
    auto meta = uuids_where(sample, contains(meta_text));
    REQUIRE(meta == std::set<std::string>{"d78d1de2-52bd-4e64-ad0f-affcbcc1dabf"});
    CHECK(ct(fx, {{meta_text}, true}).hits.empty());
    CHECK(message_uuids(ct(fx, {{meta_text}, true, false, false, true}, [](FilterArgs& a) { a.include_meta = true; })) ==
          meta);
    CHECK(message_uuids(kw_msg(fx, "\"analyze this codebase\"", [](FilterArgs& a) { a.include_meta = true; }))
              .count("d78d1de2-52bd-4e64-ad0f-affcbcc1dabf") == 1);
    CHECK(message_uuids(kw_msg(fx, "\"analyze this codebase\"")).count("d78d1de2-52bd-4e64-ad0f-affcbcc1dabf") == 0);

    // A typed slash command is a `command`, hidden by default, shown by --include-meta or --type command.
    const std::string cmd_uuid = "e2ab9812-8be7-4e9e-8194-d9b7b9d6da14";
    CHECK(message_uuids(ct(fx, {{"<command-name>/init"}, true, false, false, true})).count(cmd_uuid) == 0);
    auto as_cmd = ct(fx, {{"<command-name>/init"}, true, false, false, true}, [](FilterArgs& a) { a.type = {"command"}; });
    REQUIRE(message_uuids(as_cmd).count(cmd_uuid) == 1);
    for (const auto& h : as_cmd.hits) CHECK(msg(h).content_type == ContentType::Command);
    auto all = ct(fx, {{"<command-name>/init"}, true, false, false, true}, [](FilterArgs& a) { a.include_meta = true; });
    CHECK(message_uuids(all).count(cmd_uuid) == 1);
    auto user_text = ct(fx, {{"<command-name>/init"}, true, false, false, true}, [](FilterArgs& a) {
        a.include_meta = true;
        a.type = {"text"};
    });
    CHECK(message_uuids(user_text).count(cmd_uuid) == 0);

    // The compact summary of kCapture-like sessions and isMeta lines never leak into default results.
    auto dflt = kw_msg(fx, "the");
    for (const auto& h : dflt.hits) {
        if (!h.message) continue;  // a session title
        CHECK_FALSE(h.message->is_meta);
        CHECK(h.message->content_type != ContentType::Command);
    }
}

TEST_CASE("search: --limit and --offset page through results", "[search]") {
    Fixture fx(kAll);
    auto all = kw(fx, "the", [](FilterArgs& a) { a.limit = 1000; }, true, "newest");
    REQUIRE(all.hits.size() >= 12);
    auto page1 = kw(fx, "the", [](FilterArgs& a) { a.limit = 5; }, true, "newest");
    auto page2 = kw(fx, "the", [](FilterArgs& a) { a.limit = 5; a.offset = 5; }, true, "newest");
    REQUIRE(page1.hits.size() == 5);
    REQUIRE(page2.hits.size() == 5);
    CHECK(page1.total >= all.hits.size());
    for (size_t i = 0; i < 5; ++i) {
        CHECK(hit_key(page1.hits[i]) == hit_key(all.hits[i]));
        CHECK(hit_key(page2.hits[i]) == hit_key(all.hits[5 + i]));
    }
    // Default limit is 20 for keyword/content, 50 for list.
    IndexReader r(fx.idx);
    FilterArgs none;
    CHECK(run_keyword(r, "the", parse_filters(none, now_ms(), 20), KeywordOptions{true, "newest", 200}).hits.size() == 20);

    auto c_all = ct(fx, {{"the"}, false, false, false, true});
    auto c_page = ct(fx, {{"the"}, false, false, false, true}, [](FilterArgs& a) { a.limit = 3; a.offset = 2; });
    REQUIRE(c_page.hits.size() == 3);
    CHECK(c_page.total == c_all.total);
    for (size_t i = 0; i < 3; ++i) CHECK(hit_key(c_page.hits[i]) == hit_key(c_all.hits[2 + i]));

    auto l_all = ls(fx);
    auto l_page = ls(fx, [](FilterArgs& a) { a.limit = 2; a.offset = 3; });
    REQUIRE(l_page.hits.size() == 2);
    CHECK(l_page.total == l_all.total);
    CHECK(l_page.hits[0].session.id == l_all.hits[3].session.id);
    CHECK(l_page.hits[1].session.id == l_all.hits[4].session.id);
    auto beyond = ls(fx, [](FilterArgs& a) { a.offset = 100; });
    CHECK(beyond.hits.empty());
    CHECK(beyond.total == kAll.size());
}

// =============================================================================================
// content

TEST_CASE("search: content literal-led regex gives exact match_count", "[search]") {
    Fixture fx(kAll);
    auto soph = read_transcript(fx.path(kSoph));
    auto expect = uuids_where(soph, matches("TruncateRunes\\(s"));
    REQUIRE(expect.size() >= 3);
    auto r = ct(fx, {{"TruncateRunes\\(s"}}, [](FilterArgs& a) { a.include_meta = true; });
    REQUIRE(r.hits.size() == 1);
    CHECK(r.hits[0].session.id == kSophId);
    CHECK(r.hits[0].match_count == expect.size());
    CHECK(r.total == 1);
    auto bm = ct(fx, {{"TruncateRunes\\(s"}, false, false, false, true}, [](FilterArgs& a) { a.include_meta = true; });
    CHECK(message_uuids(bm) == expect);
    CHECK(bm.hits.size() == expect.size());
    for (const auto& h : bm.hits) CHECK(h.snippet.find("TruncateRunes(s") != std::string::npos);
}

TEST_CASE("search: content literal-free regex counts every matching message in every session", "[search]") {
    Fixture fx(kAll);
    const std::string re = "\\b[a-z]+_[a-z]+_[a-z]+\\b";
    std::map<std::string, size_t> expect;
    for (const auto& rel : {kAlex, kPosh, kSoph, kSpotterA, kSpotterB, kSample, kClaudeP,
                            kCaptureDir + "/" + kCaptureId + ".jsonl",
                            kCaptureDir + "/" + kCaptureId + "/subagents/agent-aprompt_suggestion-dcd338.jsonl",
                            kBlameDir + "/" + kBlameId + ".jsonl", kBlameDir + "/agent-ad47cca.jsonl",
                            kBlameDir + "/agent-ae9a854.jsonl"}) {
        INFO(rel);
        REQUIRE(fs::exists(fx.path(rel)));
        for (const auto& m : read_transcript(fx.path(rel)))
            if (std::regex_search(m.text, std::regex(re))) ++expect[m.session_id];
    }
    REQUIRE(expect.size() >= 3);
    auto r = ct(fx, {{re}}, [](FilterArgs& a) { a.include_meta = true; });
    CHECK(r.hits.size() == expect.size());
    for (const auto& [sid, n] : expect) {
        INFO(sid);
        const Hit* h = hit_for(r, sid);
        REQUIRE(h);
        CHECK(h->match_count == n);
    }
    uint64_t total = 0;
    for (const auto& [sid, n] : expect) total += n;
    auto bm = ct(fx, {{re}, false, false, false, true}, [](FilterArgs& a) { a.include_meta = true; });
    CHECK(bm.total == total);
}

TEST_CASE("search: content -F treats regex metacharacters literally", "[search]") {
    Fixture fx(kAll);
    const std::string lit = "TruncateRunes(\"你好世界\", 5, \"...\")";
    auto soph = read_transcript(fx.path(kSoph));
    auto expect = uuids_where(soph, contains(lit));
    REQUIRE_FALSE(expect.empty());
    auto r = ct(fx, {{lit}, true, false, false, true}, [](FilterArgs& a) { a.include_meta = true; });
    CHECK(message_uuids(r) == expect);
    for (const auto& h : r.hits) CHECK(h.snippet.find("你好世界") != std::string::npos);
    // Other metacharacters: [ ] { } * + ? | ^ $ \ .
    auto brackets = uuids_where(soph, contains("[]struct {"));
    REQUIRE_FALSE(brackets.empty());
    CHECK(message_uuids(ct(fx, {{"[]struct {"}, true, false, false, true}, [](FilterArgs& a) { a.include_meta = true; })) ==
          brackets);
    CHECK(ct(fx, {{"a.*b|c+d?"}, true}).hits.empty());
}

TEST_CASE("search: content -i ignores case", "[search]") {
    Fixture fx(kAll);
    auto soph = read_transcript(fx.path(kSoph));
    auto exact = uuids_where(soph, contains("truncaterunes"));
    auto any = uuids_where(soph, matches("truncaterunes", std::regex::ECMAScript | std::regex::icase));
    REQUIRE(exact.empty());
    REQUIRE(any.size() >= 10);
    CHECK(ct(fx, {{"truncaterunes"}}).hits.empty());
    auto r = ct(fx, {{"truncaterunes"}, false, true}, [](FilterArgs& a) { a.include_meta = true; });
    REQUIRE(r.hits.size() == 1);
    CHECK(r.hits[0].match_count == any.size());
    auto f = ct(fx, {{"TRUNCATERUNES"}, true, true, false, true}, [](FilterArgs& a) { a.include_meta = true; });
    CHECK(message_uuids(f) == any);
}

TEST_CASE("search: content -w matches whole words only", "[search]") {
    Fixture fx(kAll);
    auto soph = read_transcript(fx.path(kSoph));
    auto word = uuids_where(soph, matches("\\bRune\\b"));
    auto sub = uuids_where(soph, contains("Rune"));
    REQUIRE(sub.size() > word.size());
    auto w = ct(fx, {{"Rune"}, false, false, true, true}, [](FilterArgs& a) {
        a.include_meta = true;
        a.session = {"97007e37"};
    });
    CHECK(message_uuids(w) == word);
    auto s = ct(fx, {{"Rune"}, false, false, false, true}, [](FilterArgs& a) {
        a.include_meta = true;
        a.session = {"97007e37"};
    });
    CHECK(message_uuids(s) == sub);
}

TEST_CASE("search: content with several -e patterns matches any", "[search]") {
    Fixture fx(kAll);
    std::map<std::string, size_t> expect;
    for (const auto& rel : {kAlex, kSoph})
        for (const auto& m : read_transcript(fx.path(rel)))
            if (m.text.find("CODEOWNERS") != std::string::npos || m.text.find("你好世界") != std::string::npos)
                ++expect[m.session_id];
    REQUIRE(expect.size() == 2);
    auto r = ct(fx, {{"CODEOWNERS", "你好世界"}}, [](FilterArgs& a) { a.include_meta = true; });
    CHECK(session_ids(r) == std::set<std::string>{kAlexId, kSophId});
    for (const auto& [sid, n] : expect) {
        const Hit* h = hit_for(r, sid);
        REQUIRE(h);
        CHECK(h->match_count == n);
    }
}

TEST_CASE("search: content finds text in tool output and thinking", "[search]") {
    Fixture fx(kAll);
    // Tool output (a tool_result) and thinking blocks are scanned too.
    auto out = ct(fx, {{"File created successfully at: /Users/alex/workspace/cli/.github/CODEOWNERS"}, true, false, false, true});
    CHECK(message_uuids(out) == std::set<std::string>{"1aa717b0-64e9-4003-9bce-845587cafe55"});
    auto think = ct(fx, {{"I don't need to use EnterPlanMode"}, true, false, false, true});
    REQUIRE(think.hits.size() == 1);
    CHECK(msg(think.hits[0]).content_type == ContentType::Thinking);
    CHECK(think.hits[0].session.id == kAlexId);
    // Decoded text, not raw JSON: the JSON escape \" is searched as a plain quote.
    auto soph = read_transcript(fx.path(kSoph));
    REQUIRE(uuids_where(soph, contains("TruncateRunes(\\\"你好世界")).empty());
    CHECK_FALSE(ct(fx, {{"TruncateRunes(\"你好世界\""}, true}).hits.empty());
    CHECK(ct(fx, {{"TruncateRunes(\\\"你好世界"}, true}).hits.empty());
}

TEST_CASE("search: unsupported regex constructs are BadInput naming the construct", "[search]") {
    // Backreferences and fixed-length lookaround run (prefilter + PCRE2); variable-length lookbehind runs nowhere.
    Fixture fx({kAlex});
    struct Case {
        std::string pattern, construct;
    };
    for (const auto& c : std::vector<Case>{{"(?<=a+)b", "lookbehind"},
                                           {"(?<!\\w+)x", "lookbehind"}}) {
        INFO(c.pattern);
        bool threw = false;
        try {
            ct(fx, {{c.pattern}});
        } catch (const BadInput& e) {
            threw = true;
            CHECK(e.kind == "bad-regex");
            CHECK(icontains(e.what(), c.construct));
            CHECK(std::string(e.what()).find(c.pattern) != std::string::npos);
        }
        CHECK(threw);
    }
    // A plain syntax error is bad-regex too, never a crash.
    for (const std::string bad : {"(unclosed", "a{3,1}", "[z-a]"}) {
        INFO(bad);
        bool threw = false;
        try {
            ct(fx, {{bad}});
        } catch (const BadInput& e) {
            threw = true;
            CHECK(e.kind == "bad-regex");
        }
        CHECK(threw);
    }
}

TEST_CASE("search: backreference and lookaround patterns are refused or answered exactly", "[search]") {
    // Whatever the engine does with constructs Hyperscan cannot run, it must never give a wrong answer.
    Fixture fx(kAll);
    std::vector<std::pair<std::string, std::vector<CorpusMessage>>> sessions;
    for (const auto& rel : {kAlex, kPosh, kSoph, kSpotterA, kSpotterB, kSample, kClaudeP}) {
        auto msgs = read_transcript(fx.path(rel));
        REQUIRE_FALSE(msgs.empty());
        sessions.emplace_back(msgs.front().session_id, std::move(msgs));
    }
    struct Case {
        std::string pattern;
        std::function<bool(const CorpusMessage&)> pred;
    };
    const std::vector<Case> cases = {
        {"(\\w)\\1", matches("(\\w)\\1")},
        {"(\\w)\\1\\1", matches("(\\w)\\1\\1")},
        {"TruncateRunes(?=\\(s)", matches("TruncateRunes(?=\\(s)")},
        {"Runes(?!\\()", matches("Runes(?!\\()")},
        {"(?<=func )TruncateRunes", contains("func TruncateRunes")},
    };
    for (const auto& c : cases) {
        INFO(c.pattern);
        QueryResult r;
        try {
            r = ct(fx, {{c.pattern}}, [](FilterArgs& a) { a.include_meta = true; });
        } catch (const BadInput& e) {
            CHECK(e.kind == "bad-regex");
            continue;  // refused: the SPEC §4 answer
        }
        for (const auto& [sid, msgs] : sessions) {
            INFO("session " << sid);
            const size_t n = uuids_where(msgs, c.pred).size();
            const Hit* h = hit_for(r, sid);
            if (n == 0) {
                CHECK(h == nullptr);
            } else {
                REQUIRE(h);
                CHECK(h->match_count == n);
            }
        }
    }
}

TEST_CASE("search: content and keyword work after the source file is deleted", "[search]") {
    Fixture fx({kAlex, kPosh});
    fs::remove(fx.path(kAlex));
    IndexSummary s = fx.reindex();
    CHECK(s.files_deleted == 1);
    auto c = ct(fx, {{"CODEOWNERS"}});
    REQUIRE(c.hits.size() == 1);
    CHECK(c.hits[0].session.id == kAlexId);
    CHECK(c.hits[0].session.source_deleted);
    CHECK(c.hits[0].match_count >= 5);
    auto k = kw(fx, "CODEOWNERS");
    REQUIRE(k.hits.size() == 1);
    CHECK(k.hits[0].session.source_deleted);
    auto l = ls(fx);
    REQUIRE(l.hits.size() == 2);
    for (const auto& h : l.hits) CHECK(h.session.source_deleted == (h.session.id == kAlexId));
    // Reindexing again changes nothing.
    fx.reindex();
    CHECK(ct(fx, {{"CODEOWNERS"}}).hits.size() == 1);
}

// =============================================================================================
// list

TEST_CASE("search: list is newest first by ended_at with session fields", "[search]") {
    Fixture fx(kAll);
    auto r = ls(fx);
    REQUIRE(r.hits.size() == kAll.size());
    CHECK(r.total == kAll.size());
    for (size_t i = 1; i < r.hits.size(); ++i) CHECK(r.hits[i - 1].session.ended_at >= r.hits[i].session.ended_at);
    CHECK(r.hits.front().session.id == kPoshId);
    CHECK(r.hits.back().session.id == kSampleId);
    const Hit* alex = hit_for(r, kAlexId);
    REQUIRE(alex);
    const SessionRec& s = alex->session;
    CHECK(s.project == "-Users-alex-workspace-cli");
    CHECK(s.project_path == "/Users/alex/workspace/cli");
    CHECK(s.cwd == "/Users/alex/workspace/cli");
    CHECK(s.git_branch == "alex/ent-98-move-helpgo-back-into-the-main-cli-package");
    CHECK(s.started_at == iso_ms("2026-01-19T03:15:09.400Z"));
    CHECK(s.ended_at == iso_ms("2026-01-19T03:15:25.841Z"));
    CHECK(s.message_count == 6);
    CHECK(s.models == std::vector<std::string>{"claude-opus-4-5-20251101"});
    CHECK(s.subagent_count == 0);
    CHECK_FALSE(s.source_deleted);
    CHECK(s.jsonl_path == fx.path(kAlex));
    // Subagents are counted on their parent session.
    const Hit* blame = hit_for(r, kBlameId);
    REQUIRE(blame);
    CHECK(blame->session.subagent_count == 2);
    CHECK(blame->session.models.size() == 2);
    const Hit* cap = hit_for(r, kCaptureId);
    REQUIRE(cap);
    CHECK(cap->session.subagent_count == 1);
}

TEST_CASE("search: list time filters select sessions that overlap the range", "[search]") {
    Fixture fx(kAll);
    // kSoph runs 14:03:16.655Z .. 14:10:24.911Z on 2026-01-09.
    auto inside = ls(fx, [](FilterArgs& a) {
        a.since = "2026-01-09T14:05:00Z";
        a.until = "2026-01-09T14:06:00Z";
    });
    CHECK(session_ids(inside) == std::set<std::string>{kSophId});
    auto tail = ls(fx, [](FilterArgs& a) { a.since = "2026-01-09T14:10:24.911Z"; a.until = "2026-01-10"; });
    CHECK(session_ids(tail) == std::set<std::string>{kSophId});
    auto head = ls(fx, [](FilterArgs& a) { a.since = "2026-01-09"; a.until = "2026-01-09T14:03:16.656Z"; });
    CHECK(session_ids(head) == std::set<std::string>{kSophId});
    // until is exclusive: a range ending exactly at the start does not overlap.
    auto before = ls(fx, [](FilterArgs& a) { a.since = "2026-01-09T00:00:00Z"; a.until = "2026-01-09T14:03:16.655Z"; });
    CHECK(before.hits.empty());
    auto after = ls(fx, [](FilterArgs& a) { a.since = "2026-01-09T14:10:24.912Z"; a.until = "2026-01-10T00:00:00Z"; });
    CHECK(after.hits.empty());
}
