#include "scheduling/scheduler/scheduler.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "scheduling/cache/snapshot.hpp"
#include "scheduling/scheduler/sampling.hpp"

namespace scheduling {

using framework::Code;
using framework::CycleState;
using framework::NodeInfo;
using framework::PodInfo;
using framework::Status;

namespace {

const char* const kNotLoaded = "cluster state not loaded yet";

std::string unknownNodeReason(std::string_view name) {
  return "node \"" + std::string(name) + "\" not found in cluster state";
}

// The nodes of one request resolved against the snapshot, in request order. Nodes the
// cache does not know are set aside: they fail without running any plugin.
struct Candidates {
  std::vector<std::string_view> names;                // every node sent
  std::vector<const NodeInfo*> bySent;                // per sent node; nullptr when unknown
  std::vector<const NodeInfo*> known;                 // the known ones, what the framework sees
  std::vector<std::unique_ptr<NodeInfo>> overridden;  // request copies, see resolve()
};

// Full Node objects in a request take precedence over cached ones for labels (CONTRACT
// §3): such a node is evaluated on a request-local copy of its NodeInfo that carries the
// sent object, with the cached pods. The copy is made only when the labels differ.
Candidates resolve(const framework::SharedLister& snapshot, const api::ExtenderArgs& args) {
  Candidates c;
  if (args.nodes) {
    c.names.reserve(args.nodes->size());
    for (const auto& node : *args.nodes) c.names.push_back(node.name);
  } else if (args.nodeNames) {
    c.names = *args.nodeNames;
  }
  c.bySent.resize(c.names.size());
  snapshot.getNodeInfos(c.names, c.bySent);
  c.known.reserve(c.names.size());
  for (std::size_t i = 0; i < c.names.size(); ++i) {
    const NodeInfo*& info = c.bySent[i];
    if (info != nullptr && args.nodes && (*args.nodes)[i].labels != info->labels()) {
      const api::SentNode& sent = (*args.nodes)[i];
      auto copy = std::make_unique<NodeInfo>(info->borrowingCopy());
      copy->setNode(std::make_shared<const api::Node>(api::Node{sent.name, sent.labels}));
      info = copy.get();
      c.overridden.push_back(std::move(copy));
    }
    if (info != nullptr) c.known.push_back(info);
  }
  return c;
}

// What a /filter of a preemptor waits to see leave: per candidate node of `preemption` that
// it was sent, the victims named there that `snapshot` still shows; nothing once one such node
// shows none, as the pod may fit there now. A pod nominated to one of the candidates waits for
// that node's victims alone, the ones kube-scheduler deletes.
InFlightPods::VictimsLeft victimsLeft(const InFlightPods::Preemption& preemption,
                                      const api::ExtenderArgs& args,
                                      const framework::SharedLister& snapshot) {
  const std::string& nominated = args.pod.status.nominatedNodeName;
  const bool nominatedToCandidate =
      !nominated.empty() && std::ranges::any_of(preemption, [&](const auto& candidate) {
        return candidate.node == nominated;
      });
  std::unordered_map<std::string_view, const InFlightPods::CandidateVictims*> candidates;
  for (const auto& candidate : preemption) {
    if (!nominatedToCandidate || candidate.node == nominated) {
      candidates.emplace(candidate.node, &candidate);
    }
  }
  InFlightPods::VictimsLeft left;
  bool cleared = false;  // a candidate sent has none of its victims left
  const auto look = [&](std::string_view sent) {
    const auto it = candidates.find(sent);
    if (cleared || it == candidates.end()) return;
    const InFlightPods::CandidateVictims& candidate = *it->second;
    candidates.erase(it);  // a node sent twice counts once
    std::vector<std::string> there;
    if (const NodeInfo* node = snapshot.getNodeInfo(sent)) {
      for (const PodInfo* pod : node->pods()) {
        const std::string& uid = pod->pod().metadata.uid;
        if (std::ranges::find(candidate.uids, uid) != candidate.uids.end()) there.push_back(uid);
      }
    }
    cleared = there.empty();
    left.push_back(std::move(there));
  };
  if (args.nodes) {
    for (const auto& node : *args.nodes) look(node.name);
  } else if (args.nodeNames) {
    for (const std::string_view name : *args.nodeNames) look(name);
  }
  return cleared ? InFlightPods::VictimsLeft() : left;
}

PodInfo incomingPod(const api::Pod& pod) { return PodInfo(std::make_shared<const api::Pod>(pod)); }

framework::PodInfoPtr sharedIncomingPod(const api::Pod& pod) {
  return std::make_shared<const PodInfo>(std::make_shared<const api::Pod>(pod));
}

std::string podKey(const api::Pod& pod) { return pod.metadata.ns + "/" + pod.metadata.name; }

// The candidates of ExtenderPreemptionArgs in request order, in either form, viewing the
// arguments.
std::vector<preemption::Candidate> candidatesOf(const api::ExtenderPreemptionArgs& args) {
  std::vector<preemption::Candidate> candidates;
  if (args.nodeNameToMetaVictims) {
    for (const auto& [node, victims] : *args.nodeNameToMetaVictims) {
      auto& candidate = candidates.emplace_back();
      candidate.node = node;
      candidate.numPDBViolations = victims.numPDBViolations;
      for (const auto& uid : victims.podUIDs) candidate.victims.push_back({uid, nullptr});
    }
  } else if (args.nodeNameToVictims) {
    for (const auto& [node, victims] : *args.nodeNameToVictims) {
      auto& candidate = candidates.emplace_back();
      candidate.node = node;
      candidate.numPDBViolations = victims.numPDBViolations;
      for (const auto& pod : victims.pods) candidate.victims.push_back({pod.metadata.uid, &pod});
    }
  }
  return candidates;
}

// What Filter made of one known candidate.
enum class Verdict : std::uint8_t {
  NotExamined,  // sampling stopped before it, or it was found past numFeasibleNodesToFind
  Feasible,
  Rejected,  // Unschedulable or UnschedulableAndUnresolvable: its status is in `rejections`
  Failed,    // a plugin failed (Error)
};

// The outcome of PreFilter + Filter over the known candidates.
struct FilterRun {
  Status preFilter;  // non-success: every node got it
  Status error;      // a plugin failed (Error)
  // Per known node. Verdicts are bytes that each worker writes for its own nodes; statuses
  // exist for the rejected nodes only (a few hundred of 5,000 on S3).
  std::vector<Verdict> verdicts;
  std::vector<std::unique_ptr<Status>> rejections;
  std::vector<framework::runtime::FilterTrace> traces;  // per known node, when traced
  std::int32_t numFeasibleNodesToFind = 0;
  std::int64_t processed = 0;  // feasible + rejected nodes, to advance the start index

