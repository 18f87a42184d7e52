#include "scheduling/framework/topology_index.hpp"

#include <boost/test/unit_test.hpp>
#include <memory>
#include <string>

#include "test/testing/wrappers.hpp"

namespace scheduling::framework {
namespace {

using ::testing::MakeNode;

// The value a column holds for a slot, as text ("" when absent).
std::string valueAt(const TopologyIndex& index, std::string_view key, NodeSlot slot) {
  const TopologyIndex::Column* column = index.column(key);
  if (column == nullptr || column->at(slot) == TopologyIndex::kAbsent) return "";
  return std::string(column->value(column->at(slot)));
}

BOOST_AUTO_TEST_SUITE(TopologyIndexTest)

BOOST_AUTO_TEST_CASE(ColumnsFollowNodesAsTheyComeChangeAndGo) {
  TopologyIndex index;
  index.setNode(0, {{"zone", "z1"}, {"kubernetes.io/hostname", "n0"}});
  index.setNode(3, {{"zone", "z2"}, {"kubernetes.io/hostname", "n3"}, {"gpu", "a100"}});
  BOOST_TEST(index.columns().size() == 3U);
  BOOST_TEST(valueAt(index, "zone", 0) == "z1");
  BOOST_TEST(valueAt(index, "zone", 3) == "z2");
  BOOST_TEST(index.column("zone")->at(1) == TopologyIndex::kAbsent);   // a free slot
  BOOST_TEST(index.column("zone")->at(99) == TopologyIndex::kAbsent);  // past the end
  BOOST_TEST(index.column("gpu")->at(0) == TopologyIndex::kAbsent);
  BOOST_TEST(index.column("rack") == nullptr);
  // Same value, same id: a count array indexed by id adds both nodes' pods together.
  index.setNode(1, {{"zone", "z1"}});
  BOOST_TEST(index.column("zone")->at(1) == index.column("zone")->at(0));
  BOOST_TEST(index.column("zone")->numValues() == 2U);

  // Relabelled: a new value, a key gone.
  index.setNode(3, {{"zone", "z1"}, {"kubernetes.io/hostname", "n3"}});
  BOOST_TEST(valueAt(index, "zone", 3) == "z1");
  BOOST_TEST(index.column("gpu")->at(3) == TopologyIndex::kAbsent);
  index.removeNode(0);
  BOOST_TEST(index.column("zone")->at(0) == TopologyIndex::kAbsent);
  BOOST_TEST(index.column("kubernetes.io/hostname")->at(0) == TopologyIndex::kAbsent);
  BOOST_TEST(valueAt(index, "kubernetes.io/hostname", 3) == "n3");
}

// A column knows whether each of its values is one node's: PreScore then counts only the pods
// on the nodes it scores.
BOOST_AUTO_TEST_CASE(KnowsWhetherEachValueIsOneNodes) {
  const auto oneSlotPerValue = [](const TopologyIndex& index, std::string_view key) {
    return index.column(key)->oneSlotPerValue();
  };
  TopologyIndex index;
  index.setNode(0, {{"zone", "z1"}, {"kubernetes.io/hostname", "n0"}});
  index.setNode(1, {{"zone", "z2"}, {"kubernetes.io/hostname", "n1"}});
  BOOST_TEST(oneSlotPerValue(index, "zone"));
  index.setNode(2, {{"zone", "z1"}, {"kubernetes.io/hostname", "n2"}});
  BOOST_TEST(!oneSlotPerValue(index, "zone"));
  BOOST_TEST(oneSlotPerValue(index, "kubernetes.io/hostname"));
  // Two nodes that carry one hostname label, then one of them relabelled, then removed.
  index.setNode(3, {{"kubernetes.io/hostname", "n2"}});
  BOOST_TEST(!oneSlotPerValue(index, "kubernetes.io/hostname"));
  index.setNode(3, {{"kubernetes.io/hostname", "n3"}});
  BOOST_TEST(oneSlotPerValue(index, "kubernetes.io/hostname"));
  index.setNode(3, {{"kubernetes.io/hostname", "n0"}});
  BOOST_TEST(!oneSlotPerValue(index, "kubernetes.io/hostname"));
  index.removeNode(0);
  BOOST_TEST(oneSlotPerValue(index, "kubernetes.io/hostname"));
  index.removeNode(2);
  BOOST_TEST(oneSlotPerValue(index, "zone"));
}

// Ids of values no node has any more stay reserved (published copies may count by them)
// until the dead ones outnumber the live ones; then the column is renumbered and every slot
// still reads its own value.
BOOST_AUTO_TEST_CASE(RenumbersAColumnOnceMostOfItsValuesAreDead) {
  TopologyIndex index;
  index.setNode(0, {{"kubernetes.io/hostname", "keeper"}});
  std::uint32_t largest = 0;
  for (int i = 0; i < 1000; ++i) {
    // Node churn: slot 1 is reused by ever new nodes.
    index.setNode(1, {{"kubernetes.io/hostname", "node-" + std::to_string(i)}});
    largest = std::max(largest, index.column("kubernetes.io/hostname")->numValues());
    BOOST_REQUIRE(valueAt(index, "kubernetes.io/hostname", 0) == "keeper");
    BOOST_REQUIRE(valueAt(index, "kubernetes.io/hostname", 1) == "node-" + std::to_string(i));
  }
  BOOST_TEST(largest <= 70U);
  const TopologyIndex::Column& column = *index.column("kubernetes.io/hostname");
  BOOST_TEST(column.find("node-999") == column.at(1));
  BOOST_TEST(column.find("keeper") == column.at(0));
}

BOOST_AUTO_TEST_CASE(KeysReadNodesBySlotOrByTheirOwnLabels) {
  TopologyIndex index;
  index.setNode(0, {{"zone", "z1"}});
  index.setNode(1, {{"zone", "z2"}, {"rack", "r1"}});
  const TopologyKey zone("zone", index);
  const TopologyKey rack("rack", index);
  const TopologyKey missing("room", index);
  BOOST_TEST(missing.column() == nullptr);
  BOOST_TEST(missing.name() == "room");

  NodeInfo inIndex;
  inIndex.setNode(std::make_shared<const api::Node>(MakeNode().name("a").obj()), 1);
  // Slot 1's row answers, not this NodeInfo's own (empty) labels.
  BOOST_TEST(zone.text(zone.valueOf(inIndex)) == "z2");
  BOOST_TEST(rack.text(rack.valueOf(inIndex)) == "r1");
  BOOST_TEST(!missing.valueOf(inIndex).present());

  // Without a slot (a node whose labels a request overrides), its own labels answer: a
  // known value by its id, another by its text.
  const NodeInfo overridden(std::make_shared<const api::Node>(
      MakeNode().name("b").labels({{"zone", "z1"}, {"rack", "r9"}, {"room", "101"}}).obj()));
  BOOST_TEST(overridden.slot() == kNoSlot);
  BOOST_TEST((zone.valueOf(overridden) == TopologyValue{index.column("zone")->at(0), {}}));
  const TopologyValue r9 = rack.valueOf(overridden);
  BOOST_TEST(r9.present());
  BOOST_TEST(!r9.known());
  BOOST_TEST(rack.text(r9) == "r9");
  BOOST_TEST(missing.text(missing.valueOf(overridden)) == "101");
  BOOST_TEST(!zone.valueOf(NodeInfo()).present());

  BOOST_TEST((zone == TopologyKey("zone", index)));
  BOOST_TEST(!(zone == rack));
  BOOST_TEST((missing == TopologyKey("room", index)));
  BOOST_TEST(!(missing == TopologyKey("hall", index)));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::framework
