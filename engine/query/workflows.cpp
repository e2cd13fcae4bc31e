// `workflows` and `workflow RUN_ID`: the workflow records (key sid \0 run id) and, for one run, its
// agents (workflow_agents, key run id \0 agent id) joined to their transcripts' subagent records.
#include <algorithm>
#include <map>

#include "engine/query/orient.h"
#include "engine/store/index_damage.h"
#include "engine/store/lmdb.h"

namespace osearch {
namespace {

template <typename Rec>
Rec decode_or_damage(std::string_view bytes, const char* what) {
  auto rec = Rec::decode(bytes);
  if (!rec) throw IndexDamaged("records", std::string("a ") + what + " record does not decode (a damaged page)");
  return std::move(*rec);
}

// The run's agents as stored: those of its run file and those whose transcripts were read.
std::vector<WorkflowAgentRec> stored_agents(const IndexReader& reader, const WorkflowRec& run) {
  std::vector<WorkflowAgentRec> agents;
  const std::string prefix = pair_key(run.run_id, "");
  LmdbCursor cur(reader.txn(), reader.db().workflow_agents);
  for (bool ok = cur.seek(prefix); ok && cur.key().substr(0, prefix.size()) == prefix; ok = cur.next()) {
    auto a = decode_or_damage<WorkflowAgentRec>(cur.value(), "workflow agent");
    if (a.session_id == run.session_id) agents.push_back(std::move(a));  // run ids are per session
  }
  return agents;
}

WorkflowRow make_row(const IndexReader& reader, WorkflowRec run, SessionRec session) {
  WorkflowRow row;
  row.time_ms = run.timestamp_ms > 0 ? run.timestamp_ms : tool_call_time(reader, run.session_id, run.parent_tool_use_id);
  row.agent_count = run.path.empty() ? stored_agents(reader, run).size() : run.agent_count;
  row.run = std::move(run);
  row.session = std::move(session);
  return row;
}

// Every run with its session, unfiltered (runs are few: one walk).
template <typename Visit>
void for_each_run(const IndexReader& reader, Visit&& visit) {
  LmdbCursor cur(reader.txn(), reader.db().workflows);
  for (bool ok = cur.first(); ok; ok = cur.next()) visit(cur.key(), decode_or_damage<WorkflowRec>(cur.value(), "workflow"));
}

}  // namespace

WorkflowList run_workflows(IndexReader& reader, const Filters& f) {
  WorkflowList out;
  std::vector<WorkflowRow> rows;
  for_each_run(reader, [&](std::string_view, WorkflowRec run) {
    auto s = reader.session(run.session_id);
    if (!s || !f.session_matches(*s)) return;
    WorkflowRow row = make_row(reader, std::move(run), std::move(*s));
    if (f.since_ms && row.time_ms < *f.since_ms) return;
    if (f.until_ms && row.time_ms >= *f.until_ms) return;
    rows.push_back(std::move(row));
  });
  std::sort(rows.begin(), rows.end(), [](const WorkflowRow& a, const WorkflowRow& b) {
    if (a.time_ms != b.time_ms) return a.time_ms > b.time_ms;
    return a.run.run_id < b.run.run_id;
  });
  out.total = rows.size();
  for (size_t i = f.offset; i < rows.size() && out.rows.size() < f.limit; ++i) out.rows.push_back(std::move(rows[i]));
  return out;
}

WorkflowTree run_workflow(IndexReader& reader, std::string_view run_id) {
  if (run_id.empty()) throw BadInput("usage", "workflow needs a RUN_ID");
  std::vector<WorkflowRec> exact, prefixed;
  for_each_run(reader, [&](std::string_view, WorkflowRec run) {
    if (run.run_id == run_id) exact.push_back(std::move(run));
    else if (run.run_id.compare(0, run_id.size(), run_id) == 0) prefixed.push_back(std::move(run));
  });
  std::vector<WorkflowRec>& found = exact.empty() ? prefixed : exact;
  if (found.empty()) throw BadInput("unknown-workflow", "no workflow run " + std::string(run_id));
  if (found.size() > 1) {
    std::string names;
    for (size_t i = 0; i < found.size() && i < 20; ++i)
      names += (i ? ", " : "") + found[i].run_id + " (session " + found[i].session_id + ")";
    if (found.size() > 20) names += ", …";
    throw BadInput("ambiguous-workflow", std::to_string(found.size()) + " workflow runs match " + std::string(run_id) +
                                             ": " + names);
  }
  WorkflowRec run = std::move(found.front());
  auto session = reader.session(run.session_id);
  WorkflowTree tree;
  std::vector<WorkflowAgentRow> agents;
  for (auto& a : stored_agents(reader, run)) {
    WorkflowAgentRow row;
    if (auto v = reader.txn().get(reader.db().subagents, pair_key(run.session_id, a.agent_id)))
      row.transcript = decode_or_damage<SubagentRec>(*v, "subagent");
    row.agent = std::move(a);
    agents.push_back(std::move(row));
  }
  auto start = [](const WorkflowAgentRow& r) { return r.transcript && r.transcript->first_ts > 0 ? r.transcript->first_ts : INT64_MAX; };
  std::stable_sort(agents.begin(), agents.end(), [&](const WorkflowAgentRow& a, const WorkflowAgentRow& b) {
    if (start(a) != start(b)) return start(a) < start(b);
    return a.agent.agent_id < b.agent.agent_id;
  });
  for (auto& a : agents) {
    auto it = std::find_if(tree.phases.begin(), tree.phases.end(),
                           [&](const WorkflowPhase& p) { return p.title == a.agent.phase; });
    if (it == tree.phases.end()) it = tree.phases.insert(tree.phases.end(), WorkflowPhase{a.agent.phase, {}});
    it->agents.push_back(std::move(a));
  }
  tree.run = make_row(reader, std::move(run), session ? std::move(*session) : SessionRec{});
  return tree;
}

}  // namespace osearch
