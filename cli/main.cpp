// osearch: argument parsing only. Each command lives in cli/cmd_*.cpp.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include <sys/stat.h>
#include <unistd.h>
#include <xapian.h>

#include "cli/commands.h"
#include "engine/store.h"

using namespace osearch;

namespace {

void add_filters(CLI::App* cmd, FilterArgs& f, SearchArgs& s, bool with_limit_offset = true) {
  cmd->add_option("--project", f.project, "case-insensitive substring of the project slug or path");
  cmd->add_option("--agent", f.agent, "claude|omp|pi|codex");
  cmd->add_option("--session", f.session, "session id or prefix (repeatable)");
  cmd->add_option("--since", f.since, "YYYY-MM-DD, ISO 8601, or Ns/Nm/Nh/Nd/Nw ago");
  cmd->add_option("--until", f.until, "exclusive upper bound, same forms as --since");
  cmd->add_option("--branch", f.branch, "git branch");
  cmd->add_option("--model", f.model, "model name substring");
  cmd->add_option("--role", f.role, "user|assistant|tool");
  cmd->add_option("--type", f.type, "text|thinking|tool_use|tool_result|command|summary");
  cmd->add_option("--tool", f.tool, "tool name");
  cmd->add_option("--cwd", f.cwd, "working directory prefix");
  cmd->add_flag("--include-meta", f.include_meta, "include injected/meta messages and command envelopes");
  if (with_limit_offset) {
    cmd->add_option("--limit", f.limit, "maximum results")->check(CLI::Range(1, 100000));
    cmd->add_option("--offset", f.offset, "skip the first N results");
  }
  cmd->add_option("--snippet-chars", s.snippet_chars, "snippet length in characters (default 200)");
}

}  // namespace

int main(int argc, char** argv) {
  ::umask(077);  // transcripts hold secrets: index files 0600, dirs 0700
  CLI::App app{"osearch: search coding-agent session transcripts (Claude Code, omp/pi, Codex)", "osearch"};
  app.set_version_flag("--version", "osearch 0.1.0");
  app.require_subcommand(1);
  app.fallthrough();  // global options are accepted after the command too

  GlobalOptions g;
  app.add_option("--index", g.index, "index directory (default $OSEARCH_INDEX, $XDG_DATA_HOME/osearch)");
  app.add_option("--source", g.sources, "KIND=DIR source root (repeatable)");
  app.add_option("--format", g.format, "json|jsonl|text (default: text on a terminal, else json)");
  app.add_flag("--no-refresh", g.no_refresh, "answer from the index without reading new transcript bytes");
  app.add_flag("-q,--quiet", g.quiet, "less output");
  app.add_flag("-v,--verbose", g.verbose, "name skipped files and bad lines");

  IndexArgs index_args;
  auto* index = app.add_subcommand("index", "incrementally index all sources");
  index->add_flag("--full", index_args.full, "rebuild derived data from the sources (memories are kept)");
  index->add_flag("--watch", index_args.watch, "keep indexing as files change");

  auto* status = app.add_subcommand("status", "index location, sizes, counts, freshness");

  SearchArgs kw;
  auto* keyword = app.add_subcommand("keyword", "ranked full-text search (BM25)");
  keyword->add_option("query", kw.words, "query words; \"phrase\", prefix*, OR, NOT/-term, field:value")->required();
  keyword->add_option("--by", kw.by, "session|message")->check(CLI::IsMember({"session", "message"}));
  keyword->add_option("--sort", kw.sort, "relevance|newest|oldest")->check(CLI::IsMember({"relevance", "newest", "oldest"}));
  add_filters(keyword, kw.filters, kw);

  SearchArgs ct;
  auto* content = app.add_subcommand("content", "exhaustive regex scan (Hyperscan) over every message's text");
  content->add_option("pattern", ct.words, "regex pattern(s)");
  content->add_option("-e,--regexp", ct.patterns, "pattern (repeatable; any matches)");
  content->add_flag("-F,--fixed-strings", ct.fixed, "patterns are literal strings");
  content->add_flag("-i,--ignore-case", ct.ignore_case, "case-insensitive");
  content->add_flag("-w,--word-regexp", ct.word, "match whole words only");
  content->add_option("--by", ct.by, "session|message")->check(CLI::IsMember({"session", "message"}));
  content->add_option("--timeout", ct.timeout_s, "time budget in seconds (default 10); past it, the hits found so far")
      ->check(CLI::Range(0.001, 86400.0));
  add_filters(content, ct.filters, ct);

  SearchArgs ls;
  auto* list = app.add_subcommand("list", "sessions, newest first");
  add_filters(list, ls.filters, ls);

  Context ctx;
  bool have_ctx = false;
  try {
    app.parse(argc, argv);
    ctx = resolve_context(g);
    have_ctx = true;
    if (*index) return cmd_index(ctx, index_args);
    if (*status) return cmd_status(ctx);
    if (*keyword) return cmd_keyword(ctx, kw);
    if (*content) return cmd_content(ctx, ct);
    if (*list) return cmd_list(ctx, ls);
  } catch (const CLI::CallForHelp&) {
    std::printf("%s", app.help().c_str());
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::printf("%s", app.help("", CLI::AppFormatMode::All).c_str());
    return 0;
  } catch (const CLI::CallForVersion&) {
    std::printf("osearch 0.1.0\n");
    return 0;
  } catch (const CLI::ParseError& e) {
    // Use the --format given so far, if any, for the JSON error.
    Context fallback;
    if (g.format.empty())
      fallback.format = ::isatty(STDOUT_FILENO) ? Format::Text : Format::Json;
    else
      fallback.format = g.format == "text" ? Format::Text : Format::Json;
    report_error(&fallback, "usage", e.what());
    return 2;
  } catch (const BadInput& e) {
    report_error(have_ctx ? &ctx : nullptr, e.kind, e.what());
    return 2;
  } catch (const StoreMissing& e) {
    report_error(have_ctx ? &ctx : nullptr, "no-index", e.what());
    return 1;
  } catch (const std::exception& e) {
    report_error(have_ctx ? &ctx : nullptr, "error", e.what());
    return 1;
  } catch (const Xapian::Error& e) {  // not a std::exception
    report_error(have_ctx ? &ctx : nullptr, "index", e.get_description());
    return 1;
  }
  return 2;
}
