#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_set>

#include "scheduling/api/json/api_server_codec.hpp"
#include "scheduling/cache/cache.hpp"
#include "scheduling/informers/pod_filing.hpp"
#include "scheduling/informers/publish_throttle.hpp"

namespace scheduling::informers {

// The informer's store for objects of type T (api::Pod, api::Node, api::Namespace,
// api::PodDisruptionBudget): applies what the reflector lists and watches to the cache, and
// remembers which objects it holds, so that a relist can delete what the API server no longer
// has (the deletes a dropped watch never delivered), as client-go's DeltaFIFO.Replace does.
//
// A relist is applied as it is read, page by page: requests meanwhile see the old objects
// updated in place, never a cache emptied for the duration of the list. The pods' store keeps
// no keys: the Cache holds its pods by UID and tells those a relist upserted from the others,
// assumed ones included (Cache::beginPodRelist, endPodRelist). A list's pods are decoded and
// filed on threads of their own (PodFiling), all of them before the list ends and any event
// applies.
template <typename T>
class CacheStore {
 public:
  CacheStore(cache::Cache& cache, PublishThrottle& publisher)
      : cache_(cache), publisher_(publisher) {}

  // Called before the list's first page is asked for: the list shows the API server as it is
  // from then on.
  void beginReplace();
  // The list's item `index`, as ListStreamSplitter cut it out. Throws api::DecodeError for
  // an item that does not decode (for pods: here or at a later call, once their decoding
  // thread met it).
  void replaceItem(std::string_view text, std::size_t index);
  // The list is complete: objects held but not listed are deleted. Returns how many.
  std::size_t endReplace();

  void apply(api::json::WatchEventType type, T&& object);

  // Makes what was applied visible to requests: within the throttle's interval, or now. A
  // pod that just got a node is published without waiting out the interval (once what this
  // read delivered is applied): the next scheduling cycle may depend on it.
  void publishSoon() {
    if (placed_) {
      placed_ = false;
      publisher_.changedUrgently();
    } else {
      publisher_.changed();
    }
  }
  void publishNow() {
    placed_ = false;
    publisher_.publishNow();
  }

 private:
  // Pods are a million at the largest clusters and the Cache holds them by UID already; nodes,
  // namespaces and budgets are a few thousand, and the Cache keeps no record of which it was
  // told.
  static constexpr bool kKeepsKeys = !std::is_same_v<T, api::Pod>;

  void upsert(T&& object);
  void remove(const std::string& key);
  // Pods: waits until the pods of the list in progress (or cut short) are filed.
  void finishFiling();

  cache::Cache& cache_;
  PublishThrottle& publisher_;
  // All but pods: objects held in the cache, and those the list in progress saw.
  std::unordered_set<std::string> keys_;
  std::unordered_set<std::string> listed_;
  std::unique_ptr<PodFiling> filing_;  // pods only, while a list is read
  std::chrono::steady_clock::time_point listStarted_{};
  bool placed_ = false;  // a pod got a node since the last publishSoon
};

}  // namespace scheduling::informers
