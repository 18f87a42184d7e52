#pragma once

#include <cstddef>
#include <functional>
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

}  // namespace plugins::interpodaffinity
