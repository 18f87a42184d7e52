#include <algorithm>
#include <atomic>

#include "scheduling/framework/types.hpp"

namespace scheduling::framework {

std::int64_t nextGeneration() {
  static std::atomic<std::int64_t> generation{0};
  return ++generation;
}

const std::string& NodeInfo::name() const {
  static const std::string kEmpty;
  return node_ ? node_->name : kEmpty;
}

const api::Labels& NodeInfo::labels() const {
  static const api::Labels kEmpty;
  return node_ ? node_->labels : kEmpty;
}

void NodeInfo::bumpGeneration() { generation_ = nextGeneration(); }

void NodeInfo::setNode(std::shared_ptr<const api::Node> node) {
  node_ = std::move(node);
  bumpGeneration();
}

void NodeInfo::removeNode() {
  node_.reset();
  bumpGeneration();
}

NodeInfo NodeInfo::borrowingCopy() const {
  NodeInfo copy;
  copy.node_ = node_;
  copy.origin_ = &origin();
  copy.pods_ = pods_;
  copy.podsWithAffinity_ = podsWithAffinity_;
  copy.podsWithRequiredAntiAffinity_ = podsWithRequiredAntiAffinity_;
  copy.numTerminatingPods_ = numTerminatingPods_;
  copy.generation_ = generation_;
  return copy;
}

void NodeInfo::addPod(PodInfoPtr pod) {
  if (pod->hasPodAffinityOrAntiAffinity()) podsWithAffinity_.push_back(pod.get());
  if (!pod->requiredAntiAffinityTerms().empty()) podsWithRequiredAntiAffinity_.push_back(pod.get());
  if (pod->pod().isTerminating()) ++numTerminatingPods_;
  pods_.push_back(pod.get());
  owned_.push_back(std::move(pod));
  bumpGeneration();
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
  swapRemove(podsWithAffinity_, uid);
  swapRemove(podsWithRequiredAntiAffinity_, uid);
  const PodInfo* removed = swapRemove(pods_, uid);
  if (removed == nullptr) return false;
  if (removed->pod().isTerminating()) --numTerminatingPods_;
  // Last: this may free the pod (a borrowing copy owns only what was added to it).
  auto owner = std::find_if(owned_.begin(), owned_.end(),
                            [&](const PodInfoPtr& p) { return p.get() == removed; });
  if (owner != owned_.end()) {
    *owner = std::move(owned_.back());
    owned_.pop_back();
  }
  bumpGeneration();
  return true;
}

}  // namespace scheduling::framework
