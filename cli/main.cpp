// osearch: argument parsing only. Each command lives in cli/cmd_*.cpp.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include <sys/stat.h>
#include <unistd.h>
#include <xapian.h>

#include "cli/cmd_memory.h"
#include "cli/cmd_archive.h"
#include "cli/cmd_orient.h"
#include "cli/cmd_serve.h"
#include "cli/commands.h"
#include "cli/huge_pages.h"
#include "cli/verbatim_args.h"
#include "engine/store/errors.h"
#include "engine/store/index_damage.h"
#include "engine/store/store.h"
#include "mcp/server.h"

using namespace osearch;

// jemalloc's start-up options (read before main; glibc's malloc ignores the symbol).
// Transparent huge pages: jemalloc asks for them on its extents, and main() turns them off again
// unless the command is a short one on a machine where a 4 KB page fault is dear (cli/huge_pages.h).
// That cost is the machine's, and it decides (docs/BENCHMARKS.md): where a fault cost ~2 µs (two VMs
// of this project) every query ran 1-15 % faster without huge pages, a 2 MB one costing ~330 µs of
// zeroing; where it cost 10 µs, `keyword` ran ~20 % faster with them (15-30 µs: ~4.5 ms of a call).
// Two arenas, not jemalloc's 4 per CPU: every batch of a build starts new shard threads; with 8
// arenas they had arenas of their own, which gave back their freed pages to the kernel (even with
// decay off), so each batch faulted its map nodes in afresh: 200k faults and 1.4 s of system time
// for 495 MB. With 2 they share the arenas of threads that live on, and reuse the pages.
extern "C" const char* const malloc_conf = "thp:always,metadata_thp:disabled,narenas:2";

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
  cmd->add_option("--type", f.type, "text|thinking|tool_use|tool_result|command|summary|memory");
  cmd->add_option("--tool", f.tool, "tool name");
  cmd->add_option("--cwd", f.cwd, "working directory prefix");
  cmd->add_flag("--include-meta", f.include_meta, "include injected/meta messages and command envelopes");
  // Numbers are read as text and checked by cmd_query.cpp (CLI11 takes "-5" as 2^64-5, "010" as 8).
  if (with_limit_offset) {
    cmd->add_option("--limit", s.numbers.limit, "maximum results (1-100000)");
    cmd->add_option("--offset", s.numbers.offset, "skip the first N results");
  }
  cmd->add_option("--snippet-chars", s.numbers.snippet_chars, "snippet length in characters (default 200, 0 = none)");
}

// The filters `stats` honours: the rest (branch, role, type, meta) say nothing about an aggregate
// row, so they are not offered rather than silently ignored.
void add_stats_filters(CLI::App* cmd, FilterArgs& f, SearchArgs& s) {
  cmd->add_option("--project", f.project, "case-insensitive substring of the project slug or path");
  cmd->add_option("--agent", f.agent, "claude|omp|pi|codex");
  cmd->add_option("--session", f.session, "session id or prefix (repeatable)");
  cmd->add_option("--since", f.since, "YYYY-MM-DD, ISO 8601, or Ns/Nm/Nh/Nd/Nw ago (to the 15-minute bucket)");
  cmd->add_option("--until", f.until, "exclusive upper bound, same forms as --since");
  cmd->add_option("--model", f.model, "model name substring (tokens, models, daily: the row's model; else the session's)");
  cmd->add_option("--tool", f.tool, "tool name (tools, files)");
  cmd->add_option("--cwd", f.cwd, "working directory prefix");
  cmd->add_option("--limit", s.numbers.limit, "maximum rows (1-100000, default 100)");
  cmd->add_option("--offset", s.numbers.offset, "skip the first N rows");
}

// Every command main() can register, by the name argv gives it.
constexpr std::string_view kCommandNames[] = {
    "index",     "status",    "check",    "keyword",  "content", "list",  "thread", "context", "trace",
    "files",     "failures",  "subagents", "workflows", "workflow", "overview", "stats", "memory", "prune",
    "export",    "import",    "mcp",       "serve"};

