#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "scheduling/framework/string_table.hpp"
#include "scheduling/framework/types.hpp"

namespace scheduling::cache {

// Node name → slot for the nodes of a snapshot: how a request finds the NodeInfo of every
// node it names. Built by the Cache when the set of nodes changes and shared by the
// snapshots in between, instead of a hash map of every name rebuilt by every publish. The
// names are copied into one table so that a lookup reads the table and the name's bytes,
// not the NodeInfo and the Node it belongs to.
class NodeNameIndex {
 public:
  void add(std::string_view name, framework::NodeSlot slot) {
    const std::uint32_t id = names_.intern(name);
    if (id == slots_.size()) slots_.push_back(slot);
  }
  // kNoSlot for a name no node has.
  framework::NodeSlot find(std::string_view name) const { return slotOf(names_.find(name)); }

  // Finds the names of one request, a block at a time. Names are numbered in the Cache's
  // node order, which is kube-scheduler's own node tree order (zones round-robin), and
  // kube-scheduler sends its feasible nodes in that order from a rotating start, chunk by
  // chunk of its parallel filter: the next name is nearly always the next node, checked
  // first, across blocks too.
  class Cursor {
   public:
    explicit Cursor(const NodeNameIndex& index) : index_(index) {}
    // The slots of `names` into `slots` (as many), kNoSlot for a name no node has. Each
    // lookup ends in the index's slot table, at a place the name's number gives: its line
    // starts loading a few names ahead.
    void findAll(std::span<const std::string_view> names, std::span<framework::NodeSlot> slots) {
      last_ = index_.names_.findAll(names, slots, last_);
      constexpr std::size_t kAhead = 8;
      for (std::size_t i = 0; i < slots.size(); ++i) {
        if (i + kAhead < slots.size() && slots[i + kAhead] < index_.slots_.size()) {
          __builtin_prefetch(&index_.slots_[slots[i + kAhead]]);
        }
        slots[i] = index_.slotOf(slots[i]);
      }
    }

   private:
    const NodeNameIndex& index_;
    std::uint32_t last_ = framework::StringTable::kNotFound;
  };

 private:
  framework::NodeSlot slotOf(std::uint32_t id) const {
    return id == framework::StringTable::kNotFound ? framework::kNoSlot : slots_[id];
  }

  framework::StringTable names_;
  std::vector<framework::NodeSlot> slots_;  // by name id
};

}  // namespace scheduling::cache
