#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace scheduling::api {

// Labels is a label map (metav1.ObjectMeta.Labels) kept sorted by key: label sets are
// small, lookups are binary searches, and iteration order is deterministic.
//
// All keys and values of one set live in one buffer, indexed by offsets. The cache holds
// ~150k pods and 5k nodes of labels at 5,000 nodes: two heap strings per label cost more
// memory than the labels themselves, and Filter's lookups, which visit every node sent,
// spent their time in cache misses on scattered strings. Entries come out as views into the
// buffer, valid while the Labels lives and is not modified.
//
// Copies share the buffers until one of them is modified (copy on write), and LabelsPool
// makes equal sets share them: the replicas of a ReplicaSet or a DaemonSet carry equal
// labels, and a million cached pods' own copies were a fifth of the extender's memory.
class Labels {
 public:
  using Entry = std::pair<std::string_view, std::string_view>;

  // Random access over the entries in key order, yielding views (std::lower_bound works).
  class Iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = Entry;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Entry;

    Iterator() = default;
    Entry operator*() const { return labels_->entry(index_); }
    Entry operator[](difference_type n) const { return labels_->entry(index_ + n); }
    Iterator& operator++() { return ++index_, *this; }
    Iterator operator++(int) { return {labels_, index_++}; }
    Iterator& operator--() { return --index_, *this; }
    Iterator operator--(int) { return {labels_, index_--}; }
    Iterator& operator+=(difference_type n) { return index_ += n, *this; }
    Iterator& operator-=(difference_type n) { return index_ -= n, *this; }
    friend Iterator operator+(Iterator it, difference_type n) { return it += n; }
    friend Iterator operator+(difference_type n, Iterator it) { return it += n; }
    friend Iterator operator-(Iterator it, difference_type n) { return it -= n; }
    friend difference_type operator-(const Iterator& a, const Iterator& b) {
      return a.index_ - b.index_;
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.index_ == b.index_; }
    friend auto operator<=>(const Iterator& a, const Iterator& b) { return a.index_ <=> b.index_; }

   private:
    friend class Labels;
    Iterator(const Labels* labels, difference_type index) : labels_(labels), index_(index) {}
    const Labels* labels_ = nullptr;
    difference_type index_ = 0;
  };

  Labels() = default;
  Labels(std::initializer_list<std::pair<std::string_view, std::string_view>> entries) {
    for (const auto& [k, v] : entries) set(k, v);
  }

  // The value of key, or nothing when the key is absent (an empty value is a value).
  // A scan that compares sizes first: the slots are contiguous and keys of one size are few,
  // so a typical lookup reads a few cache lines and compares one key's bytes, where a binary
  // search compared bytes at every step.
  std::optional<std::string_view> get(std::string_view key) const {
    const auto found = find(key);
    return found ? std::optional<std::string_view>(found->second) : std::nullopt;
  }
  // The entry of key (views into this set), or nothing when absent.
  std::optional<Entry> find(std::string_view key) const {
    for (const Slot& s : slots()) {
      if (s.keySize == key.size() && keyOf(s) == key) return Entry{keyOf(s), valueOf(s)};
    }
    return std::nullopt;
  }
  bool has(std::string_view key) const { return get(key).has_value(); }

  // Inserts or overwrites; a later duplicate key wins, as Go's JSON decoder does for maps.
  void set(std::string_view key, std::string_view value);

  // Room for `labels` more labels of `bytes` bytes of keys and values in all, when the
  // decoder knows them before the first set(): the buffers then fit at once.
  void reserve(std::size_t labels, std::size_t bytes);

  // Gives back the room left by growing: a decoded label set is kept as long as its object.
  void shrinkToFit();

  bool empty() const { return size() == 0; }
  std::size_t size() const { return storage_ ? storage_->slots.size() : 0; }
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, static_cast<std::ptrdiff_t>(size())}; }
  Entry entry(std::size_t i) const { return {keyOf(slots()[i]), valueOf(slots()[i])}; }

  // The same entries, whatever the layout of the buffers.
  bool operator==(const Labels& other) const {
    if (size() != other.size()) return false;
    if (empty() || storage_ == other.storage_) return true;
    return sameLayout(other) || std::equal(begin(), end(), other.begin(), other.end());
  }

  // A hash of the buffers' bytes: equal for sets decoded from the same JSON.
  std::size_t layoutHash() const;

  // The buffers' identity: equal for sets that share them (copies, and the equal sets
  // LabelsPool made share), different for any two non-empty sets alive at once that do not;
  // null for an empty set. A walk over many pods does the work of each shared set once.
  const void* bufferId() const { return storage_.get(); }

 private:
  friend class LabelsPool;

  struct Slot {
    std::uint32_t keyAt, keySize, valueAt, valueSize;  // ranges of Storage::bytes
  };
  struct Storage {
    std::vector<char> bytes;
    std::vector<Slot> slots;  // sorted by key
    // Known to a LabelsPool, which may hand it to any thread at any moment: never written
    // again. Not part of the value (operator==); own()'s copy clears it.
    bool pooled = false;

    // The same bytes at the same offsets: two comparisons of contiguous arrays.
    bool operator==(const Storage& other) const {
      return bytes.size() == other.bytes.size() && slots.size() == other.slots.size() &&
             std::memcmp(slots.data(), other.slots.data(), slots.size() * sizeof(Slot)) == 0 &&
             std::memcmp(bytes.data(), other.bytes.data(), bytes.size()) == 0;
    }
  };

  std::span<const Slot> slots() const {
    return storage_ ? std::span<const Slot>(storage_->slots) : std::span<const Slot>();
  }
  std::string_view keyOf(const Slot& s) const {
    return {storage_->bytes.data() + s.keyAt, s.keySize};
  }
  std::string_view valueOf(const Slot& s) const {
    return {storage_->bytes.data() + s.valueAt, s.valueSize};
  }
  std::size_t lowerBound(std::string_view key) const {
    const auto all = slots();
    auto it = std::lower_bound(all.begin(), all.end(), key,
                               [this](const Slot& s, std::string_view k) { return keyOf(s) < k; });
    return static_cast<std::size_t>(it - all.begin());
  }
  // The storage, made this set's alone first (copy on write).
  Storage& own();

  // Whether both sets hold the same bytes at the same offsets: sets decoded from the same
  // JSON do (a sent Node's labels and the cached Node's, on every node of a full-Nodes
  // request), and two comparisons of contiguous arrays then settle what 2 per label would.
  bool sameLayout(const Labels& other) const { return *storage_ == *other.storage_; }

  // Null for an empty set. Shared by copies and by pooled equal sets; only modified while
  // this set is its only owner and no pool knows it.
  std::shared_ptr<Storage> storage_;
};

}  // namespace scheduling::api
