#include "engine/index/salvage.h"
#include "engine/index/archive_io.h"
#include "engine/store/usage_agg.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <vector>

#include "engine/store/child_run.h"
#include "engine/store/codec.h"
#include "engine/index/index_parts.h"
#include "engine/store/records_store.h"
#include "engine/store/store.h"
#include "engine/store/text_log.h"

namespace osearch {
namespace {

// A salvage reads one env: minutes at most. Past this the child is taken to be looping on a
// damaged page.
constexpr int kSalvageSeconds = 600;
// The child reports each commit (at least every kSessionsPerCommit sessions); this long without one
// it is taken to be stuck.
constexpr int kSalvageSilenceSeconds = 120;
constexpr size_t kSessionsPerCommit = 64;

void report_line(int fd, const std::string& line) { write_all(fd, line + "\n"); }

uint64_t file_size_or_zero(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

// The old env's databases, opened by name in its read transaction (a missing one is nullopt).
struct OldDbs {
  const LmdbTxn& txn;
  std::optional<MDB_dbi> open(const char* name) const {
    MDB_dbi dbi;
    int rc = mdb_dbi_open(txn.get(), name, 0, &dbi);
    if (rc == MDB_NOTFOUND) return std::nullopt;
    if (rc != MDB_SUCCESS) throw LmdbError(std::string("mdb_dbi_open ") + name, rc);
    return dbi;
  }
};

class ChildSalvage {
 public:
  ChildSalvage(const SalvageTarget& t, int report_fd) : t_(t), fd_(report_fd) {}

  void run() {
    LmdbEnv old;
    // Read-only and without the lock file: the old env may be garbage, and only we use it.
    old.open(t_.old_env_dir, true, Store::kMaxDbs, MDB_NOLOCK);
    LmdbTxn r(old, true);
    OldDbs dbs{r};
    Store fresh(t_.index_dir, t_.new_env_name);
    // Every index has these tables from its first run: an env without them is damaged, and what it
    // held (archived sessions, memories) cannot be known, so the loss is said, not assumed empty.
    if (!dbs.open("meta") || !dbs.open("sessions")) {
      report_line(fd_, "lost whatever archived sessions and memories the old store held: its tables cannot be found");
      return;
    }
    copy_memories(r, dbs, fresh);
    copy_archive(r, dbs, fresh);
  }

 private:
  void copy_memories(const LmdbTxn& r, const OldDbs& dbs, Store& fresh) {
    auto mem = dbs.open("memories");
    if (!mem) return;
    LmdbTxn w(fresh.env(), false);
    LmdbCursor cur(r, *mem);
    for (bool ok = cur.first(); ok; ok = cur.next()) w.put(fresh.db().memories, cur.key(), cur.value());
    w.commit();
    committed();
  }

  // Sessions none of whose files exists now under a source root.
  std::vector<std::string> archived_ids(const LmdbTxn& r, const OldDbs& dbs) {
    std::vector<std::string> out;
    auto sessions = dbs.open("sessions");
    auto files = dbs.open("session_files");
    if (!sessions) return out;
    LmdbCursor cur(r, *sessions);
    for (bool ok = cur.first(); ok; ok = cur.next()) {
      const std::string sid(cur.key());
      bool any_present = false;
      for_each_prefixed(r, files, sid + '\0', [&](std::string_view key, std::string_view value) {
        std::error_code ec;
        // The value holds the full path (the key a bounded form); schema 10 kept it in the key only.
        const std::string path(value.empty() ? key.substr(sid.size() + 1) : value);
        if (!any_present && under_any(path, t_.source_dirs) && std::filesystem::exists(path, ec)) any_present = true;
      });
      if (!any_present) out.push_back(sid);
    }
    return out;
  }

  void copy_archive(const LmdbTxn& r, const OldDbs& dbs, Store& fresh) {
    const std::vector<std::string> ids = archived_ids(r, dbs);
    if (ids.empty()) return;
    auto meta = dbs.open("meta");
    auto meta_u64 = [&](const char* key) -> uint64_t {
      if (!meta) return 0;
      auto v = r.get(*meta, key);
      return v && v->size() == 8 ? get_be64(*v) : 0;
    };
    // The steps from the old schema to this one (engine/index/archive_io.cpp says what each changed).
    const uint64_t old_schema = meta_u64(meta_key::kSchema);
    const std::optional<SchemaSteps> steps = schema_steps(old_schema, t_.schema);
    if (!steps) {
      report_line(fd_, "lost " + std::to_string(ids.size()) +
                           " archived sessions: the old index was written by another version of osearch (schema " +
                           std::to_string(old_schema) + "), whose records this one cannot carry over");
      return;
    }
    std::string old_text = "text";
    if (meta)
      if (auto v = r.get(*meta, meta_key::kTextLogName); v && !v->empty()) old_text = std::string(*v);
    if (!is_part_name(old_text, "text")) throw std::runtime_error("the old index names an invalid text log");
    // Map no more than the files hold: past their end a read would be a SIGBUS.
    const std::string old_base = t_.index_dir + "/" + old_text;
    const uint64_t bytes = std::min(meta_u64(meta_key::kTextBytes), file_size_or_zero(old_base + ".log"));
    const uint64_t entries = std::min(meta_u64(meta_key::kTextEntries), file_size_or_zero(old_base + ".idx") / 8);
    TextLogReader text;
    bool text_ok = true;
    try {
      text.open(t_.index_dir, bytes, entries, old_text);
    } catch (const std::exception& e) {
      text_ok = false;
      report_line(fd_, std::string("the old text log cannot be read: ") + e.what());
    }

    const ArchiveTables h{dbs.open("sessions"),   dbs.open("messages"),      dbs.open("tool_calls"),
                          dbs.open("tool_results"), dbs.open("usage_seen"), dbs.open("subagents"),
                          dbs.open("session_files"), dbs.open("files"),     dbs.open("workflows"),
                          dbs.open("workflow_agents")};
    TextLogWriter log;
    log.open(t_.index_dir, 0, 0, t_.text_log);
    std::optional<LmdbTxn> w;
    size_t pending = 0, unreadable = 0;
    for (const auto& sid : ids) {
      std::optional<ArchivedSession> s = text_ok ? read_session(r, h, text, sid, *steps) : std::nullopt;
      if (!s) {
        ++unreadable;
        continue;
      }
      if (!w) w.emplace(fresh.env(), false);
      write_session(*w, fresh.db(), log, *s);
      if (++pending >= kSessionsPerCommit) {
        commit(*w, fresh, log, pending);
        committed();
      }
      if (pending == 0) w.reset();
    }
    if (w && pending) {
      commit(*w, fresh, log, pending);
      committed();
    }
    if (unreadable)
      report_line(fd_, "lost " + std::to_string(unreadable) + " archived session" + (unreadable == 1 ? "" : "s") +
                           " whose records or text could not be read back whole");
  }

  // The text log first, then the records that point into it (the writer's crash-safety order).
  static void commit(LmdbTxn& w, Store& fresh, TextLogWriter& log, size_t& pending) {
    log.sync();
    Store::put_meta_u64(w, fresh.db(), meta_key::kTextBytes, log.bytes());
    Store::put_meta_u64(w, fresh.db(), meta_key::kTextEntries, log.entries());
    w.commit();
    pending = 0;
  }
  void committed() const {
    report_line(fd_, "committed");  // alive (the parent's silence limit)
    if (t_.at_point) t_.at_point("salvage-commit");
  }

  const SalvageTarget& t_;
  int fd_;
};

}  // namespace

bool under(std::string_view path, std::string_view dir) {
  if (dir.empty() || !path.starts_with(dir)) return false;
  return dir.back() == '/' || (path.size() > dir.size() && path[dir.size()] == '/');
}

bool under_any(const std::string& path, const std::vector<std::string>& dirs) {
  for (const auto& d : dirs)
    if (under(path, d)) return true;
  return false;
}

SalvageReport salvage_old_env(const SalvageTarget& target) {
  SalvageReport report;
  if (target.old_env_dir.empty() || !std::filesystem::exists(target.old_env_dir + "/data.mdb")) return report;
  ChildLimits limits;
  limits.total = std::chrono::seconds(kSalvageSeconds);
  // Silent before its first commit, the child is taken to be stuck at the fork (a lock another
  // thread held: engine/store/child_run.h) and forked again; once it has committed, not: running it
  // again would rewrite the text log under records already committed.
  limits.silence = std::chrono::seconds(kSalvageSilenceSeconds);
  limits.attempts = 3;
  const ChildResult child = run_in_child(
      [&](int fd, int) {
        try {
          ChildSalvage(target, fd).run();
          return 0;
        } catch (const std::exception& e) {
          report_line(fd, std::string("error ") + e.what());
        } catch (...) {
          report_line(fd, "error unknown");
        }
        return 1;
      },
      limits);
  const std::string& lines = child.output;
  const int status = child.status;
  std::vector<std::string> lost;
  bool error_said = false;
  for (size_t pos = 0; pos < lines.size();) {
    size_t nl = lines.find('\n', pos);
    if (nl == std::string::npos) nl = lines.size();
    std::string_view line(lines.data() + pos, nl - pos);
    if (line.starts_with("lost ")) lost.emplace_back(line.substr(5));
    if (line.starts_with("error ")) error_said = true;
    if (line.starts_with("error ")) lost.push_back("the old store could not be read (" + std::string(line.substr(6)) +
                                                   "): what was read before the error was kept");
    pos = nl + 1;
  }
  if (child.timed_out)
    lost.push_back("reading the old store took over " + std::to_string(kSalvageSeconds) +
                   " s and was stopped: what was read before was kept");
  else if (child.silent)
    lost.push_back("reading the old store " + child.ending() + ": what was read before was kept");
  else if (WIFSIGNALED(status))
    lost.push_back(std::string("reading the old store crashed (") + strsignal(WTERMSIG(status)) +
                   "): what was read before the crash was kept");
  else if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && !error_said)
    // A fault handler that exits instead of dying (a sanitizer's, say) still ended the read early.
    lost.push_back("reading the old store failed (exit " + std::to_string(WEXITSTATUS(status)) +
                   "): what was read before the failure was kept");
  for (const auto& l : lost) report.lost += (report.lost.empty() ? "" : "; ") + l;
  return report;
}

}  // namespace osearch
