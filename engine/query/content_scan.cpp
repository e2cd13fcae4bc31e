// The scan of `content`: the whole text log (or a few sessions' ranges of it) in chunks, two threads,
// each window given to Hyperscan (past the bytes the literal prefilter rules out), candidates settled
// while their bytes are in the thread's block (copied, or a view of the map). The patterns are
// compiled in content_patterns.cpp, -w over ASCII literals decided in content_word.cpp.
#include "engine/query/content_scan.h"
#include "engine/store/trace.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

#include "engine/store/records_store.h"
#include "ingest/worker_thread.h"

namespace osearch {
namespace {

// --- the scan --------------------------------------------------------------------------------

struct ChunkState {
  const TextLogReader* log = nullptr;
  std::string_view copy;  // the log's bytes from copy_at on: the thread's buffer (or the map)
  uint64_t copy_at = 0;
  uint64_t base = 0;  // file offset where the current scan call began: an entry start
  std::vector<Candidate> candidates;
  std::vector<SessionCount> sessions;  // CandidateRules::counted
  std::vector<MessageMatch> newest;    // CandidateRules::newest: a heap, its last in order on top
  uint64_t counted_messages = 0;
  KeptBytes keys;
  std::string_view taken_text;  // the last candidate's text in `copy`: what settling it reads
  uint64_t taken_first_end = 0;  // whole-log scan: where the first match seen in it ends (file offset)
  uint64_t resume_at = 0;  // where on_candidate stopped the scan (past its entry); 0 = it did not
  bool scanned = false;
};

// Makes `local` (an entry viewing `copy`) the chunk's last candidate, its key still viewing the
// copy: settle_last (in scan_log) counts it, drops it or copies its key.
void take(ChunkState& st, const TextEntry& local, uint64_t first_end) {
  st.candidates.push_back(
      {local.key, local.start, local.text_offset, static_cast<uint32_t>(local.text.size()), local.flags});
  st.taken_text = local.text;
  st.taken_first_end = first_end;
}

// Counts a settled match towards its session's run (the chunk's last count when the candidates
// before it were the same session's). `key` views the copy: what a count keeps is copied.
void count_match(ChunkState& st, std::string_view key) {
  const std::optional<std::string_view> sid = session_in_message_key(key);
  if (!sid) return;  // no message's key (the caller's filters drop those)
  const int64_t ts = timestamp_of_message_key(key);
  if (st.sessions.empty() || st.sessions.back().sid != *sid) {
    const std::string_view kept = st.keys.keep(key);
    st.sessions.push_back({kept.substr(0, sid->size()), kept, 1, ts});
    return;
  }
  SessionCount& c = st.sessions.back();
  ++c.count;
  if (key < c.first_key) c.first_key = st.keys.keep(key);
  c.latest_ts = std::max(c.latest_ts, ts);
}

// Counts a settled match by message, keeping it while it is among the chunk's `limit` first.
void count_message(ChunkState& st, const Candidate& c, size_t limit) {
  ++st.counted_messages;
  const MessageMatch m{timestamp_of_message_key(c.key), c.start};
  if (st.newest.size() < limit) {
    st.newest.push_back(m);
    std::push_heap(st.newest.begin(), st.newest.end());
  } else if (m < st.newest.front()) {
    std::pop_heap(st.newest.begin(), st.newest.end());
    st.newest.back() = m;
    std::push_heap(st.newest.begin(), st.newest.end());
  }
}

// The entry starting at `start`, read from the chunk's copy (the map only if it is not whole there).
bool entry_of(const ChunkState& st, uint64_t start, TextEntry& out) {
  return st.log->entry_in(st.copy, st.copy_at, start, out) || st.log->entry_at(start, out);
}

// The entry holding the log's byte `at`, found by walking the headers in the chunk's copy from
// `from`, an entry start at or before `at` (where the scan call began). A common word makes a
// candidate of most entries, each a binary search of the mapped index file (19 steps over its
// 3.4 MB at 2 GB, most of them cache misses); the walk reads only bytes the scan has just read, at
// most once each. Where it cannot get there inside the copy, the index decides.
bool entry_holding(const ChunkState& st, uint64_t from, uint64_t at, TextEntry& out) {
  for (uint64_t s = from; s <= at && st.log->entry_in(st.copy, st.copy_at, s, out);) {
    s = out.text_offset + out.text.size();  // the next entry's start
    if (at < s) return true;
  }
  const std::optional<uint64_t> start = st.log->entry_start_of(at);
  return start && entry_of(st, *start, out);
}

// A match makes its entry a candidate, and the scan stops there: the caller resumes it past the
// entry, so an entry that holds the pattern thousands of times (a common word, one letter) costs
// one callback, not thousands, and no later match can fall in an entry already taken.
int on_candidate(unsigned, unsigned long long, unsigned long long to, unsigned, void* ctx) {
  auto* st = static_cast<ChunkState*>(ctx);
  TextEntry e;
  if (!entry_holding(*st, st->base, st->base + (to == 0 ? 0 : to - 1), e)) return 0;
  take(*st, e, st->base + to);
  st->resume_at = e.text_offset + e.text.size();
  return 1;
}

// The first entry start at or past `at`, or `limit` when there is none before it: where chunks and
// windows are cut (no real match spans entries).
uint64_t entry_start_from(std::span<const uint64_t> starts, uint64_t at, uint64_t limit) {
  auto it = std::lower_bound(starts.begin(), starts.end(), at);
  return it != starts.end() && *it < limit ? *it : limit;
}

// The end of the window one hs_scan call is given: the first entry start kWindow bytes or more past
// `from` (or the chunk's end). Hyperscan may read on past a match before it reports it (measured:
// err\w, \w, [0-9]+, https?://\S+ under UCP; up to the end of the buffer when the pattern does not
// come again), and a call stopped by on_candidate still costs that. Handed the rest of a 16 MB
// chunk, a stop every entry or two was quadratic. Scanning the 437 MB log of the 2 GB corpus, 8 KB
// windows took \w from 6.3 s to 0.25 s, https?://\S+ from 130 to 52 ms, err\w from 134 to 86 ms;
// literals' scans did not change. A stop resumes in the same window: one window_end per window.
constexpr uint64_t kWindow = 8u << 10;
uint64_t window_end(std::span<const uint64_t> starts, uint64_t from, uint64_t chunk_end) {
  return chunk_end - from <= kWindow ? chunk_end : entry_start_from(starts, from + kWindow, chunk_end);
}

int on_each(unsigned, unsigned long long, unsigned long long, unsigned, void*) { return 0; }

int on_any(unsigned, unsigned long long, unsigned long long, unsigned, void* ctx) {
  *static_cast<bool*>(ctx) = true;
  return 1;  // one match is enough: stop scanning
}

}  // namespace

bool exact_match_alone(const hs_database_t* db, std::string_view text, uint64_t text_offset, uint64_t first_end,
                       hs_scratch_t* scratch) {
  bool found = false;
  if (first_end > text_offset && first_end <= text_offset + text.size()) {
    hs_scan(db, text.data(), static_cast<unsigned>(first_end - text_offset), 0, scratch, on_any, &found);
    if (found) return true;
  }
  hs_scan(db, text.data(), static_cast<unsigned>(text.size()), 0, scratch, on_any, &found);
  return found;
}

std::string_view KeptBytes::keep(std::string_view bytes) {
  if (bytes.empty()) return {};
  if (bytes.size() > capacity_ - used_) {
    capacity_ = std::max<size_t>(bytes.size(), size_t{64} << 10);
    slabs_.push_back(std::make_unique_for_overwrite<char[]>(capacity_));
    used_ = 0;
  }
  char* at = slabs_.back().get() + used_;
  std::memcpy(at, bytes.data(), bytes.size());
  used_ += bytes.size();
  return {at, bytes.size()};
}


namespace {

// Whether this machine reads the log faster in the map than by copying it: a pread of 2 MB at `at`
// (into a buffer whose pages are in already) against a read of the next 2 MB in the map, a cache
// line at a time, twice; the map must win both. ~1 ms.
bool map_reads_faster(const TextLogReader& log, uint64_t at) {
  constexpr uint64_t kProbe = 2u << 20;
  const std::string_view data = log.data();
  if (data.size() < 4 * kProbe) return false;
  at = std::min<uint64_t>(at, data.size() - 4 * kProbe);
  std::vector<char> buffer(kProbe, 0);
  using Clock = std::chrono::steady_clock;
  for (int round = 0; round < 2; ++round, at += 2 * kProbe) {
    const Clock::time_point t0 = Clock::now();
    if (!log.read(at, buffer.data(), kProbe)) return false;
    const Clock::time_point t1 = Clock::now();
    unsigned sum = 0;
    for (uint64_t i = at + kProbe; i < at + 2 * kProbe; i += 64) sum += static_cast<unsigned char>(data[i]);
    const Clock::time_point t2 = Clock::now();
    volatile unsigned sink = sum;  // (the loop must run)
    static_cast<void>(sink);
    if (t2 - t1 >= t1 - t0) return false;
  }
  return true;
}

}  // namespace

Candidates scan_log(const TextLogReader& log, const ContentPatterns& p, std::chrono::steady_clock::time_point deadline,
                    const CandidateRules& rules, std::span<const LogRange> only) {
  std::string_view data = log.data();
  auto starts = log.starts();
  // Chunks of ~16 MB cut at entry starts (no real match spans entries), the threads' unit of work:
  // small enough that the deadline is checked often. Hyperscan gets each in windows (window_end).
  constexpr uint64_t kChunk = 16u << 20;
  constexpr uint64_t kReadBlock = 1u << 20;  // (measured: 1 MB preads 43-46 ms over 437 MB, the map ~200 ms)
  constexpr uint64_t kParallelBytes = 8u << 20;
  const LogRange whole{0, data.size()};
  if (only.empty() && !data.empty()) only = std::span<const LogRange>(&whole, 1);
  uint64_t total = 0;
  for (const LogRange& r : only) total += r.end - r.begin;
  const unsigned threads = total >= kParallelBytes ? 2 : 1;
  std::vector<LogRange> cuts;  // the chunks, in log order
  for (const LogRange& r : only) {
    const uint64_t size = r.end - r.begin;
    // (the whole log: at least a chunk per thread)
    const size_t n = std::max<size_t>(only.size() == 1 ? threads : 1, (size + kChunk - 1) / kChunk);
    uint64_t from = r.begin;
    for (size_t i = 1; i < n; ++i) {
      const uint64_t cut = entry_start_from(starts, r.begin + size * i / n, r.end);
      if (cut > from) {
        cuts.push_back({from, cut});
        from = cut;
      }
    }
    if (from < r.end) cuts.push_back({from, r.end});
  }
  std::vector<ChunkState> states(cuts.size());
  const bool in_map = p.read == ContentPatterns::Read::Map ||
                      (p.read == ContentPatterns::Read::ByCost && total >= p.time_reads_from && !cuts.empty() &&
                       map_reads_faster(log, cuts.front().begin));
  PhaseTimer("content").count("read in the map", in_map ? 1 : 0);
  std::vector<HsScratch> clones;
  for (unsigned t = 1; t < threads; ++t) {
    hs_scratch_t* clone = nullptr;
    if (hs_clone_scratch(p.scratch.get(), &clone) != HS_SUCCESS) throw std::runtime_error("hs_clone_scratch failed");
    clones.emplace_back(clone);
  }
  // PCRE2's match state per thread (the compiled patterns are shared).
  std::vector<PcreMatcher> matchers;
  for (unsigned t = 0; p.confirm && t < threads; ++t) {
    std::optional<PcreMatcher> m = p.confirm->sibling();
    if (!m) throw std::runtime_error("PCRE2 could not allocate its match data");
    matchers.push_back(std::move(*m));
  }
  std::atomic<size_t> next{0};
  // Once PCRE2 hit a limit on a candidate the filters may keep, the threads confirm no more: the
  // caller asks again in log order (after its record filters), and past the first one it reaches
  // the answer is regex-too-costly. Confirming on could cost up to the whole budget.
  std::atomic<bool> costly{false};
  auto work = [&](unsigned t) {
    hs_scratch_t* sc = t == 0 ? p.scratch.get() : clones[t - 1].get();
    const PcreMatcher* pcre = matchers.empty() ? nullptr : &matchers[t];
    // Settles the chunk's last candidate, whose text is `text` in the buffer, where this thread can
    // (outside the scan's callback: its scratch is free again): drops it when it does not match
    // alone, marks it settled when it does, and leaves the rest to the caller. A settled one is
    // counted here instead when the rules say so; one the caller keeps gets its key copied.
    const auto settle_last = [&](ChunkState& st, std::string_view text) {
      Candidate& c = st.candidates.back();
      std::optional<bool> keeps;  // rules.kept(c), asked once
      const auto kept = [&] {
        if (!keeps) keeps = !rules.kept || rules.kept(c);
        return *keeps;
      };
      std::optional<bool> alone;
      if (p.per_entry && !p.confirm)  // the entry's own text, scanned by an exact database
        alone = true;
      else if (p.word_literals)  // -w literals, where their bytes allow
        alone = whole_word_literal(p, text, sc);
      else if (!p.confirm && !p.per_entry)  // unless the match seen spanned from the entry before
        alone = exact_match_alone(p.scan.get(), text, c.text_offset, st.taken_first_end, sc);
      if (!alone && pcre && !costly.load(std::memory_order_relaxed) && kept() &&
          std::chrono::steady_clock::now() < deadline) {
        const PcreMatcher::Found f = pcre->find(text);
        if (f.too_costly)
          costly.store(true, std::memory_order_relaxed);
        else
          alone = f.match;
      }
      if (alone == false) {
        st.candidates.pop_back();
        return;
      }
      c.settled = alone.has_value();
      if (c.settled && rules.counted && (!kept() || rules.counted(c))) {
        if (kept() && rules.newest)
          count_message(st, c, rules.newest);
        else if (kept())
          count_match(st, c.key);
        st.candidates.pop_back();
        return;
      }
      c.key = st.keys.keep(c.key);
    };
    // The log is read into this thread's buffer a block at a time (TextLogReader::read), or, when
    // that costs more on this machine (`in_map`), scanned in the map.
    std::vector<char> block;
    uint64_t block_from = 0, block_to = 0;  // the log's bytes the buffer holds
    // Makes st.copy hold the log's bytes [from, until) (reading up to `chunk_end` a block at a
    // time), or the map when a read comes up short (cut under us: its fault names the damage).
    // In the map the blocks are views, not copies, of the same extent: a literal set's filter still
    // looks for each literal in a block while it is in the cache.
    const auto hold = [&](ChunkState& st, uint64_t from, uint64_t until, uint64_t chunk_end) {
      if (from < block_from || until > block_to || block_to == 0) {
        // (past `from`: every caller holds bytes that start before chunk_end)
        const uint64_t end = std::min(chunk_end, std::max(until, from + kReadBlock));
        bool read = in_map;
        if (!in_map) {
          if (block.size() < end - from) block.resize(end - from);
          read = log.read(from, block.data(), end - from);
        }
        block_from = read ? from : 0;
        block_to = read ? end : 0;
      }
      if (block_to == 0) {
        st.copy = data;
        st.copy_at = 0;
      } else {
        st.copy = in_map ? data.substr(block_from, block_to - block_from)
                         : std::string_view(block.data(), block_to - block_from);
        st.copy_at = block_from;
      }
    };
    // Where a literal of p.prefilter next occurs at or past `from`, an offset in [from, chunk_end),
    // read through the buffer a block at a time; nullopt when none does. Per literal, `cursor`
    // keeps how far it was looked for (no occurrence starts in [from, at)) and whether `at` is
    // one: each is looked for in each block once, however often the others occur.
    struct Cursor {
      std::vector<uint64_t> at;
      std::vector<char> found;
    };
    const auto next_literal = [&](ChunkState& st, Cursor& cursor, uint64_t from,
                                  uint64_t chunk_end) -> std::optional<uint64_t> {
      const std::vector<LiteralFilter>& filters = p.prefilter->filters();
      cursor.at.resize(filters.size(), 0);
      cursor.found.resize(filters.size(), 0);
      for (;;) {
        // The nearest known occurrence; the first place a search goes on, and the bytes it needs.
        uint64_t nearest = UINT64_MAX, resume = UINT64_MAX, need = 0;
        for (size_t i = 0; i < filters.size(); ++i) {
          if (cursor.at[i] < from) {  // (found before `from`, or a chunk before this one)
            cursor.at[i] = from;
            cursor.found[i] = 0;
          }
          const uint64_t at = cursor.at[i], end = at + filters[i].size();
          if (cursor.found[i]) {
            nearest = std::min(nearest, at);
          } else if (end <= chunk_end && at <= resume) {
            need = at < resume ? end : std::max(need, end);
            resume = at;
          }
        }
        if (resume >= nearest) return nearest == UINT64_MAX ? std::nullopt : std::optional<uint64_t>(nearest);
        // Each literal searched on through the block that holds `resume` (an occurrence may
        // straddle its end: the next block starts before it, and reaches past this one).
        hold(st, resume, need, chunk_end);
        const uint64_t held_end = std::min<uint64_t>(chunk_end, st.copy_at + st.copy.size());
        for (size_t i = 0; i < filters.size(); ++i) {
          const uint64_t at = cursor.at[i], size = filters[i].size();
          if (cursor.found[i] || at + size > held_end) continue;
          const size_t found = filters[i].find(st.copy.substr(at - st.copy_at, held_end - at));
          if (found != std::string_view::npos) {
            cursor.at[i] = at + found;
            cursor.found[i] = 1;
          } else {
            cursor.at[i] = held_end >= chunk_end ? chunk_end : held_end - (size - 1);
          }
        }
      }
    };
    // Each literal of a set costs a pass over the bytes, and when they are common words nearly every
    // window holds one (const|let|function: 88 % of the bytes) and Hyperscan alone is faster; for
    // rarer ones (Traceback|Exception) the filter halves the scan. So a thread times Hyperscan alone
    // and the filter on a block of its first chunk, counting the windows Hyperscan would still get,
    // and keeps the faster; both find the same candidates. (Logs under p.time_literal_sets_from:
    // the filter, whichever.)
    const auto filter_pays = [&](ChunkState& st, uint64_t from, uint64_t chunk_end) {
      // One block, read first: both ways read every byte, so only what they do with it is timed.
      const uint64_t end = std::min(chunk_end, from + kReadBlock);
      if (data.size() < p.time_literal_sets_from || end - from < kReadBlock / 2) return true;
      hold(st, from, end, chunk_end);
      const auto scan_alone = [&](uint64_t s, uint64_t e) {
        hs_scan(p.scan.get(), st.copy.data() + (s - st.copy_at), static_cast<unsigned>(e - s), 0, sc, on_each, nullptr);
      };
      scan_alone(from, std::min(end, from + 4096));  // (the scratch's first use, untimed)
      using Clock = std::chrono::steady_clock;
      const Clock::time_point t0 = Clock::now();
      for (uint64_t s = from, e; s < end; s = e) {
        e = std::min(end, window_end(starts, s, chunk_end));
        scan_alone(s, e);
      }
      const Clock::time_point t1 = Clock::now();
      Cursor cursor;
      uint64_t windows = 0;  // the bytes Hyperscan would get around the literals' occurrences
      for (uint64_t at = from; at < end;) {
        const std::optional<uint64_t> found = next_literal(st, cursor, at, end);
        if (!found) break;
        const uint64_t start = std::max(at, log.entry_start_of(*found).value_or(*found));
        at = std::min(end, window_end(starts, start, chunk_end));
        windows += at - start;
      }
      const std::chrono::duration<double> alone = t1 - t0, filter = Clock::now() - t1;
      return filter.count() + alone.count() * static_cast<double>(windows) / static_cast<double>(end - from) <
             alone.count();
    };
    bool filter = true;  // whether this thread's scan skips to the literals (p.prefilter)
    for (size_t b, chunks_taken = 0; (b = next.fetch_add(1)) < states.size(); ++chunks_taken) {
      if (std::chrono::steady_clock::now() >= deadline) return;
      ChunkState& st = states[b];
      st.log = &log;
      if (chunks_taken == 0 && p.prefilter && p.prefilter->size() > 1 && !p.per_entry)
        filter = filter_pays(st, cuts[b].begin, cuts[b].end);
      // The literals' next occurrence at or past `from` (p.prefilter): bytes before it hold no match.
      Cursor cursor;
      std::optional<uint64_t> literal_at;
      if (!p.per_entry) {
        for (uint64_t from = cuts[b].begin, until = from; from < cuts[b].end;) {
          if (p.prefilter && filter && (!literal_at || *literal_at < from)) {
            literal_at = next_literal(st, cursor, from, cuts[b].end);
            if (!literal_at) break;
          }
          if (from >= until) until = window_end(starts, from, cuts[b].end);
          if (literal_at && *literal_at >= until) {
            // Past this window: Hyperscan starts at the entry that holds it instead (a match
            // spanning from the entry before would be no candidate: its entry matches alone or
            // not at all, and alone its match lies past this start).
            const std::optional<uint64_t> start = log.entry_start_of(*literal_at);
            if (start && *start > from) {
              from = *start;
              until = window_end(starts, from, cuts[b].end);
            }
          }
          hold(st, from, until, cuts[b].end);
          st.base = from;
          st.resume_at = 0;
          hs_scan(p.scan.get(), st.copy.data() + (from - st.copy_at), static_cast<unsigned>(until - from), 0, sc,
                  on_candidate, &st);
          const bool taken = st.resume_at > from;
          from = taken ? st.resume_at : until;  // past the entry taken, or the window
          if (taken) settle_last(st, st.taken_text);  // while its bytes are in the buffer
        }
      } else {
        // Each entry alone, so that ^ $ \b and lookaround see the message's own edges.
        for (auto it = std::lower_bound(starts.begin(), starts.end(), cuts[b].begin); it != starts.end() && *it < cuts[b].end;
             ++it) {
          const auto entry_end = [&](auto at) {
            return at + 1 != starts.end() ? std::min(*(at + 1), cuts[b].end) : cuts[b].end;
          };
          uint64_t end = entry_end(it);
          if (p.prefilter && (!literal_at || *literal_at < *it)) {
            literal_at = next_literal(st, cursor, *it, cuts[b].end);
            if (!literal_at) break;
          }
          if (literal_at && *literal_at >= end) {  // entries before the one holding it hold no match
            it = std::upper_bound(it, starts.end(), *literal_at) - 1;
            end = entry_end(it);
          }
          hold(st, *it, end, cuts[b].end);
          TextEntry e;
          if (!entry_of(st, *it, e)) continue;
          bool found = false;
          hs_scan(p.scan.get(), e.text.data(), static_cast<unsigned>(e.text.size()), 0, sc, on_any, &found);
          if (!found) continue;
          take(st, e, e.text_offset + e.text.size());
          settle_last(st, e.text);
        }
      }
      st.scanned = true;
      // Read in the map, the chunk's pages leave this process's RSS (a candidate's text, read again
      // later, comes back from the page cache).
      if (in_map) log.release_pages(cuts[b].begin, cuts[b].end);
    }
  };
  {
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.push_back(start_worker(work, t));
    work(0);
    for (auto& th : pool) th.join();
  }
  Candidates out;
  for (size_t b = 0; b < states.size(); ++b) {
    ChunkState& st = states[b];  // (not const: its candidates are moved out, not copied)
    if (!st.scanned) {
      out.cut = true;
      continue;
    }
    out.bytes_scanned += cuts[b].end - cuts[b].begin;
    out.count += st.candidates.size();
    out.chunks.push_back(std::move(st.candidates));
    out.sessions.insert(out.sessions.end(), st.sessions.begin(), st.sessions.end());
    out.newest.insert(out.newest.end(), st.newest.begin(), st.newest.end());
    out.counted_messages += st.counted_messages;
  }
  for (ChunkState& st : states) out.keys.push_back(std::move(st.keys));
  return out;
}

}  // namespace osearch