  bool feasible(std::size_t k) const { return verdicts[k] == Verdict::Feasible; }
  bool examined(std::size_t k) const { return verdicts[k] != Verdict::NotExamined; }

  // The framework failure to report (empty when none): a PreFilter Error, else a Filter one.
  // A rejection is not a failure: it fails the nodes, not the request.
  std::string errorMessage() const {
    if (!preFilter.isSuccess() && !preFilter.isRejected()) return preFilter.message();
    return error.isSuccess() ? std::string() : error.message();
  }
};

FilterRun runFilter(const framework::runtime::Framework& fw, CycleState& state, const PodInfo& pod,
                    const Candidates& c, std::int64_t startIndex, bool trace) {
  const std::size_t n = c.known.size();
  FilterRun run;
  run.verdicts.assign(n, Verdict::NotExamined);
  run.rejections.resize(n);
  if (trace) run.traces.resize(n);
  run.numFeasibleNodesToFind = numFeasibleNodesToFind(fw.percentageOfNodesToScore(),
                                                      static_cast<std::int32_t>(c.names.size()));
  if (n == 0) return run;

  run.preFilter = fw.runPreFilterPlugins(state, pod, c.known);
  if (!run.preFilter.isSuccess()) return run;

  const std::size_t start = static_cast<std::size_t>(startIndex) % n;
  const std::int32_t numToFind = run.numFeasibleNodesToFind;
  if (fw.filterPlugins().empty()) {
    for (std::int32_t i = 0; i < numToFind && static_cast<std::size_t>(i) < n; ++i) {
      run.verdicts[(start + static_cast<std::size_t>(i)) % n] = Verdict::Feasible;
      ++run.processed;
    }
    return run;
  }

  // findNodesThatPassFilters: examine nodes from the rotating start index in parallel and
  // stop once numToFind feasible nodes are found. A node found past that is discarded.
  // Counting feasible nodes as they are found is what lets filtering stop; when every known
  // node is wanted it cannot, and the workers skip the counter they would all increment.
  const bool mayStop = static_cast<std::size_t>(numToFind) < n;
  std::atomic<std::int32_t> feasibleCount{0};
  std::atomic<bool> stop{false};
  std::mutex errorMutex;
  fw.parallelizer().until(
      static_cast<int>(n),
      [&](int i) {
        const std::size_t k = (start + static_cast<std::size_t>(i)) % n;
        framework::prefetchNodeAhead(c.known, k);
        Status s = fw.runFilterPluginsWithNominatedPods(state, pod, *c.known[k],
                                                        trace ? &run.traces[k] : nullptr);
        if (s.isSuccess()) {
          if (mayStop && feasibleCount.fetch_add(1) + 1 > numToFind) {
            stop.store(true);
            feasibleCount.fetch_sub(1);
          } else {
            run.verdicts[k] = Verdict::Feasible;
          }
        } else if (s.isRejected()) {
          run.rejections[k] = std::make_unique<Status>(std::move(s));
          run.verdicts[k] = Verdict::Rejected;
        } else {
          run.verdicts[k] = Verdict::Failed;
          std::lock_guard lock(errorMutex);
          if (run.error.isSuccess()) run.error = std::move(s);
          stop.store(true);
        }
      },
      &stop);
  run.processed = std::count_if(run.verdicts.begin(), run.verdicts.end(), [](Verdict v) {
    return v == Verdict::Feasible || v == Verdict::Rejected;
  });
  return run;
}

// Score, NormalizeScore and weights, then the extender's 0..10 score per node.
Status scoreNodes(const framework::runtime::Framework& fw, CycleState& state, const PodInfo& pod,
                  std::span<const NodeInfo* const> nodes,
                  framework::runtime::NodePluginScores& scores,
                  std::vector<std::int64_t>& extenderScores) {
  extenderScores.assign(nodes.size(), 0);
  if (fw.scorePlugins().empty() || nodes.empty()) return {};
  if (Status s = fw.runPreScorePlugins(state, pod, nodes); !s.isSuccess()) return s;
  if (Status s = fw.runScorePlugins(state, pod, nodes, scores); !s.isSuccess()) return s;

  // Map Σ weight × normalized (each normalized in [0, 100]) onto [0, MaxExtenderPriority]:
  // round(total × 10 / (100 × Σ weight)), half away from zero. Skipped plugins count in
  // Σ weight. total is never negative, so in integers: (2·total·10 + 100·W) / (2·100·W).
  std::int64_t weightSum = 0;
  for (const auto& e : fw.scorePlugins()) weightSum += e.weight;
  const std::int64_t denominator = 2 * framework::kMaxNodeScore * weightSum;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    extenderScores[i] =
        (2 * scores.total(i) * api::kMaxExtenderPriority + framework::kMaxNodeScore * weightSum) /
        denominator;
  }
  return {};
}

}  // namespace

