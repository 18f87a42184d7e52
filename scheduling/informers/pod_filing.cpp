#include "scheduling/informers/pod_filing.hpp"

#include <utility>

namespace scheduling::informers {

namespace {

// Pods per batch, and batches waiting: enough that the two threads rarely wait for each
// other, few enough that the pods between them are a few MiB.
constexpr std::size_t kBatchPods = 256;
constexpr std::size_t kBatchesInFlight = 8;

}  // namespace

PodFiling::PodFiling(cache::Cache& cache)
    : cache_(cache), channel_(kBatchesInFlight), thread_([this] { file(); }) {
  batch_.reserve(kBatchPods);
}

PodFiling::~PodFiling() {
  if (!thread_.joinable()) return;
  try {
    finish();
  } catch (...) {
    // The filing thread failed; the reflector that owned this list has already moved on.
  }
}

void PodFiling::add(api::Pod&& pod) {
  batch_.push_back(std::move(pod));
  if (batch_.size() < kBatchPods) return;
  if (!channel_.push(std::move(batch_))) {
    // The filing thread has stopped taking batches: it failed.
    thread_.join();
    rethrowFailure();
  }
  batch_ = {};
  batch_.reserve(kBatchPods);
}

bool PodFiling::finish() {
  if (thread_.joinable()) {
    if (!batch_.empty()) channel_.push(std::move(batch_));  // false: rethrown below
    channel_.close();
    thread_.join();
  }
  rethrowFailure();
  return placed_;
}

void PodFiling::file() {
  try {
    while (auto batch = channel_.pop()) {
      for (api::Pod& pod : *batch) {
        if (cache_.upsertPod(std::move(pod))) placed_ = true;
      }
    }
  } catch (...) {
    failure_ = std::current_exception();
    channel_.abandon();
  }
}

void PodFiling::rethrowFailure() {
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

}  // namespace scheduling::informers
