// Shared helpers of the memory tests ([memory]): an index with one Claude session, memory files in
// a temp dir, and the memory commands through the built binary.
#pragma once

#include "tests/cli_fixture.h"

namespace {

struct Mem : Cli {
    std::string notes = tmp / "notes";
    Mem() : Cli({kAlex}) { fs::create_directories(notes); }
    std::string note(const std::string& name, const std::string& text) {
        const std::string p = notes + "/" + name;
        write_file(p, text);
        return p;
    }
    Json remember(const std::string& path, const std::string& summary, std::vector<std::string> extra = {}) {
        std::vector<std::string> args{"memory", "remember", "--path", path, "--summary", summary};
        args.insert(args.end(), extra.begin(), extra.end());
        return json(args);
    }
    RunResult run_in(const std::string& cwd, std::vector<std::string> args) const {
        args.insert(args.end(), {"--index", idx, "--source", "claude=" + src, "--format", "json"});
        RunOptions o;
        o.cwd = cwd;
        return run_osearch(args, "", o);
    }
    std::string exported() const {
        RunResult r = run({"memory", "export"}, "");
        REQUIRE(r.exit_code == 0);
        return r.out;
    }
};

inline std::set<std::string> ids_of(const Json& results, const std::string& key = "id") {
    std::set<std::string> out;
    for (const auto& h : results.a)
        if (h.has(key) && h[key].is_str()) out.insert(h[key].s);
    return out;
}

inline std::vector<Json> memory_hits(const Json& keyword) {
    std::vector<Json> out;
    for (const auto& h : keyword["results"].a)
        if (h.has("kind") && h["kind"].s == "memory") out.push_back(h);
    return out;
}

}  // namespace
