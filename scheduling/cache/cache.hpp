#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "scheduling/api/namespace.hpp"
#include "scheduling/api/node.hpp"
#include "scheduling/api/pod.hpp"
#include "scheduling/cache/snapshot.hpp"

namespace scheduling::cache {

// The extender's cluster cache (backend/cache/cache.go plus the queue's nominator and the
// namespace lister), fed by a cluster source: the state file once, or informers event by
// event. Mutations are incremental and cheap; publish() turns the current state into an
// immutable Snapshot that requests share without locks, reusing what did not change.
//
//   source ──upsert/delete──▶ Cache (mutable, one writer at a time)
//                               │ publish()
//                               ▼
//   request ──snapshot()──▶ shared_ptr<const Snapshot> (immutable, swapped atomically)
//
// Pod routing follows upstream's event handlers: a pod with spec.nodeName and a
// non-terminal phase is assigned (NodeInfo.Pods); an unbound pod with
// status.nominatedNodeName is nominated; terminal pods leave the cache.
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
  void upsertPod(api::Pod pod);
  void deletePod(std::string_view uid);
  void upsertNamespace(api::Namespace ns);
  void deleteNamespace(std::string_view name);

  // Builds and publishes a snapshot of the current state.
  void publish();

  // The latest published snapshot (empty before the first publish). Never blocks on writers
  // for longer than a pointer copy.
  std::shared_ptr<const Snapshot> snapshot() const;

  // Sizes of the current (unpublished) state, for metrics: nodes known, and pods that
  // count on a node (assigned and not terminal).
  std::size_t numNodes() const;
  std::size_t numAssignedPods() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace scheduling::cache
