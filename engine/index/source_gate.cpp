#include "engine/index/source_gate.h"

#include <cstdio>

#include "engine/index/inotify_watch.h"
#include "engine/index/source_watch.h"
#include "engine/index/watch_beat.h"

namespace osearch {
namespace {

// As `index --watch`: what inotify cannot see is found by a full check at least this often.
constexpr int64_t kFullCheckNs = 30'000'000'000;

// A sixteenth of the user's inotify watch limit: room for several servers and the user's editors.
size_t default_max_watches() {
  size_t limit = 8192;  // the kernel's old default, when the limit cannot be read
  if (std::FILE* f = std::fopen("/proc/sys/fs/inotify/max_user_watches", "r")) {
    unsigned long v = 0;
    if (std::fscanf(f, "%lu", &v) == 1 && v > 0) limit = v;
    std::fclose(f);
  }
  return limit / 16;
}

}  // namespace

SourceGate::SourceGate(const std::string& index_dir, size_t max_watches)
    : own_dir_(absolute_dir(index_dir)), max_watches_(max_watches ? max_watches : default_max_watches()) {}
SourceGate::~SourceGate() = default;

bool SourceGate::prepare(std::string_view record) {
  distrust();
  if (!inotify_) inotify_ = std::make_unique<InotifyWatch>();
  if (!inotify_->ok() || !inotify_->drain(own_dir_)) return false;
  const std::vector<std::string> dirs = source_watch_dirs(record);
  if (dirs.empty() || dirs.size() > max_watches_) return false;
  prepared_at_ = boottime_ns();
  if (!inotify_->sync(dirs).complete) return false;
  state_ = State::Prepared;
  return true;
}

std::optional<std::set<std::string>> SourceGate::changes(std::string_view record) {
  const bool usable = state_ == State::Trusted && record == record_ && boottime_ns() - full_check_at_ <= kFullCheckNs;
  distrust();
  if (!usable) return std::nullopt;
  InotifyWatch::Changes seen;
  if (!inotify_->drain(own_dir_, &seen) || seen.other) return std::nullopt;
  if (seen.files.empty()) {
    state_ = State::Trusted;  // nothing happened: the record still holds
    return std::set<std::string>();
  }
  state_ = State::Pending;
  return std::set<std::string>(seen.files.begin(), seen.files.end());
}

void SourceGate::trust(std::string_view record) {
  if (state_ == State::Prepared)
    full_check_at_ = prepared_at_;
  else if (state_ != State::Pending)
    return;
  state_ = State::Trusted;
  record_.assign(record);
}

}  // namespace osearch
