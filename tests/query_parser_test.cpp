// Keyword query syntax (engine/query/query_parser.h), checked by what the parsed query matches in a small
// in-memory Xapian database whose documents carry the same terms the indexer writes
// (engine/index/text_index.cpp: tokenizer terms, positions for prose, boolean filter terms).
#include "engine/query/query_parser.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "engine/query/query.h"
#include "engine/index/text_index.h"
#include "engine/index/tokenizer.h"

using namespace osearch;

namespace {

struct DocSpec {
    std::string name;  // stored in kSlotKey so hits can be named
    std::string session, project, agent = "claude", role, type, model, branch;
    std::vector<std::string> tools;
    std::string text;
    bool positions = true;  // prose has positions; tool I/O and thinking do not
};

void add_doc(Xapian::WritableDatabase& db, const DocSpec& d) {
    Xapian::Document doc;
    Tokenizer tok;
    tok.run(d.text, [&](std::string_view term, uint32_t pos, TermKind kind) {
        std::string t(term);
        if (d.positions && (kind == TermKind::Word || kind == TermKind::CjkUnigram))
            doc.add_posting(t, pos + 1);
        else
            doc.add_term(t);
    });
    if (!d.positions) doc.add_boolean_term(std::string(prefix::kNoPositions));
    doc.add_boolean_term(boolean_term(prefix::kUnique, d.name));
    doc.add_boolean_term(boolean_term(prefix::kSession, d.session));
    doc.add_boolean_term(boolean_term(prefix::kProject, d.project));
    doc.add_boolean_term(boolean_term(prefix::kAgent, d.agent));
    doc.add_boolean_term(boolean_term(prefix::kRole, d.role));
    doc.add_boolean_term(boolean_term(prefix::kType, d.type));
    if (!d.model.empty()) doc.add_boolean_term(boolean_term(prefix::kModel, d.model));
    if (!d.branch.empty()) doc.add_boolean_term(boolean_term(prefix::kBranch, d.branch));
    for (const auto& t : d.tools) doc.add_boolean_term(boolean_term(prefix::kTool, t));
    doc.add_value(kSlotSession, d.session);  // one value per session: all a collapse needs
    doc.add_value(kSlotKey, d.name);
    db.add_document(doc);
}

const char* kS1 = "aaaa1111-2222-4333-8444-555566667777";
const char* kS2 = "bbbb1111-2222-4333-8444-555566667777";
const char* kS3 = "cccc1111-2222-4333-8444-555566667777";

Xapian::WritableDatabase make_db() {
    Xapian::WritableDatabase db(std::string(), Xapian::DB_BACKEND_INMEMORY);
    add_doc(db, {"d1", kS1, "-Users-me-AlphaProject", "claude", "assistant", "text", "claude-opus-4-5-20251101", "main", {},
                 "The stateStore keeps the quick brown fox in 2.1.29 and c9117b58-37b2-42e0-942d-cea5c426128d"});
    add_doc(db, {"d2", kS1, "-Users-me-AlphaProject", "claude", "user", "text", "", "main", {},
                 "brown quick fox jumps over lazy-watching-pony"});
    add_doc(db, {"d3", kS2, "-home-bob-BetaRepo", "claude", "tool", "tool_result", "", "feature/x-y", {"Bash"},
                 "error in build_index_v2 at /src/engine/query/keyword.cpp line 42, see toolu_01YSSAHQnxsQC5wBW4QHXLbF",
                 false});
    add_doc(db, {"d4", kS2, "-home-bob-BetaRepo", "claude", "assistant", "tool_use", "claude-haiku-4-5-20251001",
                 "feature/x-y", {"Read"}, "Read /src/engine/query/keyword.cpp quick", false});
    add_doc(db, {"d5", kS3, "-tmp-gamma", "omp", "assistant", "text", "gpt-5", "", {},
                 "visit http://example.com/docs for 你好世界 details, version v2.0.74"});
    add_doc(db, {"d6", kS3, "-tmp-gamma", "omp", "assistant", "thinking", "gpt-5", "", {},
                 "thinking about quick brown paths foo.bar.baz", false});
    db.commit();
    return db;
}

std::set<std::string> run(const Xapian::Database& db, const std::string& q) {
    ParsedQuery p = parse_keyword_query(q, db);
    Xapian::Enquire enq(db);
    enq.set_query(p.query);
    Xapian::MSet m = enq.get_mset(0, 100);
    std::set<std::string> out;
    for (auto it = m.begin(); it != m.end(); ++it) out.insert(it.get_document().get_value(kSlotKey));
    return out;
}

using Names = std::set<std::string>;

}  // namespace

