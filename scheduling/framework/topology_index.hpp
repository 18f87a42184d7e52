#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/api/labels.hpp"
#include "scheduling/framework/string_table.hpp"
#include "scheduling/framework/types.hpp"

namespace scheduling::framework {

// The number of one label value among the values that one label key takes on the nodes of
// a snapshot: dense, so that plugins count topology domains in arrays rather than in maps
// of strings.
using TopologyValueId = std::uint32_t;

// The label values of a snapshot's nodes, interned per label key into columns indexed by
// node slot (NodeInfo::slot()).
//
// InterPodAffinity counts pods per topology domain — (key, value) pairs such as (zone, z1)
// or (hostname, node-17) — and looks the counts up for every node a request sends. Keyed by
// strings, each lookup read the node's label slots and bytes and hashed the value: most of
// Filter's and Score's time at 5,000 nodes. Here a node's domain under a key is one array
// read, and a count one more.
//
// The Cache keeps one index up to date as nodes come, go and change labels, and publishes an
// immutable copy with each snapshot whose nodes changed; snapshots share it otherwise. Ids of
// values no node has any more stay reserved until the dead ones outnumber the live ones,
// when the column is renumbered (in the Cache's copy; published copies never change).
class TopologyIndex {
 public:
  // The node has no label with the column's key.
  static constexpr TopologyValueId kAbsent = std::numeric_limits<TopologyValueId>::max();
  // The node has the key, with a value no node of the index has (a node whose labels a
  // request overrides, see TopologyKey::valueOf): no count of the snapshot is ever there.
  static constexpr TopologyValueId kUnknown = kAbsent - 1;

  // One label key: each slot's value id, and the values.
  class Column {
   public:
    explicit Column(std::string key) : key_(std::move(key)) {}

    const std::string& key() const { return key_; }
    // Ids are below this: the size of an array indexed by value id.
    std::uint32_t numValues() const { return values_.size(); }
    TopologyValueId at(NodeSlot slot) const {
      return slot < bySlot_.size() ? bySlot_[slot] : kAbsent;
    }
    // kUnknown when no node has (or had) this value.
    TopologyValueId find(std::string_view value) const {
      const std::uint32_t id = values_.find(value);
      return id == StringTable::kNotFound ? kUnknown : id;
    }
    std::string_view value(TopologyValueId id) const { return values_.at(id); }
    // Every value is one node's (as kubernetes.io/hostname's are): two nodes are in the
    // same domain only if they are the same node.
    bool oneSlotPerValue() const { return slotsWithAnyValue_ == liveValues_; }
    // The nodes that have the key.
    std::uint32_t nodesWithKey() const { return slotsWithAnyValue_; }

   private:
    friend class TopologyIndex;
    void set(NodeSlot slot, TopologyValueId id);
    void compactIfMostlyDead();

    std::string key_;
    StringTable values_;
    std::vector<TopologyValueId> bySlot_;
    std::vector<std::uint32_t> slotsWithValue_;  // by value id
    std::uint32_t liveValues_ = 0;               // ids with at least one slot
    std::uint32_t slotsWithAnyValue_ = 0;        // slots whose id is not kAbsent
  };

  // The column of `key`; nullptr when no node has (or had) a label with that key.
  const Column* column(std::string_view key) const;
  std::span<const Column> columns() const { return columns_; }

  // The node at `slot` now has `labels` (replacing whatever it had).
  void setNode(NodeSlot slot, const api::Labels& labels);
  // The slot holds no node any more.
  void removeNode(NodeSlot slot);

 private:
  Column& columnFor(std::string_view key);

  std::vector<Column> columns_;  // sorted by key
};

// A node's value under one topology key, as TopologyKey::valueOf reads it: an id of the
// key's column, or kAbsent, or kUnknown with the value's text (only then: a known value is
// named by its id alone).
struct TopologyValue {
  TopologyValueId id = TopologyIndex::kAbsent;
  std::string_view unknownText;

  bool present() const { return id != TopologyIndex::kAbsent; }
  bool known() const { return id < TopologyIndex::kUnknown; }
  bool operator==(const TopologyValue&) const = default;
};

// A topology key as one scheduling cycle reads it: the key and its column in the cycle's
// snapshot, found once per cycle.
class TopologyKey {
 public:
  // `name` must outlive the key when no node has it (the column's copy is used otherwise).
  TopologyKey(std::string_view name, const TopologyIndex& index)
      : column_(index.column(name)),
        name_(column_ != nullptr ? std::string_view(column_->key()) : name) {}

  std::string_view name() const { return name_; }
  // nullptr when no node of the snapshot has the key.
  const TopologyIndex::Column* column() const { return column_; }

  // The node's value under this key. A node of the cycle's snapshot (it has a slot) is read
  // from the column; a node whose labels a request overrides (no slot) from its labels.
  TopologyValue valueOf(const NodeInfo& node) const {
    if (node.slot() != kNoSlot) return valueAt(node.slot());
    return valueOfLabels(node.labels());
  }
  // The value of the snapshot's node at `slot`.
  TopologyValue valueAt(NodeSlot slot) const {
    return {column_ != nullptr ? column_->at(slot) : TopologyIndex::kAbsent, {}};
  }
  // The text of a value this key gave.
  std::string_view text(const TopologyValue& value) const {
    return value.known() ? column_->value(value.id) : value.unknownText;
  }

  // The same key: the same column, or both without one and the same name.
  bool operator==(const TopologyKey& other) const {
    return column_ == other.column_ && (column_ != nullptr || name_ == other.name_);
  }

 private:
  TopologyValue valueOfLabels(const api::Labels& labels) const;

  const TopologyIndex::Column* column_;
  std::string_view name_;
};

}  // namespace scheduling::framework
