// The memory domain and store below the CLI: ids, anchors, paths, the LMDB codec and its
// append-only events, the change log that lets the text index redo one document per write.
#include <catch2/catch.hpp>

#include "engine/index/memory_index.h"
#include "engine/store/memory_store.h"
#include "memory/jsonl.h"
#include "memory/memory.h"
#include "test_util.h"

using namespace osearch;
using namespace osearch_test;

TEST_CASE("memory: ids sort by creation time and differ within a millisecond", "[memory]") {
    const std::string a = memory::new_id(1700000000000), b = memory::new_id(1700000000000), c = memory::new_id(1700000000001);
    CHECK(a.size() == 19);
    CHECK(a != b);
    CHECK(a.substr(0, 11) == b.substr(0, 11));
    CHECK(std::max(a, b) < c);
    CHECK(memory::valid_id_text(a));
    CHECK_FALSE(memory::valid_id_text("m/../x"));
    CHECK_FALSE(memory::valid_id_text(""));
}

TEST_CASE("memory: anchors parse KIND:PATH[:LINE]", "[memory]") {
    auto a = memory::parse_anchor("file:src/a.cpp:12");
    CHECK(a == memory::Anchor{"file", "src/a.cpp", 12});
    CHECK(memory::parse_anchor("doc:README.md") == memory::Anchor{"doc", "README.md", 0});
    CHECK(memory::parse_anchor("url:https://x.org/a:b") == memory::Anchor{"url", "https://x.org/a:b", 0});
    CHECK(memory::parse_anchor("file:C:/dir/f.md:3") == memory::Anchor{"file", "C:/dir/f.md", 3});
    CHECK(memory::parse_anchor("file:文档/设计.md") == memory::Anchor{"file", "文档/设计.md", 0});
    for (const char* bad : {"nocolon", ":path", "ki nd:path", "file:"}) {
        INFO(bad);
        CHECK_THROWS_AS(memory::parse_anchor(bad), memory::InvalidMemory);
    }
}

TEST_CASE("memory: paths resolve against the base, normalised, regular text files only", "[memory]") {
    TempDir t("mempath");
    write_file(t / "n.md", "note");
    write_file(t / "bin.dat", std::string("ab\0cd", 5));
    CHECK(memory::resolve_path("n.md", t.path()) == t / "n.md");
    CHECK(memory::resolve_path("./x/../n.md", t.path()) == t / "n.md");
    CHECK(memory::resolve_path(t / "n.md", "/elsewhere") == t / "n.md");
    CHECK_THROWS_AS(memory::resolve_path("missing.md", t.path()), memory::InvalidMemory);
    CHECK_THROWS_AS(memory::resolve_path(".", t.path()), memory::InvalidMemory);
    CHECK_THROWS_AS(memory::resolve_path("bin.dat", t.path()), memory::InvalidMemory);
    CHECK_THROWS_AS(memory::resolve_path("", t.path()), memory::InvalidMemory);
}

TEST_CASE("memory: records and events round trip through the codec and the JSONL format", "[memory]") {
    memory::Record r{"m0abc", "/p/a.md", "摘要 🚀 \"q\"\n\t\x01", "proj", "sid", "u1", "u2",
                     {{"file", "a.cpp", 3}, {"doc", "b.md", 0}}, -5, 1700000000000, "why"};
    auto back = decode_memory(r.id, encode_memory(r));
    REQUIRE(back);
    CHECK(*back == r);
    CHECK_FALSE(decode_memory("x", encode_memory(r).substr(0, 7)));
    std::vector<memory::Event> evs{{1, memory::Action::Remember, 10, ""}, {2, memory::Action::Forget, 20, "why"}};
    auto x = memory::from_jsonl_line(memory::to_jsonl_line(r, evs));
    CHECK(x.record == r);
    CHECK(x.events == evs);
    CHECK_THROWS_AS(memory::from_jsonl_line("{\"id\":\"a\",\"path\":\"rel\",\"summary\":\"s\",\"created_at_ms\":1}"),
                    memory::InvalidMemory);
    CHECK_THROWS_AS(memory::from_jsonl_line("[1]"), memory::InvalidMemory);
}

