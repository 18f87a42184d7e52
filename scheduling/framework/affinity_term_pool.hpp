#pragma once

#include <cstddef>
#include <memory>

#include "scheduling/api/sharing_pool.hpp"
#include "scheduling/framework/types.hpp"

namespace scheduling::framework {

// Hands out one shared copy of each distinct AffinityTermLists among the cached pods. The
// replicas of a Deployment or StatefulSet in one namespace parse to equal lists (their
// namespaces resolved, matchLabelKeys already merged), so on S3's 150k pods 45k lists
// become a few hundred. A list lives as long as a pod holds it (SharingPool).
//
// Thread-safe, like SharingPool: the Cache calls it on the threads that decode pods. Readers
// only ever see the lists through the pods, which hold them strongly.
class AffinityTermPool {
 public:
  // The pool's copy of lists equal to `lists`, which becomes that copy when there is none.
  std::shared_ptr<AffinityTermLists> share(std::shared_ptr<AffinityTermLists> lists);

  // Lists remembered, live or not (for tests).
  std::size_t size() const { return pool_.size(); }

 private:
  api::SharingPool<AffinityTermLists> pool_;
};

}  // namespace scheduling::framework
