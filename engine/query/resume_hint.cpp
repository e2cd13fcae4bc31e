#include "engine/query/resume_hint.h"

#include "engine/store/records_store.h"

namespace osearch {
namespace {

bool plain_posix(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '@' ||
         c == '%' || c == '+' || c == '=' || c == ':' || c == ',' || c == '.' || c == '/' || c == '-';
}

bool plain_powershell(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == ':' || c == '/' || c == '\\' || c == '-';
}

template <typename Plain>
bool all_plain(std::string_view s, Plain plain) {
  if (s.empty() || s.front() == '-') return false;
  for (char c : s)
    if (!plain(c)) return false;
  return true;
}

// PowerShell treats U+2018, U+2019, U+201A and U+201B like ' inside single-quoted strings.
size_t powershell_quote_len(std::string_view s, size_t i) {
  if (s[i] == '\'') return 1;
  if (s.size() - i >= 3 && s[i] == '\xE2' && s[i + 1] == '\x80' && s[i + 2] >= '\x98' && s[i + 2] <= '\x9B') return 3;
  return 0;
}

// A path or id that starts with '-' would read as an option: "./-x" for a relative path.
std::string not_an_option_path(std::string_view p) {
  if (!p.empty() && p.front() == '-') return "./" + std::string(p);
  return std::string(p);
}

}  // namespace

std::string shell_quote(std::string_view s) {
  if (all_plain(s, plain_posix)) return std::string(s);
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

std::string powershell_quote(std::string_view s) {
  if (all_plain(s, plain_powershell)) return std::string(s);
  std::string out = "'";
  for (size_t i = 0; i < s.size();) {
    if (size_t q = powershell_quote_len(s, i); q != 0) {
      out.append(s.substr(i, q));  // doubled: '' is one quote character
      out.append(s.substr(i, q));
      i += q;
    } else {
      out.push_back(s[i++]);
    }
  }
  out.push_back('\'');
  return out;
}

bool is_windows_path(std::string_view p) {
  const bool drive = p.size() >= 3 && ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':' &&
                     (p[2] == '\\' || p[2] == '/');
  return drive || p.substr(0, 2) == "\\\\";
}

std::string resume_hint(std::string_view agent, std::string_view session_id, std::string_view cwd,
                        std::string_view jsonl_path) {
  const bool windows = is_windows_path(cwd) || (cwd.empty() && agent == "pi" && is_windows_path(jsonl_path));
  auto quote = [&](std::string_view v) { return windows ? powershell_quote(v) : shell_quote(v); };
  const bool dash_id = !session_id.empty() && session_id.front() == '-';
  std::string cmd;
  if (agent == "pi")
    cmd = "pi --session " + quote(not_an_option_path(jsonl_path));
  else if (agent == "codex")
    cmd = std::string("codex resume ") + (dash_id ? "-- " : "") + quote(session_id);
  else if (agent == "omp")
    cmd = std::string("omp --resume") + (dash_id ? "=" : " ") + quote(session_id);
  else
    cmd = std::string("claude --resume") + (dash_id ? "=" : " ") + quote(session_id);
  if (cwd.empty()) return cmd;
  return "cd " + quote(not_an_option_path(cwd)) + " && " + cmd;
}

std::string resume_hint(const SessionRec& s) {
  return resume_hint(s.agent, s.shown_id(), s.cwd.empty() ? std::string_view(s.project_path) : std::string_view(s.cwd),
                     s.jsonl_path);
}

}  // namespace osearch
