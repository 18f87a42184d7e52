#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scheduling/api/namespace.hpp"
#include "scheduling/api/node.hpp"
#include "scheduling/api/pod.hpp"
#include "scheduling/framework/listers.hpp"

namespace testing {

namespace api = scheduling::api;

// A brute-force SharedLister over explicit objects: every query is a straightforward loop,
// with no index, so it is obviously right. It serves the plugin tests and is the reference
// the indexed cache::Snapshot can be checked against.
//
// Pods are routed as the cache routes them (CONTRACT §4):
//  - spec.nodeName set and phase neither Succeeded nor Failed → on that node (a pod naming an
//    unknown node is dropped: such a node would be a label-less ghost, invisible to plugins);
//  - spec.nodeName empty and status.nominatedNodeName set → nominated to that node;
//  - anything else (terminal, or neither) is ignored.
// Nodes keep the given order; nominated pods keep theirs.
class FakeLister final : public scheduling::framework::SharedLister {
 public:
  FakeLister(std::vector<api::Node> nodes, std::vector<api::Pod> pods,
             std::vector<api::Namespace> namespaces = {});

  static std::shared_ptr<const FakeLister> make(std::vector<api::Node> nodes,
                                                std::vector<api::Pod> pods,
                                                std::vector<api::Namespace> namespaces = {}) {
    return std::make_shared<const FakeLister>(std::move(nodes), std::move(pods),
                                              std::move(namespaces));
  }

  std::span<const scheduling::framework::NodeInfo* const> nodeInfoList() const override {
    return all_;
  }
  std::span<const scheduling::framework::NodeInfo* const> havePodsWithAffinityList()
      const override {
    return withAffinity_;
  }
  std::span<const scheduling::framework::NodeInfo* const> havePodsWithRequiredAntiAffinityList()
      const override {
    return withRequiredAntiAffinity_;
  }
  const scheduling::framework::NodeInfo* getNodeInfo(std::string_view name) const override;
  const scheduling::framework::TopologyIndex& topology() const override { return topology_; }

  const api::Labels& namespaceLabels(std::string_view ns) const override;
  void forEachNamespace(const std::function<void(const std::string& name,
                                                 const api::Labels& labels)>& fn) const override;

  std::span<const scheduling::framework::NominatedPod> nominatedPodsForNode(
      std::string_view node) const override;
  void forEachNominatedPodMatching(
      const scheduling::framework::AffinityTerm& term,
      const std::function<void(const scheduling::framework::PodInfo& pod)>& fn) const override;
  // Every required anti-affinity term of every nominated pod: the widest superset allowed.
  void forEachNominatedPodWithRequiredAntiAffinitySelecting(
      std::string_view podNamespace, const api::Labels& podLabels,
      const std::function<void(const scheduling::framework::AffinityTerm& term,
                               const scheduling::framework::PodInfo& pod)>& fn) const override;

  void forEachPodMatching(
      const scheduling::framework::AffinityTerm& term,
      const std::function<void(const scheduling::framework::PodInfo& pod,
                               scheduling::framework::NodeSlot node)>& fn) const override;
  void forEachExistingTerm(
      scheduling::framework::TermKind kind,
      const std::function<void(const scheduling::framework::AffinityTerm& term, std::int32_t weight,
                               std::span<const scheduling::framework::NodeTermCount> nodes)>& fn)
      const;
  // Every term: the widest superset allowed.
  void forEachExistingTermSelecting(
      scheduling::framework::TermKind kind, std::string_view podNamespace,
      const api::Labels& podLabels,
      const std::function<void(const scheduling::framework::AffinityTerm& term, std::int32_t weight,
                               std::span<const scheduling::framework::NodeTermCount> nodes)>& fn)
      const override;

 private:
  std::vector<std::unique_ptr<scheduling::framework::NodeInfo>> nodeInfos_;
  scheduling::framework::TopologyIndex topology_;  // slots are positions in nodeInfos_
  std::vector<const scheduling::framework::NodeInfo*> all_;
  std::vector<const scheduling::framework::NodeInfo*> withAffinity_;
  std::vector<const scheduling::framework::NodeInfo*> withRequiredAntiAffinity_;
  std::vector<api::Namespace> namespaces_;
  std::vector<std::pair<std::string, std::vector<scheduling::framework::NominatedPod>>> nominated_;
};

// A PodInfo of a copy of `pod`.
scheduling::framework::PodInfo podInfo(const api::Pod& pod);
scheduling::framework::PodInfoPtr podInfoPtr(const api::Pod& pod);

}  // namespace testing
