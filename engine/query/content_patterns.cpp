// The patterns side of `content`: -F escaping, -w wrapping, the Hyperscan compile (kept in the
// pattern cache), the PCRE2 confirmation when Hyperscan cannot run a pattern exactly, and the
// literal prefilter (engine/query/literal_filter.h). The scan over the log is content_scan.cpp.
#include <algorithm>

#include "engine/query/content_scan.h"
#include "engine/query/pattern_cache.h"
#include "engine/query/query.h"
#include "engine/query/regex_syntax.h"

namespace osearch {
namespace {

// Metacharacters get a backslash; ASCII controls and DEL are written \xHH (Hyperscan's UTF-8 check
// refuses a raw DEL, though it is valid UTF-8).
std::string escape_literal(std::string_view s) {
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 15]);
      continue;
    }
    if (std::string_view("\\^$.|?*+()[]{}/-").find(c) != std::string_view::npos) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

// The expressions as Hyperscan and PCRE2 both read them: -F escaped, -w wrapped in \b…\b (unless
// `bare`: the pattern alone, whose matches are a superset of the whole-word ones).
std::vector<std::string> expressions(const ContentOptions& o, bool bare = false) {
  std::vector<std::string> exprs;
  for (const auto& p : o.patterns) {
    std::string expr = o.fixed ? escape_literal(p) : p;
    if (o.word && !bare) expr = "\\b(?:" + expr + ")\\b";
    exprs.push_back(std::move(expr));
  }
  return exprs;
}

enum class Mode { Exact, ExactWithStart, Prefilter };

// `cache_dir` ("" = none): the compiled database is looked up there first and kept there after a
// compile (engine/query/pattern_cache.h), and so is a refusal. nullptr when Hyperscan refuses the
// expressions, with its message in `error` (when given).
HsDatabase compile_hs(const ContentOptions& o, const std::vector<std::string>& exprs, Mode mode, std::string* error,
                      const std::string& cache_dir) {
  std::vector<unsigned> flags, ids;
  std::vector<const char*> cexprs;
  for (size_t i = 0; i < exprs.size(); ++i) {
    unsigned f = HS_FLAG_MULTILINE | HS_FLAG_ALLOWEMPTY | HS_FLAG_UTF8 | HS_FLAG_UCP;
    if (o.ignore_case) f |= HS_FLAG_CASELESS;
    if (mode == Mode::ExactWithStart) f |= HS_FLAG_SOM_LEFTMOST;
    if (mode == Mode::Prefilter) f |= HS_FLAG_PREFILTER;
    flags.push_back(f);
    ids.push_back(static_cast<unsigned>(i));
    cexprs.push_back(exprs[i].c_str());
  }
  std::string key;
  if (!cache_dir.empty()) {
    key = pattern_cache_key(cexprs.data(), flags.data(), ids.data(), static_cast<unsigned>(cexprs.size()), HS_MODE_BLOCK);
    bool refused = false;
    if (hs_database_t* cached = load_cached_database(cache_dir, key, &refused)) return HsDatabase(cached);
    if (refused) {
      if (error) *error = "refused before (kept in the pattern cache)";
      return nullptr;
    }
  }
  hs_database_t* db = nullptr;
  hs_compile_error_t* err = nullptr;
  const hs_error_t rc = hs_compile_multi(cexprs.data(), flags.data(), ids.data(), static_cast<unsigned>(cexprs.size()),
                                         HS_MODE_BLOCK, nullptr, &db, &err);
  if (rc != HS_SUCCESS) {
    const std::string message = err && err->message ? err->message : "unknown error";
    if (err) hs_free_compile_error(err);
    // A refusal of the pattern is the same the next time; a failure to allocate may not be.
    if (rc == HS_COMPILER_ERROR && message.find("memory") == std::string::npos && !cache_dir.empty())
      keep_refusal(cache_dir, key);
    if (error) *error = message;
    return nullptr;
  }
  if (!cache_dir.empty()) keep_cached_database(cache_dir, key, db);
  return HsDatabase(db);
}

// Patterns whose every match holds one of a few literals: the scan skips to the next of them.
void set_prefilter(ContentPatterns& c, const ContentOptions& o) {
  c.prefilter = LiteralSet::make(o.patterns, o.fixed, o.ignore_case);
}

// A literal PCRE2 and Hyperscan read alike, whose every byte is ASCII and printable.
bool ascii_literal(std::string_view p, bool fixed) {
  if (p.empty()) return false;
  for (char c : p) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) return false;
    if (!fixed && std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) return false;
  }
  return true;
}

}  // namespace

bool looks_outside_match(std::string_view p) {
  return walk_outside_classes(p, [p](size_t i, RegexPiece piece) {
    const std::string_view at = p.substr(i);
    switch (piece) {
      case RegexPiece::Quoted:
        return false;
      case RegexPiece::Escape:  // \b \B \A \z \Z \G, or a lone backslash at the end
        return at.size() < 2 || std::string_view("bBAzZG").find(at[1]) != std::string_view::npos;
      case RegexPiece::Char:
        if (at[0] == '^' || at[0] == '$') return true;
        if (at.starts_with("(?=") || at.starts_with("(?!") || at.starts_with("(?<=") || at.starts_with("(?<!"))
          return true;
        // Extended mode ((?x)) makes '#' start a comment and white space nothing, which this reading
        // does not follow: an anchor it placed inside a class could be outside.
        return sets_extended_mode(at);
    }
    return true;
  });
}

