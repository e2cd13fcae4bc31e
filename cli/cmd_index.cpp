// `osearch index` and `osearch status`.
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>

#include "cli/commands.h"
#include "cli/json_writer.h"
#include "cli/terminal_text.h"
#include "engine/index/garbage.h"
#include "engine/index/source_watcher.h"
#include "engine/index/watch_beat.h"
#include "engine/query/check.h"
#include "engine/query/memories.h"
#include "engine/store/errors.h"
#include "engine/store/index_damage.h"
#include "engine/query/reader.h"
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

void value_or_null(JsonWriter& w, const std::optional<uint64_t>& v) {
  if (v) w.value(*v);
  else w.null();
}

// "812 bytes", "23.8 KB", "4.6 MB", "1.2 GB".
std::string human_bytes(uint64_t bytes) {
  char buf[32];
  const double b = static_cast<double>(bytes);
  if (bytes < 1000) std::snprintf(buf, sizeof buf, "%llu bytes", (unsigned long long)bytes);
  else if (b < 1e6) std::snprintf(buf, sizeof buf, "%.1f KB", b / 1e3);
  else if (b < 1e9) std::snprintf(buf, sizeof buf, "%.1f MB", b / 1e6);
  else std::snprintf(buf, sizeof buf, "%.1f GB", b / 1e9);
  return buf;
}

void print_progress(const IndexProgress& p) {
  int pct = p.bytes_total ? static_cast<int>(100.0 * static_cast<double>(p.bytes_done) / static_cast<double>(p.bytes_total)) : 100;
  std::fprintf(stderr, "\rindexing %3d%%  %zu/%zu files  %.1f MB", pct, p.files_done, p.files_total,
               static_cast<double>(p.bytes_done) / 1e6);
  std::fflush(stderr);
}

// The one piece of global state a signal handler requires: the stop signal that arrived (0: none).
std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "written by a signal handler");

extern "C" void on_stop_signal(int sig) {
  // A second SIGINT or SIGTERM kills at once; the index recovers from that as from kill -9.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  int none = 0;
  if (!g_stop_signal.compare_exchange_strong(none, sig)) {
    // Workers block these signals (ingest/worker_thread.h), but a thread we did not start could
    // still run this beside the first call: die by this signal once the handler returns.
    ::sigaction(sig, &dfl, nullptr);
    ::raise(sig);
    return;
  }
  ::sigaction(SIGINT, &dfl, nullptr);
  ::sigaction(SIGTERM, &dfl, nullptr);
}

