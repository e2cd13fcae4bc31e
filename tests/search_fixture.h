// Shared fixtures and helpers of the search tests (split out of one long file).
#pragma once

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

#include "tests/corpus_sessions.h"
#include "test_util.h"

#include "engine/index/indexer.h"
#include "engine/query/query.h"
#include "engine/query/reader.h"
#include "engine/query/search.h"
#include "ingest/timeutil.h"

using namespace osearch;
using namespace osearch_test;

namespace {

// ---------------------------------------------------------------------------------------------
// The real transcripts the tests use (paths relative to a Claude projects root).

const std::string kAlexLinear = "-Users-alex-workspace-cli/8b418ea5-895d-4ad5-abe8-4489d36e454f.jsonl";
const std::string kPoshBig = "D--oh-my-posh/bf77db8f-a917-4fc4-be70-ca1927a57d56.jsonl";
const std::string kCaptureDir = "-private-var-folders-t5-6tq8cxtj20z035rv8hsnzwvh0000gn-T-capture-caLMT9";
const std::string kClaudeP = "-src-experiments-claude_p/2b4ed4c0-b905-41de-9238-273db3ec737a.jsonl";

const std::string kAlexLinearId = "8b418ea5-895d-4ad5-abe8-4489d36e454f";
const std::string kPoshBigId = "bf77db8f-a917-4fc4-be70-ca1927a57d56";
const std::string kCaptureId = "c2fc3a3f-66d5-4c87-9f78-1a31dd719471";
const std::string kClaudePId = "2b4ed4c0-b905-41de-9238-273db3ec737a";

// Nine sessions: every filter has something to keep and something to drop.
const std::vector<std::string> kAll = {kAlex, kPosh, kSoph, kSpotterA, kSpotterB, kCaptureDir, kBlameDir, kSample, kClaudeP};


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
        bool persisted = false;
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
                                persisted = persisted || cs.starts_with("<persisted-output>");
                            } else if (simdjson::dom::array parts; c.get_array().get(parts) == simdjson::SUCCESS) {
                                for (simdjson::dom::element cb : parts)
                                    if (str(cb, "type") == "text") {
                                        append_part(m.text, str(cb, "text"));
                                        persisted = persisted || str(cb, "text").starts_with("<persisted-output>");
                                    }
                            }
                        }
                    }
                }
            }
            // A result the model got as a preview: its whole output follows, from toolUseResult.
            simdjson::dom::element full;
            if (persisted && o["toolUseResult"].get(full) == simdjson::SUCCESS && full.is_object()) {
                for (const char* field : {"stdout", "stderr", "content"}) append_part(m.text, str(full, field));
                simdjson::dom::element file;
                if (full["file"].get(file) == simdjson::SUCCESS && file.is_object()) append_part(m.text, str(file, "content"));
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
