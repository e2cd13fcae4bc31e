// One reading of PCRE2's syntax for the content scan's decisions about a pattern: which of its
// characters stand outside character classes, escapes, \Q…\E quoting and (?#…) comments. The
// callers (looks_outside_match, the required literals) each err towards the slower path that is
// always right, so a construct this reading does not model must never make them err the other way.
#pragma once

#include <cstddef>
#include <string_view>

namespace osearch {

enum class RegexPiece {
  Char,     // a character outside every class (a comment "(?#…)" is reported at its '(' only)
  Escape,   // at its backslash: p[i+1], when there, is the escaped character (\cX takes one more)
  Quoted,   // \Q…\E at its backslash, to the pattern's end when \E is missing
};

// Where the POSIX class that opens at p[i] inside a character class ("[:alpha:]", "[.x.]",
// "[=x=]") ends (the index of its ']'), or npos when p[i] opens none. PCRE2's rule: its name runs
// to the first ":]" (".]", "=]") before any other ']'.
inline size_t posix_class_end(std::string_view p, size_t i) {
  if (i + 1 >= p.size() || p[i] != '[') return std::string_view::npos;
  const char t = p[i + 1];
  if (t != ':' && t != '.' && t != '=') return std::string_view::npos;
  for (size_t j = i + 2; j + 1 < p.size(); ++j) {
    if (p[j] == '\\' && (p[j + 1] == ']' || p[j + 1] == '\\')) ++j;
    else if ((p[j] == '[' && p[j + 1] == t) || p[j] == ']') return std::string_view::npos;
    else if (p[j] == t && p[j + 1] == ']') return j + 1;
  }
  return std::string_view::npos;
}

// Whether the inline option group at the start of `at` ("(?ix)", "(?x:", "(?-x)") names x, extended
// mode, in which '#' starts a comment and white space is nothing: a reading this walk does not follow.
inline bool sets_extended_mode(std::string_view at) {
  if (!at.starts_with("(?")) return false;
  for (size_t i = 2; i < at.size() && at[i] != ')' && at[i] != ':'; ++i) {
    if (at[i] == 'x') return true;
    const bool letter = (at[i] >= 'a' && at[i] <= 'z') || (at[i] >= 'A' && at[i] <= 'Z');
    if (!letter && at[i] != '-' && at[i] != '^') return false;
  }
  return false;
}

// Calls visit(i, piece) for each piece of `p` outside character classes, in order; escapes,
// quoting and POSIX names inside a class are stepped over with it. visit returns true to end the
// walk, and then so does this.
template <typename Visit>
bool walk_outside_classes(std::string_view p, Visit&& visit) {
  constexpr size_t npos = std::string_view::npos;
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\') {
      const char next = i + 1 < p.size() ? p[i + 1] : '\0';
      size_t last;  // the escape's last character
      if (next == 'Q') {
        const size_t e = p.find("\\E", i + 2);
        last = e == npos ? p.size() - 1 : e + 1;
      } else {
        last = i + (next == 'c' ? 2 : 1);  // \cX: X is never syntax (\c[ is ESC)
      }
      if (!in_class && visit(i, next == 'Q' ? RegexPiece::Quoted : RegexPiece::Escape)) return true;
      i = last;
      continue;
    }
    if (in_class) {
      if (const size_t e = posix_class_end(p, i); e != npos) i = e;
      else if (c == ']') in_class = false;
      continue;
    }
    if (c == '[') {
      in_class = true;
      if (i + 1 < p.size() && p[i + 1] == '^') ++i;
      if (i + 1 < p.size() && p[i + 1] == ']') ++i;  // a ']' first is literal
      continue;
    }
    if (visit(i, RegexPiece::Char)) return true;
    if (p.substr(i).starts_with("(?#")) {  // a comment: nothing in it is syntax, up to its ')'
      const size_t e = p.find(')', i + 3);
      i = e == npos ? p.size() : e;
    }
  }
  return false;
}

}  // namespace osearch
