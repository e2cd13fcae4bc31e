// Orientation commands (SPEC §3): `subagents`, `workflows`, `workflow RUN_ID` and `overview`.
// Answered from the subagents / workflows / workflow_agents / sessions records and the session
// orders only: none of them reads a message record or a transcript.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/query/query.h"
#include "engine/query/reader.h"

namespace osearch {

// ---- subagents --------------------------------------------------------------------------------

struct SubagentRow {
  SubagentRec agent;
  SessionRec session;  // empty (no resume_hint) when the session has no record
  // When it was spawned: its transcript's first message, else the spawning tool call's time.
  int64_t spawned_at = 0;
  bool has_transcript() const { return agent.message_count > 0; }
  // Span of its transcript's messages (Obelisk's duration); nullopt without two timestamps.
  std::optional<int64_t> duration_ms() const;
  // input + output + cache creation + cache read over its transcript; nullopt without one (or
  // when the record predates the count: SubagentRec::usage_complete).
  std::optional<int64_t> total_tokens() const;
};

struct SubagentList {
  uint64_t total = 0;  // rows passing the filters, before --offset/--limit
  std::vector<SubagentRow> rows;
};

// Newest spawn first. Filters: session prefix, project, agent, cwd, model (of the session),
// since/until (the subagent's activity overlaps the range), limit/offset.
SubagentList run_subagents(IndexReader& reader, const Filters& filters);

// ---- workflows ----------------------------------------------------------------------------------

struct WorkflowRow {
  WorkflowRec run;
  SessionRec session;
  // The run file's timestamp, else the launching tool call's time (0 = unknown).
  int64_t time_ms = 0;
  // The run file's agent count, else the agents whose transcripts were found.
  uint64_t agent_count = 0;
  // Whether `<session>/workflows/<run>.json` was read: name, duration, tokens and result come
  // only from it (null in the output otherwise, never guessed).
  bool has_run_file() const { return !run.path.empty(); }
};

struct WorkflowList {
  uint64_t total = 0;
  std::vector<WorkflowRow> rows;
};

// Newest first; the same filters as run_subagents (time: the run's time inside the range).
WorkflowList run_workflows(IndexReader& reader, const Filters& filters);

struct WorkflowAgentRow {
  WorkflowAgentRec agent;  // the run file's entry (phase, label, model, state …) and/or its transcript's count
  std::optional<SubagentRec> transcript;  // the agent's transcript facts (tokens, model, times)
};

struct WorkflowPhase {
  std::string title;  // empty: agents with no phase
  std::vector<WorkflowAgentRow> agents;
};

struct WorkflowTree {
  WorkflowRow run;
  std::vector<WorkflowPhase> phases;  // in order of their first agent
};

// One run by id or unique id prefix. Throws BadInput "unknown-workflow" when nothing matches and
// "ambiguous-workflow" (naming the candidates) when several runs do.
WorkflowTree run_workflow(IndexReader& reader, std::string_view run_id);

// ---- overview ------------------------------------------------------------------------------------

struct OverviewOptions {
  std::string project;  // --project: substring of a project slug or path (case-insensitive)
  std::string cwd;      // else the project whose path is this directory or one of its ancestors
  size_t sessions = 5;  // recent sessions of the current project
  size_t projects = 10;  // projects listed, most recently active first
  size_t memories = 20;  // memories of the current project
};

struct ProjectSummary {
  std::string project, project_path;
  uint64_t sessions = 0, messages = 0;
  int64_t last_activity = 0;  // the newest session's ended_at
  std::vector<std::string> agents;  // agents with sessions in it, first seen first
};

struct AgentTotals {
  std::string agent;
  uint64_t sessions = 0, messages = 0;
};

struct Overview {
  std::optional<ProjectSummary> current;
  std::string matched_by;  // "project" | "cwd" | "" (no current project)
  std::string cwd;         // the directory matched (when by cwd)
  std::vector<SessionRec> recent_sessions;
  // The current project's active memories, newest first, at most OverviewOptions::memories of
  // memories_total.
  std::vector<memory::Record> memories;
  uint64_t memories_total = 0;
  uint64_t projects_total = 0;
  std::vector<ProjectSummary> projects;
  std::vector<AgentTotals> agents;  // claude, omp, pi, codex always, then any other
  uint64_t sessions_total = 0, messages_total = 0;
};

// Walks the session records once (newest first by sess_by_time), never a message.
Overview run_overview(IndexReader& reader, const OverviewOptions& options);

// The time of tool call `tool_use_id` of session `sid` (0 when it is not stored).
int64_t tool_call_time(const IndexReader& reader, std::string_view sid, std::string_view tool_use_id);

}  // namespace osearch
