// The web app's pages (web/static/*), embedded at build time by web/embed_static.py.
#pragma once

#include <string_view>
#include <vector>

namespace osearch::web {

struct StaticFile {
  std::string_view path;          // "/index.html"
  std::string_view content_type;  // "text/html; charset=utf-8"
  std::string_view body;
};

const std::vector<StaticFile>& static_files();

}  // namespace osearch::web
