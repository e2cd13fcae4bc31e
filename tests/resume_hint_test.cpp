// resume_hint (engine/query/resume_hint.h) is pasted into shells; the cwd and ids come from transcripts.
// Each hint is run by /bin/sh with harmless stand-ins for cd and the agents, which record their
// arguments: the shell must see exactly the intended words and run nothing else.
#include "engine/query/resume_hint.h"

#include <catch2/catch.hpp>

#include "engine/store/records_store.h"
#include "tests/test_util.h"

using namespace osearch;
using namespace osearch_test;

namespace {

// Runs `hint` in sh with cd, claude, omp, pi and codex replaced by functions that write their
// arguments (one per line, NUL-terminated) to files in `dir`. Returns what each recorded.
struct ShellRun {
    std::string cd_args, agent_args;
    int exit_code = -1;
};

ShellRun run_in_sh(const TempDir& dir, const std::string& hint) {
    const std::string rec = dir.path();
    const std::string prelude =
        "cd() { printf '%s\\0' \"$@\" > '" + rec + "/cd.args'; }\n"
        "claude() { printf '%s\\0' claude \"$@\" > '" + rec + "/agent.args'; }\n"
        "omp() { printf '%s\\0' omp \"$@\" > '" + rec + "/agent.args'; }\n"
        "pi() { printf '%s\\0' pi \"$@\" > '" + rec + "/agent.args'; }\n"
        "codex() { printf '%s\\0' codex \"$@\" > '" + rec + "/agent.args'; }\n";
    RunOptions opt;
    opt.cwd = rec;  // a stray `touch owned` would land here
    RunResult r = run_process("/bin/sh", {"-c", prelude + hint}, "", opt);
    ShellRun out;
    out.exit_code = r.exit_code;
    if (fs::exists(rec + "/cd.args")) out.cd_args = read_file(rec + "/cd.args");
    if (fs::exists(rec + "/agent.args")) out.agent_args = read_file(rec + "/agent.args");
    return out;
}

std::string nul_joined(const std::vector<std::string>& words) {
    std::string s;
    for (const auto& w : words) s += w + std::string(1, '\0');
    return s;
}

const std::vector<std::string> kHostile = {
    "/Users/me/My Projects/app",
    "/tmp/x; touch owned; echo",
    "/tmp/$(touch owned)",
    "/tmp/`touch owned`",
    "/tmp/it's \"quoted\"",
    "/tmp/a'b'c''d",
    "/tmp/new\nline; touch owned",
    "/tmp/tab\there",
    "/tmp/&& touch owned ||",
    "/tmp/a|b>c<d",
    "/tmp/glob*?[x]",
    "/tmp/~user/$HOME/${HOME}",
    "/tmp/#comment",
    "/tmp/back\\slash\\",
    "-rf",
    "--help",
    "/tmp/中文 🚀",
    "/tmp/!history",
    "'",
    "\\",
};

}  // namespace

TEST_CASE("resume hint: plain values stay unquoted and readable", "[hardening][resume-hint]") {
    CHECK(resume_hint("claude", "1b3e6441-62e3-4b41-8a0c-9d252f531f7a", "/Users/me/app", "") ==
          "cd /Users/me/app && claude --resume 1b3e6441-62e3-4b41-8a0c-9d252f531f7a");
    CHECK(resume_hint("omp", "abc", "/w/p", "") == "cd /w/p && omp --resume abc");
    CHECK(resume_hint("codex", "abc", "/w/p", "") == "cd /w/p && codex resume abc");
    CHECK(resume_hint("pi", "abc", "/w/p", "/home/me/.pi/s.jsonl") == "cd /w/p && pi --session /home/me/.pi/s.jsonl");
    CHECK(resume_hint("claude", "abc", "", "") == "claude --resume abc");  // no cwd: no cd
    CHECK(resume_hint("claude", "abc", "/Users/me/My Projects/app", "") ==
          "cd '/Users/me/My Projects/app' && claude --resume abc");
    CHECK(resume_hint("claude", "abc", "/tmp/x; touch owned; echo", "") ==
          "cd '/tmp/x; touch owned; echo' && claude --resume abc");
    CHECK(shell_quote("it's") == "'it'\\''s'");
    CHECK(shell_quote("") == "''");
    CHECK(shell_quote("-x") == "'-x'");
    CHECK(shell_quote("a+b=c:d,e@f%g/h.i_j-k") == "a+b=c:d,e@f%g/h.i_j-k");
    SessionRec s;
    s.id = "abc";
    s.project_path = "/w/p q";
    CHECK(resume_hint(s) == "cd '/w/p q' && claude --resume abc");
    s.cwd = "/w/cwd";
    CHECK(resume_hint(s) == "cd /w/cwd && claude --resume abc");
}

