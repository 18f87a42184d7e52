#include "scheduling/cache/existing_term_index.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
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

using ::testing::kHostname;
constexpr std::size_t kAnti = static_cast<std::size_t>(TermKind::RequiredAntiAffinity);

std::shared_ptr<const NodeInfo> nodeInfo(const char* name) {
  return std::make_shared<const NodeInfo>(
      std::make_shared<const api::Node>(MakeNode().name(name).obj()));
}

// Nodes at slots 0 to 2, listed in slot order unless `positions` says otherwise; a null
// entry of `bySlot` is a ghost.
struct Slots {
  NodeInfosBySlot bySlot{{nodeInfo("n0"), nodeInfo("n1"), nodeInfo("n2")}};
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
  for (const auto& n : *groups[0].nodes) out.emplace_back(n.slot, n.count);
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

  const std::pair<std::size_t, std::shared_ptr<const NodeInfo>> ghost{1, nullptr};
  slots.bySlot = slots.bySlot.with({&ghost, 1});
  slots.positions = {1, 0, 0};
  BOOST_TEST((onlyGroup(index.materialize(slots.bySlot, slots.positions, true),
                        TermKind::RequiredAntiAffinity) == SlotCounts{{2, 1}, {0, 1}}));
}

// Pod churn on one workload of many changes one group's list: the new snapshot's groups of
// that kind share every chunk but the one holding it with the previous snapshot's, which
// keeps what it saw.
BOOST_AUTO_TEST_CASE(one_changed_list_copies_one_chunk_of_its_kind) {
  Slots slots;
  ExistingTermIndex index;
  constexpr std::size_t kWorkloads = 3 * ExistingTermGroups::kChunkSize;
  std::vector<std::string> apps;
  for (std::size_t i = 0; i < kWorkloads; ++i) apps.push_back("app-" + std::to_string(i));
  const auto pod = [&](std::size_t workload) {
    return ::testing::podInfo(
        MakePod()
            .name(apps[workload].c_str())
            .podAntiAffinityIn("app", kHostname, {apps[workload].c_str()}, kRequiredReq)
            .obj());
  };
  for (std::size_t i = 0; i < kWorkloads; ++i) index.addPod(pod(i), 0);
  const ExistingTerms before = index.materialize(slots.bySlot, slots.positions, true);
  BOOST_TEST_REQUIRE(before[kAnti].groups->size() == kWorkloads);

  const std::size_t changed = ExistingTermGroups::kChunkSize + 5;
  index.addPod(pod(changed), 2);
  const ExistingTerms after = index.materialize(slots.bySlot, slots.positions, false);
  const ExistingTermGroups& was = *before[kAnti].groups;
  const ExistingTermGroups& is = *after[kAnti].groups;
  BOOST_TEST(after[kAnti].bySelector == before[kAnti].bySelector);
  BOOST_TEST(&is[0] == &was[0]);
  BOOST_TEST(&is[kWorkloads - 1] == &was[kWorkloads - 1]);
  BOOST_TEST(&is[changed - 1] != &was[changed - 1]);
  BOOST_TEST(is[changed - 1].nodes == was[changed - 1].nodes);
  BOOST_TEST(is[changed].nodes->size() == 2u);
  BOOST_TEST(was[changed].nodes->size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::cache
