#include "scheduling/framework/topology_index.hpp"

#include <algorithm>

namespace scheduling::framework {

namespace {

// Renumbering a column costs a pass over its values and slots; it waits until the ids of
// values no node has any more outnumber the live ones (and are more than a few), so that
// node churn costs amortised constant time per change.
constexpr std::uint32_t kMinDeadValues = 64;

// The first column whose key is not before `key` (columns are sorted by key).
template <typename Columns>
auto lowerBound(Columns& columns, std::string_view key) {
  return std::lower_bound(
      columns.begin(), columns.end(), key,
      [](const TopologyIndex::Column& c, std::string_view k) { return c.key().compare(k) < 0; });
}

}  // namespace

void TopologyIndex::Column::set(NodeSlot slot, TopologyValueId id) {
  if (slot >= bySlot_.size()) bySlot_.resize(static_cast<std::size_t>(slot) + 1, kAbsent);
  const TopologyValueId old = bySlot_[slot];
  if (old == id) return;
  bySlot_[slot] = id;
  if (old != kAbsent) {
    --slotsWithAnyValue_;
    if (--slotsWithValue_[old] == 0) --liveValues_;
  }
  if (id != kAbsent) {
    ++slotsWithAnyValue_;
    if (id >= slotsWithValue_.size()) slotsWithValue_.resize(static_cast<std::size_t>(id) + 1, 0);
    if (slotsWithValue_[id]++ == 0) ++liveValues_;
  }
}

void TopologyIndex::Column::compactIfMostlyDead() {
  const std::uint32_t dead = numValues() - liveValues_;
  if (dead <= std::max(kMinDeadValues, liveValues_)) return;
  StringTable values;
  std::vector<TopologyValueId> renumbered(numValues(), kAbsent);
  std::vector<std::uint32_t> slotsWithValue;
  for (TopologyValueId id = 0; id < numValues(); ++id) {
    if (slotsWithValue_[id] == 0) continue;
    renumbered[id] = values.intern(values_.at(id));
    slotsWithValue.push_back(slotsWithValue_[id]);
  }
  for (TopologyValueId& id : bySlot_) {
    if (id != kAbsent) id = renumbered[id];
  }
  values_ = std::move(values);
  slotsWithValue_ = std::move(slotsWithValue);
}

const TopologyIndex::Column* TopologyIndex::column(std::string_view key) const {
  auto it = lowerBound(columns_, key);
  return it != columns_.end() && it->key() == key ? &*it : nullptr;
}

TopologyIndex::Column& TopologyIndex::columnFor(std::string_view key) {
  auto it = lowerBound(columns_, key);
  if (it == columns_.end() || it->key() != key) it = columns_.emplace(it, std::string(key));
  return *it;
}

void TopologyIndex::setNode(NodeSlot slot, const api::Labels& labels) {
  for (const auto& [key, value] : labels) {
    Column& column = columnFor(key);
    column.set(slot, column.values_.intern(value));
  }
  // Keys the node had and lost. Labels and columns are both sorted by key: one merge pass.
  auto label = labels.begin();
  for (Column& column : columns_) {
    while (label != labels.end() && (*label).first < column.key()) ++label;
    if (label == labels.end() || (*label).first != column.key()) column.set(slot, kAbsent);
    column.compactIfMostlyDead();  // a replaced value may be gone too
  }
}

void TopologyIndex::removeNode(NodeSlot slot) {
  for (Column& column : columns_) {
    column.set(slot, kAbsent);
    column.compactIfMostlyDead();
  }
}

TopologyValue TopologyKey::valueOfLabels(const api::Labels& labels) const {
  const auto value = labels.get(name_);
  if (!value) return {};
  if (column_ != nullptr) {
    if (const TopologyValueId id = column_->find(*value); id != TopologyIndex::kUnknown) {
      return {id, {}};
    }
  }
  return {TopologyIndex::kUnknown, *value};
}

}  // namespace scheduling::framework
