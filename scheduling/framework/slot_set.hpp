#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "scheduling/framework/types.hpp"

namespace scheduling::framework {

// A set of node slots, a bit each: a snapshot's real nodes (those with a Node object; not
// ghosts, not free slots), the nodes with nominated pods, or the nodes a cycle scores.
//
// The walks over the pods a term matches ask the real-node set of every pod's slot. The
// NodeInfo table that answered before is 16 bytes a slot, 800 KB at 50,000 nodes: a cache
// miss per pod, on top of the topology value and the count each pod's slot leads to. Filter
// and Score ask the nominated set of every node they see, where the table of nominated
// queues (32 bytes a slot, 1.6 MB) missed for the many nodes without any. A set is 6 KB and
// stays in L1.
class SlotSet {
 public:
  SlotSet() = default;
  explicit SlotSet(std::span<const NodeSlot> slots) {
    for (const NodeSlot slot : slots) insert(slot);
  }

  void insert(NodeSlot slot) {
    const std::size_t word = slot / 64;
    if (word >= words_.size()) words_.resize(word + 1, 0);
    words_[word] |= std::uint64_t{1} << (slot % 64);
  }
  void erase(NodeSlot slot) {
    if (const std::size_t word = slot / 64; word < words_.size()) {
      words_[word] &= ~(std::uint64_t{1} << (slot % 64));
    }
  }

  bool contains(NodeSlot slot) const {
    const std::size_t word = slot / 64;
    return word < words_.size() && ((words_[word] >> (slot % 64)) & 1) != 0;
  }

 private:
  std::vector<std::uint64_t> words_;
};

}  // namespace scheduling::framework
