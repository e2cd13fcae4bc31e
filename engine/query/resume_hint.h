// The command that resumes a session (SPEC §5), safe to paste into a shell. Frontends (CLI, MCP,
// web) print it; every value in it comes from a transcript, so every value is quoted.
//
// POSIX form:      cd '/Users/me/My Projects/app' && claude --resume 1b3e6441-…
// Windows cwd:     cd 'C:\Users\me\My Projects' && claude --resume 1b3e6441-…   (PowerShell quoting)
// Per agent:       claude --resume ID · omp --resume ID · pi --session PATH · codex resume ID
#pragma once

#include <string>
#include <string_view>

namespace osearch {

struct SessionRec;

// A word for sh/bash/zsh: unchanged when it is plainly safe ([A-Za-z0-9_@%+=:,./-], not empty, not
// starting with '-'), else in single quotes with each ' written as '\''.
std::string shell_quote(std::string_view s);
// A word for PowerShell: unchanged when plainly safe ([A-Za-z0-9_.:/\\-], not starting with '-'),
// else in single quotes with each quote character doubled (PowerShell also takes ‘ ’ ‚ ‛ as ').
std::string powershell_quote(std::string_view s);
// "C:\…", "C:/…" or a UNC path "\\server\…".
bool is_windows_path(std::string_view p);

// `cwd` may be empty (no cd). An id or path that starts with '-' cannot be quoted out of being an
// option, so it is passed as --resume=ID, after "--" (codex) or as ./PATH.
std::string resume_hint(std::string_view agent, std::string_view session_id, std::string_view cwd,
                        std::string_view jsonl_path);
// The session's cwd (else its project path) and ids.
std::string resume_hint(const SessionRec& s);

}  // namespace osearch
