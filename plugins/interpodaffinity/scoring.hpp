#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scheduling/framework/cycle_state.hpp"
#include "scheduling/framework/slot_set.hpp"
#include "scheduling/framework/topology_index.hpp"
#include "scheduling/framework/types.hpp"

// PreScore / Score state of InterPodAffinity (scoring.go upstream).
namespace plugins::interpodaffinity {

inline constexpr std::string_view kPreScoreStateKey = "PreScoreInterPodAffinity";

// scoreMap: topology key → topology value → summed weight, with the values of each key in
// an array indexed by the key's value ids in the snapshot's TopologyIndex, so that Score
// reads a node's score under a key with two array reads. A cycle has one to three keys.
class TopologyScore {
 public:
  using TopologyKey = scheduling::framework::TopologyKey;

  // processTerm's update: `amount` at a node's domain `value` under `key`, when the node
  // has the key. The key counts as present even when amount is 0, as `m[k][v] += 0` makes
  // it upstream.
  void add(const TopologyKey& key, const scheduling::framework::TopologyValue& value,
           std::int64_t amount);

  // add(key, key.valueAt(slot), amount) for each slot: the nodes of the pods one term
  // matches, with the key found once rather than per pod. With `onlyAt`, a slot outside it
  // is skipped once the key's scores exist: the caller knows no score read is in its domain.
  void addAtNodes(const TopologyKey& key, std::span<const scheduling::framework::NodeSlot> slots,
                  std::int64_t amount, const scheduling::framework::SlotSet* onlyAt = nullptr);
  // add(key, key.valueAt(slot), amountPerPod × n) for each node holding n pods that carry
  // one existing term; `onlyAt` as above.
  void addAtNodes(const TopologyKey& key,
                  std::span<const scheduling::framework::NodeTermCount> nodes,
                  std::int64_t amountPerPod,
                  const scheduling::framework::SlotSet* onlyAt = nullptr);

  bool empty() const { return keys_.empty(); }
  // Σ over the keys the node has of the score of its domain.
  std::int64_t scoreFor(const scheduling::framework::NodeInfo& node) const;
  // key → value → score, values with a non-zero score only: for tests and debugging.
  std::map<std::string, std::map<std::string, std::int64_t>> toMap() const;

 private:
  struct KeyScores {
    TopologyKey key;
    std::vector<std::int64_t> byValue;  // by value id of key's column
    // Domains the snapshot does not know (only for a node without a slot: PreScore visits
    // the snapshot's nodes, so in practice never).
    std::vector<std::pair<std::string_view, std::int64_t>> unknown;
  };
  // The scores under `key`, created empty. Valid until scores under another key are made.
  KeyScores& scoresOf(const TopologyKey& key);
  // add() of a snapshot node's value, whose key's scores `k` points at once found.
  void addAt(KeyScores*& k, const TopologyKey& key, scheduling::framework::NodeSlot slot,
             std::int64_t amount);
  // Whether addAtNodes passes over `slot`: outside `onlyAt`, once the key's scores `k` exist.
  static bool skips(const KeyScores* k, const scheduling::framework::SlotSet* onlyAt,
                    scheduling::framework::NodeSlot slot);

  std::vector<KeyScores> keys_;
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