TEST_CASE("memory: the store appends events, forgets once, and the text index redoes only what changed", "[memory]") {
    TempDir t("memstore");
    const std::string idx = t.path();
    write_file(t / "a.md", "alpha capybara");
    write_file(t / "b.md", "beta");
    {
        MemoryStore read(idx, MemoryStore::Mode::Read);
        CHECK_FALSE(read.exists());
    }
    MemoryStore store(idx, MemoryStore::Mode::Write);
    memory::Record a{"ma", t / "a.md", "first", "", "", "", "", {}, 1, 0, ""};
    memory::Record b{"mb", t / "b.md", "second", "", "", "", "", {}, 2, 0, ""};
    store.add(a, {{1, memory::Action::Remember, 1, ""}});
    CHECK(sync_memory_index(idx, store, false).rebuilt);  // the first build
    store.add(b, {{1, memory::Action::Remember, 2, ""}});
    auto s1 = sync_memory_index(idx, store, false);
    CHECK_FALSE(s1.rebuilt);
    CHECK(s1.updated == 1);
    CHECK(store.forget("ma", "old", 5).changed);
    CHECK_FALSE(store.forget("ma", "again", 6).changed);
    CHECK(store.restore("ma", 7).changed);
    CHECK_THROWS_AS(store.forget("nope", "x", 8), std::invalid_argument);
    MemoryStore::Snapshot snap(store);
    auto evs = snap.events("ma");
    REQUIRE(evs.size() == 3);
    CHECK(evs[1].action == memory::Action::Forget);
    CHECK(evs[1].reason == "old");
    CHECK(evs[2].seq == 3);
    CHECK(snap.generation() == 4);
    REQUIRE(snap.changed_since(1));
    CHECK(*snap.changed_since(1) == std::vector<std::string>{"mb", "ma"});
    CHECK_FALSE(snap.changed_since(9));
    CHECK(snap.ids_with_prefix("m", 10) == std::vector<std::string>{"ma", "mb"});
    auto s2 = sync_memory_index(idx, store, false);
    CHECK(s2.updated == 1);  // ma, once
    auto db = open_memory_text(idx);
    REQUIRE(db);
    CHECK(db->get_doccount() == 2);
    CHECK(db->get_termfreq("capybara") == 1);
    // Idempotent import: unchanged, conflicting, added.
    CHECK(store.import(b, {}, 9) == MemoryStore::ImportOutcome::Unchanged);
    memory::Record b2 = b;
    b2.summary = "other";
    CHECK(store.import(b2, {}, 9) == MemoryStore::ImportOutcome::Conflicting);
    memory::Record c{"mc", t / "b.md", "third", "", "", "", "", {}, 3, 0, ""};
    CHECK(store.import(c, {{1, memory::Action::Remember, 3, ""}}, 9) == MemoryStore::ImportOutcome::Added);
    CHECK(MemoryStore::Snapshot(store).events("mc").back().action == memory::Action::Import);
}

namespace {
// One memory "ma" with this summary and file text, in a new store at `t`, its text index built.
struct OneMemory {
    OneMemory(const TempDir& t, const std::string& summary, const std::string& file_text)
        : idx(t.path()), store(idx, MemoryStore::Mode::Write) {
        write_file(t / "a.md", file_text);
        memory::Record a{"ma", t / "a.md", summary, "", "", "", "", {}, 1, 0, ""};
        store.add(a, {{1, memory::Action::Remember, 1, ""}});
        first_sync = sync_memory_index(idx, store, false);
    }
    std::string idx;
    MemoryStore store;
    MemorySyncResult first_sync;
};
}  // namespace

TEST_CASE("memory: a text index of another schema's terms is built again", "[memory]") {
    // An upgrade that changes the tokenizer (schema 23: colour codes) rebuilds the messages'
    // documents; the memories' text index said "current" by its generation alone and kept the old
    // terms. It now holds the schema too: another one (or none, before) means every document again.
    TempDir t("memterms");
    OneMemory m(t, "first", "Set model to \x1b[1mopusplan\x1b[22m");
    const std::string& idx = m.idx;
    MemoryStore& store = m.store;
    CHECK(m.first_sync.rebuilt);
    {
        auto db = open_memory_text(idx);
        REQUIRE(db);
        CHECK(db->get_termfreq("opusplan") == 1);
        CHECK(memory_text_current(*db, MemoryStore::Snapshot(store).generation()));
    }
    {  // as an older build left it: old terms, no schema named
        Xapian::WritableDatabase w(memory_text_dir(idx));
        Xapian::Document stale;
        stale.add_boolean_term("Qmemory/ma");
        stale.add_term("1mopusplan");
        w.replace_document("Qmemory/ma", stale);
        w.set_metadata("memory_terms", "");
        w.commit();
    }
    {
        auto db = open_memory_text(idx);
        REQUIRE(db);
        CHECK_FALSE(memory_text_current(*db, MemoryStore::Snapshot(store).generation()));
    }
    CHECK(sync_memory_index(idx, store, false).rebuilt);
    auto db = open_memory_text(idx);
    REQUIRE(db);
    CHECK(db->get_termfreq("opusplan") == 1);
    CHECK(db->get_termfreq("1mopusplan") == 0);
    CHECK(db->get_doccount() == 1);
}

TEST_CASE("memory: no phrase runs from a memory's summary into its file's words", "[memory]") {
    // Both texts had their positions from 1: "alpha delta" was a phrase of summary "alpha beta" and
    // file "gamma delta" (alpha@1, delta@2).
    TempDir t("memparts");
    OneMemory m(t, "alpha beta", "gamma delta");
    auto db = open_memory_text(m.idx);
    REQUIRE(db);
    const auto phrase = [&](const std::string& x, const std::string& y) {
        const std::vector<Xapian::Query> qs{Xapian::Query(x), Xapian::Query(y)};
        Xapian::Enquire enq(*db);
        enq.set_query(Xapian::Query(Xapian::Query::OP_PHRASE, qs.begin(), qs.end(), 2));
        return enq.get_mset(0, 10).size();
    };
    CHECK(phrase("alpha", "beta") == 1);
    CHECK(phrase("gamma", "delta") == 1);
    CHECK(phrase("alpha", "delta") == 0);
    CHECK(phrase("beta", "gamma") == 0);
}
