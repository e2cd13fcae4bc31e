// Real Claude Code transcripts that several test files use, named once: paths relative to a Claude
// projects root (tests/data/claude or the shared corpus) and their session ids. One definition per
// name, because the tests compile in unity groups where two same-named constants would clash.
#pragma once

#include <string>

namespace osearch_test {

inline const std::string kAlex = "-Users-alex-workspace-cli/1b3e6441-62e3-4b41-8a0c-9d252f531f7a.jsonl";
inline const std::string kPosh = "D--oh-my-posh/88e16f61-d1b7-47a3-84f1-057e0f96521a.jsonl";
inline const std::string kWindows = kPosh;  // the Windows-path project, named for what a test checks
inline const std::string kSoph = "-Users-soph-Work-entire-devenv-cli/97007e37-53bd-4456-9a49-c0f8081081a7.jsonl";
inline const std::string kGlued = "-Users-soph-Work-entire-devenv-cli/130d7b7e-5801-4345-9bd6-f32fd9b8429b.jsonl";
inline const std::string kSpotterA = "-home-marco-projects-spotter/d6e0bada-1959-4eec-a9d2-0bfade768d8f.jsonl";
inline const std::string kSpotterB = "-home-marco-projects-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl";
inline const std::string kSample = "sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl";
inline const std::string kBlameDir = "-Users-cjm-repos-ai-blame-test";

inline const std::string kAlexId = "1b3e6441-62e3-4b41-8a0c-9d252f531f7a";
inline const std::string kPoshId = "88e16f61-d1b7-47a3-84f1-057e0f96521a";
inline const std::string kSophId = "97007e37-53bd-4456-9a49-c0f8081081a7";
inline const std::string kSpotterAId = "d6e0bada-1959-4eec-a9d2-0bfade768d8f";
inline const std::string kSpotterBId = "55604662-cf2a-4331-851a-ec234028f8ca";
inline const std::string kSampleId = "1af7fc5e-8455-4414-9ccd-011d40f70b2a";
inline const std::string kBlameId = "2c965cfd-41e4-4e31-8339-2986ebced03c";

}  // namespace osearch_test
