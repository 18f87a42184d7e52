#include "scheduling/preemption/select_victims.hpp"

#include <algorithm>
#include <optional>

#include "scheduling/preemption/pdb_violation.hpp"
#include "scheduling/preemption/victim_order.hpp"

namespace scheduling::preemption {

namespace {

using framework::PodInfo;
using framework::Status;

// The candidate node as victims leave it and reprieved pods return: a copy of its NodeInfo
// and of the cycle's state, which pods leave and rejoin through the PreFilter extensions
// (removeVictim and addVictim upstream).
class Trial {
 public:
  Trial(const framework::runtime::Framework& framework, const framework::CycleState& state,
        const PodInfo& preemptor, const framework::NodeInfo& node)
      : framework_(framework),
        preemptor_(preemptor),
        state_(state.clone()),
        node_(node.borrowingCopy()) {}

  // `pod` is on the node: it leaves.
  bool remove(const PodInfo& pod) {
    node_.removePod(pod.pod().metadata.uid);
    return framework_.runPreFilterExtensionRemovePod(state_, preemptor_, pod, node_).isSuccess();
  }

  // `pod` left the node: it comes back. The snapshot owns it for longer than the trial lasts,
  // so the node holds it by a pointer that owns nothing.
  bool add(const PodInfo& pod) {
    node_.addPod(framework::PodInfoPtr(framework::PodInfoPtr(), &pod));
    return framework_.runPreFilterExtensionAddPod(state_, preemptor_, pod, node_).isSuccess();
  }

  // The filter plugins with the nominated pods, as /filter runs them. A plugin's error counts
  // as not fitting, as upstream counts it.
  bool fits() const {
    return framework_.runFilterPluginsWithNominatedPods(state_, preemptor_, node_).isSuccess();
  }

 private:
  const framework::runtime::Framework& framework_;
  const PodInfo& preemptor_;
  framework::CycleState state_;
  framework::NodeInfo node_;
};

// One candidate's selection, step by step: its node's pods as the snapshot holds them, and
// which of them are victims. A step that returns false drops the node (a PreFilter extension
// failed, or the pod cannot fit).
class Selection {
 public:
  Selection(const framework::runtime::Framework& framework, const framework::CycleState& state,
            const PodInfo& preemptor, const framework::NodeInfo& node, const Candidate& candidate,
            std::int64_t now)
      : candidate_(candidate),
        preemptor_(preemptor),
        pods_(node.pods()),
        trial_(framework, state, preemptor, node),
        now_(now),
        given_(pods_.size()),
        givenAt_(candidate.victims.size()),
        added_(pods_.size()),
        violating_(pods_.size()) {}

  // The victims sent leave, each once; a UID the cache does not hold on this node changes
  // nothing here.
  bool removeGiven() {
    for (std::size_t v = 0; v < candidate_.victims.size(); ++v) {
      givenAt_[v] = positionOf(candidate_.victims[v].uid);
      if (!givenAt_[v] || given_[*givenAt_[v]]) continue;
      given_[*givenAt_[v]] = true;
      if (!trial_.remove(*pods_[*givenAt_[v]])) return false;
    }
    return true;
  }

  bool fits() const { return trial_.fits(); }

  // Every other pod of lower priority leaves too; false when there is none.
  bool removeLowerPriority() {
    for (std::size_t i = 0; i < pods_.size(); ++i) {
      if (pods_[i]->priority() < preemptor_.priority()) lower_.push_back(i);
    }
    if (std::all_of(lower_.begin(), lower_.end(), [&](std::size_t i) { return given_[i]; })) {
      return false;
    }
    for (const std::size_t i : lower_) {
      if (!given_[i] && !trial_.remove(*pods_[i])) return false;
    }
    return true;
  }