TEST_CASE("query: split_query_tokens keeps quoted phrases whole", "[query]") {
    CHECK(split_query_tokens("a  \"b c\" d") == std::vector<std::string>{"a", "\"b c\"", "d"});
    CHECK(split_query_tokens("project:\"Alpha Beta\" x") == std::vector<std::string>{"project:\"Alpha Beta\"", "x"});
    CHECK(split_query_tokens("  \t\n ").empty());
    CHECK(split_query_tokens("one").size() == 1);
}

TEST_CASE("query: terms are ANDed implicitly", "[query]") {
    auto db = make_db();
    CHECK(run(db, "quick fox") == Names{"d1", "d2"});
    CHECK(run(db, "quick") == Names{"d1", "d2", "d4", "d6"});
    CHECK(run(db, "quick jumps") == Names{"d2"});
    CHECK(run(db, "fox build_index_v2").empty());
    CHECK(run(db, "quick AND fox") == Names{"d1", "d2"});
    CHECK(run(db, "QUICK Fox") == Names{"d1", "d2"});  // case-insensitive
}

TEST_CASE("query: a quoted phrase needs the words in order", "[query]") {
    auto db = make_db();
    CHECK(run(db, "\"quick brown fox\"") == Names{"d1"});
    CHECK(run(db, "\"brown quick fox\"") == Names{"d2"});
    CHECK(run(db, "\"fox quick\"").empty());
    CHECK(run(db, "\"quick brown fox\" stateStore") == Names{"d1"});
    // Text without positions (thinking, tool I/O) still answers a phrase by its words.
    CHECK(run(db, "\"quick brown\"") == Names{"d1", "d6"});
    ParsedQuery p = parse_keyword_query("\"Quick Brown\"", db);
    CHECK(p.has_free_text);
    CHECK(std::find(p.positive_terms.begin(), p.positive_terms.end(), "quick") != p.positive_terms.end());
}

TEST_CASE("query: a trailing star matches term prefixes", "[query]") {
    auto db = make_db();
    CHECK(run(db, "statest*") == Names{"d1"});
    CHECK(run(db, "StateSt*") == Names{"d1"});
    CHECK(run(db, "jum*") == Names{"d2"});
    CHECK(run(db, "qui* fox") == Names{"d1", "d2"});
    CHECK(run(db, "zzzzz*").empty());
}

TEST_CASE("query: OR joins alternatives", "[query]") {
    auto db = make_db();
    CHECK(run(db, "stateStore OR jumps") == Names{"d1", "d2"});
    CHECK(run(db, "jumps OR build_index_v2") == Names{"d2", "d3"});
    // OR binds the neighbours; the rest stays ANDed.
    CHECK(run(db, "quick jumps OR stateStore") == Names{"d1", "d2"});
    CHECK(run(db, "fox jumps OR details").size() == 1);  // fox AND (jumps OR details) = d2
    CHECK(run(db, "fox jumps OR details") == Names{"d2"});
}

TEST_CASE("query: NOT and -term exclude", "[query]") {
    auto db = make_db();
    CHECK(run(db, "fox NOT jumps") == Names{"d1"});
    CHECK(run(db, "fox -jumps") == Names{"d1"});
    CHECK(run(db, "quick -fox -thinking") == Names{"d4"});
    // A negated word is never a "matched" term.
    ParsedQuery p = parse_keyword_query("fox -jumps", db);
    CHECK(std::find(p.positive_terms.begin(), p.positive_terms.end(), "jumps") == p.positive_terms.end());
    CHECK(std::find(p.positive_terms.begin(), p.positive_terms.end(), "fox") != p.positive_terms.end());
    // Only a negation: everything else.
    CHECK(run(db, "-quick") == Names{"d3", "d5"});
}

