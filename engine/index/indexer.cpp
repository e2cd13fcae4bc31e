#include "engine/index/indexer.h"
#include "engine/index/parse_ahead.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <unordered_set>

#include "engine/store/codec.h"
#include "engine/store/errors.h"
#include "engine/store/index_damage.h"
#include "engine/index/compact.h"
#include "engine/index/discover_roots.h"
#include "engine/index/garbage.h"
#include "engine/index/index_parts.h"
#include "engine/index/rebuild.h"
#include "engine/index/run_plan.h"
#include "engine/index/session_runs.h"
#include "engine/index/shard_compaction.h"
#include "engine/index/stored_states.h"
#include "engine/index/drop_sessions.h"
#include "engine/index/emptied_roots.h"
#include "engine/index/salvage.h"
#include "engine/index/schema.h"
#include "engine/index/source_watch.h"
#include "engine/store/trace.h"
#include "engine/index/ingest_batch.h"
#include "engine/store/crc32c.h"
#include "engine/store/store.h"
#include "engine/index/text_index.h"
#include "engine/store/text_log.h"
#include "engine/store/usage_agg.h"
#include "ingest/claude.h"
#include "ingest/layout_util.h"
#include "ingest/jsonl_reader.h"

namespace osearch {
namespace {

// `st` after reading up to `r` (the counts and resume offset of the chunks so far).
void apply_read(FileState& st, const FileState& before, const JsonlReadResult& r, const FileCarry& carry) {
  st.offset = r.end_offset;
  if (!r.tail.empty()) {  // else nothing was consumed: the bytes before the offset are still those checked
    st.tail_len = r.tail.size();
    st.tail_crc = crc32c(r.tail);
  } else if (r.end_offset != before.offset) {
    st.tail_len = st.tail_crc = 0;  // moved without bytes to check (a workflow file): nothing to compare
  }
  st.carry = carry;
  st.lines = before.lines + r.lines;
  st.bad_lines = before.bad_lines + r.bad_lines;
  st.repaired_lines = before.repaired_lines + r.repaired_lines;
  st.oversized_lines = before.oversized_lines + r.oversized_lines;
}

std::string count_problem(const std::string& path, uint64_t n, const char* what) {
  return path + ": " + std::to_string(n) + " " + what + (n == 1 ? " line" : " lines");
}

JsonlReadResult read_workflow_file(const SourceFile& f, IngestBatch& batch) {
  JsonlReadResult res;
  res.end_offset = f.size;
  res.bytes_read = f.size;
  if (auto run = read_workflow_json(f.path))
    batch.add_workflow(f, *run);
  else
    ++res.bad_lines;
  return res;
}

bool stop_requested(const IndexOptions& options) { return options.should_stop && options.should_stop(); }

// Reads the planned files in order into `batch`, which commits whenever it is full (a big file in
// several batches, each resumable). Parsing runs ahead on its own thread; records are applied here,
// file by file. A stop asked for is taken between two files.
void read_work(std::vector<WorkItem>& work, IngestBatch& batch, const IndexOptions& options, IndexSummary& summary) {
  IndexProgress progress;
  progress.files_total = work.size();
  for (const auto& w : work) progress.bytes_total += w.file->size - std::min(w.file->size, w.offset());
  if (options.planned) options.planned(progress);

  // Parsing runs ahead on its own thread; records are applied here, file by file, in order.
  std::vector<ParseJob> jobs;
  jobs.reserve(work.size());
  for (auto& w : work) {
    ParseJob job;
    job.path = w.file->path;
    job.offset = w.offset();
    job.jsonl = w.file->kind != SourceKind::ClaudeWorkflowRun;
    job.format = format_of(w.file->kind);
    // (moved: the state's carry is set again from the parse when the file is read)
    if (w.state) job.carry = std::make_shared<const FileCarry>(std::move(w.state->carry));
    job.reread_head = head_rewritten_in_place(w.file->kind);
    jobs.push_back(std::move(job));
  }
  ParseAhead ahead(std::move(jobs), options.flush_bytes, options.max_line_bytes);
  ParsedChunk chunk;
  size_t started = SIZE_MAX;
  FileState before;  // the state the current file's read started from: chunk counts are added to it
  while (ahead.next(chunk)) {
    WorkItem& w = work[chunk.job];
    const SourceFile& f = *w.file;
    if (!w.state) w.state = std::make_unique<FileState>();
    FileState& st = *w.state;
    if (started != chunk.job) {
      // Between two files the batch holds whole files only: a clean place to stop.
      if (stop_requested(options)) {
        summary.interrupted = true;
        break;
      }
      started = chunk.job;
      st.path = f.path;
      st.kind = f.kind;
      st.agent = f.agent;
      st.project = f.project;
      st.agent_id = f.agent_id;
      // The stored key ("<id>@omp" for omp subagents), so a drop of the session finds this file.
      if (!session_from_lines(f.kind))
        st.session_id = session_key(f, f.session_id_full.empty() ? f.session_id : f.session_id_full);
      st.dev = f.dev;
      st.ino = f.ino;
      st.size = f.size;
      st.mtime_ns = f.mtime_ns;
      st.deleted = false;
      before = st;
    }
    for (auto& line : chunk.lines) batch.add(f, st, line.rec, line.offset);
    if (!chunk.last) {
      // A big file is committed in batches too: up to the chunk's last line, resumable from there.
      if (batch.full(options.flush_bytes)) {
        FileState partial = st;
        apply_read(partial, before, chunk.result, chunk.carry);
        partial.size = 0;  // never "unchanged" if the run stops here: the next one reads on
        batch.set_file_state(std::move(partial));
        batch.flush();
      }
      continue;
    }
    JsonlReadResult res = f.kind == SourceKind::ClaudeWorkflowRun
                              ? read_workflow_file(f, batch)  // one JSON document, re-read whole when it changes
                              : std::move(chunk.result);
    if (!res.ok) {
      ++summary.files_unreadable;
      summary.problems.push_back(res.error);
      continue;
    }
    apply_read(st, before, res, chunk.carry);
    summary.bad_lines += res.bad_lines;
    summary.repaired_lines += res.repaired_lines;
    summary.oversized_lines += res.oversized_lines;
    if (res.bad_lines) summary.problems.push_back(count_problem(f.path, res.bad_lines, "bad") + " skipped");
    if (res.repaired_lines) summary.problems.push_back(count_problem(f.path, res.repaired_lines, "repaired"));
    if (res.oversized_lines)
      summary.problems.push_back(count_problem(f.path, res.oversized_lines, "oversized") + " skipped (over " +
                                 std::to_string(options.max_line_bytes) + " bytes)");
    summary.bytes_read += res.bytes_read;
    ++summary.files_changed;
    batch.set_file_state(std::move(st));
    w.state.reset();  // (the batch has it now)
    if (batch.full(options.flush_bytes)) batch.flush();
    ++progress.files_done;
    progress.bytes_done += res.bytes_read;
    progress.file = f.path;
    if (options.progress) options.progress(progress);
  }
}

}  // namespace

void detail::read_totals(const LmdbTxn& txn, const Dbis& db, IndexSummary& summary) {
  summary.sessions = Store::entries(txn, db.sessions);
  summary.messages = Store::entries(txn, db.messages);
  summary.tool_calls = Store::entries(txn, db.tool_calls);
}

IndexSummary detail::index_under_lock(const std::string& index_dir, const std::vector<SourceRoot>& roots,
                              const IndexOptions& options, const WatchCheck* known) {
  const auto t0 = std::chrono::steady_clock::now();
  PhaseTimer timer("index");
  IndexSummary summary;
  // --full, and an index written by an incompatible version, are rebuilt from the sources beside
  // the live generation (engine/index/rebuild.h): memories and archived sessions are carried over, and
  // readers answer from the old generation until the switch. --full never opens the old env here:
  // a damaged one could crash this process (the salvage reads it in a child).
  std::unique_ptr<Store> opened;
  std::optional<Rebuild> rebuild;
  if (!options.full) {
    opened = std::make_unique<Store>(index_dir, Store::Mode::Write);
    LmdbTxn txn(opened->env(), false);
    if (!txn.get(opened->db().meta, meta_key::kSchema)) {
      Store::put_meta_u64(txn, opened->db(), meta_key::kSchema, kSchemaVersion);  // a new index
      put_garbage_counts(txn, opened->db(), 0, 0);
      txn.commit();
    } else if (Store::meta_u64(txn, opened->db(), meta_key::kSchema) != kSchemaVersion) {
      txn.abort();
      opened.reset();
    }
  }
  if (!opened) {
    rebuild = begin_rebuild(index_dir, roots, kSchemaVersion, summary, options.at_point);
    opened = std::make_unique<Store>(index_dir, rebuild->env_name);
    LmdbTxn txn(opened->env(), false);
    Store::put_meta_u64(txn, opened->db(), meta_key::kSchema, kSchemaVersion);
    write_part_names(txn, opened->db(), rebuild->parts);
    put_garbage_counts(txn, opened->db(), 0, 0);  // the salvage copied live entries only
    summary.rebuilt = true;
    summary.salvaged_memories = Store::entries(txn, opened->db().memories);
    summary.salvaged_sessions = Store::entries(txn, opened->db().sessions);
    txn.commit();
  }
  Store& store = *opened;
  const Dbis& db = store.db();
  // An index written before the garbage counters: `osearch index` counts them once (a walk over the
  // messages); a query's refresh leaves them unknown rather than pay for it.
  if (!rebuild && options.count_unknown_garbage) {
    LmdbTxn txn(store.env(), false);
    if (count_unknown_garbage(txn, db, index_dir)) txn.commit();
  }

  // The run's writers live in this scope: a compaction at its end (finish_run) builds a new
  // generation and removes the parts they had open. The shards' compaction outlives them.
  ShardCompaction shards;
  std::optional<std::string> watch_record;
  {
    IndexParts parts;
    std::optional<StoredStates> states;  // read in place until the plan is made
    SessionEpochs epochs;
    std::set<std::string> interrupted;
    bool targeted = false, relisted = false;
    {
      LmdbTxn r(store.env(), true);
      parts = read_parts(r, db);
      // Sessions of a batch that was committed (step A) but whose shards never were (step B): a crash.
      if (auto v = r.get(db.meta, meta_key::kInFlight)) {
        for (size_t pos = 0; pos < v->size();) {
          size_t nl = v->find('\n', pos);
          if (nl == std::string_view::npos) nl = v->size();
          if (nl > pos) interrupted.emplace(v->substr(pos, nl - pos));
          pos = nl + 1;
        }
      }
      LmdbCursor ep(r, db.epochs);
      for (bool ok = ep.first(); ok; ok = ep.next()) epochs.emplace(ep.key(), get_be32(ep.value()));
      // The quick check (engine/index/source_watch.h) named the changed files and nothing else moved:
      // only their states are needed. Or some directories' entries moved as well: discovery lists
      // those again and the plan needs the states of what is new or grew (decided once it is
      // known, below). A crash's leftovers need the full plan.
      targeted = known && known->layout_unchanged && !rebuild && interrupted.empty();
      relisted = known && known->entries_moved() && !rebuild && interrupted.empty();
    }
    if (targeted) {
      std::vector<std::string> paths;
      for (const auto& f : known->changed) paths.push_back(f.path);
      states.emplace(store, &paths);
      // A changed file read again whole has its session read again whole, every file of it: the
      // others are unchanged, so the quick check did not name them, and only discovery lists them.
      // (Taken as an append, a rewrite in place of one of a session's files dropped the others'
      // messages until a full run.)
      const bool rereads = std::any_of(known->changed.begin(), known->changed.end(), [&](const SourceFile& f) {
        const FileStateView* was = states->find(f.path);
        return was && !was->session_id.empty() && read_again_whole(f, *was);
      });
      if (rereads) {
        targeted = relisted = false;
        states.reset();
        states.emplace(store);
      }
    } else if (!relisted) {  // (a relisting's states are read once discovery has said what is new)
      states.emplace(store);
    }
    XapianLayout& layout = parts.layout;
    TextLogWriter log;
    log.open(index_dir, parts.text_bytes, parts.text_entries, parts.text_log);
    // Parts LMDB does not name are leftovers of a crash, an old generation or an interrupted rebuild:
    // drop them (a rebuild leaves the live generation's alone until its switch), then finish a bulk
    // load a crash interrupted before its compaction.
    if (!rebuild) remove_unnamed_parts(index_dir, parts);
    TextIndexWriter xapian(index_dir, layout);
    xapian.epochs() = std::move(epochs);
    if (rebuild) {
      index_salvaged(store, xapian, layout);
      if (options.at_point) options.at_point("salvaged");
    }

    timer.mark("open");
    std::vector<SourceFile> files;
    EmptiedRoots emptied(roots);
    std::vector<PathStat> observed;  // what discovery relied on, kept for the next quick check
    if (targeted) {
      summary.plan = "targeted";
      files = files_to_read(*known);
    } else {
      files = discover_roots(roots, relisted ? known->known_tree.get() : nullptr, emptied, summary, observed);
    }
    // (One root's list is in path order already, its session index last.)
    if (!std::is_sorted(files.begin(), files.end(), read_before)) std::stable_sort(files.begin(), files.end(), read_before);
    // The files the plan compares with their states: every one, or after a relisting what is new
    // and what grew (nullopt: the relisting cannot stand in for the full plan, which it takes).
    std::vector<const SourceFile*> to_plan;
    if (relisted) {
      std::optional<std::vector<const SourceFile*>> picked = files_to_plan(*known, files);
      if (picked) {
        std::vector<std::string> paths;
        for (const SourceFile* f : *picked) paths.push_back(f->path);
        states.emplace(store, &paths);
        // A new path with a state is a file deleted once and back: its session is read again
        // whole, with files whose states only the full plan has.
        const KnownTree& tree = *known->known_tree;
        if (std::any_of(picked->begin(), picked->end(),
                        [&](const SourceFile* f) { return !tree.is_transcript(f->path) && states->find(f->path); }))
          picked.reset();
      }
      if (picked) {
        summary.plan = "relisted";
        to_plan = std::move(*picked);
      } else {
        relisted = false;
        states.reset();
        states.emplace(store);
      }
    }
    if (!relisted)
      for (const auto& f : files) to_plan.push_back(&f);

    timer.mark("discover");
    if (stop_requested(options)) {
      summary.interrupted = true;
      return summary;
    }
    IngestBatch batch(store, log, xapian, layout);
    std::set<std::string> drop = interrupted;  // read again whole, like a replaced file's sessions
    std::unordered_set<std::string_view> discovered;  // (views of `files`, which stays as it is from here on)
    discovered.reserve(files.size());
    summary.files_seen = targeted ? known->files : files.size();
    summary.files_skipped = summary.files_seen - to_plan.size();
    for (const auto& f : files) discovered.insert(f.path);
    std::vector<WorkItem> work = plan_work(to_plan, *states, drop, summary);
    mark_vanished_files(*states, discovered, roots, batch, emptied, summary);
    summary.emptied_roots = emptied.lines();
    summary.root_hints = emptied.hints();
    summary.problems.insert(summary.problems.end(), summary.emptied_roots.begin(), summary.emptied_roots.end());
    summary.problems.insert(summary.problems.end(), summary.root_hints.begin(), summary.root_hints.end());
    // A session that lost a transcript since it was read cannot be rebuilt from its files: dropping
    // it would lose that transcript's messages, which only the index holds now. Its replaced file is
    // read again whole on top of what is stored instead (messages are stored once per uuid; a uuid
    // with other words is kept beside the old one), so nothing goes. (An interrupted batch's
    // sessions are dropped regardless: their documents were never listed.)
    keep_sessions_with_vanished_files(store, drop, interrupted, discovered);
    if (!drop.empty()) {
      std::set<std::string> refeed = drop_sessions(store, xapian, drop, DropMode::Reread);
      std::set<std::string> queued;
      for (auto& w : work) {
        queued.insert(w.file->path);
        if (w.state && refeed.count(w.file->path)) reset_for_reread(*w.state);
      }
      // A file whose lines have not named its session yet is not among the session's files (omp's
      // title slot comes before the header): the id its name carries ties it to the session.
      auto named_after_dropped = [&](const SourceFile& f) {
        return session_from_lines(f.kind) && !f.session_id.empty() &&
               drop.count(session_key(f, f.session_id_full.empty() ? f.session_id : f.session_id_full));
      };
      for (const auto& f : files) {
        if ((!refeed.count(f.path) && !named_after_dropped(f)) || queued.count(f.path)) continue;
        const FileStateView* stored = states->find(f.path);
        FileState st = stored ? stored->state() : FileState{};
        reset_for_reread(st);
        work.push_back({&f, std::make_unique<FileState>(std::move(st))});
      }
      std::sort(work.begin(), work.end(),
                [](const WorkItem& a, const WorkItem& b) { return read_before(*a.file, *b.file); });
    }

    states.reset();  // (the plan's snapshot, before the run writes)
    load_skipped_links(store, work);
    timer.mark("plan");
    timer.memory();
    read_work(work, batch, options, summary);
    batch.finish();
    timer.mark("ingest");
    timer.memory();
    if (summary.interrupted) {
      // A stop mid-rebuild leaves the live generation as it was: the unnamed new one is removed by
      // the next writer.
      if (rebuild) summary.problems.push_back("index --full was stopped before it finished: the index is unchanged");
    } else {
      shards.start(store, xapian, layout);  // (a rebuild's is named before its switch, below)
      // Kept once the run's end has succeeded (below): a failed compaction leaves no record, so the
      // next run takes the full path and compacts again.
      if (summary.dirs_unreadable == 0 && summary.files_unreadable == 0) {
        const int64_t now = wall_clock_ns();
        if (targeted) {
          watch_record = known->updated_record;
        } else if (has_recent_directory(observed, now)) {
          watch_record = std::string();  // none yet: what a watcher must watch meanwhile
          summary.unrecorded_watch_dirs = discovery_watch_dirs(observed, files);
        } else {
          watch_record = encode_source_watch(roots, observed, files, now);
        }
      }
    }

    summary.new_messages = batch.counters().messages;
    summary.new_tool_calls = batch.counters().tool_calls;
    timer.mark("watch record");
  }
  detail::read_totals(LmdbTxn(store.env(), true), db, summary);
  if (rebuild && !summary.interrupted) {
    // The new generation's env is repacked (when due) while the shards' compaction runs, before
    // anything names either: the switch then names the copy and the compacted layout together.
    repack_before_switch(store, options, summary, *rebuild);
    shards.finish();
    timer.mark("compaction");
    switch_to_rebuilt(store, *rebuild, options.at_point);
    timer.mark("switch");
  }
  // A compaction or a repack (engine/index/compact.h); a repack runs beside the shards' compaction.
  finish_run(store, options, summary, [&] { shards.finish(); });
  shards.finish();
  timer.mark("compaction or repack");
  if (watch_record) keep_source_watch(store, *watch_record);
  // What keyword's own collapse reads (engine/index/session_runs.h). Without them, or with runs of
  // another revision, queries read each match's value as before: a failure here costs speed only.
  if (!summary.interrupted) {
    try {
      timer.mark("finish");
      timer.count("session runs read", keep_session_runs(store));
      timer.mark("session runs");
    } catch (const Xapian::Error& e) {
      summary.problems.push_back("session runs not kept (keyword reads values instead): " + e.get_description());
    } catch (const IndexDamaged& e) {  // a listed database missing or unopenable: the next query names it
      summary.problems.push_back(std::string("session runs not kept (keyword reads values instead): ") + e.what());
    }
  }
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return summary;
}

}  // namespace osearch
