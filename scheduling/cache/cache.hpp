#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/api/namespace.hpp"
#include "scheduling/api/node.hpp"
#include "scheduling/api/pod.hpp"
#include "scheduling/api/pod_disruption_budget.hpp"
#include "scheduling/cache/snapshot.hpp"
#include "scheduling/framework/runtime/metrics_recorder.hpp"
#include "scheduling/framework/types.hpp"

namespace scheduling::cache {

// Told when pods get a place in the published snapshots (assumed, or bound per the watch) or
// leave them: what a request held for an in-flight pod, or for the victims of a preemption,
// waits for (scheduler::InFlightPods).
class PlacementObserver {
 public:
  virtual ~PlacementObserver() = default;
  // Whether the observer waits for this pod. Asked under the cache's writer lock, for each
  // pod that gets a place or leaves: must be quick and must not call back into the cache.
  virtual bool awaits(std::string_view uid) const = 0;
  // After a publish, outside the cache's lock: the awaited pods that got a place since the
  // previous publish, now visible to every request that takes a snapshot.
  virtual void placementsPublished(const std::vector<std::string>& uids) = 0;
  // After a publish, as placementsPublished: the awaited pods that left the cache (deleted,
  // terminal, their binding forgotten, or missing from a relist), now absent from every
  // snapshot a request takes.
  virtual void removalsPublished(const std::vector<std::string>& uids) = 0;
};

// What assumePod found.
enum class AssumeResult {
  Assumed,        // the pod now counts on the node until it is confirmed or forgotten
  AlreadyPlaced,  // the cache already counts it on a node (the watch, or an earlier binding)
};

// The extender's cluster cache (backend/cache/cache.go plus the queue's nominator and the
// namespace and PodDisruptionBudget listers), fed by a cluster source: the state file once, or
// informers event by event. Mutations are incremental and cheap; publish() turns the current state
// into an immutable Snapshot that requests share without locks, reusing what did not change.
//
//   source ──upsert/delete──▶ Cache (mutable, one writer at a time)
//                               │ publish()
//                               ▼
//   request ──snapshot()──▶ shared_ptr<const Snapshot> (immutable, swapped atomically)
//
// Pod routing follows upstream's event handlers: a pod with spec.nodeName and a
// non-terminal phase is assigned (NodeInfo.Pods); an unbound pod with
// status.nominatedNodeName is nominated; terminal pods leave the cache.
//
// Assumed pods follow backend/cache/cache.go: /bind assumes the pod on its node before the
// API server has answered, so the next answers count it at once; the watch confirms it. As in
// kube-scheduler since kubernetes#106361 (and #136204, which removed the mechanism), an
// assumption whose binding the API server created never expires: a lagging watch must not
// make the cache forget a placement. Only the API server's word ends it.
//
//   (absent, nominated) ──assumePod──▶ Assumed(node) ──forgetPod (binding failed)──▶ (absent)
//                                        │ finishBinding (the API server created it)
//                                        ├──watch or relist: bound to M──▶ Assigned(M) (moved if
//                                        │                                 M ≠ node)
//                                        ├──watch: still unbound──────────▶ Assumed (older news)
//                                        ├──watch: deleted, terminal──────▶ (absent)
//                                        └──a relist begun after finishBinding lacks it──▶ (absent)
class Cache {
 public:
  Cache();
  ~Cache();
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  // Add or update (informer Add/Update). Thread-safe: writers serialise on a mutex that
  // snapshot() never takes.
  void upsertNode(api::Node node);
  void deleteNode(std::string_view name);
  // Returns whether the pod now counts on a node it did not count on before: a placement
  // (kube-scheduler's binding seen by the watch) that requests may be waiting for.
  bool upsertPod(api::Pod pod) { return upsertPod(preparePod(std::move(pod))); }
  // The same for a pod preparePod made ready.
  bool upsertPod(framework::PodInfoPtr pod);
  // The PodInfo the cache keeps for `pod`: its affinity terms parsed, then dropped from the
  // pod with everything else nothing reads of a cached pod, its term lists and labels shared
  // with the cached pods that have equal ones, its UID set to its cacheKey() when it has
  // none. Thread-safe, and meant to run where the pod was decoded, outside the cache's lock:
  // what it drops and what sharing replaces were allocated on that thread, and freeing them
  // on another thread waits on that thread's malloc arena (perf sched of a million pods
  // listed: the filing thread blocked every 40-100 µs in _int_free).
  framework::PodInfoPtr preparePod(api::Pod pod) const;
  void deletePod(std::string_view uid);
  void upsertNamespace(api::Namespace ns);
  void deleteNamespace(std::string_view name);
  // PodDisruptionBudgets, which /preempt weighs victims by; `key` is namespace/name.
  void upsertPodDisruptionBudget(const api::PodDisruptionBudget& pdb);
  void deletePodDisruptionBudget(std::string_view key);

  // AssumePod: counts `pod` on `node` from the next publish on, as an assigned pod, until a
  // watch event confirms or removes it. A pod the cache already counts on a node is left
  // as it is (AlreadyPlaced); a nominated pod loses its nomination.
  AssumeResult assumePod(api::Pod pod, const std::string& node);
  // FinishBinding: the API server created the pod's Binding at `boundAt` (when its answer
  // arrived). The assumption now lasts until the watch or a relist speaks.
  void finishBinding(std::string_view uid, std::chrono::steady_clock::time_point boundAt);
  // ForgetPod: the binding failed; drops the assumption (never a pod the watch confirmed).
  void forgetPod(std::string_view uid);
  // A relist of the pods begins: the pods upserted from now until endPodRelist are the
  // listed ones. (The pods' informer holds no set of keys of its own: at a million pods,
  // that set and the list's were 200 MB.)
  void beginPodRelist();
  // The relist begun at `listStarted` is complete. Pods it did not list are gone from the API
  // server, deleted while the watch was away (client-go's Replace deletes them the same way):
  // dropped, with the assumed ones whose binding finished before the list began (an
  // assumption the list may predate stays). Returns how many were dropped.
  std::size_t endPodRelist(std::chrono::steady_clock::time_point listStarted);
  // When the oldest assumption the watch has not confirmed was made; nullopt when none.
  std::optional<std::chrono::steady_clock::time_point> oldestAssumedPod() const;
  // The node the cache counts the pod on (assumed or bound); nullopt when none.
  std::optional<std::string> assignedNode(std::string_view uid) const;

  // From now on, tells `observer` (which must outlive the cache's use) of placements.
  void setPlacementObserver(PlacementObserver* observer);

  // From now on, tells `observer` (which must outlive the cache's use) how long each
  // publish took, from taking the writer lock to the new snapshot in place and the old one
  // released: what every change costs before requests see it. Null stops it.
  void setPublishObserver(framework::runtime::DurationObserver* observer);

  // Builds and publishes a snapshot of the current state.
  void publish();

  // The latest published snapshot (empty before the first publish). Never blocks on writers
  // for longer than a pointer copy.
  std::shared_ptr<const Snapshot> snapshot() const;

  // Sizes of the current (unpublished) state, for metrics: nodes known, and pods that
  // count on a node (assigned and not terminal).
  std::size_t numNodes() const;
  std::size_t numAssignedPods() const;
  // Pods assumed and not yet confirmed by the watch (included in numAssignedPods).
  std::size_t numAssumedPods() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace scheduling::cache
