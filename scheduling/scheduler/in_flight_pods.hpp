#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
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
  // Whether the request waited for victims of its own pod's preemption, and how that ended.
  enum class Victims : std::uint8_t {
    NotAwaited,
    Gone,      // the victims of one node it was sent left (or nothing names them any more)
    TimedOut,  // its wait was over with victims still on every such node
  };

  bool held = false;      // it waited for at least one pod in flight or victim
  bool timedOut = false;  // it went on with something it waited for still pending, its wait over
  Victims victims = Victims::NotAwaited;
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
// The same holds for the pods a preemptor is waiting to see leave. kube-scheduler deletes the
// victims that /preempt named for the node it picks, nominates the preemptor there, and tries
// it again as soon as its own cache has the deletions, which can be before the extender's
// informers have published them: a /filter answered then would still count the victims and
// fail the node that was just cleared for it, and the preemptor would wait for the next
// cluster event. So the victims of each preemptor's latest /preempt answer are remembered per
// candidate node, and its /filter, while the nodes it was sent still show them, is held until
// the victims of one of those nodes have left a published snapshot, or for `maxWait`.
//
//   /preempt answered ──notePreemption──▶ in progress ──preemptor placed or gone──▶ forgotten
//                                           │  ├──answered again───────────────────▶ replaced
//                                           │  └──preemptionMemory after the answer─▶ forgotten
//                                           └── its /filter, victims on the nodes sent, waits
//
// The cache reports placements and removals through PlacementObserver once the snapshot that
// shows them is published, so a request released by one always sees it. Thread-safe.
class InFlightPods final : public cache::PlacementObserver {
 public:
  using Proceed = std::function<void(InFlightWait)>;

  // The victims a /preempt answer named on one candidate node: those kube-scheduler deletes
  // if it picks that node.
  struct CandidateVictims {
    std::string node;
    std::vector<std::string> uids;
  };
  // What a preemptor's latest /preempt answer named, per candidate node.
  using Preemption = std::vector<CandidateVictims>;
  // What a request for a preemptor waits to see leave: per candidate node it was sent, the
  // victims its snapshot still shows there. It may go on once those of any one node are gone.
  using VictimsLeft = std::vector<std::vector<std::string>>;

  // How long a preemption is remembered after its answer when neither its preemptor's
  // placement nor its deletion ends it first: past the victims' graceful termination (30 s by
  // default) and kube-scheduler's retries of the preemptor meanwhile.
  static constexpr std::chrono::milliseconds kPreemptionMemory = std::chrono::minutes(5);
  // At most this many victims are remembered, over all preemptions; past it the oldest
  // answers are forgotten first.
  static constexpr std::size_t kMaxRememberedVictims = 65536;

  // Held requests go on, and their timers run, on `executor`. With maxWait 0 nothing is
  // tracked or remembered and nothing waits.
  InFlightPods(boost::asio::any_io_executor executor, std::chrono::milliseconds maxWait,
               std::chrono::milliseconds preemptionMemory = kPreemptionMemory);
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

  // The preemptor with this UID was answered by /preempt with `victims`: remembered in place
  // of what an earlier answer named, for preemptionMemory. An answer that names no victim
  // forgets the preemptor.
  void notePreemption(std::string_view preemptor, Preemption victims);
  // What the preemptor's latest /preempt answer named; null when nothing is remembered for it
  // (the common case, told by a counter without the lock).
  std::shared_ptr<const Preemption> preemption(std::string_view preemptor) const;

  // Calls `proceed` once no pod in flight but `self` (the request's own pod) for which
  // `matters` is true is in flight any more, and once the victims of one node of `victims`
  // have left a published snapshot (or are no longer named by any preemption), or once the
  // wait is over: the longest of those pods' remaining times, and maxWait when it waits for
  // victims. At once, in this call, when there is nothing to wait for (the common case: a
  // lock and a look at the few pods in flight), else later on the executor. `matters` is
  // called in this call only, without the lock held.
  void whenSettled(std::string_view self,
                   const std::function<bool(const framework::PodInfo& placed)>& matters,
                   VictimsLeft victims, Proceed proceed);

  // Lets every held request go on now (the server drains).
  void releaseAll();

  std::chrono::milliseconds maxWait() const { return maxWait_; }
  std::size_t numInFlight() const;
  std::size_t numWaiting() const;
  // Preemptors whose victims are remembered.
  std::size_t numPreemptions() const;

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