TEST_CASE("query: project: is a case-insensitive substring", "[query]") {
    auto db = make_db();
    CHECK(run(db, "project:alpha") == Names{"d1", "d2"});
    CHECK(run(db, "project:ALPHAproj") == Names{"d1", "d2"});
    CHECK(run(db, "project:bob") == Names{"d3", "d4"});
    CHECK(run(db, "quick project:beta") == Names{"d4"});
}

TEST_CASE("query: role: filters by role (tool results are role tool)", "[query]") {
    auto db = make_db();
    CHECK(run(db, "role:tool") == Names{"d3"});
    CHECK(run(db, "role:user") == Names{"d2"});
    CHECK(run(db, "quick role:assistant") == Names{"d1", "d4", "d6"});
    CHECK(run(db, "role:user role:tool") == Names{"d2", "d3"});  // same field: any
}

TEST_CASE("query: tool: filters by tool name case-insensitively", "[query]") {
    auto db = make_db();
    CHECK(run(db, "tool:Bash") == Names{"d3"});
    CHECK(run(db, "tool:bash") == Names{"d3"});
    CHECK(run(db, "Read tool:read") == Names{"d4"});
    CHECK(run(db, "tool:Write").empty());
}

TEST_CASE("query: model: is a substring", "[query]") {
    auto db = make_db();
    CHECK(run(db, "model:haiku") == Names{"d4"});
    CHECK(run(db, "model:claude") == Names{"d1", "d4"});
    CHECK(run(db, "model:opus-4-5") == Names{"d1"});
    CHECK(run(db, "model:GPT") == Names{"d5", "d6"});
}

TEST_CASE("query: a project:/model: value matching nothing gives no results (not an ignored filter)", "[query]") {
    auto db = make_db();
    // The filter must restrict, never silently disappear and never turn the query into an error.
    CHECK(run(db, "quick project:nosuchproject").empty());
    CHECK(run(db, "quick model:nosuchmodel").empty());
    CHECK(run(db, "project:nosuchproject").empty());
    CHECK(run(db, "model:nosuchmodel").empty());
}

TEST_CASE("query: a file name is found inside a longer path", "[query]") {
    auto db = make_db();
    // "keyword.cpp" only occurs as part of "/src/engine/query/keyword.cpp"; a user (as with rg) expects it found.
    CHECK(run(db, "keyword.cpp") == Names{"d3", "d4"});
    CHECK(run(db, "engine/query/keyword.cpp") == Names{"d3", "d4"});
}

TEST_CASE("query: branch: session: agent: type: fields", "[query]") {
    auto db = make_db();
    CHECK(run(db, "branch:main") == Names{"d1", "d2"});
    CHECK(run(db, "branch:feature/x-y") == Names{"d3", "d4"});
    CHECK(run(db, "session:aaaa1111") == Names{"d1", "d2"});  // prefix
    CHECK(run(db, std::string("session:") + kS2) == Names{"d3", "d4"});
    CHECK(run(db, "session:AAAA") == Names{"d1", "d2"});
    CHECK(run(db, "agent:omp") == Names{"d5", "d6"});
    CHECK(run(db, "agent:claude quick") == Names{"d1", "d2", "d4"});
    CHECK(run(db, "type:tool_result") == Names{"d3"});
    CHECK(run(db, "type:thinking") == Names{"d6"});
    // Different fields are ANDed.
    CHECK(run(db, "agent:claude role:assistant model:haiku") == Names{"d4"});
    // Fields combine with NOT.
    CHECK(run(db, "quick -role:assistant") == Names{"d2"});
}

TEST_CASE("query: a URL or unknown prefix is text and not a field", "[query]") {
    auto db = make_db();
    CHECK(run(db, "http://example.com/docs") == Names{"d5"});
    ParsedQuery p = parse_keyword_query("http://example.com/docs", db);
    CHECK(p.has_free_text);
    CHECK(run(db, "details http://example.com/docs") == Names{"d5"});
    // foo:bar is not a field: it is searched as text (no document has it).
    CHECK(run(db, "nosuchfield:quick").empty());
    // A trailing colon is not a field either.
    CHECK(run(db, "details:") == Names{"d5"});
}

