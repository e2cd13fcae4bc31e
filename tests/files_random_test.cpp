// Random `files PATH` calls against a model of what each generated tool call touched. Sessions of
// file tools (paths written absolute, relative, `./`, with `..` or doubled slashes) and shell commands
// (paths absolute, relative to the cwd, quoted, with a line number, past a long command's cut), in
// messages that also hold prose and other calls naming other files. PATH is exact, `./`-relative or
// a suffix; filters and pages on top. The model knows which file each call names; osearch's answer
// must be exactly the calls naming a file that PATH stands for, oldest first.
#include <random>
#include <set>

#include "tests/synthetic_index.h"

#include "engine/query/files.h"
#include "tests/test_seed.h"

using namespace osearch;
using namespace osearch_test;

namespace {

const std::vector<std::string> kCwds = {"/w/alpha", "/w/beta", "/x/gamma"};
const std::vector<std::string> kDirs = {"/w/alpha/src", "/w/alpha/src/sub", "/w/alpha/xsrc", "/w/beta/src", "/x/gamma/lib"};
const std::vector<std::string> kNames = {"main.rs", "lib.rs", "main.rs.bak", "util.py", "a-b.test.ts", "data_v2.json",
                                         "Makefile"};

struct Call {
  std::string id, tool, session, cwd;
  int second = 0;                // its line's time, seconds from 2026-03-01T00:00Z
  std::set<std::string> files;   // absolute paths the call names
};

bool under(const std::string& path, const std::string& dir) {
  return path.size() > dir.size() + 1 && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/';
}

// A way to write `file` in a tool's file argument, run in `cwd`.
std::string file_arg_form(const std::string& file, const std::string& cwd, std::mt19937& rng) {
  const std::string dir = file.substr(0, file.rfind('/')), name = file.substr(file.rfind('/') + 1);
  switch (rng() % 5) {
    case 0: if (under(file, cwd)) return file.substr(cwd.size() + 1); break;
    case 1: if (under(file, cwd)) return "./" + file.substr(cwd.size() + 1); break;
    case 2: return dir + "/../" + dir.substr(dir.rfind('/') + 1) + "/" + name;
    case 3: return dir + "//" + name;
    default: break;
  }
  return file;
}

// A way to write `file` in a shell command run in `cwd`.
std::string command_form(const std::string& file, const std::string& cwd, std::mt19937& rng) {
  switch (rng() % 6) {
    case 0: if (under(file, cwd)) return file.substr(cwd.size() + 1); break;
    case 1: if (under(file, cwd)) return "./" + file.substr(cwd.size() + 1); break;
    case 2: return "'" + file + "'";
    case 3: return "\"" + file + "\"";
    case 4: return file + ":" + std::to_string(1 + rng() % 400);
    default: break;
  }
  return file;
}

std::string random_file(std::mt19937& rng) { return kDirs[rng() % kDirs.size()] + "/" + kNames[rng() % kNames.size()]; }

// Whether `file` is `suffix` or ends with it after a '/': what a suffix PATH stands for.
bool names_suffix(const std::string& file, const std::string& suffix) {
  return file == suffix || (file.size() > suffix.size() && file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0 &&
                            file[file.size() - suffix.size() - 1] == '/');
}

// Sessions of assistant lines, each with prose (naming files no call touches) and one to three calls.
struct Corpus {
  std::mt19937 rng;
  TempDir tmp{"files-random"};
  std::vector<Call> calls;
  std::vector<std::string> sids, cwds;
  int clock = 0;
  const std::string filler = std::string(300, 'y');  // past the 256 bytes a record keeps of a leaf

  explicit Corpus(unsigned seed) : rng(seed) {}

  std::string file_of(size_t s) const {
    std::string slug = cwds[s];
    std::replace(slug.begin(), slug.end(), '/', '-');
    return tmp / "claude/" + slug + "/" + sids[s] + ".jsonl";
  }

  std::string call_input(Call& c) {
    const unsigned kind = rng() % 6;
    if (kind < 3) {
      c.tool = std::vector<std::string>{"Read", "Edit", "Write"}[kind];
      const std::string file = random_file(rng);
      c.files.insert(file);
      return R"({"file_path":)" + json_string(file_arg_form(file, c.cwd, rng)) + "}";
    }
    c.tool = "Bash";
    std::string command = std::vector<std::string>{"cat", "wc -l", "grep -n foo", "head -5"}[rng() % 4];
    for (size_t n = rng() % 3; n > 0; --n) {
      const std::string file = random_file(rng);
      c.files.insert(file);
      command += " " + command_form(file, c.cwd, rng);
    }
    if (rng() % 4 == 0) command = "echo " + filler + " && " + command;
    if (rng() % 3 == 0) command += " | sort";
    return R"({"command":)" + json_string(command) + (rng() % 2 ? R"(,"description":"Look")" : "") + "}";
  }

  std::string lines(size_t s, int count) {
    std::string out;
    for (int m = 0; m < count; ++m) {
      clock += 1 + static_cast<int>(rng() % 3000);
      std::vector<std::string> blocks;
      if (rng() % 2)
        blocks.push_back(R"({"type":"text","text":)" +
                         json_string("Next I look at " + random_file(rng) + " and " + command_form(random_file(rng), cwds[s], rng)) +
                         "}");
      for (size_t k = 1 + rng() % 3; k > 0; --k) {
        Call c;
        c.id = "toolu_" + std::to_string(calls.size() + 100000);  // ids sort in the order written
        c.session = sids[s];
        c.cwd = cwds[s];
        c.second = clock;
        const std::string input = call_input(c);
        blocks.push_back(R"({"type":"tool_use","id":")" + c.id + R"(","name":")" + c.tool + R"(","input":)" + input + "}");
        calls.push_back(std::move(c));
      }
      std::string content;
      for (const std::string& b : blocks) content += (content.empty() ? "" : ",") + b;
      out += R"({"type":"assistant","cwd":")" + cwds[s] + R"(","sessionId":")" + sids[s] + R"(","uuid":"u)" +
             std::to_string(clock) + R"(","parentUuid":null,"timestamp":")" + iso_second(clock) +
             R"(","message":{"role":"assistant","id":"msg_)" + std::to_string(clock) + R"(","content":[)" + content + "]}}\n";
    }
    return out;
  }
};

}  // namespace

