#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "scheduling/api/node.hpp"

namespace scheduling::cache {

// k8s.io/component-helpers/node/topology.GetZoneKey: "" for a node without region and zone,
// else "<region>:\0:<zone>" (the NUL keeps a colon inside a label value from aliasing). The
// deprecated failure-domain.beta labels win over the topology.kubernetes.io ones.
std::string getZoneKey(const api::Node& node);

// The node names grouped by zone, listed round-robin across zones so that the nodes a
// scheduler examines first are spread over zones (backend/cache/node_tree.go, nodeTree).
// Not thread-safe: the Cache serialises access.
class NodeTree {
 public:
  // Appends the node to its zone; a zone seen for the first time goes after the others.
  // A name already present in that zone is ignored.
  void addNode(const api::Node& node);
  // Removes the node from the zone its labels name; an emptied zone is dropped (and goes
  // last if it returns). Returns false when the node is not in that zone.
  bool removeNode(const api::Node& node);
  // A zone change is a remove + add, so the node moves to the end of its new zone.
  void updateNode(const api::Node& oldNode, const api::Node& newNode);

  // The 1st node of every zone (zones in first-insertion order), then the 2nd of every zone
  // that has one, and so on.
  std::vector<std::string> list() const;

  int numNodes() const { return numNodes_; }
  const std::vector<std::string>& zones() const { return zones_; }
  // Nodes of one zone in insertion order; nullptr for a zone that is not in the tree.
  const std::vector<std::string>* nodesInZone(std::string_view zone) const;

 private:
  struct Zone {
    std::vector<std::string> nodes;
    // Duplicate check without a linear scan (a zone may hold thousands of nodes).
    std::unordered_set<std::string> members;
  };

  void removeZone(const std::string& zone);

  std::unordered_map<std::string, Zone> tree_;
  std::vector<std::string> zones_;
  int numNodes_ = 0;
};

}  // namespace scheduling::cache
