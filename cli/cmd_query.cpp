#include "cli/commands.h"
namespace osearch {
int cmd_keyword(const Context&, const SearchArgs&) { return 1; }
int cmd_content(const Context&, const SearchArgs&) { return 1; }
int cmd_list(const Context&, const SearchArgs&) { return 1; }
}
