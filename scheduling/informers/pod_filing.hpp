#pragma once

#include <exception>
#include <thread>
#include <vector>

#include "scheduling/api/pod.hpp"
#include "scheduling/cache/cache.hpp"
#include "scheduling/framework/runtime/batch_channel.hpp"

namespace scheduling::informers {

// The pods of one list, filed in the cache on a thread of its own while the reflector reads
// and decodes the next ones. Decoding a pod and filing it cost about the same (perf of a
// million-pod list): on the informers' one thread they add up, on two they overlap, as the
// cluster-state file's loading overlaps them. Pods are filed in the order added, and at most
// a few batches wait, so a list of any size holds a few thousand decoded pods at a time.
class PodFiling {
 public:
  explicit PodFiling(cache::Cache& cache);
  // Files what was added and waits for it: a list cut short still leaves its pods filed.
  ~PodFiling();
  PodFiling(const PodFiling&) = delete;
  PodFiling& operator=(const PodFiling&) = delete;

  // Queues `pod` for the cache. Rethrows what the filing thread failed with.
  void add(api::Pod&& pod);

  // Files what is queued and waits for it. Returns whether a pod added got a node
  // (Cache::upsertPod's answer); rethrows what the filing thread failed with. Once only.
  bool finish();

 private:
  using Channel = framework::runtime::BatchChannel<api::Pod>;

  void file();            // the filing thread's loop
  void rethrowFailure();  // after the filing thread has ended

  cache::Cache& cache_;
  Channel channel_;
  Channel::Batch batch_;
  // Written by the filing thread, read once it has been joined.
  bool placed_ = false;
  std::exception_ptr failure_;
  std::thread thread_;
};

}  // namespace scheduling::informers
