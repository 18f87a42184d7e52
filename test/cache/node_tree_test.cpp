// Ports backend/cache/node_tree_test.go case by case (same case names).
#include "scheduling/cache/node_tree.hpp"

#include <boost/test/unit_test.hpp>
#include <map>
#include <string>
#include <vector>

#include "test/testing/wrappers.hpp"

namespace scheduling::cache {
namespace {

using ::testing::MakeNode;
using Tree = std::map<std::string, std::vector<std::string>>;

constexpr const char* kRegion = "topology.kubernetes.io/region";
using ::testing::kZone;
constexpr const char* kBetaRegion = "failure-domain.beta.kubernetes.io/region";
constexpr const char* kBetaZone = "failure-domain.beta.kubernetes.io/zone";

std::string zoneKey(const std::string& region, const std::string& zone) {
  return region + std::string(":\0:", 3) + zone;
}

const std::vector<api::Node>& allNodes() {
  static const std::vector<api::Node> nodes = {
      // Node 0: no region-zone label.
      MakeNode().name("node-0").obj(),
      // Node 1: region label only.
      MakeNode().name("node-1").label(kRegion, "region-1").obj(),
      // Node 2: zone label only.
      MakeNode().name("node-2").label(kZone, "zone-2").obj(),
      // Nodes 3 and 4: region and zone.
      MakeNode().name("node-3").label(kRegion, "region-1").label(kZone, "zone-2").obj(),
      MakeNode().name("node-4").label(kRegion, "region-1").label(kZone, "zone-2").obj(),
      // Node 5: another zone of the same region.
      MakeNode().name("node-5").label(kRegion, "region-1").label(kZone, "zone-3").obj(),
      // Nodes 6 to 8: a new region and zone.
      MakeNode().name("node-6").label(kRegion, "region-2").label(kZone, "zone-2").obj(),
      MakeNode().name("node-7").label(kRegion, "region-2").label(kZone, "zone-2").obj(),
      MakeNode().name("node-8").label(kRegion, "region-2").label(kZone, "zone-2").obj(),
      // Node 9: both the current and the deprecated labels.
      MakeNode()
          .name("node-9")
          .label(kRegion, "region-2")
          .label(kZone, "zone-2")
          .label(kBetaRegion, "region-2")
          .label(kBetaZone, "zone-2")
          .obj(),
      // Node 10: only the deprecated labels.
      MakeNode().name("node-10").label(kBetaRegion, "region-2").label(kBetaZone, "zone-3").obj(),
  };
  return nodes;
}

std::vector<api::Node> nodesRange(std::size_t from, std::size_t to) {
  return {allNodes().begin() + from, allNodes().begin() + to};
}

NodeTree newNodeTree(const std::vector<api::Node>& nodes) {
  NodeTree tree;
  for (const auto& n : nodes) tree.addNode(n);
  return tree;
}

void verifyNodeTree(const NodeTree& nt, const Tree& expected) {
  int expectedNumNodes = 0;
  for (const auto& [zone, nodes] : expected) expectedNumNodes += static_cast<int>(nodes.size());
  BOOST_TEST(nt.numNodes() == expectedNumNodes);
  BOOST_TEST(nt.zones().size() == expected.size());
  Tree actual;
  for (const auto& zone : nt.zones()) {
    const auto* nodes = nt.nodesInZone(zone);
    BOOST_TEST_REQUIRE(nodes != nullptr);
    actual[zone] = *nodes;
  }
  BOOST_TEST((actual == expected));
}

BOOST_AUTO_TEST_SUITE(node_tree)

struct AddCase {
  std::string name;
  std::vector<api::Node> nodesToAdd;
  Tree expectedTree;
};

BOOST_AUTO_TEST_CASE(TestNodeTree_AddNode) {
  const std::vector<AddCase> tests = {
      {"single node no labels", nodesRange(0, 1), {{"", {"node-0"}}}},
      {"same node specified twice", {allNodes()[0], allNodes()[0]}, {{"", {"node-0"}}}},
      {"mix of nodes with and without proper labels",
       nodesRange(0, 4),
       {{"", {"node-0"}},
        {zoneKey("region-1", ""), {"node-1"}},
        {zoneKey("", "zone-2"), {"node-2"}},
        {zoneKey("region-1", "zone-2"), {"node-3"}}}},
      {"mix of nodes with and without proper labels and some zones with multiple nodes",
       nodesRange(0, 7),
       {{"", {"node-0"}},
        {zoneKey("region-1", ""), {"node-1"}},
        {zoneKey("", "zone-2"), {"node-2"}},
        {zoneKey("region-1", "zone-2"), {"node-3", "node-4"}},
        {zoneKey("region-1", "zone-3"), {"node-5"}},
        {zoneKey("region-2", "zone-2"), {"node-6"}}}},
      {"nodes also using deprecated zone/region label",
       nodesRange(9, 11),
       {{zoneKey("region-2", "zone-2"), {"node-9"}}, {zoneKey("region-2", "zone-3"), {"node-10"}}}},
  };
  for (const auto& test : tests) {
    BOOST_TEST_CONTEXT(test.name) {
      NodeTree nt;
      for (const auto& n : test.nodesToAdd) nt.addNode(n);
      verifyNodeTree(nt, test.expectedTree);
    }
  }
}

struct RemoveCase {
  std::string name;
  std::vector<api::Node> existingNodes;
  std::vector<api::Node> nodesToRemove;
  Tree expectedTree;
  bool expectError;
};

BOOST_AUTO_TEST_CASE(TestNodeTree_RemoveNode) {
  const std::vector<RemoveCase> tests = {
      {"remove a single node with no labels",
       nodesRange(0, 7),
       nodesRange(0, 1),
       {{zoneKey("region-1", ""), {"node-1"}},
        {zoneKey("", "zone-2"), {"node-2"}},
        {zoneKey("region-1", "zone-2"), {"node-3", "node-4"}},
        {zoneKey("region-1", "zone-3"), {"node-5"}},
        {zoneKey("region-2", "zone-2"), {"node-6"}}},
       false},
      {"remove a few nodes including one from a zone with multiple nodes",
       nodesRange(0, 7),
       nodesRange(1, 4),
       {{"", {"node-0"}},
        {zoneKey("region-1", "zone-2"), {"node-4"}},
        {zoneKey("region-1", "zone-3"), {"node-5"}},
        {zoneKey("region-2", "zone-2"), {"node-6"}}},
       false},
      {"remove all nodes", nodesRange(0, 7), nodesRange(0, 7), {}, false},
      {"remove non-existing node", {}, nodesRange(0, 5), {}, true},
  };
  for (const auto& test : tests) {
    BOOST_TEST_CONTEXT(test.name) {
      NodeTree nt = newNodeTree(test.existingNodes);
      for (const auto& n : test.nodesToRemove) BOOST_TEST(nt.removeNode(n) != test.expectError);
      verifyNodeTree(nt, test.expectedTree);
    }
  }
}

struct UpdateCase {
  std::string name;
  std::vector<api::Node> existingNodes;
  api::Node nodeToUpdate;
  Tree expectedTree;
};

BOOST_AUTO_TEST_CASE(TestNodeTree_UpdateNode) {
  const std::vector<UpdateCase> tests = {
      {"update a node without label",
       nodesRange(0, 7),
       MakeNode().name("node-0").label(kRegion, "region-1").label(kZone, "zone-2").obj(),
       {{zoneKey("region-1", ""), {"node-1"}},
        {zoneKey("", "zone-2"), {"node-2"}},
        {zoneKey("region-1", "zone-2"), {"node-3", "node-4", "node-0"}},
        {zoneKey("region-1", "zone-3"), {"node-5"}},
        {zoneKey("region-2", "zone-2"), {"node-6"}}}},
      {"update the only existing node",
       nodesRange(0, 1),
       MakeNode().name("node-0").label(kRegion, "region-1").label(kZone, "zone-2").obj(),
       {{zoneKey("region-1", "zone-2"), {"node-0"}}}},
      {"update non-existing node",
       nodesRange(0, 1),
       MakeNode().name("node-new").label(kRegion, "region-1").label(kZone, "zone-2").obj(),
       {{"", {"node-0"}}, {zoneKey("region-1", "zone-2"), {"node-new"}}}},
  };
  for (const auto& test : tests) {
    BOOST_TEST_CONTEXT(test.name) {
      NodeTree nt = newNodeTree(test.existingNodes);
      api::Node oldNode = MakeNode().name("nonexisting-node").obj();
      for (const auto& n : allNodes()) {
        if (n.name == test.nodeToUpdate.name) {
          oldNode = n;
          break;
        }
      }
      nt.updateNode(oldNode, test.nodeToUpdate);
      verifyNodeTree(nt, test.expectedTree);
    }
  }
}

struct ListCase {
  std::string name;
  std::vector<api::Node> nodesToAdd;
  std::vector<std::string> expectedOutput;
};

BOOST_AUTO_TEST_CASE(TestNodeTree_List) {
  const std::vector<ListCase> tests = {
      {"empty tree", {}, {}},
      {"one node", nodesRange(0, 1), {"node-0"}},
      {"four nodes", nodesRange(0, 4), {"node-0", "node-1", "node-2", "node-3"}},
      {"all nodes",
       nodesRange(0, 9),
       {"node-0", "node-1", "node-2", "node-3", "node-5", "node-6", "node-4", "node-7", "node-8"}},
  };
  for (const auto& test : tests) {
    BOOST_TEST_CONTEXT(test.name) {
      BOOST_TEST(newNodeTree(test.nodesToAdd).list() == test.expectedOutput,
                 boost::test_tools::per_element());
    }
  }
}

// TestNodeTree_List_Exhausted is not ported: it corrupts numNodes from inside the package,
// which this NodeTree does not allow; list() cannot run out of zones here.

struct MultiOperationsCase {
  std::string name;
  std::vector<api::Node> nodesToAdd;
  std::vector<api::Node> nodesToRemove;
  std::vector<std::string> operations;
  std::vector<std::string> expectedOutput;
};

BOOST_AUTO_TEST_CASE(TestNodeTreeMultiOperations) {
  std::vector<api::Node> exhaustedZone = nodesRange(4, 9);
  exhaustedZone.push_back(allNodes()[3]);
  std::vector<api::Node> removeZoneAndAdd = nodesRange(3, 5);
  removeZoneAndAdd.push_back(allNodes()[6]);
  removeZoneAndAdd.push_back(allNodes()[7]);
  const std::vector<MultiOperationsCase> tests = {
      {"add and remove all nodes",
       nodesRange(2, 9),
       nodesRange(2, 9),
       {"add", "add", "add", "remove", "remove", "remove"},
       {}},
      {"add and remove some nodes",
       nodesRange(2, 9),
       nodesRange(2, 9),
       {"add", "add", "add", "remove"},
       {"node-3", "node-4"}},
      {"remove three nodes",
       nodesRange(2, 9),
       nodesRange(2, 9),
       {"add", "add", "add", "remove", "remove", "remove", "add"},
       {"node-5"}},
      {"add more nodes to an exhausted zone",
       exhaustedZone,
       {},
       {"add", "add", "add", "add", "add", "add"},
       {"node-4", "node-5", "node-6", "node-3", "node-7", "node-8"}},
      {"remove zone and add new",
       removeZoneAndAdd,
       nodesRange(3, 5),
       {"add", "add", "remove", "add", "add", "remove"},
       {"node-6", "node-7"}},
  };
  for (const auto& test : tests) {
    BOOST_TEST_CONTEXT(test.name) {
      NodeTree nt;
      std::size_t addIndex = 0;
      std::size_t removeIndex = 0;
      for (const auto& op : test.operations) {
        if (op == "add") {
          BOOST_TEST_REQUIRE(addIndex < test.nodesToAdd.size());
          nt.addNode(test.nodesToAdd[addIndex++]);
        } else {
          BOOST_TEST_REQUIRE(removeIndex < test.nodesToRemove.size());
          nt.removeNode(test.nodesToRemove[removeIndex++]);
        }
      }
      BOOST_TEST(nt.list() == test.expectedOutput, boost::test_tools::per_element());
    }
  }
}

struct ZoneKeyCase {
  std::string name;
  api::Node node;
  std::string want;
};

BOOST_AUTO_TEST_CASE(TestGetZoneKey) {
  const std::vector<ZoneKeyCase> tests = {
      {"no labels", MakeNode().name("n").obj(), ""},
      {"empty region and zone values",
       MakeNode().name("n").label(kRegion, "").label(kZone, "").obj(), ""},
      {"topology labels", MakeNode().name("n").label(kRegion, "r").label(kZone, "z").obj(),
       zoneKey("r", "z")},
      {"deprecated labels win",
       MakeNode()
           .name("n")
           .label(kRegion, "r")
           .label(kZone, "z")
           .label(kBetaRegion, "br")
           .label(kBetaZone, "bz")
           .obj(),
       zoneKey("br", "bz")},
      {"a present but empty deprecated label still wins",
       MakeNode().name("n").label(kZone, "z").label(kBetaZone, "").label(kRegion, "r").obj(),
       zoneKey("r", "")},
  };
  for (const auto& test : tests) {
    BOOST_TEST_CONTEXT(test.name) { BOOST_TEST(getZoneKey(test.node) == test.want); }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::cache