Scheduler::Scheduler(std::shared_ptr<framework::runtime::Framework> framework,
                     std::shared_ptr<const cache::Cache> cache, InFlightPods* inFlight)
    : framework_(std::move(framework)), cache_(std::move(cache)), inFlight_(inFlight) {}

void Scheduler::whenInFlightSettled(Verb verb, const api::Pod& pod,
                                    InFlightPods::Proceed proceed) const {
  whenSettled(verb, pod, nullptr, std::move(proceed));
}

void Scheduler::whenInFlightSettled(const api::ExtenderArgs& args,
                                    InFlightPods::Proceed proceed) const {
  whenSettled(Verb::Filter, args.pod, &args, std::move(proceed));
}

void Scheduler::whenSettled(Verb verb, const api::Pod& pod, const api::ExtenderArgs* filterArgs,
                            InFlightPods::Proceed proceed) const {
  if (inFlight_ == nullptr) return proceed({});
  const auto snapshot = cache_->snapshot();
  if (!snapshot) return proceed({});
  InFlightPods::VictimsLeft victims;
  if (filterArgs != nullptr) {
    if (const auto preemption = inFlight_->preemption(pod.metadata.uid)) {
      victims = victimsLeft(*preemption, *filterArgs, *snapshot);
    }
  }
  std::optional<PodInfo> incoming;  // parsed only if some pod is in flight
  inFlight_->whenSettled(
      pod.metadata.uid,
      [&](const PodInfo& placed) {
        if (!incoming) incoming.emplace(std::make_shared<const api::Pod>(pod));
        return verb == Verb::Prioritize
                   ? framework_->placementChangesScore(*incoming, placed, *snapshot)
                   : framework_->placementChangesFilter(*incoming, placed, *snapshot);
      },
      std::move(victims), std::move(proceed));
}

