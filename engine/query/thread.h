// `thread`, `context` and `trace`: reading one session in order, and walking back from one message
// to what caused it. Answered from LMDB and the text log only: a session's messages are one key
// range of `messages` (never a scan of all messages), a uuid is found through `msg_uuid`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/query/query.h"
#include "engine/query/reader.h"
#include "engine/store/records_store.h"

namespace osearch {

// The session an id or id prefix names. The id is matched as users see it (SessionRec::shown_id:
// an omp/pi/Codex session "<id>@<agent>" is typed as "<id>", or with its "@<agent>"): one session
// whose id equals it exactly wins, else the one session it is a prefix of. Throws BadInput
// "unknown-session" when none, "ambiguous-session" (listing the candidates) when several.
SessionRec resolve_session(const IndexReader& reader, std::string_view typed);

struct ToolResultView {
  std::string tool_use_id, tool_name, message_uuid;
  bool is_error = false;
  bool found = false;       // a result is stored for the call
  std::string_view text;    // the text of the message holding the result (joined results): see MessageView
  bool truncated = false;   // text cut to max_chars
};

struct ToolCallView {
  std::string id, name, input_json, file_path;
  ToolResultView result;  // result.found false while the call has no stored result
};

// The texts are views into the reader's text log (cut to a prefix when asked): a view lives as long
// as the IndexReader that made it. A 1,500-message thread's texts are megabytes; they are written
// out straight from the mapping, never copied.
struct MessageView {
  MessageRec rec;
  std::string_view text;
  bool truncated = false;
  std::vector<ToolCallView> tool_calls;      // calls this message made, each joined with its result
  std::vector<ToolResultView> tool_results;  // a tool message: the calls it answers (no text: it is `text`)
};

// One stored message with its text (cut to `max_chars` characters; 0 = whole), its tool calls
// joined with their results, or, for a tool message, the calls it answers.
MessageView load_message_view(const IndexReader& reader, MessageRec rec, size_t max_chars);
// `text` cut to at most `max_chars` code points (0 = whole) on a character boundary: a prefix of it.
std::string_view cut_view(std::string_view text, size_t max_chars, bool& truncated);
inline std::string cut_chars(std::string_view text, size_t max_chars, bool& truncated) {
  return std::string(cut_view(text, max_chars, truncated));
}

// How a message of a chain was reached from the one after it.
enum class ChainLink : uint8_t { Parent, LogicalParent };
// Why an ancestor walk stopped.
enum class ChainEnd : uint8_t {
  Root,           // the oldest message has neither a parent nor a logical parent
  MissingParent,  // the next uuid is not a message of the session (a line that is not stored)
  Cycle,          // a uuid came back: the chain loops and is cut there
  DepthLimit,     // more ancestors than asked for
};
const char* chain_end_name(ChainEnd e);

struct ChainStep {
  MessageView message;
  // context (nearest first): the link the walk followed to reach this step from the one before it;
  // trace (root first): the link from this step to the one before it (unused on the root).
  ChainLink via = ChainLink::Parent;
};

struct Chain {
  std::vector<ChainStep> steps;  // nearest first (context) or root first (trace)
  ChainEnd end = ChainEnd::Root;
  std::string missing_uuid;  // the uuid the walk could not find (MissingParent, Cycle)
};

struct ThreadOptions {
  bool include_meta = false;
  size_t max_chars = 0;  // 0 = full text
  size_t offset = 0;
  size_t limit = 0;      // 0 = every message from offset on
  std::string around;    // a message uuid: the window around it instead of offset/limit
  size_t window = 10;
};

struct ThreadResult {
  SessionRec session;
  std::vector<MessageView> messages;
  uint64_t total = 0;       // messages of the session that pass include_meta
  uint64_t first_index = 0; // position of messages[0] among them
  bool truncated = false;   // more messages than returned
};

ThreadResult run_thread(const IndexReader& reader, std::string_view session, const ThreadOptions& o);

struct ContextOptions {
  std::string session;     // restrict to this session (id or prefix)
  size_t max_chars = 0;    // for the message and every ancestor; 0 = full text
  size_t depth = 100;      // ancestors at most
};

struct ContextMatch {
  SessionRec session;
  MessageView message;
  Chain ancestors;  // nearest first
  std::optional<SubagentRec> subagent;
  std::optional<WorkflowRec> workflow;
  std::optional<WorkflowAgentRec> workflow_agent;
};

struct ContextResult {
  std::string uuid;
  std::vector<ContextMatch> matches;  // one per session holding the uuid (forks and resumes copy history)
};

// Throws BadInput "unknown-message" when no session (or not the --session one) holds the uuid.
ContextResult run_context(const IndexReader& reader, std::string_view uuid, const ContextOptions& o);

struct TraceMatch {
  SessionRec session;
  Chain chain;  // root first, the message itself last
};
struct TraceResult {
  std::string uuid;
  std::vector<TraceMatch> matches;
};

TraceResult run_trace(const IndexReader& reader, std::string_view uuid, const ContextOptions& o);

}  // namespace osearch
