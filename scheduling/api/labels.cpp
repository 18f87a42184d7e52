#include "scheduling/api/labels.hpp"

#include <algorithm>
#include <functional>

namespace scheduling::api {

namespace {

// Room for a typical label set from the first label on (a pod's labels take a few hundred
// bytes, a cloud node's under 1 KB), so that decoding grows the buffers once or twice
// rather than at every doubling from one byte; shrinkToFit() gives the rest back.
constexpr std::size_t kInitialBytes = 256;
constexpr std::size_t kInitialSlots = 8;

}  // namespace

Labels::Storage& Labels::own() {
  if (!storage_) {
    storage_ = std::make_shared<Storage>();
  } else if (storage_.use_count() > 1 || storage_->pooled) {
    // A pool's weak reference is not in use_count(): another thread could take the storage
    // from the pool while it is written. The copy is this set's alone.
    storage_ = std::make_shared<Storage>(*storage_);
    storage_->pooled = false;
  }
  return *storage_;
}

void Labels::set(std::string_view key, std::string_view value) {
  Storage& storage = own();
  std::vector<char>& bytes = storage.bytes;
  std::vector<Slot>& slots = storage.slots;
  if (slots.capacity() == 0) {
    bytes.reserve(std::max(kInitialBytes, bytes.size() + key.size() + value.size()));
    slots.reserve(kInitialSlots);
  }
  const auto at = static_cast<std::uint32_t>(bytes.size());
  bytes.insert(bytes.end(), key.begin(), key.end());
  bytes.insert(bytes.end(), value.begin(), value.end());
  const Slot slot{at, static_cast<std::uint32_t>(key.size()),
                  static_cast<std::uint32_t>(at + key.size()),
                  static_cast<std::uint32_t>(value.size())};
  // Objects from the API server list their labels sorted by key (Go marshals maps that
  // way), so decoding mostly appends: one comparison instead of a binary search.
  if (slots.empty() || keyOf(slots.back()) < key) {
    slots.push_back(slot);
    return;
  }
  const std::size_t i = lowerBound(key);
  if (i != slots.size() && keyOf(slots[i]) == key) {
    slots[i] = slot;  // the old bytes stay behind until the set is rebuilt
  } else {
    slots.insert(slots.begin() + static_cast<std::ptrdiff_t>(i), slot);
  }
}

void Labels::reserve(std::size_t labels, std::size_t bytes) {
  Storage& storage = own();
  storage.slots.reserve(storage.slots.size() + labels);
  storage.bytes.reserve(storage.bytes.size() + bytes);
}

void Labels::shrinkToFit() {
  if (!storage_ || storage_.use_count() > 1 || storage_->pooled) return;  // shared: sized already
  storage_->bytes.shrink_to_fit();
  storage_->slots.shrink_to_fit();
}

std::size_t Labels::layoutHash() const {
  if (!storage_) return 0;
  const std::string_view bytes(storage_->bytes.data(), storage_->bytes.size());
  const std::string_view slots(reinterpret_cast<const char*>(storage_->slots.data()),
                               storage_->slots.size() * sizeof(Slot));
  const std::hash<std::string_view> hash;
  return hash(bytes) ^ (hash(slots) * 0x9e3779b97f4a7c15ULL);
}

}  // namespace scheduling::api
