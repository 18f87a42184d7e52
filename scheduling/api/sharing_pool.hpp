#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace scheduling::api {

// Hands out one shared copy of each distinct value among many holders: what a million cached
// pods repeat (their parsed affinity terms, their label sets) is kept once per workload. The
// pool only remembers values (weak references): a value lives as long as a holder holds it,
// and forgotten entries are swept once they outnumber live ones.
//
// Thread-safe, on a lock of its own: pods are made ready for the cache on the threads that
// decode them (Cache::preparePod), outside the cache's lock, so that what sharing frees is
// freed where it was allocated. The shared values are immutable while shared.
template <typename T>
class SharingPool {
 public:
  // The pool's copy of a value equal to `value`, whose hash is `hash`; `value` becomes that
  // copy when there is none.
  std::shared_ptr<T> share(std::shared_ptr<T> value, std::size_t hash) {
    std::lock_guard lock(mu_);
    auto& bucket = byHash_[hash];
    for (const auto& entry : bucket) {
      if (auto live = entry.lock(); live && *live == *value) return live;
    }
    bucket.push_back(value);
    if (++size_ >= sweepAt_) sweep();
    return value;
  }

  // Values remembered, live or not (for tests).
  std::size_t size() const {
    std::lock_guard lock(mu_);
    return size_;
  }

 private:
  // Drops the entries of values no holder holds any more; the next sweep comes when the pool
  // has doubled again, so sweeping costs O(1) per share() amortised.
  void sweep() {
    size_ = 0;
    for (auto it = byHash_.begin(); it != byHash_.end();) {
      std::erase_if(it->second, [](const auto& entry) { return entry.expired(); });
      size_ += it->second.size();
      it = it->second.empty() ? byHash_.erase(it) : std::next(it);
    }
    sweepAt_ = std::max<std::size_t>(1024, 2 * size_);
  }

  mutable std::mutex mu_;
  std::unordered_map<std::size_t, std::vector<std::weak_ptr<T>>> byHash_;
  std::size_t size_ = 0;
  std::size_t sweepAt_ = 1024;
};

}  // namespace scheduling::api
