// Background writing of fresh shard databases (see ShardWrite in text_index.h).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "engine/store/errors.h"
#include "engine/index/text_index.h"
#include "engine/store/trace.h"
#include "ingest/worker_thread.h"

namespace osearch {
namespace fs = std::filesystem;
namespace {
constexpr size_t kRun = 16;  // documents taken at a time
}  // namespace

ShardWrite::ShardWrite(std::string index_dir, std::span<const MessageDoc> docs, std::vector<std::string> names)
    : index_dir_(std::move(index_dir)), docs_(docs), names_(std::move(names)) {
  errors_.resize(names_.size());
  fingerprints_.resize(names_.size());
  for (size_t t = 0; t < names_.size(); ++t) threads_.push_back(start_worker(&ShardWrite::write, this, t));
}

ShardWrite::~ShardWrite() {
  for (auto& th : threads_)
    if (th.joinable()) th.join();
}

void ShardWrite::wait() {
  for (auto& th : threads_)
    if (th.joinable()) th.join();
  for (auto& e : errors_)
    if (e) std::rethrow_exception(e);
}

void ShardWrite::write(size_t t) {
  try {
    PhaseTimer timer(t == 0 ? "shard0" : "shard1");
    const std::string dir = index_dir_ + "/" + names_[t];
    DocBuilder builder;
    Xapian::WritableDatabase shard(dir, Xapian::DB_CREATE | Xapian::DB_NO_SYNC | Xapian::DB_NO_TERMLIST);
    // The threads take small runs of documents from a shared counter, so they finish together
    // however unevenly the documents cost (a fixed split by text volume left one core idle ~10 %
    // of each batch). Which shard a document lands in does not matter: each is a new message.
    for (;;) {
      const size_t begin = next_.fetch_add(kRun, std::memory_order_relaxed);
      if (begin >= docs_.size()) break;
      const size_t end = std::min(docs_.size(), begin + kRun);
      for (size_t i = begin; i < end; ++i) {
        shard.add_document(builder.message(docs_[i]));
        fingerprints_[t].push_back(uuid_term_fingerprint(builder.uuid_term()));
      }
    }
    timer.mark("add");
    shard.commit();
    shard.close();
    timer.mark("commit");
    restrict_permissions(dir);
    // One fsync pass per file once written: the shard must be durable before LMDB names it.
    for (const auto& e : fs::directory_iterator(dir)) {
      int fd = ::open(e.path().c_str(), O_RDONLY | O_CLOEXEC);
      if (fd >= 0) {
        const int rc = ::fdatasync(fd), err = errno;
        ::close(fd);
        if (rc != 0) throw_write_error(err, "fdatasync", e.path().string());
      }
    }
    timer.mark("sync");
  } catch (...) {
    errors_[t] = std::current_exception();
  }
}

}  // namespace osearch
