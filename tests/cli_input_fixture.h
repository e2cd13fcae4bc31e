// A tiny generated corpus for the CLI hardening tests: sessions with chosen cwds, projects and
// message texts (any bytes; control characters JSON-escaped), indexed through the built binary.
#pragma once

#include "tests/cli_fixture.h"

namespace {

// Text as a JSON string body: quotes, backslashes and C0 controls escaped, everything else raw.
std::string json_body(std::string_view s) {
    std::string o;
    for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            o.push_back('\\');
            o.push_back(ch);
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            o += buf;
        } else {
            o.push_back(ch);
        }
    }
    return o;
}

struct SmallCorpus {
    TempDir tmp{"cliin"};
    std::string src = tmp / "claude";
    std::string idx = tmp / "index";

    // One session file under `project_dir` with one user message per text (uuids m0, m1, …).
    void add_session(const std::string& project_dir, const std::string& sid, const std::string& cwd,
                     const std::vector<std::string>& texts, const std::string& branch = "main") {
        std::string lines;
        for (size_t i = 0; i < texts.size(); ++i) {
            lines += R"({"parentUuid":null,"isSidechain":false,"type":"user","cwd":")" + json_body(cwd) +
                     R"(","sessionId":")" + sid + R"(","version":"2.1.29","gitBranch":")" + json_body(branch) +
                     R"(","message":{"role":"user","content":")" + json_body(texts[i]) + R"("},"uuid":")" + sid +
                     "-m" + std::to_string(i) + R"(","timestamp":"2026-03-01T10:00:)" + (i < 10 ? "0" : "") +
                     std::to_string(i % 60) + ".000Z\"}\n";
        }
        write_file(src + "/" + project_dir + "/" + sid + ".jsonl", lines);
    }
    void index() const {
        RunResult r = run_osearch({"index", "--index", idx, "--source", "claude=" + src});
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
    }
    // The command, then the global options; --no-refresh: the tests index once.
    RunResult run(std::vector<std::string> args, const std::string& format = "json") const {
        std::vector<std::string> a = {"--index", idx, "--source", "claude=" + src, "--no-refresh"};
        if (!format.empty()) a.insert(a.end(), {"--format", format});
        a.insert(a.end(), args.begin(), args.end());
        return run_osearch(a);
    }
    Json json(const std::vector<std::string>& args) const {
        RunResult r = run(args);
        INFO("args: " << Catch::Detail::stringify(args) << "\nstderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        return parse(r.out);
    }
};

// The {"error":{…}} object of a failed run (its last stderr line), checked for exit 2 and the kind.
void check_usage_error(const RunResult& r, const std::string& kind = "usage") {
    INFO("stdout: " << r.out.substr(0, 300) << "\nstderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.term_signal == 0);
    CHECK(r.out.empty());
    Json e;
    REQUIRE(try_parse(last_line(r.err), e));
    REQUIRE(e.has("error"));
    CHECK(e["error"]["kind"].s == kind);
    CHECK(e["error"]["message"].is_str());
    CHECK_FALSE(e["error"]["message"].s.empty());
}

}  // namespace
