// Emoji are searchable text end to end: `keyword 🚀` finds the message that contains 🚀 (it used to
// exit 2 "nothing searchable"), with selectors, skin tones and ZWJ sequences handled as the
// tokenizer defines (engine/index/tokenizer.h).
#include "tests/cli_input_fixture.h"

namespace {

const std::string kEmojiSid = "55555555-eeee-4000-8000-000000000005";

std::set<std::string> uuids(const Json& j) { return field_set(j["results"], "message_uuid"); }
std::string m(int i) { return kEmojiSid + "-m" + std::to_string(i); }
bool strings_equal_any(const Json& arr, const std::string& s) {
    return std::any_of(arr.a.begin(), arr.a.end(), [&](const Json& v) { return v.s == s; });
}

}  // namespace

TEST_CASE("emoji search: keyword finds emoji, tones, sequences and phrases", "[hardening][emoji]") {
    SmallCorpus c;
    c.add_session("-w-e", kEmojiSid, "/w/e", {
        "ship it \U0001F680 now",                                 // m0 🚀
        "thumbs \U0001F44D plain",                                // m1 👍
        "thumbs \U0001F44D\U0001F3FD toned",                      // m2 👍🏽
        "love \u2764\uFE0F with selector",                        // m3 ❤️
        "love \u2764 bare",                                       // m4 ❤
        "family \U0001F468\u200D\U0001F469\u200D\U0001F467 here",  // m5 👨‍👩‍👧
        "no emoji at all",                                        // m6
        "flag \U0001F1EF\U0001F1F5 japan",                        // m7 🇯🇵
    });
    c.index();
    auto q = [&](const std::string& query) {
        return uuids(c.json({"keyword", query, "--by", "message", "--limit", "100"}));
    };
    CHECK(q("\U0001F680") == std::set<std::string>{m(0)});
    CHECK(q("\U0001F44D") == std::set<std::string>{m(1), m(2)});            // every tone
    CHECK(q("\U0001F44D\U0001F3FD") == std::set<std::string>{m(2)});        // that tone only
    CHECK(q("\u2764") == std::set<std::string>{m(3), m(4)});                // with or without selector
    CHECK(q("\u2764\uFE0F") == std::set<std::string>{m(3), m(4)});
    CHECK(q("\U0001F468\u200D\U0001F469\u200D\U0001F467") == std::set<std::string>{m(5)});
    CHECK(q("\U0001F469") == std::set<std::string>{m(5)});                  // a member of the family
    CHECK(q("\U0001F1EF\U0001F1F5") == std::set<std::string>{m(7)});
    CHECK(q("\U0001F525").empty());                                          // 🔥 is nowhere: zero, exit 0
    CHECK(q("ship \U0001F680") == std::set<std::string>{m(0)});
    CHECK(q("\"it \U0001F680 now\"") == std::set<std::string>{m(0)});       // phrase with an emoji
    CHECK(q("\"now \U0001F680\"").empty());                                  // word order counts
    CHECK(q("\"thumbs \U0001F44D\U0001F3FD toned\"") == std::set<std::string>{m(2)});
    CHECK(q("thumbs -\U0001F44D\U0001F3FD") == std::set<std::string>{m(1)});
    // The hit shows the emoji in its snippet and matched terms.
    Json j = c.json({"keyword", "\U0001F680", "--by", "message"});
    REQUIRE(j["returned"].i == 1);
    CHECK(j["results"][0]["snippet"].s.find("\U0001F680") != std::string::npos);
    CHECK(strings_equal_any(j["results"][0]["matched_terms"], "\U0001F680"));
}
