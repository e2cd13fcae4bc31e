// `prune`, `export --sessions`, `import`: options, run, print.
#include "cli/cmd_archive.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "cli/json_writer.h"
#include "cli/printers.h"
#include "cli/terminal_text.h"
#include "engine/query/archive_ops.h"
#include "ingest/timeutil.h"

namespace osearch {
namespace {

void add_selection(CLI::App* cmd, FilterArgs& f) {
  cmd->add_option("--project", f.project, "case-insensitive substring of the project slug or path");
  cmd->add_option("--agent", f.agent, "claude|omp|pi|codex");
  cmd->add_option("--session", f.session, "session id or prefix (repeatable)");
  cmd->add_option("--since", f.since, "sessions whose last message is at or after T");
  cmd->add_option("--until", f.until, "sessions whose last message is before T (older than a date)");
  cmd->add_option("--cwd", f.cwd, "working directory prefix");
}

SessionSelection selection_of(const FilterArgs& typed) { return {parse_filters(typed, current_time_ms(), 20)}; }

void write_sessions(JsonWriter& w, const std::vector<ArchivedSessionInfo>& sessions) {
  w.key("sessions");
  w.begin_array();
  for (const auto& s : sessions) {
    w.begin_object();
    w.key("id"); w.value(s.id);
    w.key("agent"); w.value(s.agent);
    w.key("project"); w.value(s.project);
    w.key("message_count"); w.value(s.messages);
    w.key("started_at"); time_or_null(w, s.started_at);
    w.key("ended_at"); time_or_null(w, s.ended_at);
    w.end_object();
  }
  w.end_array();
}

void print_text_sessions(const std::vector<ArchivedSessionInfo>& sessions) {
  for (const auto& s : sessions)
    std::printf("  %s  %s  %s  %llu messages  %s\n", terminal_safe(s.id, LineBreaks::Visible).c_str(),
                terminal_safe(s.agent, LineBreaks::Visible).c_str(), terminal_safe(s.project, LineBreaks::Visible).c_str(),
                static_cast<unsigned long long>(s.messages), s.ended_at > 0 ? format_iso8601_ms(s.ended_at).c_str() : "-");
}

int print_prune(const Context& ctx, const PruneResult& r) {
  if (ctx.format == Format::Text) {
    std::printf("%s %zu archived session%s\n", r.dry_run ? "would prune" : "pruned", r.sessions.size(),
                r.sessions.size() == 1 ? "" : "s");
    print_text_sessions(r.sessions);
    return 0;
  }
  JsonWriter w;
  w.begin_object();
  w.key("action"); w.value("prune");
  w.key("dry_run"); w.value(r.dry_run);
  w.key("pruned"); w.value(static_cast<uint64_t>(r.dry_run ? 0 : r.sessions.size()));
  if (r.dry_run) {
    w.key("would_prune"); w.value(static_cast<uint64_t>(r.sessions.size()));
  }
  write_sessions(w, r.sessions);
  w.end_object();
  std::printf("%s\n", w.str().c_str());
  return 0;
}

int run_export_cmd(const Context& ctx, const ArchiveArgs& a) {
  if (!a.sessions) throw UsageError("usage", "export needs --sessions (memories are exported by `memory export`)");
  ExportOptions o;
  o.all = a.all;
  o.selection = selection_of(a.filters);
  std::ofstream file;
  std::ostream* out = &std::cout;
  if (!a.output.empty() && a.output != "-") {
    file.open(a.output, std::ios::binary | std::ios::trunc);
    if (!file) throw UsageError("usage", "cannot write " + a.output);
    out = &file;
  }
  ExportResult r = run_export(ctx.index_dir, o, [&](std::string_view line) {
    out->write(line.data(), static_cast<std::streamsize>(line.size()));
    out->put('\n');
  });
  out->flush();
  if (!*out) throw std::runtime_error("writing the export failed");
  // The lines are the output; what was exported is said on stderr (or, with -o, on stdout).
  JsonWriter w;
  w.begin_object();
  w.key("action"); w.value("export");
  w.key("exported"); w.value(static_cast<uint64_t>(r.sessions.size()));
  w.key("unreadable"); w.value(r.unreadable);
  if (out == &file) write_sessions(w, r.sessions);
  w.end_object();
  if (out == &file)
    std::printf("%s\n", w.str().c_str());
  else if (!ctx.quiet)
    std::fprintf(stderr, "osearch: exported %zu session%s\n", r.sessions.size(), r.sessions.size() == 1 ? "" : "s");
  if (r.unreadable)
    std::fprintf(stderr, "osearch: %llu session%s could not be read back whole and were not exported\n",
                 static_cast<unsigned long long>(r.unreadable), r.unreadable == 1 ? "" : "s");
  return 0;
}

int run_import_cmd(const Context& ctx, const ArchiveArgs& a) {
  ImportOptions o;
  o.refresh = !ctx.no_refresh;
  std::ifstream file;
  std::istream* in = &std::cin;
  if (a.file != "-") {
    file.open(a.file, std::ios::binary);
    if (!file) throw UsageError("usage", "cannot read " + a.file);
    in = &file;
  }
  ImportResult r = run_import(ctx.index_dir, ctx.roots, *in, o);
  if (ctx.verbose || r.rejected)
    for (const auto& p : r.problems) std::fprintf(stderr, "osearch: %s\n", terminal_safe(p, LineBreaks::Visible).c_str());
  if (ctx.format == Format::Text) {
    std::printf("imported %llu session%s; %llu already here, %llu live here (kept), %llu rejected\n",
                static_cast<unsigned long long>(r.imported), r.imported == 1 ? "" : "s",
                static_cast<unsigned long long>(r.already_present), static_cast<unsigned long long>(r.skipped_live),
                static_cast<unsigned long long>(r.rejected));
    print_text_sessions(r.sessions);
    return 0;
  }
  JsonWriter w;
  w.begin_object();
  w.key("action"); w.value("import");
  w.key("imported"); w.value(r.imported);
  w.key("already_present"); w.value(r.already_present);
  w.key("skipped_live"); w.value(r.skipped_live);
  w.key("rejected"); w.value(r.rejected);
  w.key("problems");
  w.begin_array();
  for (const auto& p : r.problems) w.value(p);
  w.end_array();
  write_sessions(w, r.sessions);
  w.end_object();
  std::printf("%s\n", w.str().c_str());
  return 0;
}

}  // namespace

void add_archive_commands(CLI::App& app, ArchiveArgs& a) {
  a.prune = app.add_subcommand("prune", "drop archived sessions (none of their source files exists); never memories");
  a.prune->add_flag("--dry-run", a.dry_run, "list what would be dropped, change nothing");
  add_selection(a.prune, a.filters);
  a.exporter = app.add_subcommand("export", "sessions as JSONL (records and text), to move an archive");
  a.exporter->add_flag("--sessions", a.sessions, "export sessions (archived ones unless --all)");
  a.exporter->add_flag("--all", a.all, "every session, not only the archived ones");
  a.exporter->add_option("-o,--output", a.output, "write the lines to FILE (default stdout)");
  add_selection(a.exporter, a.filters);
  a.importer = app.add_subcommand("import", "load sessions exported by `export --sessions` as archived sessions");
  a.importer->add_option("file", a.file, "the JSONL file, or - for standard input")->required();
}

std::optional<int> run_archive_command(const Context& ctx, const ArchiveArgs& a) {
  if (a.prune && *a.prune) {
    PruneOptions o;
    o.dry_run = a.dry_run;
    o.refresh = !ctx.no_refresh;
    o.selection = selection_of(a.filters);
    return print_prune(ctx, run_prune(ctx.index_dir, ctx.roots, o));
  }
  if (a.exporter && *a.exporter) return run_export_cmd(ctx, a);
  if (a.importer && *a.importer) return run_import_cmd(ctx, a);
  return std::nullopt;
}

}  // namespace osearch