void Scheduler::track(framework::PodInfoPtr pod) const {
  // A pod without a UID cannot be bound by /bind, and a bound one is no longer pending.
  if (inFlight_ == nullptr || pod->pod().metadata.uid.empty() || !pod->pod().spec.nodeName.empty())
    return;
  inFlight_->track(std::move(pod));
}

CycleState Scheduler::newCycle(std::shared_ptr<const framework::SharedLister> snapshot) const {
  CycleState state(std::move(snapshot));
  state.setRecordPluginMetrics(framework_->sampleCycleForMetrics());
  return state;
}

api::ExtenderFilterResult Scheduler::filter(const api::ExtenderArgs& args) {
  api::ExtenderFilterResult result;
  if (args.nodes) {
    result.nodes.emplace();
  } else {
    result.nodeNames.emplace();
  }
  std::shared_ptr<const framework::SharedLister> snapshot = cache_->snapshot();
  if (!snapshot) {
    result.error = kNotLoaded;
    return result;
  }
  const Candidates c = resolve(*snapshot, args);
  const framework::PodInfoPtr pod = sharedIncomingPod(args.pod);
  CycleState state = newCycle(snapshot);

  const std::int64_t start = nextStartNodeIndex_.load();
  FilterRun run = runFilter(*framework_, state, *pod, c, start, /*trace=*/false);
  if (!c.known.empty() && run.preFilter.isSuccess()) {
    nextStartNodeIndex_.store((start % static_cast<std::int64_t>(c.known.size()) + run.processed) %
                              static_cast<std::int64_t>(c.known.size()));
  }

  if (args.nodes) {
    result.nodes->reserve(c.known.size());
  } else {
    result.nodeNames->reserve(c.known.size());
  }
  auto fail = [&](std::string_view name, Code code, std::string_view reason) {
    auto& map = code == Code::UnschedulableAndUnresolvable ? result.failedAndUnresolvableNodes
                                                           : result.failedNodes;
    map.emplace_back(name, reason);
  };
  const auto reasonOf = [&](const Status& s) {
    const std::string_view text = s.staticMessage();
    return text.empty() ? result.keptReasons.keep(s.message()) : text;
  };
  // A PreFilter rejection fails every node with one reason.
  const std::string_view preFilterReason =
      run.preFilter.isRejected() ? reasonOf(run.preFilter) : std::string_view();
  std::size_t k = 0;
  for (std::size_t i = 0; i < c.names.size(); ++i) {
    if (c.bySent[i] == nullptr) {
      fail(c.names[i], Code::Unschedulable, result.keptReasons.keep(unknownNodeReason(c.names[i])));
      continue;
    }
    const std::size_t known = k++;
    if (run.preFilter.isRejected()) {
      fail(c.names[i], run.preFilter.code(), preFilterReason);
    } else if (const Status* rejection = run.rejections[known].get()) {
      fail(c.names[i], rejection->code(), reasonOf(*rejection));
    } else if (run.feasible(known)) {
      if (args.nodes) {
        result.nodes->push_back((*args.nodes)[i].raw);
      } else {
        result.nodeNames->emplace_back(c.names[i]);
      }
    }
  }
  result.error = run.errorMessage();
  const bool anyFeasible = args.nodes ? !result.nodes->empty() : !result.nodeNames->empty();
  if (anyFeasible && result.error.empty()) track(pod);
  return result;
}

