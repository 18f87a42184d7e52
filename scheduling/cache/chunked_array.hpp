#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace scheduling::cache {

// An immutable array kept in fixed chunks that the arrays made from it share: a copy with a
// few entries changed costs those entries' chunks and one pointer per chunk, not the whole
// array. How a snapshot shares what did not change since the previous one (the NodeInfos
// by slot, the existing-term groups) when a cluster of 50,000 nodes publishes after every
// burst of pod events.
template <typename T>
class ChunkedArray {
 public:
  static constexpr std::size_t kChunkBits = 8;
  static constexpr std::size_t kChunkSize = std::size_t{1} << kChunkBits;

  ChunkedArray() = default;
  explicit ChunkedArray(std::vector<T> items) : size_(items.size()) {
    chunks_.reserve((size_ + kChunkSize - 1) / kChunkSize);
    for (std::size_t begin = 0; begin < size_; begin += kChunkSize) {
      auto chunk = std::make_shared<Chunk>();
      for (std::size_t i = begin; i < size_ && i < begin + kChunkSize; ++i) {
        (*chunk)[i - begin] = std::move(items[i]);
      }
      chunks_.push_back(std::move(chunk));
    }
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  const T& operator[](std::size_t i) const {
    return (*chunks_[i >> kChunkBits])[i & (kChunkSize - 1)];
  }

  template <typename Fn>
  void forEach(Fn&& fn) const {
    for (std::size_t i = 0; i < size_; ++i) fn((*this)[i]);
  }

  // This array lengthened to `size` entries (no shorter than now), the new ones T{}. Shares
  // every chunk it had.
  ChunkedArray grown(std::size_t size) const {
    ChunkedArray out = *this;
    // The last chunk is padded with T{}, which the new entries in it already are.
    while (out.chunks_.size() * kChunkSize < size) out.chunks_.push_back(std::make_shared<Chunk>());
    out.size_ = std::max(size, size_);
    return out;
  }

  // This array with entry `index` set to `value` for each change (indexes below size(); a
  // later change of the same index wins). Shares every chunk no change falls in.
  ChunkedArray with(std::span<const std::pair<std::size_t, T>> changes) const {
    ChunkedArray out = *this;
    // The chunks copied so far, by chunk number: each is copied once, however many of its
    // entries change.
    std::vector<Chunk*> copied(chunks_.size(), nullptr);
    for (const auto& [index, value] : changes) {
      const std::size_t c = index >> kChunkBits;
      if (copied[c] == nullptr) {
        auto chunk = std::make_shared<Chunk>(*chunks_[c]);
        copied[c] = chunk.get();
        out.chunks_[c] = std::move(chunk);
      }
      (*copied[c])[index & (kChunkSize - 1)] = value;
    }
    return out;
  }

 private:
  using Chunk = std::array<T, kChunkSize>;  // the last one padded with T{}

  std::vector<std::shared_ptr<const Chunk>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace scheduling::cache