  // The pods of lower priority from the most important down, each marked when its eviction
  // would exceed a budget (the victims sent take their share of the budgets too); then the
  // ones not sent return one by one, those exceeding a budget first.
  bool reprieve(const cache::Snapshot& snapshot) {
    std::stable_sort(lower_.begin(), lower_.end(), [&](std::size_t a, std::size_t b) {
      return moreImportantPod(pods_[a]->pod(), pods_[b]->pod(), now_);
    });
    std::vector<const api::Pod*> ordered;
    ordered.reserve(lower_.size());
    for (const std::size_t i : lower_) ordered.push_back(&pods_[i]->pod());
    const std::vector<bool> violating = filterPodsWithPDBViolation(ordered, snapshot);
    for (std::size_t k = 0; k < lower_.size(); ++k) violating_[lower_[k]] = violating[k];

    for (const bool exceeding : {true, false}) {
      for (const std::size_t i : lower_) {
        if (given_[i] || violating_[i] != exceeding) continue;
        if (!trial_.add(*pods_[i])) return false;
        if (trial_.fits()) continue;
        if (!trial_.remove(*pods_[i])) return false;
        added_[i] = true;
      }
    }
    return true;
  }

  // The victims: those sent, then those added, the whole list sorted from the most important
  // down (ties keep that order; a victim of which nothing is known goes last), and how many of
  // them exceed a budget.
  api::MetaVictims victims() const {
    struct Listed {
      std::string_view uid;
      const api::Pod* pod;  // the cache's, or the one sent; null when neither
    };
    std::vector<Listed> listed;
    for (std::size_t v = 0; v < candidate_.victims.size(); ++v) {
      const GivenVictim& victim = candidate_.victims[v];
      listed.push_back({victim.uid, givenAt_[v] ? &pods_[*givenAt_[v]]->pod() : victim.sent});
    }
    for (const std::size_t i : lower_) {
      if (added_[i]) listed.push_back({pods_[i]->pod().metadata.uid, &pods_[i]->pod()});
    }
    std::stable_sort(listed.begin(), listed.end(), [&](const Listed& a, const Listed& b) {
      if (a.pod == nullptr || b.pod == nullptr) return a.pod != nullptr && b.pod == nullptr;
      return moreImportantPod(*a.pod, *b.pod, now_);
    });
    api::MetaVictims out;
    for (const Listed& victim : listed) out.podUIDs.emplace_back(victim.uid);
    for (std::size_t i = 0; i < pods_.size(); ++i) {
      if ((given_[i] || added_[i]) && violating_[i]) ++out.numPDBViolations;
    }
    return out;
  }

 private:
  std::optional<std::size_t> positionOf(std::string_view uid) const {
    for (std::size_t i = 0; i < pods_.size(); ++i) {
      if (pods_[i]->pod().metadata.uid == uid) return i;
    }
    return std::nullopt;
  }

  const Candidate& candidate_;
  const PodInfo& preemptor_;
  const framework::PodList pods_;
  Trial trial_;
  std::int64_t now_;
  // By position in pods_: sent as a victim, added as one, exceeding a budget if evicted.
  std::vector<bool> given_;
  std::vector<std::optional<std::size_t>> givenAt_;  // by victim sent: where it is in pods_
  std::vector<bool> added_;
  std::vector<bool> violating_;
  std::vector<std::size_t> lower_;  // positions of the pods of lower priority
};

}  // namespace

VictimSelector::VictimSelector(const framework::runtime::Framework& framework,
                               const framework::CycleState& state, const PodInfo& preemptor,
                               const cache::Snapshot& snapshot, std::int64_t now)
    : framework_(framework), state_(state), preemptor_(preemptor), snapshot_(snapshot), now_(now) {}

NodeVictims VictimSelector::select(const Candidate& candidate) const {
  const framework::NodeInfo* node = snapshot_.getNodeInfo(candidate.node);
  if (node == nullptr) return {};
  Selection selection(framework_, state_, preemptor_, *node, candidate, now_);
  if (!selection.removeGiven()) return {};
  if (selection.fits()) {
    NodeVictims kept{Outcome::Kept, {{}, candidate.numPDBViolations}};
    for (const GivenVictim& victim : candidate.victims) {
      kept.victims.podUIDs.emplace_back(victim.uid);
    }
    return kept;
  }
  if (!selection.removeLowerPriority() || !selection.fits() || !selection.reprieve(snapshot_)) {
    return {};
  }
  return {Outcome::Extended, selection.victims()};
}

}  // namespace scheduling::preemption
