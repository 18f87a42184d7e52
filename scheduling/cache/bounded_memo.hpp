#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace scheduling::cache {

// Answers remembered by a string key, shared by request threads: each is immutable once
// stored, and a caller keeps the one it found for as long as it reads it. Keys come from
// requests (a selector written out), so the number kept is bounded: at the bound, a new key
// makes the memo forget everything, which keeps it simple where a cluster's workloads carry
// far fewer keys than the bound.
template <typename Value>
class BoundedMemo {
 public:
  explicit BoundedMemo(std::size_t maxEntries) : maxEntries_(maxEntries) {}

  // Null when `key` is not remembered.
  std::shared_ptr<const Value> find(const std::string& key) const {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(key);
    return it != entries_.end() ? it->second : nullptr;
  }
  void store(std::string key, std::shared_ptr<const Value> value) {
    std::lock_guard lock(mutex_);
    if (entries_.size() >= maxEntries_ && !entries_.contains(key)) entries_.clear();
    entries_.insert_or_assign(std::move(key), std::move(value));
  }
  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
  }

 private:
  const std::size_t maxEntries_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const Value>> entries_;
};

}  // namespace scheduling::cache
