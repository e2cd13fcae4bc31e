// Reads an LMDB data file's two meta pages without mapping it, so a damaged file is named instead of
// crashing the process: LMDB maps data.mdb and trusts its meta, so a truncated file (pages past its
// end) is a SIGBUS on first touch, and a garbage meta page sends it to random page numbers.
#pragma once

#include <string>

namespace osearch {

// "" when `env_dir`/data.mdb is missing or its meta pages are sound and every page they claim
// (last page, both B-tree roots) lies inside the file or, past its end, on the free list only;
// otherwise what is wrong, in words.
std::string lmdb_data_problem(const std::string& env_dir);

}  // namespace osearch
