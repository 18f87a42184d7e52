#include "scheduling/cache/existing_term_index.hpp"

#include <boost/test/unit_test.hpp>
#include <utility>
#include <vector>

#include "test/testing/fake_lister.hpp"
#include "test/testing/wrappers.hpp"

namespace scheduling::cache {
namespace {

using framework::NodeInfo;
using framework::PodInfo;
using framework::TermKind;
using ::testing::kPreferredReq;
using ::testing::kRequiredReq;
using ::testing::MakeNode;
using ::testing::MakePod;

constexpr const char* kHostname = "kubernetes.io/hostname";
constexpr std::size_t kAnti = static_cast<std::size_t>(TermKind::RequiredAntiAffinity);

// Nodes at slots 0 to 2, listed in slot order unless `positions` says otherwise; a null
// entry of `bySlot` is a ghost.
struct Slots {
  NodeInfo nodes[3] = {NodeInfo(std::make_shared<const api::Node>(MakeNode().name("n0").obj())),
                       NodeInfo(std::make_shared<const api::Node>(MakeNode().name("n1").obj())),
                       NodeInfo(std::make_shared<const api::Node>(MakeNode().name("n2").obj()))};
  std::vector<const NodeInfo*> bySlot = {&nodes[0], &nodes[1], &nodes[2]};
  std::vector<std::uint32_t> positions = {0, 1, 2};
};

PodInfo antiAffinityPod(const char* name) {
  return ::testing::podInfo(
      MakePod().name(name).podAntiAffinityIn("app", kHostname, {"web"}, kRequiredReq).obj());
}

PodInfo preferredPod(const char* name) {
  return ::testing::podInfo(
      MakePod().name(name).podAffinityIn("app", kHostname, {"db"}, kPreferredReq).obj());
}

using SlotCounts = std::vector<std::pair<framework::NodeSlot, std::int64_t>>;

// slot → count of the kind's only group, in the order the group lists them.
SlotCounts onlyGroup(const ExistingTerms& terms, TermKind kind) {
  const auto& groups = *terms[static_cast<std::size_t>(kind)].groups;
  BOOST_TEST_REQUIRE(groups.size() == 1u);
  SlotCounts out;
  for (const auto& n : *groups.front().nodes) out.emplace_back(n.slot, n.count);
  return out;
}

BOOST_AUTO_TEST_SUITE(existing_term_index)

// Publishing after pod churn that changes no term's counts hands out the previous lists:
// what makes a publish cost what changed, not every group of the cluster.
BOOST_AUTO_TEST_CASE(lists_are_shared_while_their_counts_stay) {
  Slots slots;
  ExistingTermIndex index;
  index.addPod(antiAffinityPod("a"), 0);
  index.addPod(antiAffinityPod("a2"), 0);
  index.addPod(preferredPod("p"), 1);
  const ExistingTerms first = index.materialize(slots.bySlot, slots.positions, true);
  BOOST_TEST((onlyGroup(first, TermKind::RequiredAntiAffinity) == SlotCounts{{0, 2}}));

  // A pod without terms on a node of the groups: nothing to list again.
  index.addPod(::testing::podInfo(MakePod().name("plain").obj()), 0);
  const ExistingTerms second = index.materialize(slots.bySlot, slots.positions, false);
  for (std::size_t kind = 0; kind < kNumTermKinds; ++kind) {
    BOOST_TEST(second[kind].groups == first[kind].groups);
    BOOST_TEST(second[kind].bySelector == first[kind].bySelector);
  }

  // A pod with terms updated in place (removed and added again on its node): the same
  // counts, the same lists.
  index.removePod(antiAffinityPod("a"), 0);
  index.addPod(antiAffinityPod("a"), 0);
  const ExistingTerms updated = index.materialize(slots.bySlot, slots.positions, false);
  BOOST_TEST(updated[kAnti].groups == first[kAnti].groups);

  // One more pod with the anti-affinity term: only that kind's lists are new, and its index
  // stays (the set of groups is the same).
  index.addPod(antiAffinityPod("b"), 2);
  const ExistingTerms third = index.materialize(slots.bySlot, slots.positions, false);
  BOOST_TEST((onlyGroup(third, TermKind::RequiredAntiAffinity) == SlotCounts{{0, 2}, {2, 1}}));
  BOOST_TEST(third[kAnti].groups != second[kAnti].groups);
  BOOST_TEST(third[kAnti].bySelector == second[kAnti].bySelector);
  const auto preferred = static_cast<std::size_t>(TermKind::PreferredAffinity);
  BOOST_TEST(third[preferred].groups == second[preferred].groups);
  // The snapshot published before still sees its own counts.
  BOOST_TEST((onlyGroup(second, TermKind::RequiredAntiAffinity) == SlotCounts{{0, 2}}));

  // Removed again: back to one node; the last pod gone: no group, and a new index.
  index.removePod(antiAffinityPod("b"), 2);
  BOOST_TEST((onlyGroup(index.materialize(slots.bySlot, slots.positions, false),
                        TermKind::RequiredAntiAffinity) == SlotCounts{{0, 2}}));
  index.removePod(antiAffinityPod("a"), 0);
  index.removePod(antiAffinityPod("a2"), 0);
  const ExistingTerms last = index.materialize(slots.bySlot, slots.positions, false);
  BOOST_TEST(last[kAnti].groups->empty());
  BOOST_TEST(last[kAnti].bySelector != third[kAnti].bySelector);
}

// When the node order changes (a node added, removed or moved), every list follows it, and
// slots that became ghosts leave the lists.
BOOST_AUTO_TEST_CASE(node_order_change_lists_every_group_again) {
  Slots slots;
  ExistingTermIndex index;
  for (std::uint32_t slot : {0u, 1u, 2u}) index.addPod(antiAffinityPod("a"), slot);
  index.addPod(antiAffinityPod("b"), 1);
  BOOST_TEST((onlyGroup(index.materialize(slots.bySlot, slots.positions, true),
                        TermKind::RequiredAntiAffinity) == SlotCounts{{0, 1}, {1, 2}, {2, 1}}));

  slots.positions = {2, 0, 1};
  BOOST_TEST((onlyGroup(index.materialize(slots.bySlot, slots.positions, true),
                        TermKind::RequiredAntiAffinity) == SlotCounts{{1, 2}, {2, 1}, {0, 1}}));

  slots.bySlot[1] = nullptr;
  slots.positions = {1, 0, 0};
  BOOST_TEST((onlyGroup(index.materialize(slots.bySlot, slots.positions, true),
                        TermKind::RequiredAntiAffinity) == SlotCounts{{2, 1}, {0, 1}}));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::cache