Status Scheduler::prioritize(const api::ExtenderArgs& args, api::HostPriorityList& out) {
  out.clear();
  std::shared_ptr<const framework::SharedLister> snapshot = cache_->snapshot();
  if (!snapshot) return Status::error(kNotLoaded);
  const Candidates c = resolve(*snapshot, args);
  const framework::PodInfoPtr pod = sharedIncomingPod(args.pod);
  CycleState state = newCycle(snapshot);

  framework::runtime::NodePluginScores scores;
  std::vector<std::int64_t> extenderScores;
  if (Status s = scoreNodes(*framework_, state, *pod, c.known, scores, extenderScores);
      !s.isSuccess())
    return s;
  if (!c.known.empty()) track(pod);
  out.reserve(c.names.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < c.names.size(); ++i) {
    // A node the cache does not know scores 0 rather than failing the whole call.
    out.push_back({c.names[i], c.bySent[i] != nullptr ? extenderScores[k++] : 0});
  }
  return {};
}

Explanation Scheduler::explain(const api::ExtenderArgs& args) {
  Explanation ex;
  ex.pod = podKey(args.pod);
  std::shared_ptr<const framework::SharedLister> snapshot = cache_->snapshot();
  if (!snapshot) {
    ex.error = kNotLoaded;
    return ex;
  }
  const Candidates c = resolve(*snapshot, args);
  const PodInfo pod = incomingPod(args.pod);
  CycleState state = newCycle(snapshot);
  ex.numAllNodes = static_cast<std::int64_t>(c.names.size());

  // A dry run: read the start index, never advance it.
  FilterRun run = runFilter(*framework_, state, pod, c, nextStartNodeIndex_.load(), /*trace=*/true);
  ex.numFeasibleNodesToFind = run.numFeasibleNodesToFind;
  ex.error = run.errorMessage();

  std::vector<const NodeInfo*> feasibleNodes;
  std::vector<std::size_t> feasibleAt;  // index into ex.nodes
  std::size_t k = 0;
  for (std::size_t i = 0; i < c.names.size(); ++i) {
    NodeExplanation& node = ex.nodes.emplace_back();
    node.name = std::string(c.names[i]);
    if (c.bySent[i] == nullptr) {
      node.filter.push_back({"", Status(Code::Unschedulable, unknownNodeReason(c.names[i]))});
      continue;
    }
    const std::size_t known = k++;
    if (!run.preFilter.isSuccess()) {
      node.filter.push_back({std::string(run.preFilter.plugin()), run.preFilter});
      continue;
    }
    for (auto& [plugin, status] : run.traces[known]) node.filter.push_back({plugin, status});
    node.feasible = run.feasible(known);
    if (!run.examined(known)) node.filter.clear();
    if (node.feasible) {
      feasibleNodes.push_back(c.known[known]);
      feasibleAt.push_back(ex.nodes.size() - 1);
    }
  }
  if (!ex.error.empty()) return ex;

  framework::runtime::NodePluginScores scores;
  std::vector<std::int64_t> extenderScores;
  if (Status s = scoreNodes(*framework_, state, pod, feasibleNodes, scores, extenderScores);
      !s.isSuccess()) {
    ex.error = s.message();
    return ex;
  }
  const auto& plugins = framework_->scorePlugins();
  for (std::size_t f = 0; f < feasibleNodes.size(); ++f) {
    NodeExplanation& node = ex.nodes[feasibleAt[f]];
    for (std::size_t p = 0; p < plugins.size(); ++p) {
      node.scores.push_back({std::string(plugins[p].owner->name()),
                             scores.empty() ? 0 : scores.raw(f, p),
                             scores.empty() ? 0 : scores.normalized(f, p), plugins[p].weight});
    }
    node.total = scores.empty() ? 0 : scores.total(f);
    node.score = extenderScores[f];
  }
  return ex;
}