// The command argv names: its first word that is not a global option or a global option's value,
// and where it is. Empty when that is not plain (help, an unknown option, a misspelt command): then
// every command is registered and CLI11 answers as it always did. Registering only the named
// command is most of a short command's start (CLI11 builds ~300 options and tears them down at exit).
struct NamedCommand {
  std::string_view name;
  int at = 0;  // its index in argv
};
NamedCommand command_in_argv(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--index" || a == "--source" || a == "--format") {
      ++i;  // the option's value
      continue;
    }
    if (a.starts_with("--index=") || a.starts_with("--source=") || a.starts_with("--format=")) continue;
    if (a == "--no-refresh" || a == "-q" || a == "--quiet" || a == "-v" || a == "--verbose") continue;
    if (a.starts_with("-")) return {};
    for (std::string_view name : kCommandNames)
      if (a == name) return {name, i};
    return {};
  }
  return {};
}

// The --format an error is printed in when parsing failed before it was read: the last one in argv.
std::string format_in_argv(int argc, char** argv) {
  std::string format;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--") break;
    if (a == "--format" && i + 1 < argc) format = argv[++i];
    else if (a.rfind("--format=", 0) == 0) format = std::string(a.substr(9));
  }
  return format;
}

// Errors follow --format when it names json/jsonl/text, else the default (text on a terminal).
Context error_context(const std::string& format) {
  Context c;
  if (format == "json" || format == "jsonl")
    c.format = Format::Json;
  else if (format == "text")
    c.format = Format::Text;
  else
    c.format = ::isatty(STDOUT_FILENO) ? Format::Text : Format::Json;
  return c;
}

// The context LMDB's fatal-damage callback prints with (set once, when it is known).
const Context* g_error_context = nullptr;

void report_lmdb_damage(const IndexDamaged& e) { report_error(g_error_context, "index-damaged", e.what()); }

// The line the fault guard writes (composed ahead: a signal handler cannot format).
std::string fault_error_line(const Context& ctx) {
  return error_line(&ctx, "index-damaged",
                    IndexDamaged("index", "reading the index faulted: a mapped file ends early or a B-tree page "
                                          "holds garbage (data.mdb is damaged, or a file was cut while in use)")
                        .what());
}

}  // namespace

