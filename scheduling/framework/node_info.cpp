#include <algorithm>

#include "scheduling/framework/types.hpp"

namespace scheduling::framework {

const std::string& NodeInfo::name() const {
  static const std::string kEmpty;
  return node_ ? node_->name : kEmpty;
}

const api::Labels& NodeInfo::labels() const {
  static const api::Labels kEmpty;
  return node_ ? node_->labels : kEmpty;
}

void NodeInfo::setNode(std::shared_ptr<const api::Node> node, NodeSlot slot) {
  node_ = node.get();
  nodeOwner_ = std::move(node);
  slot_ = slot;
}

void NodeInfo::removeNode() {
  node_ = nullptr;
  nodeOwner_.reset();
  slot_ = kNoSlot;
}

NodeInfo NodeInfo::borrowingCopy() const {
  NodeInfo copy;
  copy.borrow(*this);
  return copy;
}

void NodeInfo::borrow(const NodeInfo& other) {
  node_ = other.node_;
  nodeOwner_.reset();
  slot_ = other.slot_;
  origin_ = &other.origin();
  owned_.clear();
  numTerminatingPods_ = other.numTerminatingPods_;
  // Two segments at most: a copy of a copy views the same origin and lists the pods added to
  // the copy it was made from as its own. assign() keeps this object's capacity.
  static const Lists kNone;
  borrowed_ = other.borrowed_ != nullptr ? other.borrowed_ : &other.own_;
  const Lists& added = other.borrowed_ != nullptr ? other.own_ : kNone;
  own_.pods.assign(added.pods.begin(), added.pods.end());
  own_.withAffinity.assign(added.withAffinity.begin(), added.withAffinity.end());
  own_.withRequiredAntiAffinity.assign(added.withRequiredAntiAffinity.begin(),
                                       added.withRequiredAntiAffinity.end());
}

void NodeInfo::addPod(PodInfoPtr pod) {
  if (pod->hasPodAffinityOrAntiAffinity()) own_.withAffinity.push_back(pod.get());
  if (!pod->requiredAntiAffinityTerms().empty()) own_.withRequiredAntiAffinity.push_back(pod.get());
  if (pod->pod().isTerminating()) ++numTerminatingPods_;
  own_.pods.push_back(pod.get());
  owned_.push_back(std::move(pod));
}

void NodeInfo::ownLists() {
  if (borrowed_ == nullptr) return;
  const auto prepend = [](std::vector<const PodInfo*>& own,
                          const std::vector<const PodInfo*>& from) {
    own.insert(own.begin(), from.begin(), from.end());
  };
  prepend(own_.pods, borrowed_->pods);
  prepend(own_.withAffinity, borrowed_->withAffinity);
  prepend(own_.withRequiredAntiAffinity, borrowed_->withRequiredAntiAffinity);
  borrowed_ = nullptr;
}

namespace {

// Removes the pod with that UID and returns it; null when there is none.
const PodInfo* swapRemove(std::vector<const PodInfo*>& pods, std::string_view uid) {
  auto it = std::find_if(pods.begin(), pods.end(),
                         [&](const PodInfo* p) { return p->pod().metadata.uid == uid; });
  if (it == pods.end()) return nullptr;
  const PodInfo* removed = *it;
  *it = pods.back();
  pods.pop_back();
  return removed;
}

}  // namespace

bool NodeInfo::removePod(std::string_view uid) {
  ownLists();
  swapRemove(own_.withAffinity, uid);
  swapRemove(own_.withRequiredAntiAffinity, uid);
  const PodInfo* removed = swapRemove(own_.pods, uid);
  if (removed == nullptr) return false;
  if (removed->pod().isTerminating()) --numTerminatingPods_;
  // Last: this may free the pod (a borrowing copy owns only what was added to it).
  auto owner = std::find_if(owned_.begin(), owned_.end(),
                            [&](const PodInfoPtr& p) { return p.get() == removed; });
  if (owner != owned_.end()) {
    *owner = std::move(owned_.back());
    owned_.pop_back();
  }
  return true;
}

}  // namespace scheduling::framework
