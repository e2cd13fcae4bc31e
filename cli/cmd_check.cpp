// `osearch check`: the engine's report (engine/query/check.h), printed. Read-only: no refresh, no lock.
#include <cstdio>

#include "cli/commands.h"
#include "cli/json_writer.h"
#include "engine/query/check.h"

namespace osearch {

void print_check_parts(JsonWriter& w, const std::vector<CheckPart>& parts) {
  w.begin_array();
  for (const auto& p : parts) {
    w.begin_object();
    w.key("part"); w.value(p.part);
    w.key("ok"); w.value(p.ok);
    if (!p.ok) {
      w.key("problem"); w.value(p.problem);
    }
    if (!p.detail.empty()) {
      w.key("detail"); w.value(p.detail);
    }
    w.end_object();
  }
  w.end_array();
}

int cmd_check(const Context& ctx) {
  const CheckReport r = check_index(ctx.index_dir);
  if (ctx.format == Format::Text) {
    for (const auto& p : r.parts) {
      if (p.ok)
        std::printf("ok       %s%s%s%s\n", p.part.c_str(), p.detail.empty() ? "" : " (", p.detail.c_str(), p.detail.empty() ? "" : ")");
      else
        std::printf("DAMAGED  %s: %s\n", p.part.c_str(), p.problem.c_str());
    }
    std::printf(r.ok ? "index is sound\n" : "index is damaged: `osearch index --full` rebuilds what it derives from the sources\n");
  } else {
    JsonWriter w;
    w.begin_object();
    w.key("action"); w.value("check");
    w.key("index_dir"); w.value(ctx.index_dir);
    w.key("ok"); w.value(r.ok);
    w.key("parts");
    print_check_parts(w, r.parts);
    w.end_object();
    std::printf("%s\n", w.str().c_str());
  }
  return r.ok ? 0 : 1;
}

}  // namespace osearch
