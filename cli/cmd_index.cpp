// `osearch index` and `osearch status`.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>

#include "cli/commands.h"
#include "cli/json_writer.h"
#include "engine/reader.h"
#include "ingest/timeutil.h"

namespace osearch {
namespace {

uint64_t dir_size(const std::string& dir) {
  uint64_t total = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  }
  return total;
}

void print_progress(const IndexProgress& p) {
  int pct = p.bytes_total ? static_cast<int>(100.0 * static_cast<double>(p.bytes_done) / static_cast<double>(p.bytes_total)) : 100;
  std::fprintf(stderr, "\rindexing %3d%%  %zu/%zu files  %.1f MB", pct, p.files_done, p.files_total,
               static_cast<double>(p.bytes_done) / 1e6);
  std::fflush(stderr);
}

}  // namespace

int cmd_index(const Context& ctx, const IndexArgs& args) {
  IndexOptions opts;
  opts.full = args.full;
  opts.wait_for_lock = true;
  const bool show_progress = ctx.stderr_tty && !ctx.quiet;
  if (show_progress) opts.progress = print_progress;
  IndexSummary s = run_index(ctx.index_dir, ctx.roots, opts);
  if (show_progress) std::fprintf(stderr, "\r\033[K");
  if (args.watch) {
    // Polling keeps to stat calls on an unchanged corpus; Ctrl-C ends it.
    opts.full = false;
    opts.progress = nullptr;
    for (;;) {
      ::sleep(2);
      IndexSummary again = run_index(ctx.index_dir, ctx.roots, opts);
      if (again.files_changed && !ctx.quiet)
        std::fprintf(stderr, "osearch: +%llu messages from %llu files\n", (unsigned long long)again.new_messages,
                     (unsigned long long)again.files_changed);
    }
  }
  if (ctx.verbose)
    for (const auto& p : s.problems) std::fprintf(stderr, "osearch: %s\n", p.c_str());
  else if (!s.lost.empty())  // data loss is said even without --verbose
    std::fprintf(stderr, "osearch: not carried over from the old index: %s\n", s.lost.c_str());
  if (ctx.format == Format::Text) {
    if (!ctx.quiet)
      std::printf(
          "indexed %llu changed of %llu files (%llu unchanged, %llu unreadable, %llu deleted), %.1f MB read, "
          "%llu bad lines, +%llu messages in %.2fs\n"
          "index: %llu sessions, %llu messages, %llu tool calls\n",
          (unsigned long long)s.files_changed, (unsigned long long)s.files_seen, (unsigned long long)s.files_skipped,
          (unsigned long long)s.files_unreadable, (unsigned long long)s.files_deleted,
          static_cast<double>(s.bytes_read) / 1e6, (unsigned long long)s.bad_lines,
          (unsigned long long)s.new_messages, s.seconds, (unsigned long long)s.sessions,
          (unsigned long long)s.messages, (unsigned long long)s.tool_calls);
    return 0;
  }
  JsonWriter w;
  w.begin_object();
  w.key("action"); w.value("index");
  w.key("full"); w.value(args.full);
  w.key("files_seen"); w.value(s.files_seen);
  w.key("files_changed"); w.value(s.files_changed);
  w.key("files_skipped"); w.value(s.files_skipped);
  w.key("files_unreadable"); w.value(s.files_unreadable);
  w.key("files_deleted"); w.value(s.files_deleted);
  w.key("bad_lines"); w.value(s.bad_lines);
  w.key("new_messages"); w.value(s.new_messages);
  w.key("sessions"); w.value(s.sessions);
  w.key("messages"); w.value(s.messages);
  w.key("tool_calls"); w.value(s.tool_calls);
  w.key("bytes_read"); w.value(s.bytes_read);
  w.key("seconds"); w.value(s.seconds);
  if (s.rebuilt) {
    w.key("salvaged");
    w.begin_object();
    w.key("memories"); w.value(s.salvaged_memories);
    w.key("sessions"); w.value(s.salvaged_sessions);
    w.end_object();
  }
  if (!s.lost.empty()) {
    w.key("lost"); w.value(s.lost);
  }
  if (ctx.verbose) {
    w.key("problems");
    w.begin_array();
    for (const auto& p : s.problems) w.value(p);
    w.end_array();
  }
  w.end_object();
  std::printf("%s\n", w.str().c_str());
  return 0;
}

uint64_t refresh_before_query(const Context& ctx, bool& stale) {
  stale = false;
  if (ctx.no_refresh) return 0;
  IndexOptions opts;
  opts.wait_for_lock = false;  // a running indexer keeps going; we answer from the committed state
  IndexSummary s = run_index(ctx.index_dir, ctx.roots, opts);
  stale = s.busy;
  return s.files_changed + s.files_deleted;
}

int cmd_status(const Context& ctx) {
  IndexReader reader(ctx.index_dir);
  IndexCounts c = reader.counts();
  std::map<std::string, uint64_t> per_agent;
  {
    LmdbCursor cur(reader.txn(), reader.db().sessions);
    for (bool ok = cur.first(); ok; ok = cur.next())
      if (auto s = SessionRec::decode(cur.value())) ++per_agent[s->agent];
  }
  uint64_t size = dir_size(ctx.index_dir);
  std::string last = c.last_indexed_at ? format_iso8601_ms(c.last_indexed_at) : "";
  if (ctx.format == Format::Text) {
    std::printf("index:        %s (%.1f MB)\n", ctx.index_dir.c_str(), static_cast<double>(size) / 1e6);
    std::printf("sessions:     %llu\nmessages:     %llu\ntool calls:   %llu\nmemories:     %llu\n",
                (unsigned long long)c.sessions, (unsigned long long)c.messages, (unsigned long long)c.tool_calls,
                (unsigned long long)c.memories);
    for (const auto& [agent, n] : per_agent) std::printf("  %-10s  %llu sessions\n", agent.c_str(), (unsigned long long)n);
    std::printf("last indexed: %s\n", last.empty() ? "never" : last.c_str());
    for (const auto& r : ctx.roots)
      std::printf("source:       %s=%s%s\n", r.agent.c_str(), r.dir.c_str(),
                  std::filesystem::exists(r.dir) ? "" : " (missing)");
    return 0;
  }
  JsonWriter w;
  w.begin_object();
  w.key("action"); w.value("status");
  w.key("index_dir"); w.value(ctx.index_dir);
  w.key("sessions"); w.value(c.sessions);
  w.key("messages"); w.value(c.messages);
  w.key("tool_calls"); w.value(c.tool_calls);
  w.key("memories"); w.value(c.memories);
  w.key("agents");
  w.begin_object();
  for (const char* a : {"claude", "omp", "pi", "codex"}) {
    w.key(a);
    w.value(per_agent.count(a) ? per_agent[a] : uint64_t{0});
  }
  w.end_object();
  w.key("size_bytes"); w.value(size);
  w.key("last_indexed_at");
  if (last.empty()) w.null(); else w.value(last);
  w.key("sources");
  w.begin_array();
  for (const auto& r : ctx.roots) {
    w.begin_object();
    w.key("kind"); w.value(r.agent);
    w.key("dir"); w.value(r.dir);
    w.key("exists"); w.value(std::filesystem::exists(r.dir));
    w.end_object();
  }
  w.end_array();
  w.end_object();
  std::printf("%s\n", w.str().c_str());
  return 0;
}

}  // namespace osearch
