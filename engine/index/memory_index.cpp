#include "engine/index/memory_index.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "engine/index/schema.h"
#include "engine/index/text_index.h"
#include "engine/store/errors.h"
#include "engine/store/index_damage.h"

namespace osearch {
namespace fs = std::filesystem;
namespace {

constexpr size_t kMaxFileBytes = size_t{4} << 20;  // a memory is a note: past 4 MiB the rest is not indexed
constexpr const char* kGenerationKey = "memory_generation";
// The schema whose terms the documents hold (engine/index/schema.h): a tokenizer or fold change
// bumps it, and the documents are built again, as the rebuild does for the messages' own.
constexpr const char* kTermsKey = "memory_terms";
std::string terms_version() { return std::to_string(kSchemaVersion); }

// What a refresh compares: a file edited in place changes size or mtime, a file replaced by a
// rename changes inode. "" when it cannot be stat'ed (gone).
std::string stat_signature(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  return std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) +
         ":" + std::to_string(st.st_ino);
}

std::string unique_term(std::string_view id) { return std::string(prefix::kUnique) + "memory/" + std::string(id); }

Xapian::Document memory_document(DocBuilder& builder, const memory::Record& r) {
  Xapian::Document doc;
  const std::string sig = stat_signature(r.path);  // before the read: a change after it is seen next time
  // The file's words after the summary's, past a run of positions no phrase spans: both had started
  // at position 1, so a phrase could run from a summary's word into the file's next one.
  constexpr uint32_t kPartsApart = 64;
  const uint32_t summary_positions = builder.add_text(doc, r.summary, true);
  if (auto text = memory::read_text(r.path, kMaxFileBytes)) builder.add_text(doc, *text, true, summary_positions + kPartsApart);
  builder.add_text(doc, r.path, false);
  doc.add_boolean_term(unique_term(r.id));
  doc.add_boolean_term(boolean_term(prefix::kType, "memory"));
  if (!r.project.empty()) doc.add_boolean_term(boolean_term(prefix::kProject, r.project));
  if (!r.active()) doc.add_boolean_term(std::string(kMemoryDeletedTerm));
  doc.add_value(kSlotTime, time_value(r.created_at));
  doc.add_value(kSlotSession, "memory/" + r.id);  // never a session number (session_numbers.h)
  doc.add_value(kSlotKey, "");
  doc.add_value(kSlotMemory, r.id);
  doc.add_value(kSlotMemorySig, sig);
  return doc;
}

// Exclusive flock on <index>/memories-text.lock, waiting: memory writes are short.
class TextLock {
 public:
  explicit TextLock(const std::string& index_dir) {
    const std::string path = index_dir + "/memories-text.lock";
    fd_ = open_index_file(path, O_RDWR | O_CREAT);
    if (fd_ < 0) throw_write_error(errno, "open", path);
    while (::flock(fd_, LOCK_EX) != 0)
      if (errno != EINTR) throw std::runtime_error("flock " + path + ": " + std::strerror(errno));
  }
  ~TextLock() { ::close(fd_); }
  TextLock(const TextLock&) = delete;
  TextLock& operator=(const TextLock&) = delete;

 private:
  int fd_ = -1;
};

// Active memories whose file changed since their document was made.
std::vector<const memory::Record*> changed_files(const Xapian::Database& db, const std::vector<memory::Record>& records) {
  std::vector<const memory::Record*> out;
  for (const auto& r : records) {
    if (!r.active()) continue;
    const std::string term = unique_term(r.id);
    Xapian::PostingIterator p = db.postlist_begin(term);
    if (p == db.postlist_end(term) || db.get_document(*p).get_value(kSlotMemorySig) != stat_signature(r.path))
      out.push_back(&r);
  }
  return out;
}

bool current(const Xapian::Database& db, uint64_t generation) {
  return db.get_metadata(kGenerationKey) == std::to_string(generation) && db.get_metadata(kTermsKey) == terms_version();
}

}  // namespace

bool memory_text_current(const Xapian::Database& db, uint64_t generation) {
  try {
    return current(db, generation);
  } catch (const Xapian::Error&) {
    return false;
  }
}

std::string memory_text_dir(const std::string& index_dir) { return index_dir + "/memories-text"; }

std::optional<Xapian::Database> open_memory_text(const std::string& index_dir) {
  const std::string dir = memory_text_dir(index_dir);
  refuse_symlink(dir, "memories-text");
  if (!fs::exists(dir + "/iamglass")) return std::nullopt;
  try {
    return Xapian::Database(dir);
  } catch (const Xapian::Error&) {
    return std::nullopt;  // derived data: the next writer rebuilds it
  }
}

MemorySyncResult sync_memory_index(const std::string& index_dir, const MemoryStore& store, bool refresh_files) {
  MemorySyncResult result;
  if (!store.exists()) return result;
  try {
    MemoryStore::Snapshot snap(store);
    if (auto db = open_memory_text(index_dir); db && current(*db, snap.generation())) {
      if (!refresh_files || changed_files(*db, snap.all()).empty()) return result;
    }
  } catch (const Xapian::Error&) {
    // unreadable: rebuilt below
  }
  TextLock lock(index_dir);
  MemoryStore::Snapshot snap(store);  // after the lock: the newest state, which the last writer writes
  const std::vector<memory::Record> records = snap.all();
  const uint64_t generation = snap.generation();
  const std::string dir = memory_text_dir(index_dir);
  refuse_symlink(dir, "memories-text");
  Xapian::WritableDatabase db;
  bool rebuild = false;
  try {
    if (fs::exists(dir) && !fs::exists(dir + "/iamglass")) fs::remove_all(dir);  // never committed
    db = Xapian::WritableDatabase(dir, Xapian::DB_CREATE_OR_OPEN);
    rebuild = !current(db, generation);
  } catch (const Xapian::DatabaseError&) {  // damaged: derived data, start again
    std::error_code ec;
    fs::remove_all(dir, ec);
    db = Xapian::WritableDatabase(dir, Xapian::DB_CREATE_OR_OPEN);
    rebuild = true;
  }
  DocBuilder builder;
  if (rebuild) {
    // Only the memories the commits since the indexed generation changed, when the log says which.
    const std::string had = db.get_metadata(kGenerationKey);
    std::optional<std::vector<std::string>> changed;
    if (!had.empty() && had.find_first_not_of("0123456789") == std::string::npos && had.size() < 20 &&
        db.get_metadata(kTermsKey) == terms_version())  // (other terms: every document again)
      changed = snap.changed_since(std::stoull(had));
    if (changed) {
      for (const auto& id : *changed)
        if (auto r = snap.get(id)) db.replace_document(unique_term(id), memory_document(builder, *r));
      rebuild = false;
      result.updated = changed->size();
    }
  }
  if (rebuild) {
    std::vector<std::string> old;
    const std::string pfx = unique_term("");
    for (auto t = db.allterms_begin(pfx); t != db.allterms_end(pfx); ++t) old.push_back(*t);
    for (const auto& t : old) db.delete_document(t);
    for (const auto& r : records) db.add_document(memory_document(builder, r));
    result.rebuilt = true;
  } else {
    for (const memory::Record* r : changed_files(db, records)) {
      db.replace_document(unique_term(r->id), memory_document(builder, *r));
      ++result.files_reread;
    }
  }
  db.set_metadata(kGenerationKey, std::to_string(generation));
  db.set_metadata(kTermsKey, terms_version());
  db.commit();
  db.close();
  restrict_permissions(dir);
  return result;
}

}  // namespace osearch
