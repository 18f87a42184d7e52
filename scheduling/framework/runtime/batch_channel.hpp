#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace scheduling::framework::runtime {

// Hands batches of items from one producer thread to one consumer thread, in order, with at
// most `capacity` batches waiting: a producer that runs ahead blocks instead of buffering
// the whole input. Loading a cluster-state file or a relist of the pods uses it so that
// decoding the next objects and filing the last ones in the cache run at the same time.
//
// A batch is a std::vector of `Item`s unless `BatchType` says otherwise (a list's item texts
// travel back to back in one buffer: one allocation per batch, not per item).
template <typename Item, typename BatchType = std::vector<Item>>
class BatchChannel {
 public:
  using Batch = BatchType;

  explicit BatchChannel(std::size_t capacity) : capacity_(capacity) {}
  BatchChannel(const BatchChannel&) = delete;
  BatchChannel& operator=(const BatchChannel&) = delete;

  // Producer: queues `batch`, waiting while `capacity` batches are queued. False when the
  // consumer has abandoned the channel: the producer should stop.
  bool push(Batch&& batch) {
    std::unique_lock lock(mutex_);
    notFull_.wait(lock, [&] { return abandoned_ || queued_.size() < capacity_; });
    if (abandoned_) return false;
    queued_.push_back(std::move(batch));
    notEmpty_.notify_one();
    return true;
  }

  // Producer: no more batches. A non-null `error` is rethrown by the consumer's pop once the
  // batches before it are taken.
  void close(std::exception_ptr error = nullptr) {
    std::lock_guard lock(mutex_);
    closed_ = true;
    error_ = std::move(error);
    notEmpty_.notify_one();
  }

  // Consumer: the next batch, waiting for one; nullopt once the producer closed the channel
  // and every batch was taken.
  std::optional<Batch> pop() {
    std::unique_lock lock(mutex_);
    notEmpty_.wait(lock, [&] { return closed_ || !queued_.empty(); });
    if (queued_.empty()) {
      if (error_) std::rethrow_exception(error_);
      return std::nullopt;
    }
    Batch batch = std::move(queued_.front());
    queued_.pop_front();
    notFull_.notify_one();
    return batch;
  }

  // Consumer: takes no more batches; a waiting or later push returns false.
  void abandon() {
    std::lock_guard lock(mutex_);
    abandoned_ = true;
    queued_.clear();
    notFull_.notify_one();
  }

 private:
  const std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable notFull_;
  std::condition_variable notEmpty_;
  std::deque<Batch> queued_;
  bool closed_ = false;
  bool abandoned_ = false;
  std::exception_ptr error_;
};

}  // namespace scheduling::framework::runtime
