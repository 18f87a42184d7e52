#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "scheduling/api/labels.hpp"

namespace plugins::interpodaffinity {

// A (topology key, topology value) pair (topologyPair upstream). The views point into strings
// that live for the whole scheduling cycle: the label entries of the snapshot's nodes.
struct TopologyPair {
  std::string_view key;
  std::string_view value;
  bool operator==(const TopologyPair&) const = default;
};

inline std::size_t hashTopologyPair(std::string_view key, std::string_view value) noexcept {
  const std::size_t h = std::hash<std::string_view>{}(key);
  // boost::hash_combine's mixing step: keeps (a, b) and (b, a) apart.
  return h ^ (std::hash<std::string_view>{}(value) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

struct TopologyPairHash {
  std::size_t operator()(const TopologyPair& p) const noexcept {
    return hashTopologyPair(p.key, p.value);
  }
};

// The label entry of `key` (views of strings owned by `labels`), or nothing when absent. Keys
// and values of topology maps are taken from here rather than from the terms, so they point
// into the node objects of the snapshot, which outlive the cycle.
inline std::optional<scheduling::api::Labels::Entry> findLabel(
    const scheduling::api::Labels& labels, std::string_view key) {
  auto it = std::lower_bound(
      labels.begin(), labels.end(), key,
      [](const scheduling::api::Labels::Entry& e, std::string_view k) { return e.first < k; });
  if (it == labels.end()) return std::nullopt;
  const scheduling::api::Labels::Entry entry = *it;
  if (entry.first != key) return std::nullopt;
  return entry;
}

}  // namespace plugins::interpodaffinity
