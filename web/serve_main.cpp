// osearch-serve: the web app's server (`osearch serve` execs it). The global options of osearch
// (--index, --source, --no-refresh, --format for errors) and the serve options.
#include <CLI/CLI.hpp>
#include <sys/stat.h>
#include <unistd.h>
#include <xapian.h>

#include <cstdio>

#include "cli/cmd_serve.h"
#include "cli/options.h"
#include "cli/verbatim_args.h"
#include "engine/store/errors.h"
#include "engine/store/index_damage.h"
#include "web/http_server.h"

using namespace osearch;

namespace {

Context error_context(const std::string& format) {
  Context c;
  if (format == "json" || format == "jsonl") c.format = Format::Json;
  else if (format == "text") c.format = Format::Text;
  else c.format = ::isatty(STDOUT_FILENO) ? Format::Text : Format::Json;
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  ::umask(077);  // a refresh writes the index: files 0600, dirs 0700
  CLI::App app{"osearch-serve: the osearch web app (run it as `osearch serve`)", "osearch serve"};
  GlobalOptions g;
  app.add_option("--index", g.index, "index directory (default $OSEARCH_INDEX, $XDG_DATA_HOME/osearch)");
  app.add_option("--source", g.sources, "KIND=DIR source root (repeatable)");
  app.add_option("--format", g.format, "json|jsonl|text: how errors are printed");
  app.add_flag("--no-refresh", g.no_refresh, "answer from the index without reading new transcript bytes");
  app.add_flag("-q,--quiet", g.quiet, "less output");
  app.add_flag("-v,--verbose", g.verbose, "log each request (method, path, status) to stderr");
  ServeArgs sa;
  add_serve_options(&app, sa);
  restore_verbatim_values(app);

  try {
    app.parse(protect_arguments(argc, argv));
    Context ctx = resolve_context(g);
    web::ServeOptions o;
    if (!sa.host.empty()) o.host = sa.host;
    if (!sa.port.empty()) o.port = static_cast<int>(parse_count("--port", sa.port, 0, 65535));
    o.token = sa.token;
    o.open = sa.open;
    web::check_serve_options(o);
    return web::run_web_server(ctx, o);
  } catch (const CLI::CallForHelp&) {
    std::printf("%s", app.help().c_str());
    return 0;
  } catch (const CLI::ParseError& e) {
    Context c = error_context(g.format);
    report_error(&c, "usage", unmark_message(e.what()));
    return 2;
  } catch (const BadInput& e) {
    Context c = error_context(g.format);
    report_error(&c, e.kind, e.what());
    return 2;
  } catch (const std::exception& e) {
    Context c = error_context(g.format);
    report_error(&c, "error", e.what());
    return 1;
  }
}