// While alive, the first SIGINT or SIGTERM asks `osearch index` to stop at the next file boundary
// (run_index polls requested() through IndexOptions::should_stop).
class StopSignals {
 public:
  StopSignals() {
    g_stop_signal.store(0);
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    // Both blocked while it runs: a second signal finds the default action restored and kills.
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sa.sa_flags = SA_RESTART;  // reads and writes resume after the handler; sleep() returns early
    ::sigaction(SIGINT, &sa, &old_int_);
    ::sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  int signal() const { return g_stop_signal.load(std::memory_order_relaxed); }
  bool requested() const { return signal() != 0; }

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

// `--watch` reports the work of all its runs, and the state after the last one.
void add_run(IndexSummary& total, const IndexSummary& run) {
  total.files_changed += run.files_changed;
  total.files_deleted += run.files_deleted;
  total.bad_lines += run.bad_lines;
  total.repaired_lines += run.repaired_lines;
  total.oversized_lines += run.oversized_lines;
  total.bytes_read += run.bytes_read;
  total.new_messages += run.new_messages;
  total.new_tool_calls += run.new_tool_calls;
  total.emptied_roots.insert(total.emptied_roots.end(), run.emptied_roots.begin(), run.emptied_roots.end());
  total.root_hints.insert(total.root_hints.end(), run.root_hints.begin(), run.root_hints.end());
  // Another indexer ran (this run saw nothing), or a stop cut the run short (it saw part of the
  // corpus): the state stays the last whole run's.
  // The quick check's "unchanged" (a watcher's run on an idle corpus) counts nothing either.
  if (run.busy || run.interrupted || run.plan == "unchanged") return;
  total.files_seen = run.files_seen;
  total.files_skipped = run.files_skipped;
  total.files_unreadable = run.files_unreadable;
  total.dirs_unreadable = run.dirs_unreadable;
  total.problems = run.problems;
  total.sessions = run.sessions;
  total.messages = run.messages;
  total.tool_calls = run.tool_calls;
}

void print_summary(const Context& ctx, const IndexArgs& args, const IndexSummary& s, int stop_signal) {
  const char* signal_name = stop_signal == SIGINT ? "SIGINT" : "SIGTERM";
  // A root that listed nothing over indexed transcripts is said without --verbose (--verbose names it
  // among the problems).
  if (!ctx.verbose && !ctx.quiet) {
    for (const auto& p : s.emptied_roots) print_warning(p);
    for (const auto& p : s.root_hints) print_warning(p);
  }
  if (ctx.verbose)
    for (const auto& p : s.problems) std::fprintf(stderr, "osearch: %s\n", terminal_safe(p, LineBreaks::Visible).c_str());
  else if (!s.lost.empty())  // data loss is said even without --verbose
    std::fprintf(stderr, "osearch: not carried over from the old index: %s\n",
                 terminal_safe(s.lost, LineBreaks::Visible).c_str());
  else if (!s.problems.empty() && !ctx.quiet && ctx.format == Format::Text)
    std::fprintf(stderr, "osearch: %zu problem%s (unreadable files or dirs, bad lines); --verbose names them\n",
                 s.problems.size(), s.problems.size() == 1 ? "" : "s");
  if (ctx.format == Format::Text) {
    if (ctx.quiet) return;
    std::printf(
        "indexed %llu changed of %llu files (%llu unchanged, %llu unreadable, %llu deleted), %llu unreadable dirs, "
        "%.1f MB read, %llu bad lines, %llu repaired lines, %llu oversized lines, +%llu messages in %.2fs\n"
        "index: %llu sessions, %llu messages, %llu tool calls\n",
        (unsigned long long)s.files_changed, (unsigned long long)s.files_seen, (unsigned long long)s.files_skipped,
        (unsigned long long)s.files_unreadable, (unsigned long long)s.files_deleted,
        (unsigned long long)s.dirs_unreadable, static_cast<double>(s.bytes_read) / 1e6,
        (unsigned long long)s.bad_lines, (unsigned long long)s.repaired_lines, (unsigned long long)s.oversized_lines,
        (unsigned long long)s.new_messages, s.seconds, (unsigned long long)s.sessions,
        (unsigned long long)s.messages, (unsigned long long)s.tool_calls);
    if (s.compacted)
      std::printf("compacted: %s -> %s (%s reclaimed: %s of dead text, %s hidden documents) in %.2fs\n",
                  human_bytes(s.compact_bytes_before).c_str(), human_bytes(s.compact_bytes_after).c_str(),
                  human_bytes(s.compact_bytes_before - std::min(s.compact_bytes_before, s.compact_bytes_after)).c_str(),
                  s.compact_text_bytes ? human_bytes(*s.compact_text_bytes).c_str() : "unknown",
                  s.compact_hidden_documents ? std::to_string(*s.compact_hidden_documents).c_str() : "unknown",
                  s.compact_seconds);
    if (s.interrupted)
      std::printf("stopped by %s: what was read is committed; `osearch index` goes on from there\n", signal_name);
    return;
  }
  JsonWriter w;
  w.begin_object();
  w.key("action"); w.value("index");
  w.key("full"); w.value(args.full);
  w.key("compact"); w.value(args.compact);
  w.key("files_seen"); w.value(s.files_seen);
  w.key("files_changed"); w.value(s.files_changed);
  w.key("files_skipped"); w.value(s.files_skipped);
  w.key("files_unreadable"); w.value(s.files_unreadable);
  w.key("files_deleted"); w.value(s.files_deleted);
  w.key("dirs_unreadable"); w.value(s.dirs_unreadable);
  w.key("bad_lines"); w.value(s.bad_lines);
  w.key("repaired_lines"); w.value(s.repaired_lines);
  w.key("oversized_lines"); w.value(s.oversized_lines);
  w.key("new_messages"); w.value(s.new_messages);
  w.key("sessions"); w.value(s.sessions);
  w.key("messages"); w.value(s.messages);
  w.key("tool_calls"); w.value(s.tool_calls);
  w.key("bytes_read"); w.value(s.bytes_read);
  w.key("seconds"); w.value(s.seconds);
  w.key("interrupted"); w.value(s.interrupted);
  if (s.interrupted) {
    w.key("signal");
    w.value(signal_name);
  }
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
  if (!s.emptied_roots.empty() || !s.root_hints.empty()) {  // like "lost": without --verbose
    w.key("warnings");
    w.begin_array();
    for (const auto& p : s.emptied_roots) w.value(p);
    for (const auto& p : s.root_hints) w.value(p);
    w.end_array();
  }
  if (s.compacted) {  // --compact, or garbage past the rule (engine/index/garbage.h)
    w.key("compacted");
    w.begin_object();
    w.key("bytes_before"); w.value(s.compact_bytes_before);
    w.key("bytes_after"); w.value(s.compact_bytes_after);
    w.key("text_bytes"); value_or_null(w, s.compact_text_bytes);
    w.key("hidden_documents"); value_or_null(w, s.compact_hidden_documents);
    w.key("seconds"); w.value(s.compact_seconds);
    w.end_object();
  }
  if (ctx.verbose) {
    w.key("problems");
    w.begin_array();
    for (const auto& p : s.problems) w.value(p);
    w.end_array();
  }
  w.end_object();
  std::printf("%s\n", w.str().c_str());
}

}  // namespace

// SIGTERM (a service manager, `timeout`, kill) is a request to stop: exit 0 once the summary is
// printed. SIGINT (Ctrl-C) exits 130, as shells and tools like git and rg do, so a script running
// `osearch index` in a loop sees it was interrupted.
int cmd_index(const Context& ctx, const IndexArgs& args) {
  const auto t0 = std::chrono::steady_clock::now();
  // No transparent huge pages for a build's large, sparse heap, even where the kernel hands them out
  // unasked: they cost 30 % of peak RSS for 5 % of speed. Best effort: an old kernel just says no.
  ::prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
  StopSignals stop;
  IndexOptions opts;
  opts.full = args.full;
  // `osearch index` compacts when garbage passes the rule (engine/index/garbage.h); --compact always.
  opts.compact = args.compact ? Compact::Always : Compact::Auto;
  // An unchanged corpus costs the stat calls of the quick check, as for a query (source_watch.h); a
  // change the check cannot place takes the full plan. Not with --compact: it has work to do anyway.
  opts.quick_check = !args.full && !args.compact;
  opts.wait_for_lock = true;
  opts.should_stop = [&stop] { return stop.requested(); };
  const bool show_progress = ctx.stderr_tty && !ctx.quiet && !ctx.verbose;
  if (show_progress) opts.progress = print_progress;
  if (ctx.verbose)  // names each file as it is done
    opts.progress = [](const IndexProgress& p) {
      std::fprintf(stderr, "osearch: read %s\n", terminal_safe(p.file, LineBreaks::Visible).c_str());
    };
  // One watcher per index: a second one is refused before it does any work.
  std::optional<WatchBeat> beat;
  if (args.watch) beat.emplace(ctx.index_dir, ctx.roots);
  IndexSummary s = run_index(ctx.index_dir, ctx.roots, opts);
  refresh_memories(ctx.index_dir, true);  // memory files edited since they were read
  if (show_progress) std::fprintf(stderr, "\r\033[K");
  if (args.watch && !stop.requested()) {
    // inotify wakes the runs; its heartbeat lets queries skip their stat walk (engine/index/source_watcher.h).
    WatchOptions w;
    w.index = opts;
    w.index.full = false;
    w.index.compact = Compact::Auto;  // never by request again, but by the rule after big re-reads
    if (!ctx.verbose) w.index.progress = nullptr;
    w.should_stop = [&stop] { return stop.requested(); };
    w.on_run = [&](const IndexSummary& again) {
      refresh_memories(ctx.index_dir, true);
      add_run(s, again);
      if (again.files_changed && !ctx.quiet)
        std::fprintf(stderr, "osearch: +%llu messages from %llu files\n", (unsigned long long)again.new_messages,
                     (unsigned long long)again.files_changed);
    };
    w.on_note = [&](std::string_view note) {
      if (!ctx.quiet) std::fprintf(stderr, "osearch: %s\n", terminal_safe(note, LineBreaks::Visible).c_str());
    };
    if (!ctx.quiet) std::fprintf(stderr, "osearch: watching for changes (Ctrl-C or SIGTERM stops)\n");
    watch_sources(ctx.index_dir, ctx.roots, *beat, w);
    s.interrupted = true;
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  print_summary(ctx, args, s, stop.signal());
  return s.interrupted && stop.signal() == SIGINT ? 130 : 0;
}

namespace {
// `status` on a damaged index: what check finds (without its deep passes), and exit 1 with the
// error every command gives, instead of counts that describe part of the index.
int status_damaged(const Context& ctx, const IndexDamaged& first) {
  CheckReport r = check_index(ctx.index_dir, CheckOptions{.deep = false});
  std::vector<CheckPart> damaged;
  for (const auto* p : r.damaged()) damaged.push_back(*p);
  if (damaged.empty()) damaged.push_back({first.part(), false, first.problem(), ""});  // (a writer moved on meanwhile)
  if (ctx.format == Format::Text) {
    std::printf("index:        %s\n", ctx.index_dir.c_str());
    for (const auto& p : damaged) std::printf("DAMAGED:      %s: %s\n", p.part.c_str(), p.problem.c_str());
  } else {
    JsonWriter w;
    w.begin_object();
    w.key("action"); w.value("status");
    w.key("index_dir"); w.value(ctx.index_dir);
    w.key("damaged");
    print_check_parts(w, damaged);
    w.end_object();
    write_output(ctx, w.str());
  }
  report_error(&ctx, "index-damaged", IndexDamaged(damaged.front().part, damaged.front().problem).what());
  return 1;
}
}  // namespace

int cmd_status(const Context& ctx) {
  std::optional<IndexReader> opened;
  try {
    opened.emplace(ctx.index_dir);
  } catch (const IndexDamaged& e) {
    return status_damaged(ctx, e);
  }
  IndexReader& reader = *opened;
  IndexCounts c = reader.counts();
  std::map<std::string, uint64_t> per_agent;
  {
    // The agent viewed in each record (checked whole, as a decode would), nothing copied out.
    SessionFacets s;
    LmdbCursor cur(reader.txn(), reader.db().sessions);
    for (bool ok = cur.first(); ok; ok = cur.next())
      if (s.decode(cur.value())) ++per_agent[std::string(s.agent)];
  }
  uint64_t size = dir_size(ctx.index_dir);
  std::string last = c.last_indexed_at ? format_iso8601_ms(c.last_indexed_at) : "";
  const WatcherState watcher = watcher_state(ctx.index_dir, ctx.roots);
  // What drops left behind (engine/index/garbage.h). Unknown in an index written before the
  // counters until `osearch index` counts them, and when a compaction moved the index meanwhile.
  GarbageReport garbage;
  try {
    garbage = garbage_report(ctx.index_dir, reader.txn(), reader.db());
  } catch (const std::exception&) {
  } catch (const Xapian::Error&) {
  }
  if (ctx.format == Format::Text) {
    std::printf("index:        %s (%.1f MB)\n", terminal_safe(ctx.index_dir, LineBreaks::Visible).c_str(),
                static_cast<double>(size) / 1e6);
    std::printf("sessions:     %llu\nmessages:     %llu\ntool calls:   %llu\nmemories:     %llu\n",
                (unsigned long long)c.sessions, (unsigned long long)c.messages, (unsigned long long)c.tool_calls,
                (unsigned long long)c.memories);
    for (const auto& [agent, n] : per_agent)
      std::printf("  %-10s  %llu sessions\n", terminal_safe(agent).c_str(), (unsigned long long)n);
    std::printf("last indexed: %s\n", last.empty() ? "never" : last.c_str());
    if (watcher.pid)
      std::printf("watcher:      pid %ld%s\n", watcher.pid,
                  watcher.current ? ", keeping the index current (queries skip their stat walk)"
                                  : ", not vouching for these sources right now");
    if (auto bytes = garbage.bytes())
      std::printf("garbage:      %s (%s of dead text, %llu hidden documents)%s\n", human_bytes(*bytes).c_str(),
                  human_bytes(*garbage.counts.text_bytes).c_str(), (unsigned long long)*garbage.counts.hidden_documents,
                  *bytes ? "; `osearch index --compact` reclaims it" : "");
    else
      std::printf("garbage:      unknown until the next `osearch index`\n");
    for (const auto& r : ctx.roots)
      std::printf("source:       %s=%s%s\n", r.agent.c_str(), terminal_safe(r.dir, LineBreaks::Visible).c_str(),
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
  w.key("garbage");
  w.begin_object();
  w.key("bytes"); value_or_null(w, garbage.bytes());
  w.key("text_bytes"); value_or_null(w, garbage.counts.text_bytes);
  w.key("hidden_documents"); value_or_null(w, garbage.counts.hidden_documents);
  w.end_object();
  w.key("last_indexed_at");
  if (last.empty()) w.null(); else w.value(last);
  // A live `index --watch` (engine/index/watch_beat.h): null when none holds the index.
  w.key("watcher");
  if (!watcher.pid) {
    w.null();
  } else {
    w.begin_object();
    w.key("pid"); w.value(static_cast<int64_t>(watcher.pid));
    w.key("current"); w.value(watcher.current);
    w.end_object();
  }
  w.key("damaged");  // the checks every open makes found nothing; `osearch check` goes deeper
  w.begin_array();
  w.end_array();
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
  write_output(ctx, w.str());
  return 0;
}

}  // namespace osearch
