// Claude's `progress` lines repeat a running subagent's messages in the parent's transcript
// (Message::from_progress). Where the subagent's own transcript exists its lines are the messages,
// and the copies are dropped; where it is missing (a copied project often lacks it) the copies are
// all there is.
#pragma once

#include <string>
#include <string_view>

namespace osearch {

// Whether subagent `agent_id` of the Claude transcript at `parent_path` (<dir>/<session>.jsonl) has
// a transcript of its own: <dir>/<session>/subagents/agent-<id>.jsonl (2.1.17 on), or
// <dir>/agent-<id>.jsonl (the older layout). An id that is no plain file name (it comes from the
// JSON) names none.
bool subagent_transcript_exists(std::string_view parent_path, std::string_view agent_id);

}  // namespace osearch
