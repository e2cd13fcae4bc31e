// Memory objects as every command prints them (memory commands, keyword hits, overview).
#pragma once

#include "cli/json_writer.h"
#include "engine/query/query.h"
#include "memory/memory.h"

namespace osearch {

// {id, path, project, summary, session_id, message_start, message_end, anchors, created_at,
//  deleted_at, deleted_reason} (the last two null while active).
void write_memory_fields(JsonWriter& w, const memory::Record& r);
void write_memory_json(JsonWriter& w, const memory::Record& r);
// A keyword hit that is a memory: kind "memory", the memory's fields, then snippet,
// matched_terms, time (= created_at), content_type "memory", score, match_count.
void write_memory_hit(JsonWriter& w, const Hit& h);
void print_memory_hit_text(const Hit& h, bool color);

}  // namespace osearch
