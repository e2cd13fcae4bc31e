// Background writing of fresh shard databases (see ShardWrite in text_index.h).
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include "engine/text_index.h"
#include "engine/trace.h"

namespace osearch {
namespace fs = std::filesystem;

ShardWrite::ShardWrite(std::string index_dir, std::span<const MessageDoc> docs, std::vector<std::string> names)
    : index_dir_(std::move(index_dir)), docs_(docs), names_(std::move(names)) {
  const size_t n = names_.size();
  // Split by text volume so the threads finish together.
  uint64_t total = 0;
  for (const auto& d : docs_) total += d.text.size() + 512;
  cuts_.push_back(0);
  uint64_t acc = 0;
  for (size_t i = 0; i < docs_.size() && cuts_.size() < n; ++i) {
    acc += docs_[i].text.size() + 512;
    if (acc >= total * cuts_.size() / n) cuts_.push_back(i + 1);
  }
  while (cuts_.size() <= n) cuts_.push_back(docs_.size());
  cuts_.back() = docs_.size();
  errors_.resize(n);
  for (size_t t = 0; t < n; ++t) threads_.emplace_back(&ShardWrite::write, this, t);
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
    for (size_t i = cuts_[t]; i < cuts_[t + 1]; ++i) shard.add_document(builder.message(docs_[i]));
    timer.mark("add");
    shard.commit();
    shard.close();
    timer.mark("commit");
    restrict_permissions(dir);
    // One fsync pass per file once written: the shard must be durable before LMDB names it.
    for (const auto& e : fs::directory_iterator(dir)) {
      int fd = ::open(e.path().c_str(), O_RDONLY | O_CLOEXEC);
      if (fd >= 0) {
        ::fdatasync(fd);
        ::close(fd);
      }
    }
    timer.mark("sync");
  } catch (...) {
    errors_[t] = std::current_exception();
  }
}

}  // namespace osearch
