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

void NodeInfo::addPod(PodInfoPtr pod) {
  if (pod->hasPodAffinityOrAntiAffinity()) podsWithAffinity_.push_back(pod);
  if (!pod->requiredAntiAffinityTerms().empty()) podsWithRequiredAntiAffinity_.push_back(pod);
  if (pod->pod().isTerminating()) ++numTerminatingPods_;
  pods_.push_back(std::move(pod));
  bumpGeneration();
}

namespace {

// Removes the pod with that UID and returns it; null when there is none.
PodInfoPtr swapRemove(std::vector<PodInfoPtr>& pods, std::string_view uid) {
  auto it = std::find_if(pods.begin(), pods.end(),
                         [&](const PodInfoPtr& p) { return p->pod().metadata.uid == uid; });
  if (it == pods.end()) return nullptr;
  PodInfoPtr removed = std::move(*it);
  *it = std::move(pods.back());
  pods.pop_back();
  return removed;
}

}  // namespace

bool NodeInfo::removePod(std::string_view uid) {
  swapRemove(podsWithAffinity_, uid);
  swapRemove(podsWithRequiredAntiAffinity_, uid);
  const PodInfoPtr removed = swapRemove(pods_, uid);
  if (!removed) return false;
  if (removed->pod().isTerminating()) --numTerminatingPods_;
  bumpGeneration();
  return true;
}

}  // namespace scheduling::framework
