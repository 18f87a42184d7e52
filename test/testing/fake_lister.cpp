#include "test/testing/fake_lister.hpp"

#include <algorithm>
#include <iterator>

namespace testing {

namespace fw = scheduling::framework;

fw::PodInfo podInfo(const api::Pod& pod) {
  return fw::PodInfo(std::make_shared<const api::Pod>(pod));
}

fw::PodInfoPtr podInfoPtr(const api::Pod& pod) {
  return std::make_shared<const fw::PodInfo>(std::make_shared<const api::Pod>(pod));
}

FakeLister::FakeLister(std::vector<api::Node> nodes, std::vector<api::Pod> pods,
                       std::vector<api::Namespace> namespaces)
    : namespaces_(std::move(namespaces)) {
  // In name order, as a snapshot lists them (SharedLister::forEachNamespace).
  std::ranges::sort(namespaces_, {}, &api::Namespace::name);
  for (auto& node : nodes) {
    const auto slot = static_cast<fw::NodeSlot>(nodeInfos_.size());
    topology_.setNode(slot, node.labels);
    auto& info = nodeInfos_.emplace_back(std::make_unique<fw::NodeInfo>());
    info->setNode(std::make_shared<const api::Node>(std::move(node)), slot);
  }
  for (const auto& pod : pods) {
    if (!pod.spec.nodeName.empty()) {
      if (pod.isTerminal()) continue;
      for (auto& info : nodeInfos_) {
        if (info->name() == pod.spec.nodeName) {
          info->addPod(podInfoPtr(pod));
          break;
        }
      }
    } else if (!pod.status.nominatedNodeName.empty()) {
      auto it = nominated_.begin();
      while (it != nominated_.end() && it->first != pod.status.nominatedNodeName) ++it;
      if (it == nominated_.end()) {
        nominated_.emplace_back(pod.status.nominatedNodeName, std::vector<fw::NominatedPod>{});
        it = std::prev(nominated_.end());
      }
      it->second.emplace_back(podInfoPtr(pod));
    }
  }
  for (const auto& info : nodeInfos_) {
    all_.push_back(info.get());
    if (!info->podsWithAffinity().empty()) withAffinity_.push_back(info.get());
    if (!info->podsWithRequiredAntiAffinity().empty()) {
      withRequiredAntiAffinity_.push_back(info.get());
    }
  }
}

const fw::NodeInfo* FakeLister::getNodeInfo(std::string_view name) const {
  for (const auto* info : all_) {
    if (info->name() == name) return info;
  }
  return nullptr;
}

const api::Labels& FakeLister::namespaceLabels(std::string_view ns) const {
  static const api::Labels kEmpty;
  for (const auto& n : namespaces_) {
    if (n.name == ns) return n.labels;
  }
  return kEmpty;
}

void FakeLister::forEachNamespace(
    const std::function<void(const std::string& name, const api::Labels& labels)>& fn) const {
  for (const auto& n : namespaces_) fn(n.name, n.labels);
}

std::span<const fw::NominatedPod> FakeLister::nominatedPodsForNode(std::string_view node) const {
  for (const auto& [name, pods] : nominated_) {
    if (name == node) return pods;
  }
  return {};
}

void FakeLister::forEachNominatedPodMatching(
    const fw::AffinityTerm& term, const std::function<void(const fw::PodInfo& pod)>& fn) const {
  static const api::Labels kNoLabels;
  for (const auto& [node, pods] : nominated_) {
    for (const auto& p : pods) {
      if (term.matches(p.info->pod(), kNoLabels)) fn(*p.info);
    }
  }
}

void FakeLister::forEachNominatedPodWithRequiredAntiAffinitySelecting(
    std::string_view /*podNamespace*/, const api::Labels& /*podLabels*/,
    const std::function<void(const fw::AffinityTerm& term, const fw::PodInfo& pod)>& fn) const {
  for (const auto& [node, pods] : nominated_) {
    for (const auto& p : pods) {
      for (const auto& term : p.info->requiredAntiAffinityTerms()) fn(term, *p.info);
    }
  }
}

void FakeLister::forEachPodMatching(
    const fw::AffinityTerm& term,
    const std::function<void(const fw::PodInfo& pod, fw::NodeSlot node)>& fn) const {
  static const api::Labels kNoLabels;
  for (const auto* node : all_) {
    for (const auto& pod : node->pods()) {
      if (term.matches(pod->pod(), kNoLabels)) fn(*pod, node->slot());
    }
  }
}

namespace {

// The terms of `kind` a pod carries, with their weights (0 for required terms).
std::vector<std::pair<const fw::AffinityTerm*, std::int32_t>> termsOf(const fw::PodInfo& pod,
                                                                      fw::TermKind kind) {
  std::vector<std::pair<const fw::AffinityTerm*, std::int32_t>> out;
  switch (kind) {
    case fw::TermKind::RequiredAffinity:
      for (const auto& t : pod.requiredAffinityTerms()) out.emplace_back(&t, 0);
      break;
    case fw::TermKind::RequiredAntiAffinity:
      for (const auto& t : pod.requiredAntiAffinityTerms()) out.emplace_back(&t, 0);
      break;
    case fw::TermKind::PreferredAffinity:
      for (const auto& w : pod.preferredAffinityTerms()) out.emplace_back(&w.term, w.weight);
      break;
    case fw::TermKind::PreferredAntiAffinity:
      for (const auto& w : pod.preferredAntiAffinityTerms()) out.emplace_back(&w.term, w.weight);
      break;
  }
  return out;
}

}  // namespace

void FakeLister::forEachExistingTerm(
    fw::TermKind kind,
    const std::function<void(const fw::AffinityTerm& term, std::int32_t weight,
                             std::span<const fw::NodeTermCount> nodes)>& fn) const {
  struct Group {
    const fw::AffinityTerm* term;
    std::int32_t weight;
    std::vector<fw::NodeTermCount> nodes;
  };
  std::vector<Group> groups;
  for (const auto* node : all_) {
    for (const auto& pod : node->pods()) {
      for (const auto& [term, weight] : termsOf(*pod, kind)) {
        auto it = groups.begin();
        while (it != groups.end() && !(*it->term == *term && it->weight == weight)) ++it;
        if (it == groups.end()) {
          groups.push_back({term, weight, {}});
          it = std::prev(groups.end());
        }
        // Nodes are visited one after the other, so a node's entry is the last one.
        if (it->nodes.empty() || it->nodes.back().slot != node->slot()) {
          it->nodes.push_back({node->slot(), 0});
        }
        ++it->nodes.back().count;
      }
    }
  }
  for (const auto& g : groups) fn(*g.term, g.weight, g.nodes);
}

void FakeLister::forEachExistingTermSelecting(
    fw::TermKind kind, std::string_view /*podNamespace*/, const api::Labels& /*podLabels*/,
    const std::function<void(const fw::AffinityTerm& term, std::int32_t weight,
                             std::span<const fw::NodeTermCount> nodes)>& fn) const {
  forEachExistingTerm(kind, fn);
}

}  // namespace testing