namespace {
// The scan for patterns PCRE2 decides (c.confirm): Hyperscan's prefilter, a superset of their
// matches. Hyperscan refuses some patterns PCRE2 runs even as a prefilter (\K, \R, \G, \N, an
// anchor inside the pattern, recursion, subroutine calls, branch reset, a pattern too large for it).
// The syntax is PCRE's, so those run on PCRE2 alone: a database that matches every entry at its start
// (the empty pattern; an empty entry too), each entry scanned alone and PCRE2 deciding it. The literal
// prefilter still skips the entries that cannot hold a match.
void scan_for_pcre2(ContentPatterns& c, const ContentOptions& o, const std::vector<std::string>& exprs,
                    const std::string& cache_dir) {
  c.scan = compile_hs(o, exprs, Mode::Prefilter, nullptr, cache_dir);
  if (c.scan) return;
  std::string error;
  c.scan = compile_hs(o, {std::string()}, Mode::Exact, &error, cache_dir);
  if (!c.scan) throw std::runtime_error("Hyperscan refused the empty pattern: " + error);
  c.per_entry = true;
}

// One scratch grown to serve both databases (allocated once, never in the scan path).
void alloc_scratch(ContentPatterns& c) {
  hs_scratch_t* raw = nullptr;
  if (hs_alloc_scratch(c.scan.get(), &raw) != HS_SUCCESS ||
      (c.with_start && hs_alloc_scratch(c.with_start.get(), &raw) != HS_SUCCESS) ||
      (c.word_literals && hs_alloc_scratch(c.word_literals.get(), &raw) != HS_SUCCESS)) {
    if (raw) hs_free_scratch(raw);
    throw std::runtime_error("hs_alloc_scratch failed");
  }
  c.scratch.reset(raw);
}
}  // namespace

ContentPatterns ContentPatterns::compile(const ContentOptions& o, const std::string& cache_dir) {
  ContentPatterns c;
  std::vector<std::string> exprs = expressions(o);
  if (o.word) {
    // -w: Hyperscan has no Unicode \b, and an entry-by-entry scan costs ~1 µs per message. The
    // bare pattern, scanned over the whole log like any other, finds every message a whole-word
    // match can be in (its framing bytes cannot hide one: no boundary is asked of them); PCRE2
    // decides each candidate with Unicode word boundaries and locates the snippet.
    const std::vector<std::string> bare = expressions(o, true);
    if (std::none_of(bare.begin(), bare.end(), [](const std::string& e) { return looks_outside_match(e); })) {
      std::string pcre_error;
      c.confirm = PcreMatcher::compile(exprs, o.patterns, o.ignore_case, pcre_error);
      if (!c.confirm) throw BadInput("bad-regex", pcre_error);
      c.scan = compile_hs(o, bare, Mode::Exact, nullptr, cache_dir);
      if (!c.scan) scan_for_pcre2(c, o, bare, cache_dir);
      // Literals (most -w queries): where each occurrence starts, so that the bytes around it
      // settle a whole word without PCRE2 wherever they are ASCII (`-i -w error` at 2 GB: PCRE2
      // spent ~0.9 µs a candidate on 53,000).
      if (std::all_of(o.patterns.begin(), o.patterns.end(), [&](const std::string& p) { return ascii_literal(p, o.fixed); }))
        c.word_literals = compile_hs(o, bare, Mode::ExactWithStart, nullptr, cache_dir);
      set_prefilter(c, o);
      alloc_scratch(c);
      return c;
    }
  }
  set_prefilter(c, o);
  c.per_entry = o.word || std::any_of(exprs.begin(), exprs.end(), [](const std::string& e) { return looks_outside_match(e); });
  c.scan = compile_hs(o, exprs, Mode::Exact, nullptr, cache_dir);
  if (c.scan) {
    // Snippets need where the first match starts. A SOM_LEFTMOST database would cost a second
    // Hyperscan compile (60-230 ms for \w or \s under UCP, or "Pattern is too large"); PCRE2 compiles
    // in microseconds and only runs on the shown hits. Hyperscan's SOM stays the fallback.
    std::string locate_error;
    c.locate = PcreMatcher::compile(exprs, o.patterns, o.ignore_case, locate_error);
    if (!c.locate) c.with_start = compile_hs(o, exprs, Mode::ExactWithStart, nullptr, cache_dir);
  } else {
    // Hyperscan cannot run it exactly: a prefilter finds a superset, PCRE2 decides; where it cannot
    // even prefilter, PCRE2 decides every entry. A pattern PCRE2 does not compile is reported with
    // PCRE2's message (the syntax is PCRE's).
    std::string pcre_error;
    c.confirm = PcreMatcher::compile(exprs, o.patterns, o.ignore_case, pcre_error);
    if (!c.confirm) throw BadInput("bad-regex", pcre_error);
    scan_for_pcre2(c, o, exprs, cache_dir);
  }
  alloc_scratch(c);
  return c;
}

}  // namespace osearch
