// Every source root's transcripts in one list, for a run's plan (engine/index/indexer.cpp).
#pragma once

#include <vector>

#include "engine/index/emptied_roots.h"
#include "engine/index/indexer.h"
#include "ingest/known_tree.h"
#include "ingest/source_file.h"

namespace osearch {

// The order a run reads files in: by path, Codex session indexes last (they title sessions the
// transcripts before them have made).
bool read_before(const SourceFile& a, const SourceFile& b);

// Lists every root (through `tree`, a relisting's known tree, when not null) and returns their
// transcripts, each file once: two roots may share one (Codex's session index) or reach it through
// links (omp profiles link their sessions dir to the default one). What discovery relied on is
// appended to `observed`; unreadable directories and files are counted and named in `summary`;
// `emptied` hears how much each root listed.
std::vector<SourceFile> discover_roots(const std::vector<SourceRoot>& roots, const KnownTree* tree,
                                       EmptiedRoots& emptied, IndexSummary& summary, std::vector<PathStat>& observed);

}  // namespace osearch
