// The Xapian side of the store: one document per message (plus one per session title), its terms
// from engine/tokenizer, boolean filter terms and value slots. Doc data stays empty: the text lives
// in the text log and the record in LMDB (value slot kSlotKey holds the LMDB message key).
#pragma once

#include <xapian.h>

#include <memory>
#include <string>
#include <string_view>

#include "engine/records_store.h"
#include "engine/tokenizer.h"

namespace osearch {

// Boolean term prefixes (Omega convention: Q = unique id, X… = custom).
namespace prefix {
inline constexpr std::string_view kUnique = "Q";
inline constexpr std::string_view kSession = "XS";
inline constexpr std::string_view kProject = "XP";
inline constexpr std::string_view kAgent = "XA";
inline constexpr std::string_view kRole = "XR";
inline constexpr std::string_view kType = "XT";
inline constexpr std::string_view kTool = "XK";
inline constexpr std::string_view kModel = "XM";
inline constexpr std::string_view kBranch = "XB";
inline constexpr std::string_view kHidden = "XHIDDEN";  // meta or command: hidden unless --include-meta
inline constexpr std::string_view kTitleDoc = "XTITLE";
inline constexpr std::string_view kNoPositions = "XNOPOS";  // indexed without positions (tool I/O, thinking)
}  // namespace prefix

inline constexpr Xapian::valueno kSlotTime = 0;     // be64(sortable ms)
inline constexpr Xapian::valueno kSlotSession = 1;  // session id: the collapse key
inline constexpr Xapian::valueno kSlotKey = 2;      // LMDB message key ("" for title docs)

// A boolean term, lower-cased, hashed when it would pass Xapian's 245-byte term limit.
std::string boolean_term(std::string_view pfx, std::string_view value);
std::string time_value(int64_t ms);

class TextIndexWriter {
 public:
  // Opens or creates the Xapian database at `path` (waits for a stale lock of a dead writer).
  explicit TextIndexWriter(const std::string& path);
  void add_message(const MessageRec& m, std::string_view text, const SessionRec& s,
                   const std::vector<std::string>& tool_names);
  void set_session_title(const SessionRec& s);
  void delete_session(std::string_view session_id);
  void commit();
  void reset();  // drop every document (index --full)
  Xapian::doccount doc_count() const { return db_.get_doccount(); }

 private:
  void index_text(Xapian::Document& doc, std::string_view text, bool positions);
  std::string path_;
  Xapian::WritableDatabase db_;
  Tokenizer tokenizer_;
};

}  // namespace osearch