int main(int argc, char** argv) {
  ::umask(077);  // transcripts hold secrets: index files 0600, dirs 0700
  if (argc == 2 && std::string_view(argv[1]) == "--version") {
    std::printf("osearch 0.1.0\n");
    return 0;
  }
  const NamedCommand command = command_in_argv(argc, argv);
  const std::string_view named = command.name;
  choose_huge_pages(named);
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

  // Only the command argv names is registered (all of them for help and for anything unusual).
  auto wanted = [&](std::initializer_list<std::string_view> names) {
    if (named.empty()) return true;
    for (std::string_view n : names)
      if (n == named) return true;
    return false;
  };
  // A command that was not registered was not given.
  auto given = [](const CLI::App* cmd) { return cmd != nullptr && cmd->parsed(); };

  IndexArgs index_args;
  CLI::App* index = nullptr;
  if (wanted({"index"})) {
    index = app.add_subcommand("index", "incrementally index all sources");
    auto* full = index->add_flag("--full", index_args.full, "rebuild derived data from the sources (memories are kept)");
    index->add_flag("--compact", index_args.compact,
                    "reclaim the garbage of re-read and pruned sessions: rebuild the index from itself, then switch")
        ->excludes(full);
    index->add_flag("--watch", index_args.watch, "keep indexing as files change");
  }
  CLI::App* status = wanted({"status"}) ? app.add_subcommand("status", "index location, sizes, counts, freshness") : nullptr;
  CLI::App* check =
      wanted({"check"})
          ? app.add_subcommand("check", "verify every part of the index (read-only); exit 1 naming what is damaged")
          : nullptr;

  SearchArgs kw;
  CLI::App* keyword = nullptr;
  if (wanted({"keyword"})) {
    keyword = app.add_subcommand("keyword", "ranked full-text search (BM25)");
    keyword->add_option("query", kw.words, "query words; \"phrase\", prefix*, OR, NOT/-term, field:value")->required();
    keyword->add_option("--by", kw.by, "session|message")->check(CLI::IsMember({"session", "message"}));
    keyword->add_option("--sort", kw.sort, "relevance|newest|oldest")
        ->check(CLI::IsMember({"relevance", "newest", "oldest"}));
    add_filters(keyword, kw.filters, kw);
  }

  SearchArgs ct;
  CLI::App* content = nullptr;
  if (wanted({"content"})) {
    content = app.add_subcommand("content", "exhaustive regex scan (Hyperscan) over every message's text");
    content->add_option("pattern", ct.words, "regex pattern(s)");
    content->add_option("-e,--regexp", ct.patterns, "pattern (repeatable; any matches)");
    content->add_flag("-F,--fixed-strings", ct.fixed, "patterns are literal strings");
    content->add_flag("-i,--ignore-case", ct.ignore_case, "case-insensitive");
    content->add_flag("-w,--word-regexp", ct.word, "match whole words only");
    content->add_option("--by", ct.by, "session|message")->check(CLI::IsMember({"session", "message"}));
    content->add_option("--timeout", ct.timeout_s, "time budget in seconds (default 10); past it, the hits found so far")
        ->check(CLI::Range(0.001, 86400.0));
    add_filters(content, ct.filters, ct);
  }

  SearchArgs ls;
  CLI::App* list = nullptr;
  if (wanted({"list"})) {
    list = app.add_subcommand("list", "sessions, newest first");
    add_filters(list, ls.filters, ls);
  }

  ThreadArgs th;
  CLI::App* thread = nullptr;
  if (wanted({"thread"})) {
    thread = app.add_subcommand("thread", "a session's messages in order (id or id prefix)");
    thread->add_option("session", th.target, "session id or prefix (an omp/pi/Codex id as written, or <id>@<agent>)")
        ->required();
    thread->add_flag("--include-meta", th.include_meta, "include injected/meta messages and command envelopes");
    thread->add_option("--max-chars", th.numbers.max_chars, "cut each text to N characters (JSON default: whole)");
    thread->add_option("--around", th.around, "the window of messages around this message uuid");
    thread->add_option("--window", th.numbers.window, "messages before and after --around (default 10)");
    thread->add_option("--offset", th.numbers.offset, "skip the first N messages");
    thread->add_option("--limit", th.numbers.limit, "at most N messages (default: all)");
  }

  ThreadArgs cx;
  CLI::App* context = wanted({"context"}) ? app.add_subcommand(
                                                "context", "one message with its ancestors, session, subagent and workflow")
                                          : nullptr;
  ThreadArgs tr;
  CLI::App* trace =
      wanted({"trace"}) ? app.add_subcommand("trace", "a message's parent chain, root first (across compactions)") : nullptr;
  for (auto [cmd, args] : {std::pair{context, &cx}, std::pair{trace, &tr}}) {
    if (cmd == nullptr) continue;
    cmd->add_option("uuid", args->target, "message uuid")->required();
    cmd->add_option("--session", args->session, "only in this session (id or prefix)");
    cmd->add_option("--max-chars", args->numbers.max_chars, "cut each text to N characters (JSON default: whole)");
    cmd->add_option("--depth", args->numbers.depth, "ancestors at most (context 100, trace 1000)");
  }
  FilesArgs fa;
  CLI::App* files = nullptr;
  if (wanted({"files"})) {
    files = app.add_subcommand("files", "every tool call that touched a file, oldest first");
    files->add_option("path", fa.path, "absolute path, ./relative to the cwd, or a suffix such as src/main.rs")->required();
    files->add_flag("--no-commands", fa.no_commands, "only file arguments and patch headers, not shell commands naming it");
    add_filters(files, fa.common.filters, fa.common);
  }

  FailuresArgs fl;
  CLI::App* failures = nullptr;
  if (wanted({"failures"})) {
    failures = app.add_subcommand("failures", "failed tool calls, newest first, with the 3 messages after each");
    failures->add_option("--max-chars", fl.max_chars, "cut error and message texts to N characters (default 500)");
    add_filters(failures, fl.common.filters, fl.common);
  }
  OrientArgs orient;
  if (wanted({"subagents", "workflows", "workflow", "overview"})) add_orient_commands(app, orient);
  StatsArgs st;
  CLI::App* stats = nullptr;
  if (wanted({"stats"})) {
    stats = app.add_subcommand(
        "stats", "aggregates: tokens (--by day), tools (--by tool), files, models, daily; days are local unless --utc");
    stats->add_option("kind", st.kind, "tokens|tools|files|models|daily")
        ->required()
        ->check(CLI::IsMember({"tokens", "tools", "files", "models", "daily"}));
    stats->add_option("--by", st.by, "tokens: day|session|project|model|agent; tools: tool|session|project|day|agent");
    stats->add_flag("--utc", st.utc, "days in UTC instead of local time (TZ)");
    add_stats_filters(stats, st.search.filters, st.search);
  }

  MemoryArgs mem;
  if (wanted({"memory"})) add_memory_commands(app, mem);  // memory remember|forget|restore|list|show|export|import
  ArchiveArgs archive;
  if (wanted({"prune", "export", "import"})) add_archive_commands(app, archive);

  bool mcp_allow_writes = false;
  CLI::App* mcp = nullptr;
  if (wanted({"mcp"})) {
    mcp = app.add_subcommand("mcp", "Model Context Protocol server on stdio, for agents (README: Use from an agent)");
    mcp->add_flag("--allow-writes", mcp_allow_writes, "offer memory_remember and memory_forget");
  }

  ServeArgs serve_args;
  CLI::App* serve = wanted({"serve"}) ? add_serve_command(app, serve_args) : nullptr;  // execs osearch-serve

  restore_verbatim_values(app);  // after the last option: every value reaches the engine byte for byte

  Context ctx;
  bool have_ctx = false;
  auto err_ctx = [&]() { return have_ctx ? ctx : error_context(g.format); };
  try {
    // keyword's words may be `-term` (NOT): they start after the command.
    std::vector<std::string> args =
        named == "keyword" && keyword != nullptr
            ? protect_arguments(argc, argv, command.at + 1, option_names(*keyword))
            : protect_arguments(argc, argv);
    app.parse(args);
    ctx = resolve_context(g);
    have_ctx = true;
    g_error_context = &ctx;
    set_damage_reporter(report_lmdb_damage);
    install_index_fault_guard(fault_error_line(ctx));
    if (given(index)) return cmd_index(ctx, index_args);
    if (given(status)) return cmd_status(ctx);
    if (given(check)) return cmd_check(ctx);
    if (given(keyword)) return cmd_keyword(ctx, kw);
    if (given(content)) return cmd_content(ctx, ct);
    if (given(list)) return cmd_list(ctx, ls);
    if (given(thread)) return cmd_thread(ctx, th);
    if (given(context)) return cmd_context(ctx, cx);
    if (given(trace)) return cmd_trace(ctx, tr);
    if (given(files)) return cmd_files(ctx, fa);
    if (given(failures)) return cmd_failures(ctx, fl);
    if (auto code = run_orient_command(ctx, orient)) return *code;
    if (given(stats)) return cmd_stats(ctx, st);
    if (auto code = run_memory_command(ctx, mem)) return *code;
    if (auto code = run_archive_command(ctx, archive)) return *code;
    if (given(mcp)) return mcp::run_mcp_server(ctx, mcp_allow_writes);
    if (given(serve)) return cmd_serve_exec(argc, argv);
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
    // Parsing stopped early: --format may not have been read yet, so take it from argv.
    Context c = error_context(format_in_argv(argc, argv));
    report_error(&c, "usage", unmark_message(e.what()));
    return 2;
  } catch (const BadInput& e) {
    Context c = err_ctx();
    report_error(&c, e.kind, e.what());
    return 2;
  } catch (const IndexError& e) {  // no-space, read-only
    Context c = err_ctx();
    report_error(&c, e.kind(), e.what());
    return 1;
  } catch (const StoreMissing& e) {
    Context c = err_ctx();
    report_error(&c, "no-index", e.what());
    return 1;
  } catch (const IndexDamaged& e) {
    Context c = err_ctx();
    report_error(&c, "index-damaged", e.what());
    return 1;
  } catch (const LmdbError& e) {
    // LMDB noticing damage mid-query (a bad page found by a cursor) is damage too.
    Context c = err_ctx();
    if (lmdb_damage_code(e.code))
      report_error(&c, "index-damaged", IndexDamaged("records", e.what()).what());
    else
      report_error(&c, "error", e.what());
    return 1;
  } catch (const std::exception& e) {
    Context c = err_ctx();
    report_error(&c, "error", e.what());
    return 1;
  } catch (const Xapian::DatabaseCorruptError& e) {  // met mid-query
    Context c = err_ctx();
    report_error(&c, "index-damaged", IndexDamaged("xapian", e.get_description()).what());
    return 1;
  } catch (const Xapian::Error& e) {  // not a std::exception
    Context c = err_ctx();
    report_error(&c, "index", e.get_description());
    return 1;
  }
  return 2;
}
