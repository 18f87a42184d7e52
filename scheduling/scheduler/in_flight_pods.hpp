#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/cache/cache.hpp"
#include "scheduling/framework/types.hpp"

namespace scheduling {

// How a request that asked InFlightPods fared.
struct InFlightWait {
  bool held = false;      // it waited for at least one pod
  bool timedOut = false;  // it went on with a pod still unplaced, its wait over
  std::chrono::duration<double> waited{};
};

// The pods kube-scheduler may be placing right now: answered by /filter with a feasible node
// or by /prioritize, and not yet seen placed. kube-scheduler assumes a pod in its own cache at
// the end of its scheduling cycle and starts the next pod at once, binding the first beside
// it; the extender learns of the placement only at /bind (or, without bindVerb, from the
// watch). A request whose answer such a placement can change (the framework's PlacementHints
// say which) is held until the pod is placed in a published snapshot, is gone, or has been in
// flight for `maxWait`; every other request goes on at once.
//
//   answered ──track──▶ in flight ──assumed (/bind) or bound (watch) and published──▶ settled
//                          │  ├──deleted, or the binding failed──────────────────────▶ settled
//                          │  └──maxWait after its last answer───────────────────────▶ expired
//                          └── requests it matters to wait, then go on (on `executor`)
//
// The cache reports placements and removals through PlacementObserver once the snapshot that
// shows them is published, so a request released by one always sees it. Thread-safe.
class InFlightPods final : public cache::PlacementObserver {
 public:
  using Proceed = std::function<void(InFlightWait)>;

  // Held requests go on, and their timers run, on `executor`. With maxWait 0 nothing is
  // tracked and nothing waits.
  InFlightPods(boost::asio::any_io_executor executor, std::chrono::milliseconds maxWait);
  ~InFlightPods() override;
  InFlightPods(const InFlightPods&) = delete;
  InFlightPods& operator=(const InFlightPods&) = delete;

  // The pod was answered so that kube-scheduler may place it now: it is in flight for
  // maxWait from now (again, if it already was).
  void track(framework::PodInfoPtr pod);
  // The pod in flight with this UID; null when there is none.
  framework::PodInfoPtr find(std::string_view uid) const;
  // The pod in flight with this namespace and name; null when there is none.
  framework::PodInfoPtr findByName(std::string_view ns, std::string_view name) const;
  // This attempt will not place the pod (its binding failed before it was assumed).
  void settle(std::string_view uid);

  // Calls `proceed` once no pod in flight but `self` (the request's own pod) for which
  // `matters` is true is in flight any more, or once the longest of their remaining times
  // has passed: at once, in this call, when there is none (the common case: a lock and a
  // look at the few pods in flight), else later on the executor. `matters` is called in
  // this call only, without the lock held.
  void whenSettled(std::string_view self,
                   const std::function<bool(const framework::PodInfo& placed)>& matters,
                   Proceed proceed);

  // Lets every held request go on now (the server drains).
  void releaseAll();

  std::chrono::milliseconds maxWait() const { return maxWait_; }
  std::size_t numInFlight() const;
  std::size_t numWaiting() const;

  // cache::PlacementObserver
  bool awaits(std::string_view uid) const override;
  void placementsPublished(const std::vector<std::string>& uids) override;
  void removalsPublished(const std::vector<std::string>& uids) override;

 private:
  struct State;
  std::chrono::milliseconds maxWait_;
  // Shared with the timers of held requests, which may fire after this object is gone.
  std::shared_ptr<State> state_;
};

}  // namespace scheduling
