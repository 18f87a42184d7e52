#include "scheduling/framework/string_table.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace scheduling::framework {

template <typename Accept>
std::uint32_t StringTable::probe(std::uint64_t hash, Accept accept) const {
  if (slots_.empty()) return kNotFound;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const std::uint64_t slot = slots_[i];
    if (slot == 0) return kNotFound;
    if ((slot >> 32) == tagOf(hash) && accept(idOf(slot))) return idOf(slot);
  }
}

std::uint32_t StringTable::find(std::string_view s, std::uint64_t hash) const {
  return probe(hash, [&](std::uint32_t id) { return equalStrings(at(id), s); });
}

std::uint32_t StringTable::candidate(std::uint64_t hash) const {
  return probe(hash, [](std::uint32_t) { return true; });
}

std::uint32_t StringTable::findAll(std::span<const std::string_view> strings,
                                   std::span<std::uint32_t> ids, std::uint32_t previous) const {
  std::uint32_t last = previous;
  // Strings out of order come in runs (a sample of the nodes) or alone (a node filtered out
  // of a sequence): the batch grows with the run, so a lone one costs one lookup.
  std::size_t batch = 1;
  for (std::size_t i = 0; i < strings.size();) {
    const std::uint32_t next = last + 1;  // wraps kNotFound to 0
    if (next < size() && equalStrings(at(next), strings[i])) {
      ids[i++] = last = next;
      batch = 1;
      continue;
    }
    const std::size_t count = std::min(batch, strings.size() - i);
    findBatch(strings.subspan(i, count), ids.subspan(i, count));
    i += count;
    last = ids[i - 1];
    batch = std::min(2 * batch, kBatch);
  }
  return last;
}

void StringTable::findBatch(std::span<const std::string_view> strings,
                            std::span<std::uint32_t> ids) const {
  if (slots_.empty()) {
    std::fill(ids.begin(), ids.end(), kNotFound);
    return;
  }
  std::array<std::uint64_t, kBatch> hashes;
  for (std::size_t j = 0; j < strings.size(); ++j) {
    hashes[j] = hashString(strings[j]);
    __builtin_prefetch(&slots_[hashes[j] & (slots_.size() - 1)]);
  }
  for (std::size_t j = 0; j < strings.size(); ++j) {
    ids[j] = candidate(hashes[j]);
    if (ids[j] != kNotFound) __builtin_prefetch(&offsets_[ids[j]]);
  }
  for (const std::uint32_t id : ids) {
    if (id == kNotFound) continue;
    const std::string_view text = at(id);
    __builtin_prefetch(text.data());
    if (!text.empty()) __builtin_prefetch(&text.back());
  }
  // No tag in the probe sequence: absent. Another string with the same tag: the whole probe
  // sequence again (one in four billion).
  for (std::size_t j = 0; j < strings.size(); ++j) {
    if (ids[j] != kNotFound && !equalStrings(at(ids[j]), strings[j])) {
      ids[j] = find(strings[j], hashes[j]);
    }
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