Status Scheduler::filterNode(const api::Pod& pod, std::string_view node) const {
  std::shared_ptr<const framework::SharedLister> snapshot = cache_->snapshot();
  if (!snapshot) return Status::error(kNotLoaded);
  const NodeInfo* info = snapshot->getNodeInfo(node);
  if (info == nullptr) return Status(Code::UnschedulableAndUnresolvable, unknownNodeReason(node));
  const PodInfo incoming = incomingPod(pod);
  CycleState state = newCycle(snapshot);
  const NodeInfo* const nodes[] = {info};
  if (Status s = framework_->runPreFilterPlugins(state, incoming, nodes); !s.isSuccess()) return s;
  return framework_->runFilterPluginsWithNominatedPods(state, incoming, *info);
}

PreemptionResult Scheduler::preempt(const api::ExtenderPreemptionArgs& args) const {
  PreemptionResult result = selectVictims(args);
  // A bound pod preempts nothing, and one without a UID cannot be told from another.
  const auto& meta = args.pod.metadata;
  if (inFlight_ != nullptr && !meta.uid.empty() && args.pod.spec.nodeName.empty()) {
    InFlightPods::Preemption victims;
    victims.reserve(result.answer.nodeNameToMetaVictims.size());
    for (const auto& [node, named] : result.answer.nodeNameToMetaVictims) {
      victims.push_back({node, named.podUIDs});
    }
    inFlight_->notePreemption(meta.uid, std::move(victims));
  }
  return result;
}

PreemptionResult Scheduler::selectVictims(const api::ExtenderPreemptionArgs& args) const {
  const std::vector<preemption::Candidate> candidates = candidatesOf(args);
  PreemptionResult result;
  result.outcomes.assign(candidates.size(), preemption::Outcome::Rejected);
  std::shared_ptr<const cache::Snapshot> snapshot = cache_->snapshot();
  if (!snapshot || candidates.empty()) return result;
  const PodInfo pod = incomingPod(args.pod);
  CycleState state = newCycle(snapshot);
  // PreFilter is given the candidates, as /filter's is given the nodes sent: the plugins ask
  // the snapshot's indexes for the rest of the cluster, and a list of every node would cost
  // what the cluster does.
  std::vector<std::string_view> names;
  names.reserve(candidates.size());
  for (const auto& candidate : candidates) names.push_back(candidate.node);
  std::vector<const NodeInfo*> nodes(names.size());
  snapshot->getNodeInfos(names, nodes);
  std::erase(nodes, nullptr);
  if (!framework_->runPreFilterPlugins(state, pod, nodes).isSuccess()) return result;

  // A pod without a status.startTime counts as started now (util.GetPodStartTime), rounded up
  // as start times are rounded down: it is never older than one that has started.
  const auto now =
      std::chrono::ceil<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch());
  const preemption::VictimSelector selector(*framework_, state, pod, *snapshot, now.count());
  std::vector<preemption::NodeVictims> selected(candidates.size());
  framework_->parallelizer().until(static_cast<int>(candidates.size()), [&](int i) {
    const auto k = static_cast<std::size_t>(i);
    selected[k] = selector.select(candidates[k]);
  });
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    result.outcomes[k] = selected[k].outcome;
    if (selected[k].outcome == preemption::Outcome::Rejected) continue;
    result.answer.nodeNameToMetaVictims.emplace_back(std::string(candidates[k].node),
                                                     std::move(selected[k].victims));
  }
  return result;
}

}  // namespace scheduling
