#include "scheduling/framework/string_table.hpp"

#include <algorithm>
#include <stdexcept>

namespace scheduling::framework {

std::uint32_t StringTable::find(std::string_view s, std::uint64_t hash) const {
  if (slots_.empty()) return kNotFound;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const std::uint64_t slot = slots_[i];
    if (slot == 0) return kNotFound;
    if ((slot >> 32) == tagOf(hash) && equalStrings(at(idOf(slot)), s)) return idOf(slot);
  }
}

std::uint32_t StringTable::intern(std::string_view s) {
  const std::uint64_t hash = hashString(s);
  if (const std::uint32_t id = find(s, hash); id != kNotFound) return id;
  // Offsets are 32-bit: four gigabytes of node names or label values is no real cluster.
  if (text_.size() + s.size() >= kNotFound) throw std::length_error("StringTable: text too large");
  const std::uint32_t id = size();
  text_.append(s);
  offsets_.push_back(static_cast<std::uint32_t>(text_.size()));
  // At most half full, so that probe sequences stay short.
  if (2 * (static_cast<std::size_t>(id) + 1) > slots_.size()) {
    grow();
  } else {
    insertSlot(id, hash);
  }
  return id;
}

void StringTable::insertSlot(std::uint32_t id, std::uint64_t hash) {
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = hash & mask;
  while (slots_[i] != 0) i = (i + 1) & mask;
  slots_[i] = (static_cast<std::uint64_t>(tagOf(hash)) << 32) | (id + 1);
}

void StringTable::grow() {
  slots_.assign(slots_.empty() ? 16 : 2 * slots_.size(), 0);
  for (std::uint32_t id = 0; id < size(); ++id) insertSlot(id, hashString(at(id)));
}

}  // namespace scheduling::framework
