// Transcript text made safe to print on a terminal (--format text and every stderr message).
// Transcripts hold whatever a tool printed: "ESC ]2;…" retitles the terminal, "ESC [2J" clears it,
// U+202E reverses the rest of the line. Shown escaped instead:
//   C0 controls and DEL           \x1b  (tab, newline, carriage return: see LineBreaks)
//   C1 controls U+0080–U+009F     \u0085
//   bidi controls                 \u202e  (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069)
//   bytes that are not UTF-8      \xff
// The printers' own colour escapes are added after this, so they are never escaped.
#pragma once

#include <string>
#include <string_view>

namespace osearch {

enum class LineBreaks {
  AsSpace,  // one-line fields (titles, snippets, project names, messages): \t \n \r become a space
  Visible,  // paths and commands, where a space would misstate the value: \t \n \r shown as \t \n \r
};

std::string terminal_safe(std::string_view text, LineBreaks breaks = LineBreaks::AsSpace);

// How a warning starts, on stderr and where a frontend passes it on (`osearch mcp`'s tool results).
inline constexpr std::string_view kWarningPrefix = "osearch: warning: ";
// kWarningPrefix and `line` on stderr, the line terminal-safe with its breaks visible (it names paths).
void print_warning(std::string_view line);

}  // namespace osearch
