// `memory …`: each write prints only after its LMDB commit, so an exit 0 is a memory on disk.
#include "cli/cmd_memory.h"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/json_writer.h"
#include "cli/print_memory.h"
#include "cli/terminal_text.h"
#include "cli/verbatim_args.h"
#include "engine/index/tokenizer.h"
#include "engine/query/memories.h"
#include "ingest/timeutil.h"
#include "memory/jsonl.h"

namespace osearch {
namespace {

std::string current_dir() {
  std::error_code ec;
  auto p = std::filesystem::current_path(ec);
  return ec ? std::string("/") : p.string();
}

void emit(const Context& ctx, JsonWriter& w) { write_output(ctx, w.str()); }

void print_record_text(const memory::Record& r) {
  std::printf("%s  %s\n", r.id.c_str(), terminal_safe(r.summary).c_str());
  std::printf("  %s · %s%s\n", terminal_safe(r.path).c_str(), format_iso8601_ms(r.created_at).c_str(),
              r.active() ? "" : (" · forgotten: " + terminal_safe(r.deleted_reason)).c_str());
}

int print_one(const Context& ctx, const char* action, const memory::Record& r, const char* flag = nullptr, bool flag_value = false) {
  if (ctx.format == Format::Text) {
    print_record_text(r);
    if (flag && flag_value) std::printf("  (%s)\n", flag);
    return 0;
  }
  JsonWriter w;
  w.begin_object();
  w.key("action"); w.value(action);
  write_memory_fields(w, r);
  if (flag) {
    w.key(flag); w.value(flag_value);
  }
  w.end_object();
  emit(ctx, w);
  return 0;
}

int run_remember(const Context& ctx, const MemoryArgs& a) {
  RememberInput in{a.path, a.summary, a.session, a.start, a.end, a.project, a.anchors, current_dir()};
  return print_one(ctx, "memory_remember", remember_memory(ctx.index_dir, in, current_time_ms()));
}

int run_list(const Context& ctx, const MemoryArgs& a) {
  if (!ctx.no_refresh) refresh_memories(ctx.index_dir, true);
  MemoryListOptions o;
  o.query = a.query;
  o.all = a.all;
  for (const auto& p : a.projects) o.projects.push_back(ascii_lower(p));
  FilterArgs times;
  times.since = a.since;
  times.until = a.until;
  Filters f = parse_filters(times, current_time_ms(), 50);
  o.since_ms = f.since_ms;
  o.until_ms = f.until_ms;
  if (!a.limit.empty()) o.limit = parse_count("--limit", a.limit, 1, 100000);
  if (!a.offset.empty()) o.offset = parse_count("--offset", a.offset, 0, 1000000000);
  const MemoryList list = list_memories(ctx.index_dir, o);
  if (ctx.format == Format::Text) {
    for (const auto& m : list.items) {
      print_record_text(m.record);
      if (!m.snippet.empty()) std::printf("  %s\n", terminal_safe(m.snippet).c_str());
    }
    std::printf("%zu of %llu memories\n", list.items.size(), (unsigned long long)list.total);
    return 0;
  }
  auto item = [&](JsonWriter& w, const MemoryItem& m) {
    w.begin_object();
    write_memory_fields(w, m.record);
    if (!o.query.empty()) {
      w.key("score"); w.value(m.score);
      w.key("snippet"); w.value(m.snippet);
    }
    w.end_object();
  };
  // One envelope for both formats, so the JSON Lines summary reports `truncated` too.
  auto envelope = [&](JsonWriter& w) {
    w.key("action"); w.value("memory_list");
    w.key("query"); w.value(o.query);
    w.key("total"); w.value(list.total);
    w.key("returned"); w.value(static_cast<uint64_t>(list.items.size()));
    w.key("truncated"); w.value(o.offset + list.items.size() < list.total);
  };
  print_listing(ctx, "results", list.items, envelope, item);
  return 0;
}

int run_show(const Context& ctx, const MemoryArgs& a) {
  const MemoryDetail d = show_memory(ctx.index_dir, a.id);
  if (ctx.format == Format::Text) {
    print_record_text(d.record);
    if (!d.exists) std::printf("  (the file no longer exists)\n");
    else std::printf("\n%s\n", terminal_safe(d.text, LineBreaks::Visible).c_str());
    if (a.history)
      for (const auto& e : d.events)
        std::printf("  #%llu %s %s %s\n", (unsigned long long)e.seq, format_iso8601_ms(e.time).c_str(),
                    memory::action_name(e.action), terminal_safe(e.reason).c_str());
    return 0;
  }
  JsonWriter w;
  w.begin_object();
  w.key("action"); w.value("memory_show");
  write_memory_fields(w, d.record);
  w.key("exists"); w.value(d.exists);
  w.key("text");
  if (d.exists) w.value(d.text); else w.null();
  w.key("text_truncated"); w.value(d.text_truncated);
  if (a.history) {
    w.key("history");
    w.begin_array();
    for (const auto& e : d.events) {
      w.begin_object();
      w.key("seq"); w.value(e.seq);
      w.key("action"); w.value(memory::action_name(e.action));
      w.key("time"); w.value(format_iso8601_ms(e.time));
      w.key("reason");
      if (e.reason.empty()) w.null(); else w.value(e.reason);
      w.end_object();
    }
    w.end_array();
  }
  w.end_object();
  emit(ctx, w);
  return 0;
}

int run_export(const Context& ctx) {
  // Always JSON Lines: the file `memory import` reads.
  (void)ctx;
  for (const auto& x : export_memories(ctx.index_dir))
    std::printf("%s\n", memory::to_jsonl_line(x.record, x.events).c_str());
  return 0;
}

int run_import(const Context& ctx, const MemoryArgs& a) {
  std::string data;
  if (a.file == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    data = ss.str();
  } else {
    std::ifstream in(a.file, std::ios::binary);
    if (!in) throw UsageError("bad-import", "cannot read " + a.file);
    std::ostringstream ss;
    ss << in.rdbuf();
    data = ss.str();
  }
  // Every line is checked before anything is written: a bad file imports nothing.
  std::vector<memory::Exported> items;
  size_t line_no = 0;
  for (size_t pos = 0; pos < data.size();) {
    size_t nl = data.find('\n', pos);
    if (nl == std::string::npos) nl = data.size();
    std::string_view line(data.data() + pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.empty()) continue;
    try {
      items.push_back(memory::from_jsonl_line(line));
    } catch (const memory::InvalidMemory& e) {
      throw UsageError(e.kind, a.file + ":" + std::to_string(line_no) + ": " + e.what());
    }
  }
  const ImportReport rep = import_memories(ctx.index_dir, items, current_time_ms());
  if (ctx.format == Format::Text) {
    std::printf("%llu added, %llu unchanged, %llu conflicting\n", (unsigned long long)rep.added,
                (unsigned long long)rep.unchanged, (unsigned long long)rep.conflicting);
    for (const auto& id : rep.conflicting_ids) std::printf("  conflicting: %s (kept the index's version)\n", id.c_str());
    return 0;
  }
  JsonWriter w;
  w.begin_object();
  w.key("action"); w.value("memory_import");
  w.key("added"); w.value(rep.added);
  w.key("unchanged"); w.value(rep.unchanged);
  w.key("conflicting"); w.value(rep.conflicting);
  w.key("conflicting_ids");
  w.begin_array();
  for (const auto& id : rep.conflicting_ids) w.value(id);
  w.end_array();
  w.end_object();
  emit(ctx, w);
  return 0;
}

}  // namespace

void add_memory_commands(CLI::App& app, MemoryArgs& a) {
  a.root = app.add_subcommand("memory", "human-approved markdown memories: remember, forget, restore, list, show, export, import");
  a.root->require_subcommand(1);
  a.remember = a.root->add_subcommand("remember", "register an existing text/markdown file with a summary");
  a.remember->add_option("--path", a.path, "the file (relative: to the --session's project path, else the cwd)")->required();
  a.remember->add_option("--summary", a.summary, "what it says, in any language")->required();
  a.remember->add_option("--session", a.session, "the session it came from (id or prefix)");
  a.remember->add_option("--start", a.start, "first message uuid it covers");
  a.remember->add_option("--end", a.end, "last message uuid it covers");
  a.remember->add_option("--project", a.project, "project (default: the session's)");
  a.remember->add_option("--anchor", a.anchors, "KIND:PATH[:LINE] (repeatable)");
  a.forget = a.root->add_subcommand("forget", "archive a memory (the file is untouched)");
  a.forget->add_option("id", a.id, "memory id or unique prefix")->required();
  a.forget->add_option("--reason", a.reason, "why")->required();
  a.restore = a.root->add_subcommand("restore", "undo a forget");
  a.restore->add_option("id", a.id, "memory id or unique prefix")->required();
  a.list = a.root->add_subcommand("list", "active memories, newest first (ranked with --query)");
  a.list->add_option("--query", a.query, "keyword query over summaries and file texts");
  a.list->add_flag("--all", a.all, "archived (forgotten) memories too");
  a.list->add_option("--project", a.projects, "case-insensitive substring of the project or path");
  a.list->add_option("--since", a.since, "created at or after");
  a.list->add_option("--until", a.until, "created before");
  a.list->add_option("--limit", a.limit, "maximum results (default 50)");
  a.list->add_option("--offset", a.offset, "skip the first N results");
  a.show = a.root->add_subcommand("show", "one memory with its file's current text");
  a.show->add_option("id", a.id, "memory id or unique prefix")->required();
  a.show->add_flag("--history", a.history, "its audit trail");
  a.exporter = a.root->add_subcommand("export", "every memory (archived included) with its history, as JSON Lines");
  a.importer = a.root->add_subcommand("import", "load a `memory export` file (idempotent by id)");
  a.importer->add_option("file", a.file, "the file, or - for stdin")->required();
}

int cmd_memory_remember(const Context& ctx, const MemoryArgs& a) { return run_remember(ctx, a); }
int cmd_memory_list(const Context& ctx, const MemoryArgs& a) { return run_list(ctx, a); }
int cmd_memory_forget(const Context& ctx, const MemoryArgs& a) {
  MemoryChange c = forget_memory(ctx.index_dir, a.id, a.reason, current_time_ms());
  return print_one(ctx, "memory_forget", c.record, "already_deleted", !c.changed);
}

int cmd_memory_show(const Context& ctx, const MemoryArgs& a) { return run_show(ctx, a); }
int cmd_memory_restore(const Context& ctx, const MemoryArgs& a) {
  MemoryChange c = restore_memory(ctx.index_dir, a.id, current_time_ms());
  return print_one(ctx, "memory_restore", c.record, "already_active", !c.changed);
}

std::optional<int> run_memory_command(const Context& ctx, const MemoryArgs& a) {
  if (!a.root || !*a.root) return std::nullopt;
  if (*a.remember) return cmd_memory_remember(ctx, a);
  if (*a.forget) return cmd_memory_forget(ctx, a);
  if (*a.restore) return cmd_memory_restore(ctx, a);
  if (*a.list) return cmd_memory_list(ctx, a);
  if (*a.show) return run_show(ctx, a);
  if (*a.exporter) return run_export(ctx);
  if (*a.importer) return run_import(ctx, a);
  return 2;
}

}  // namespace osearch
