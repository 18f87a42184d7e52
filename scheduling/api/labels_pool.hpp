#pragma once

#include "scheduling/api/labels.hpp"
#include "scheduling/api/sharing_pool.hpp"

namespace scheduling::api {

// Makes equal label sets share one buffer: the pods of a ReplicaSet or a DaemonSet carry
// the same labels, so a million cached pods hold tens of thousands of distinct sets. Sets are
// matched by layout (decoded from the same JSON, they have one); equal sets laid out
// differently are merely kept apart. Thread-safe, like SharingPool.
class LabelsPool {
 public:
  void share(Labels& labels) {
    if (!labels.storage_) return;
    // Marked before the pool can hand it out: from then on it is only read.
    labels.storage_->pooled = true;
    labels.storage_ = pool_.share(labels.storage_, labels.layoutHash());
  }
  std::size_t size() const { return pool_.size(); }

 private:
  SharingPool<Labels::Storage> pool_;
};

}  // namespace scheduling::api
