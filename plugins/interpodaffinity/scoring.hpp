#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "plugins/interpodaffinity/topology.hpp"
#include "scheduling/framework/cycle_state.hpp"
#include "scheduling/framework/types.hpp"

// PreScore / Score state of InterPodAffinity (scoring.go upstream).
namespace plugins::interpodaffinity {

inline constexpr std::string_view kPreScoreStateKey = "PreScoreInterPodAffinity";

// scoreMap: topology key → topology value → summed weight. There are few distinct keys per
// cycle, so they sit in a vector; Score then looks each key up in the node's sorted labels.
// Keys and values view the label entries of the snapshot's nodes.
class TopologyScore {
 public:
  using ValueScores = std::unordered_map<std::string_view, std::int64_t>;

  // processTerm's update: `amount` at (key, node's value of key) when the node has the key.
  // The entry is created even when amount is 0, as `m[k][v] += 0` does upstream.
  void add(const scheduling::api::Labels& nodeLabels, std::string_view topologyKey,
           std::int64_t amount);

  bool empty() const { return keys_.empty(); }
  // Σ over the map's keys k that the node has of map[k][node's value].
  std::int64_t scoreFor(const scheduling::api::Labels& nodeLabels) const;
  const std::vector<std::pair<std::string_view, ValueScores>>& entries() const { return keys_; }

 private:
  std::vector<std::pair<std::string_view, ValueScores>> keys_;
};

// preScoreState.
class PreScoreState final : public scheduling::framework::StateData {
 public:
  TopologyScore topologyScore;

  std::unique_ptr<scheduling::framework::StateData> clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

}  // namespace plugins::interpodaffinity