TEST_CASE("resume hint: hostile cwds and ids cannot run a command in sh", "[hardening][resume-hint]") {
    for (const auto& agent : {"claude", "omp", "codex", "pi"}) {
        for (const auto& cwd : kHostile) {
            for (const std::string& id : {std::string("1b3e6441-62e3-4b41-8a0c-9d252f531f7a"), cwd}) {
                const std::string path = "/p/" + cwd + ".jsonl";
                const std::string hint = resume_hint(agent, id, cwd, path);
                INFO("agent " << agent << "\ncwd " << Catch::Detail::stringify(cwd) << "\nid "
                              << Catch::Detail::stringify(id) << "\nhint " << hint);
                TempDir dir("hint");
                ShellRun r = run_in_sh(dir, hint);
                CHECK(r.exit_code == 0);
                CHECK_FALSE(fs::exists(dir / "owned"));
                // cd gets the path as one word; a leading '-' is made a relative path, not an option.
                const std::string want_dir = cwd.front() == '-' ? "./" + cwd : cwd;
                CHECK(r.cd_args == nul_joined({want_dir}));
                std::vector<std::string> want;
                const bool dash = id.front() == '-';
                if (std::string(agent) == "pi") want = {"pi", "--session", path};
                else if (std::string(agent) == "codex") want = dash ? std::vector<std::string>{"codex", "resume", "--", id}
                                                                    : std::vector<std::string>{"codex", "resume", id};
                else want = dash ? std::vector<std::string>{agent, "--resume=" + id}
                                 : std::vector<std::string>{agent, "--resume", id};
                CHECK(r.agent_args == nul_joined(want));
            }
        }
    }
}

TEST_CASE("resume hint: an empty cwd gives no cd; odd ids are still one word", "[hardening][resume-hint]") {
    TempDir dir("hint");
    ShellRun r = run_in_sh(dir, resume_hint("claude", "a b;c", "", ""));
    CHECK(r.exit_code == 0);
    CHECK(r.cd_args.empty());
    CHECK(r.agent_args == nul_joined({"claude", "--resume", "a b;c"}));
    ShellRun e = run_in_sh(dir, resume_hint("claude", "", "/w", ""));
    CHECK(e.agent_args == nul_joined({"claude", "--resume", ""}));
}

TEST_CASE("resume hint: Windows paths are quoted for PowerShell", "[hardening][resume-hint]") {
    CHECK(is_windows_path("C:\\Users\\me"));
    CHECK(is_windows_path("d:/work"));
    CHECK(is_windows_path("\\\\server\\share\\x"));
    CHECK_FALSE(is_windows_path("/Users/me"));
    CHECK_FALSE(is_windows_path("C:"));
    CHECK(resume_hint("claude", "abc", "C:\\Users\\me\\app", "") == "cd C:\\Users\\me\\app && claude --resume abc");
    CHECK(resume_hint("claude", "abc", "C:\\Users\\me\\My Projects", "") ==
          "cd 'C:\\Users\\me\\My Projects' && claude --resume abc");
    // PowerShell: ' is doubled (no backslash escapes), and so are the typographic single quotes.
    CHECK(resume_hint("claude", "abc", "C:\\it's", "") == "cd 'C:\\it''s' && claude --resume abc");
    CHECK(powershell_quote("C:\\a\xE2\x80\x99" "b") == "'C:\\a\xE2\x80\x99\xE2\x80\x99" "b'");
    CHECK(powershell_quote("$(Remove-Item x); `n") == "'$(Remove-Item x); `n'");
    CHECK(resume_hint("claude", "a;b", "\\\\srv\\share\\p q", "") == "cd '\\\\srv\\share\\p q' && claude --resume 'a;b'");
    CHECK(resume_hint("pi", "abc", "", "C:\\Users\\me\\s.jsonl") == "pi --session C:\\Users\\me\\s.jsonl");
    CHECK(resume_hint("pi", "abc", "", "C:\\Users\\me\\a b.jsonl") == "pi --session 'C:\\Users\\me\\a b.jsonl'");
}