TEST_CASE("query: identifiers are found verbatim", "[query]") {
    auto db = make_db();
    CHECK(run(db, "c9117b58-37b2-42e0-942d-cea5c426128d") == Names{"d1"});
    CHECK(run(db, "toolu_01YSSAHQnxsQC5wBW4QHXLbF") == Names{"d3"});
    CHECK(run(db, "build_index_v2") == Names{"d3"});
    CHECK(run(db, "index") == Names{"d3"});  // a snake_case part
    CHECK(run(db, "stateStore") == Names{"d1"});
    CHECK(run(db, "lazy-watching-pony") == Names{"d2"});
    CHECK(run(db, "/src/engine/query/keyword.cpp") == Names{"d3", "d4"});
    CHECK(run(db, "2.1.29") == Names{"d1"});
    CHECK(run(db, "v2.0.74") == Names{"d5"});
    CHECK(run(db, "foo.bar.baz") == Names{"d6"});
    // The compound is what is looked up: its words in another arrangement do not match.
    CHECK(run(db, "2.29.1").empty());
}

TEST_CASE("query: CJK queries use n-grams", "[query]") {
    auto db = make_db();
    CHECK(run(db, "你好世界") == Names{"d5"});
    CHECK(run(db, "世界") == Names{"d5"});
    CHECK(run(db, "好世") == Names{"d5"});
    CHECK(run(db, "世") == Names{"d5"});
    CHECK(run(db, "世界你好").empty());  // bigram 界你 is not in the text
    CHECK(run(db, "再见").empty());
    ParsedQuery p = parse_keyword_query("你好世界", db);
    CHECK(p.has_free_text);
    CHECK_FALSE(p.positive_terms.empty());
}

TEST_CASE("query: empty or operator-only queries are BadInput", "[query]") {
    auto db = make_db();
    for (const char* q : {"", "   ", "OR", "AND", "NOT", "OR AND NOT", "\"\"", "*", "-", "|", "&&", "... ,,, !!!"}) {
        INFO("query: [" << q << "]");
        CHECK_THROWS_AS(parse_keyword_query(q, db), BadInput);
    }
    try {
        parse_keyword_query("OR", db);
    } catch (const BadInput& e) {
        CHECK(e.kind == "usage");
        CHECK(std::string(e.what()).size() > 0);
    }
}

TEST_CASE("query: works on an empty in-memory database", "[query]") {
    Xapian::WritableDatabase db(std::string(), Xapian::DB_BACKEND_INMEMORY);
    CHECK(run(db, "anything").empty());
    CHECK(run(db, "model:bar baz").empty());
    CHECK(run(db, "你好").empty());
    CHECK_THROWS_AS(parse_keyword_query("NOT", db), BadInput);
}

TEST_CASE("query: field-only queries have no free text", "[query]") {
    auto db = make_db();
    ParsedQuery p = parse_keyword_query("role:tool", db);
    CHECK_FALSE(p.has_free_text);
    CHECK(p.positive_terms.empty());
    ParsedQuery q = parse_keyword_query("fox role:tool", db);
    CHECK(q.has_free_text);
}

TEST_CASE("query: words the index cannot search are left out and named", "[query]") {
    // A word of one character or over 64 bytes has no term: the query cannot ask for it, so it finds
    // more than was asked, and says which words it left out (before, silently).
    auto db = make_db();
    const std::string long_word(70, 'q');
    ParsedQuery p = parse_keyword_query("quick a " + long_word + " C++ -x \"b\" : fox", db);
    CHECK(p.ignored_words == std::vector<std::string>{"a", long_word, "C++", "-x", "\"b\""});
    CHECK(run(db, "quick a " + long_word + " fox") == run(db, "quick fox"));
    CHECK(parse_keyword_query("quick fox", db).ignored_words.empty());
    // An OR before a word left out joins nothing: the next word is ANDed, as after any clause.
    CHECK(run(db, "fox OR a jumps") == Names{"d2"});
    CHECK(run(db, "fox OR a jumps") == run(db, "fox jumps"));
    // Only words left out: nothing searchable, as before.
    CHECK_THROWS_AS(parse_keyword_query("a " + long_word, db), BadInput);
}