TEST_CASE("files: random paths and filters give the calls that name the file, oldest first", "[files][hardening]") {
  const uint32_t seed = osearch_test::test_seed(20261207);
  INFO("seed " << seed);
  Corpus corpus(seed);
  std::mt19937& rng = corpus.rng;
  std::vector<Call>& calls = corpus.calls;
  const std::vector<std::string>& sids = corpus.sids;
  for (int s = 0; s < 24; ++s) {
    corpus.sids.push_back(random_session_id(rng, s));
    corpus.cwds.push_back(kCwds[rng() % kCwds.size()]);
    write_file(corpus.file_of(s), corpus.lines(s, 6));
  }
  TempDir& tmp = corpus.tmp;
  REQUIRE(run_index(tmp / "index", {{"claude", tmp / "claude"}}, IndexOptions{}).bad_lines == 0);
  // A second run: sessions that grew, and sessions rewritten (read again whole: their old calls and
  // documents must not answer).
  for (int k = 0; k < 4; ++k) {
    const size_t s = rng() % sids.size();
    append_file(corpus.file_of(s), corpus.lines(s, 2));
  }
  for (int lines : {3, 9}) {  // shorter and longer than before
    const size_t s = rng() % sids.size();
    std::erase_if(calls, [&](const Call& c) { return c.session == sids[s]; });
    write_file(corpus.file_of(s), corpus.lines(s, lines));
  }
  REQUIRE(run_index(tmp / "index", {{"claude", tmp / "claude"}}, IndexOptions{}).bad_lines == 0);
  IndexReader reader(tmp / "index");

  int answered = 0;
  for (int round = 0; round < 400; ++round) {
    // PATH: a file some call names (or none does), written exact, ./-relative or as a suffix.
    const std::string file = random_file(rng);
    const std::string name = file.substr(file.rfind('/') + 1);
    std::string path, cwd = "/";
    std::optional<std::string> exact, suffix;
    switch (round % 4) {
      case 0: path = file; exact = file; break;
      case 1: path = name; suffix = name; break;
      case 2: {  // the name under its last one or two directories
        size_t cut = file.rfind('/');
        for (size_t k = 1 + rng() % 2; k > 0; --k) cut = file.rfind('/', cut - 1);
        path = file.substr(cut + 1);
        suffix = path;
        break;
      }
      default:
        cwd = kCwds[rng() % kCwds.size()];
        if (!under(file, cwd)) cwd = file.substr(0, file.find('/', 1));
        path = "./" + file.substr(cwd.size() + 1);
        exact = file;
        break;
    }
    FilterArgs args;
    if (round % 5 == 1) args.since = iso_second(static_cast<int>(rng() % corpus.clock));
    if (round % 7 == 2) args.until = iso_second(static_cast<int>(rng() % corpus.clock));
    if (round % 6 == 3) args.tool = {std::vector<std::string>{"bash", "Read", "edit"}[rng() % 3]};
    if (round % 9 == 4) args.session = {sids[rng() % sids.size()].substr(0, 2)};
    if (round % 8 == 5) args.project = {std::vector<std::string>{"alpha", "gamma"}[rng() % 2]};
    const Filters all = parse_filters(args, 0, 1000);

    std::vector<std::string> want;
    for (const Call& c : calls) {
      bool named = false;
      for (const std::string& f : c.files) named = named || (exact ? f == *exact : names_suffix(f, *suffix));
      if (!named) continue;
      if (all.since_ms && iso_second(c.second) < args.since) continue;
      if (all.until_ms && iso_second(c.second) >= args.until) continue;
      if (!args.tool.empty()) {
        std::string t = args.tool[0], n = c.tool;
        for (auto* s : {&t, &n}) std::transform(s->begin(), s->end(), s->begin(), [](unsigned char ch) { return std::tolower(ch); });
        if (t != n) continue;
      }
      if (!args.session.empty() && !c.session.starts_with(args.session[0])) continue;
      if (!args.project.empty() && c.cwd.find(args.project[0]) == std::string::npos) continue;
      want.push_back(c.id);
    }
    INFO("round " << round << " path " << path << " cwd " << cwd << " since " << args.since << " until " << args.until
                  << " tool " << (args.tool.empty() ? "-" : args.tool[0]) << " session "
                  << (args.session.empty() ? "-" : args.session[0]) << " project "
                  << (args.project.empty() ? "-" : args.project[0]));
    // Pages of 4, then the rest: together the whole answer, each page with the same total.
    std::vector<std::string> got;
    for (size_t offset = 0, limit = 4;; offset += limit) {
      if (offset == 8) limit = 1000;
      args.limit = limit;
      args.offset = offset;
      const FilesResult r = run_files(reader, parse_filters(args, 0, 1000), FilesOptions{path, cwd, true});
      CHECK_FALSE(r.truncated);
      CHECK(r.total == want.size());
      for (const FileTouch& t : r.hits) got.push_back(t.call.id);
      if (r.hits.size() < limit) break;
    }
    CHECK(got == want);
    answered += !want.empty();
  }
  CHECK(answered > 150);  // most PATHs are named by some call
}
