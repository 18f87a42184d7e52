#include "scheduling/cache/node_tree.hpp"

#include <algorithm>

namespace scheduling::cache {

namespace {

constexpr std::string_view kLabelTopologyZone = "topology.kubernetes.io/zone";
constexpr std::string_view kLabelTopologyRegion = "topology.kubernetes.io/region";
constexpr std::string_view kLabelFailureDomainBetaZone = "failure-domain.beta.kubernetes.io/zone";
constexpr std::string_view kLabelFailureDomainBetaRegion =
    "failure-domain.beta.kubernetes.io/region";

// The first of two labels that is present (even with an empty value), else "".
std::string_view firstPresent(const api::Labels& labels, std::string_view preferred,
                              std::string_view fallback) {
  if (const auto v = labels.get(preferred)) return *v;
  if (const auto v = labels.get(fallback)) return *v;
  return {};
}

}  // namespace

std::string getZoneKey(const api::Node& node) {
  const std::string_view zone =
      firstPresent(node.labels, kLabelFailureDomainBetaZone, kLabelTopologyZone);
  const std::string_view region =
      firstPresent(node.labels, kLabelFailureDomainBetaRegion, kLabelTopologyRegion);
  if (region.empty() && zone.empty()) return {};
  std::string key;
  key.reserve(region.size() + 3 + zone.size());
  key.append(region);
  key.append(":\0:", 3);
  key.append(zone);
  return key;
}

void NodeTree::addNode(const api::Node& node) {
  std::string zoneKey = getZoneKey(node);
  auto [it, newZone] = tree_.try_emplace(zoneKey);
  Zone& zone = it->second;
  if (!zone.members.insert(node.name).second) return;
  if (newZone) zones_.push_back(std::move(zoneKey));
  zone.nodes.push_back(node.name);
  ++numNodes_;
}

bool NodeTree::removeNode(const api::Node& node) {
  const std::string zoneKey = getZoneKey(node);
  auto it = tree_.find(zoneKey);
  if (it == tree_.end() || it->second.members.erase(node.name) == 0) return false;
  auto& nodes = it->second.nodes;
  nodes.erase(std::find(nodes.begin(), nodes.end(), node.name));
  if (nodes.empty()) removeZone(zoneKey);
  --numNodes_;
  return true;
}

void NodeTree::removeZone(const std::string& zone) {
  tree_.erase(zone);
  zones_.erase(std::find(zones_.begin(), zones_.end(), zone));
}

void NodeTree::updateNode(const api::Node& oldNode, const api::Node& newNode) {
  if (getZoneKey(oldNode) == getZoneKey(newNode)) return;
  // Whether the old node was present does not matter, as upstream.
  removeNode(oldNode);
  addNode(newNode);
}

std::vector<std::string> NodeTree::list() const {
  std::vector<std::string> names;
  names.reserve(numNodes_);
  std::vector<const std::vector<std::string>*> zones;
  zones.reserve(zones_.size());
  for (const auto& zone : zones_) zones.push_back(&tree_.at(zone).nodes);
  // Every zone is non-empty and numNodes_ is the sum of their sizes, so the rounds end
  // exactly when every zone is exhausted.
  for (std::size_t index = 0; names.size() < static_cast<std::size_t>(numNodes_); ++index) {
    for (const auto* nodes : zones) {
      if (index < nodes->size()) names.push_back((*nodes)[index]);
    }
  }
  return names;
}

const std::vector<std::string>* NodeTree::nodesInZone(std::string_view zone) const {
  auto it = tree_.find(std::string(zone));
  return it == tree_.end() ? nullptr : &it->second.nodes;
}

}  // namespace scheduling::cache
