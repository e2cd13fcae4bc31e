#include "cli/options.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <sstream>

#include "cli/json_writer.h"
#include "cli/terminal_text.h"

namespace osearch {
namespace {

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string home_dir() {
  std::string h = env_or_empty("HOME");
  return h.empty() ? std::string("/") : h;
}

std::string expand_tilde(const std::string& p) {
  if (p == "~") return home_dir();
  if (p.rfind("~/", 0) == 0) return home_dir() + p.substr(1);
  return p;
}

std::vector<SourceRoot> parse_sources(const std::vector<std::string>& specs) {
  std::vector<SourceRoot> roots;
  for (const auto& spec : specs) {
    auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
      throw UsageError("usage", "--source takes KIND=DIR, got '" + spec + "'");
    std::string kind = spec.substr(0, eq);
    if (kind != "claude" && kind != "omp" && kind != "pi" && kind != "codex")
      throw UsageError("usage", "unknown source kind '" + kind + "' (claude, omp, pi, codex)");
    std::string dir = expand_tilde(spec.substr(eq + 1));
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    roots.push_back({kind, dir});
  }
  return roots;
}

// SPEC §2. omp also keeps sessions per named profile and, once migrated, under XDG_DATA_HOME;
// Codex honours CODEX_HOME. A root that does not exist is skipped silently.
std::vector<SourceRoot> default_sources() {
  std::vector<SourceRoot> roots;
  const std::string home = home_dir();
  std::string claude = env_or_empty("CLAUDE_CONFIG_DIR");
  roots.push_back({"claude", claude.empty() ? home + "/.claude/projects" : claude + "/projects"});
  roots.push_back({"omp", home + "/.omp/agent/sessions"});
  std::error_code ec;
  std::vector<std::string> profiles;
  for (std::filesystem::directory_iterator it(home + "/.omp/profiles", ec), end; !ec && it != end; it.increment(ec))
    profiles.push_back(it->path().string() + "/agent/sessions");
  std::sort(profiles.begin(), profiles.end());
  for (auto& p : profiles) roots.push_back({"omp", std::move(p)});
  if (auto xdg = env_or_empty("XDG_DATA_HOME"); !xdg.empty() && std::filesystem::is_directory(xdg + "/omp/sessions", ec))
    roots.push_back({"omp", xdg + "/omp/sessions"});
  roots.push_back({"pi", home + "/.pi/agent/sessions"});
  std::string codex = env_or_empty("CODEX_HOME");
  if (codex.empty()) codex = home + "/.codex";
  roots.push_back({"codex", codex + "/sessions"});
  roots.push_back({"codex", codex + "/archived_sessions"});
  return roots;
}

}  // namespace

Context resolve_context(const GlobalOptions& o) {
  Context c;
  c.stdout_tty = ::isatty(STDOUT_FILENO) == 1;
  c.stderr_tty = ::isatty(STDERR_FILENO) == 1;
  c.no_refresh = o.no_refresh;
  c.quiet = o.quiet;
  c.verbose = o.verbose;
  if (o.format.empty())
    c.format = c.stdout_tty ? Format::Text : Format::Json;
  else if (o.format == "json")
    c.format = Format::Json;
  else if (o.format == "jsonl")
    c.format = Format::Jsonl;
  else if (o.format == "text")
    c.format = Format::Text;
  else
    throw UsageError("usage", "--format must be json, jsonl or text, got '" + o.format + "'");

  if (!o.index.empty()) {
    c.index_dir = expand_tilde(o.index);
  } else if (auto env = env_or_empty("OSEARCH_INDEX"); !env.empty()) {
    c.index_dir = expand_tilde(env);
  } else if (auto xdg = env_or_empty("XDG_DATA_HOME"); !xdg.empty()) {
    c.index_dir = xdg + "/osearch";
  } else {
    c.index_dir = home_dir() + "/.local/share/osearch";
  }

  if (!o.sources.empty()) {
    c.roots = parse_sources(o.sources);
  } else if (auto env = env_or_empty("OSEARCH_SOURCES"); !env.empty()) {
    std::vector<std::string> specs;
    std::stringstream ss(env);
    for (std::string item; std::getline(ss, item, ',');)
      if (!item.empty()) specs.push_back(item);
    c.roots = parse_sources(specs);
  } else {
    c.roots = default_sources();
  }
  return c;
}

std::string error_line(const Context* ctx, const std::string& kind, const std::string& message) {
  if (!ctx || ctx->format == Format::Text) return "osearch: " + terminal_safe(message, LineBreaks::Visible);
  JsonWriter w;
  w.begin_object();
  w.key("error");
  w.begin_object();
  w.key("kind");
  w.value(kind);
  w.key("message");
  w.value(message);
  w.end_object();
  w.end_object();
  return w.str();
}

void write_output(const Context& ctx, std::string_view text) {
  if (ctx.output) {
    ctx.output->append(text);
    ctx.output->push_back('\n');
    return;
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fputc('\n', stdout);
}

JsonWriter output_writer(const Context& ctx) {
  JsonWriter w;
  if (!ctx.output)
    w.flush_to([](std::string_view part) { std::fwrite(part.data(), 1, part.size(), stdout); });
  return w;
}

void report_error(const Context* ctx, const std::string& kind, const std::string& message) {
  std::fprintf(stderr, "%s\n", error_line(ctx, kind, message).c_str());
}

}  // namespace osearch
