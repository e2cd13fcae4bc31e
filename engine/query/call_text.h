// The text of one tool call, as `files` reads a shell command for the paths it names.
//
// A call's record keeps its input as JSON with every string leaf cut to kMaxInputLeafBytes
// (ingest/json_fields.h); the message text holds the leaves whole, after the call's name, but also
// the message's prose and its other calls. So the call's text is its record's leaves decoded (JSON
// escapes undone: `C:\\Users` is `C:\Users`), and only where a leaf was cut is its whole form taken
// from the message text, between that leaf's start and the next anchor of a later leaf or call.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "engine/store/records_store.h"

namespace osearch {

class CallTextReader {
 public:
  // `calls`: the calls made in the message holding `call`, in the order of its tool_call_ids (the
  // order the adapters wrote their text in); `call` among them.
  std::string text(const ToolCallRec& call, std::string_view message_text, const std::vector<const ToolCallRec*>& calls);

  struct Leaf {  // a string of the call's input, in the order collect_strings wrote it
    std::string text;  // decoded; without the mark when cut
    bool cut = false;
  };

 private:
  std::optional<std::vector<Leaf>> leaves_of(const ToolCallRec& call);

  simdjson::dom::parser parser_;  // one for every call read
};

}  // namespace osearch
