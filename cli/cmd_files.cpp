// `files PATH` and `failures`: parse numbers, refresh, open, run the engine, print JSON/JSONL/text.
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdio>

#include "cli/commands.h"
#include "cli/printers.h"
#include "cli/terminal_text.h"
#include "cli/verbatim_args.h"
#include "engine/query/files.h"
#include "ingest/timeutil.h"

namespace osearch {
namespace {

Filters filters_of(const SearchArgs& a, size_t default_limit) {
  Filters f = parse_filters(a.filters, current_time_ms(), default_limit);
  if (!a.numbers.limit.empty()) f.limit = parse_count("--limit", a.numbers.limit, 1, 100000);
  if (!a.numbers.offset.empty()) f.offset = parse_count("--offset", a.numbers.offset, 0, 1000000000);
  return f;
}

std::string process_cwd() {
  char buf[PATH_MAX];
  return ::getcwd(buf, sizeof buf) ? std::string(buf) : std::string();
}

void write_session_fields(JsonWriter& w, const SessionRec& s) {
  w.key("session_id"); w.value(s.shown_id());
  w.key("agent"); w.value(s.agent);
  w.key("project"); w.value(s.project);
  w.key("title"); w.value(s.title());
  w.key("source_deleted"); w.value(s.source_deleted);
  w.key("resume_hint"); w.value(resume_hint(s));
}

void write_index(JsonWriter& w, const IndexCounts& c, uint64_t refreshed, bool stale, double took_ms) {
  w.key("took_ms"); w.value(took_ms);
  w.key("index");
  w.begin_object();
  w.key("sessions"); w.value(c.sessions);
  w.key("messages"); w.value(c.messages);
  w.key("refreshed_files"); w.value(refreshed);
  w.key("stale"); w.value(stale);
  w.end_object();
}

void write_touch(JsonWriter& w, const FileTouch& t) {
  w.begin_object();
  w.key("tool"); w.value(t.call.name);
  w.key("tool_use_id"); w.value(t.call.id);
  w.key("time"); time_or_null(w, t.call.timestamp_ms);
  w.key("message_uuid"); w.value(t.message_uuid);
  w.key("file_path"); w.value(t.file_path);
  w.key("match"); w.value(t.how);
  // Leaves of input_json longer than 256 bytes end in "…[truncated]" (the full text is searchable).
  w.key("input_json"); w.value(t.call.input_json);
  w.key("failed");
  if (t.has_result) w.value(t.failed); else w.null();
  write_session_fields(w, t.session);
  w.end_object();
}

void write_files_envelope(JsonWriter& w, const FilesResult& r) {
  w.key("action"); w.value("files");
  w.key("query"); w.value(r.path);
  w.key("resolved"); w.value(r.resolved);
  w.key("match"); w.value(r.match);
  w.key("total"); w.value(r.total);
  w.key("returned"); w.value(static_cast<uint64_t>(r.hits.size()));
  w.key("truncated"); w.value(r.truncated);
  write_index(w, r.counts, r.refreshed_files, r.stale, r.took_ms);
}

void write_shown(JsonWriter& w, const ShownMessage& m) {
  w.begin_object();
  w.key("message_uuid"); w.value(m.rec.uuid);
  w.key("time"); time_or_null(w, m.rec.timestamp_ms);
  w.key("role"); w.value(role_name(m.rec.role));
  w.key("content_type"); w.value(content_type_name(m.rec.content_type));
  w.key("agent_id"); w.value(m.rec.agent_id);
  w.key("text"); w.value(m.text);
  w.key("text_truncated"); w.value(m.text_truncated);
  w.end_object();
}

void write_failure(JsonWriter& w, const Failure& f) {
  w.begin_object();
  w.key("tool");
  if (f.call) w.value(f.call->name); else w.null();
  w.key("tool_use_id"); w.value(f.result.tool_use_id);
  w.key("time"); time_or_null(w, f.result_message.rec.timestamp_ms);
  w.key("message_uuid"); w.value(f.result_message.rec.uuid);
  w.key("agent_id"); w.value(f.result_message.rec.agent_id);
  w.key("input_json");
  if (f.call) w.value(f.call->input_json); else w.null();
  w.key("file_path"); w.value(f.call && !f.call->file_path.empty() ? f.call->file_path : f.result.file_path);
  w.key("error"); w.value(f.result_message.text);
  w.key("error_truncated"); w.value(f.result_message.text_truncated);
  w.key("next");
  w.begin_array();
  for (const auto& m : f.next) write_shown(w, m);
  w.end_array();
  write_session_fields(w, f.session);
  w.end_object();
}

void write_failures_envelope(JsonWriter& w, const FailuresResult& r) {
  w.key("action"); w.value("failures");
  w.key("total"); w.value(r.total);
  w.key("returned"); w.value(static_cast<uint64_t>(r.hits.size()));
  write_index(w, r.counts, r.refreshed_files, r.stale, r.took_ms);
}

template <typename Result, typename Item, typename Envelope>
void print_structured(const Context& ctx, const Result& r, Item&& item, Envelope&& envelope) {
  print_listing(ctx, "results", r.hits, [&](JsonWriter& w) { envelope(w, r); }, item);
}

std::string one_line(std::string_view s, size_t max_chars) {
  bool cut = false;
  std::string t = cut_chars(s, max_chars, cut);
  for (char& c : t)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return terminal_safe(t) + (cut ? "…" : "");
}

void print_files_text(const FilesResult& r, bool color) {
  const char* dim = color ? "\033[2m" : "";
  const char* bold = color ? "\033[1m" : "";
  const char* reset = color ? "\033[0m" : "";
  for (const auto& t : r.hits) {
    const char* state = !t.has_result ? "" : t.failed ? " · FAILED" : "";
    std::printf("%s%s%s %s · %s%s\n", bold, terminal_safe(t.call.name).c_str(), reset,
                format_iso8601_ms(t.call.timestamp_ms).c_str(),
                t.file_path.empty() ? "command" : terminal_safe(t.file_path).c_str(), state);
    std::printf("  %s\n", one_line(t.call.input_json, 300).c_str());
    std::printf("  %s%s · %s%s\n", dim, terminal_safe(t.session.title()).c_str(),
                terminal_safe(resume_hint(t.session), LineBreaks::Visible).c_str(), reset);
  }
  std::printf("%s%llu of %llu tool calls touching %s (%s)%s · %.1f ms%s\n", dim, (unsigned long long)r.hits.size(),
              (unsigned long long)r.total, terminal_safe(r.resolved).c_str(), r.match.c_str(),
              r.truncated ? " · truncated" : "", r.took_ms, reset);
}

void print_failures_text(const FailuresResult& r, bool color) {
  const char* dim = color ? "\033[2m" : "";
  const char* bold = color ? "\033[1m" : "";
  const char* reset = color ? "\033[0m" : "";
  for (const auto& f : r.hits) {
    std::printf("%s%s%s %s · %s\n", bold, f.call ? terminal_safe(f.call->name).c_str() : "(unknown tool)", reset,
                format_iso8601_ms(f.result_message.rec.timestamp_ms).c_str(), terminal_safe(f.session.title()).c_str());
    if (f.call) std::printf("  %s\n", one_line(f.call->input_json, 200).c_str());
    std::printf("  error: %s\n", one_line(f.result_message.text, 300).c_str());
    for (const auto& m : f.next)
      std::printf("  %s> %s: %s%s\n", dim, role_name(m.rec.role), one_line(m.text, 200).c_str(), reset);
    std::printf("  %s%s%s\n\n", dim, terminal_safe(resume_hint(f.session), LineBreaks::Visible).c_str(), reset);
  }
  std::printf("%s%llu of %llu failed tool calls · %.1f ms%s\n", dim, (unsigned long long)r.hits.size(),
              (unsigned long long)r.total, r.took_ms, reset);
}

template <typename Run>
auto run_timed(const Context& ctx, Run&& run) {
  const auto t0 = std::chrono::steady_clock::now();
  QueryIndex index(ctx);
  auto r = index.run(run);
  r.counts = index.reader().counts();
  r.refreshed_files = index.refreshed_files;
  r.stale = index.stale;
  r.took_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace

int cmd_files(const Context& ctx, const FilesArgs& args) {
  const Filters f = filters_of(args.common, 200);  // bad input fails before any work
  FilesOptions o;
  o.path = args.path;
  o.cwd = process_cwd();
  o.commands = !args.no_commands;
  FilesResult r = run_timed(ctx, [&](IndexReader& reader) { return run_files(reader, f, o); });
  if (ctx.format == Format::Text) print_files_text(r, ctx.stdout_tty);
  else print_structured(ctx, r, write_touch, write_files_envelope);
  return 0;
}

int cmd_failures(const Context& ctx, const FailuresArgs& args) {
  const Filters f = filters_of(args.common, 50);
  FailuresOptions o;
  if (!args.max_chars.empty()) o.max_chars = parse_count("--max-chars", args.max_chars, 0, 10000000);
  FailuresResult r = run_timed(ctx, [&](IndexReader& reader) { return run_failures(reader, f, o); });
  if (ctx.format == Format::Text) print_failures_text(r, ctx.stdout_tty);
  else print_structured(ctx, r, write_failure, write_failures_envelope);
  return 0;
}

}  // namespace osearch
