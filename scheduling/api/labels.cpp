#include "scheduling/api/labels.hpp"

#include <algorithm>

namespace scheduling::api {

namespace {

// Room for a typical label set from the first label on (a pod's labels take a few hundred
// bytes, a cloud node's under 1 KB), so that decoding grows the buffers once or twice
// rather than at every doubling from one byte; shrinkToFit() gives the rest back.
constexpr std::size_t kInitialBytes = 256;
constexpr std::size_t kInitialSlots = 8;

}  // namespace

void Labels::set(std::string_view key, std::string_view value) {
  if (slots_.empty()) {
    bytes_.reserve(std::max(kInitialBytes, bytes_.size() + key.size() + value.size()));
    slots_.reserve(kInitialSlots);
  }
  const auto at = static_cast<std::uint32_t>(bytes_.size());
  bytes_.insert(bytes_.end(), key.begin(), key.end());
  bytes_.insert(bytes_.end(), value.begin(), value.end());
  const Slot slot{at, static_cast<std::uint32_t>(key.size()),
                  static_cast<std::uint32_t>(at + key.size()),
                  static_cast<std::uint32_t>(value.size())};
  // Objects from the API server list their labels sorted by key (Go marshals maps that
  // way), so decoding mostly appends: one comparison instead of a binary search.
  if (slots_.empty() || keyOf(slots_.back()) < key) {
    slots_.push_back(slot);
    return;
  }
  const std::size_t i = lowerBound(key);
  if (i != slots_.size() && keyOf(slots_[i]) == key) {
    slots_[i] = slot;  // the old bytes stay behind until the set is rebuilt
  } else {
    slots_.insert(slots_.begin() + static_cast<std::ptrdiff_t>(i), slot);
  }
}

void Labels::shrinkToFit() {
  bytes_.shrink_to_fit();
  slots_.shrink_to_fit();
}

}  // namespace scheduling::api
