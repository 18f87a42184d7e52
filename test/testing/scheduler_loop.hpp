#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "test/testing/api_server_double.hpp"

namespace testing {

// When a pod's /bind goes out relative to the next pod's /filter. kube-scheduler's binding
// cycle runs beside the next scheduling cycle, so either may reach the extender first.
enum class BindOrder {
  BeforeNextFilter,  // the /bind is written before the next /filter is sent
  // The next /filter is sent first; the /bind follows once that /filter is answered or the
  // extender reports it is holding a request (its in-flight waiting gauge above 0).
  AfterNextFilter,
  Alternate,  // BeforeNextFilter for the first pod, AfterNextFilter for the second, ...
};

struct LoopPod {
  ApiObject object;  // name, ns, labels, affinityJson are sent
  std::string uid;   // metadata.uid, and PodUID in the /bind
};

// What the last attempt at a pod came to, and the errors of the /binds before it.
struct PodOutcome {
  std::string name;           // namespace/name, as the double keys pods
  std::string node;           // the node chosen; "" when unschedulable
  std::size_t feasible = 0;   // nodes /filter let through
  std::string scheduleError;  // a failed /filter or /prioritize: status and body, or Error
  unsigned bindStatus = 0;    // HTTP status of the /bind; 0 when none was sent
  std::string bindError;      // its Error
  std::vector<std::string> retriedBindErrors;  // earlier attempts' /bind Errors, in order
};

// kube-scheduler's scheduling loop against one extender registered with
// nodeCacheCapable: true and bindVerb: bind, and no in-tree plugins (schedule_one.go):
// for each pod in queue order, /filter over every candidate node; none feasible:
// unschedulable; one: chosen without /prioritize (as findNodesThatFitPod's caller does); more:
// /prioritize over them and the highest Score wins. The /bind then runs on its own thread and
// connection while the loop goes on with the next pod, ordered against the next /filter as
// `order` says. A /bind answered with an Error sends the pod to the back of the queue, up to
// `maxAttempts` attempts in all (handleBindingCycleError: the pod is forgotten and scheduled
// again). run() returns when the queue is empty and every /bind has been answered.
class SchedulerLoop {
 public:
  struct Options {
    std::uint16_t port = 0;              // the extender, on 127.0.0.1
    std::vector<std::string> nodeNames;  // the candidates, in the order /filter gets them
    BindOrder order = BindOrder::BeforeNextFilter;
    std::string schedulerName = "default-scheduler";
    // How long an AfterNextFilter /bind waits for the next /filter's answer or a held
    // request before run() fails: the extender neither answered nor held it.
    std::chrono::milliseconds holdDeadline{10000};
    // Without bindVerb: kube-scheduler's own binder POSTs the Binding to the API server on
    // this port instead of calling the extender's /bind (0: /bind).
    std::uint16_t apiServerPort = 0;
    int maxAttempts = 1;  // per pod: 1 never retries a failed binding
    // Where the extender serves /metrics when started with --metrics-listen (0: on `port`).
    std::uint16_t metricsPort = 0;
  };

  explicit SchedulerLoop(Options options);

  // Throws std::runtime_error (after every /bind thread has ended) when an AfterNextFilter
  // /bind found neither trigger in time, or a connection failed.
  std::vector<PodOutcome> run(const std::vector<LoopPod>& pods);

 private:
  Options options_;
};

// The pod as kube-scheduler sends it in ExtenderArgs: metadata name, namespace, uid and
// labels, spec.affinity (raw), spec.schedulerName, status.phase Pending.
std::string renderPendingPod(const LoopPod& pod, const std::string& schedulerName);

// The node /prioritize scored highest, nodes it left out counting 0; ties go to the first
// in `feasible`, where kube-scheduler's selectHost picks among them at random.
std::string selectHost(const std::vector<std::string>& feasible,
                       const std::map<std::string, std::int64_t>& scores);

// --- outcomes, from the double's pods and the nodes' labels ---
using NodeLabels = std::map<std::string, std::map<std::string, std::string>>;  // node → labels

// Pods that carry every label of `selector` and count on a node (assigned, neither
// Succeeded nor Failed), per value of `topologyKey` on their node; every value some node
// carries is there, 0 when no such pod is on it. Nodes without the key are left out.
std::map<std::string, std::size_t> podsPerTopologyValue(
    const std::map<std::string, ApiObject>& pods, const NodeLabels& nodes,
    const std::map<std::string, std::string>& selector, const std::string& topologyKey);
// Pairs of such pods that share a topology value: what a required anti-affinity against
// `selector` over `topologyKey` forbids; 0 when it holds.
std::size_t antiAffinityViolations(const std::map<std::string, ApiObject>& pods,
                                   const NodeLabels& nodes,
                                   const std::map<std::string, std::string>& selector,
                                   const std::string& topologyKey);
// Most such pods on one topology value minus fewest on another (topology spread's skew).
std::size_t topologySkew(const std::map<std::string, ApiObject>& pods, const NodeLabels& nodes,
                         const std::map<std::string, std::string>& selector,
                         const std::string& topologyKey);

}  // namespace testing
