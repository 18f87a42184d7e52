#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace scheduling::api {

// Labels is a label map (metav1.ObjectMeta.Labels) kept as a vector sorted by key: label
// sets are small, lookups are binary searches, and iteration order is deterministic.
class Labels {
 public:
  using Entry = std::pair<std::string, std::string>;

  Labels() = default;
  Labels(std::initializer_list<Entry> entries) {
    for (const auto& [k, v] : entries) set(k, v);
  }

  // Returns the value of key, or nullptr when the key is absent (an empty value is a value).
  const std::string* get(std::string_view key) const {
    auto it = lowerBound(key);
    return it != entries_.end() && it->first == key ? &it->second : nullptr;
  }
  bool has(std::string_view key) const { return get(key) != nullptr; }

  // Inserts or overwrites; a later duplicate key wins, as Go's JSON decoder does for maps.
  void set(std::string key, std::string value) {
    // Objects from the API server list their labels sorted by key (Go marshals maps that
    // way), so decoding mostly appends: one comparison instead of a binary search.
    if (entries_.empty() || entries_.back().first < key) {
      entries_.emplace_back(std::move(key), std::move(value));
      return;
    }
    auto it = lowerBound(key);
    if (it != entries_.end() && it->first == key) {
      it->second = std::move(value);
    } else {
      entries_.emplace(it, std::move(key), std::move(value));
    }
  }

  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }
  bool operator==(const Labels&) const = default;

 private:
  std::vector<Entry>::iterator lowerBound(std::string_view key) {
    return std::lower_bound(entries_.begin(), entries_.end(), key,
                            [](const Entry& e, std::string_view k) { return e.first < k; });
  }
  std::vector<Entry>::const_iterator lowerBound(std::string_view key) const {
    return std::lower_bound(entries_.begin(), entries_.end(), key,
                            [](const Entry& e, std::string_view k) { return e.first < k; });
  }

  std::vector<Entry> entries_;
};

}  // namespace scheduling::api
