#pragma once

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

  // Finds the names of one request in turn. Names are numbered in the Cache's node order,
  // which is kube-scheduler's own node tree order (zones round-robin), and kube-scheduler
  // sends its feasible nodes in that order from a rotating start, chunk by chunk of its
  // parallel filter: the next name is nearly always the next node, checked first.
  class Cursor {
   public:
    explicit Cursor(const NodeNameIndex& index) : index_(index) {}
    framework::NodeSlot find(std::string_view name) {
      const std::uint32_t id = index_.names_.findNext(name, last_);
      if (id != framework::StringTable::kNotFound) last_ = id;
      return index_.slotOf(id);
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
