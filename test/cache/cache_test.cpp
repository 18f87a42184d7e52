#include "scheduling/cache/cache.hpp"

#include <algorithm>
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "test/testing/wrappers.hpp"

namespace scheduling::cache {
namespace {

using ::testing::kRequiredReq;
using ::testing::makeNamespace;
using ::testing::MakeNode;
using ::testing::MakePod;

using ::testing::kHostname;
using ::testing::kZone;

// Every pod with label app=<anything>, in its own namespace: what the cache holds for it.
framework::AffinityTerm anyAppIn(std::vector<std::string> namespaces) {
  return framework::AffinityTerm{
      labels::Selector::of({labels::Requirement{"app", labels::Operator::Exists, {}}}),
      std::move(namespaces), labels::Selector::nothing(), kHostname};
}

// node name → pod names of a snapshot, in NodeInfo order.
std::map<std::string, std::vector<std::string>> podsByNode(const Snapshot& snapshot) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto* node : snapshot.nodeInfoList()) {
    auto& pods = out[node->name()];
    for (const auto& pod : node->pods()) pods.push_back(pod->pod().metadata.name);
  }
  return out;
}

std::vector<std::string> nodeNames(std::span<const framework::NodeInfo* const> nodes) {
  std::vector<std::string> names;
  for (const auto* node : nodes) names.push_back(node->name());
  return names;
}

std::vector<std::string> nominatedNames(const Snapshot& snapshot, std::string_view node) {
  std::vector<std::string> names;
  for (const auto& pod : snapshot.nominatedPodsForNode(node)) {
    names.push_back(pod.info->pod().metadata.name);
  }
  return names;
}

// "pod@node" for every pod the term matches.
std::vector<std::string> podsMatching(const Snapshot& snapshot,
                                      const framework::AffinityTerm& term) {
  std::vector<std::string> out;
  snapshot.forEachPodMatching(term, [&](const framework::PodInfo& pod, framework::NodeSlot slot) {
    out.push_back(pod.pod().metadata.name + "@" + snapshot.nodeInfoAt(slot)->name());
  });
  std::sort(out.begin(), out.end());
  return out;
}

// node → count of the existing required anti-affinity terms (all groups together).
std::map<std::string, std::int64_t> antiTermCounts(const Snapshot& snapshot) {
  std::map<std::string, std::int64_t> out;
  snapshot.forEachExistingTerm(framework::TermKind::RequiredAntiAffinity,
                               [&](const framework::AffinityTerm&, std::int32_t,
                                   std::span<const framework::NodeTermCount> nodes) {
                                 for (const auto& n : nodes)
                                   out[snapshot.nodeInfoAt(n.slot)->name()] += n.count;
                               });
  return out;
}

using Pods = std::map<std::string, std::vector<std::string>>;
using Strings = std::vector<std::string>;

BOOST_AUTO_TEST_SUITE(cache)

BOOST_AUTO_TEST_CASE(snapshot_before_first_publish_is_empty) {
  Cache cache;
  auto snapshot = cache.snapshot();
  BOOST_TEST_REQUIRE(snapshot != nullptr);
  BOOST_TEST(snapshot->nodeInfoList().empty());
  BOOST_TEST(snapshot->getNodeInfo("n1") == nullptr);
  BOOST_TEST(cache.numNodes() == 0u);
  BOOST_TEST(cache.numAssignedPods() == 0u);
}

BOOST_AUTO_TEST_CASE(pods_added_before_their_node) {
  Cache cache;
  cache.upsertPod(MakePod().name("p1").ns("ns").uid("u1").label("app", "a").node("n1").obj());
  cache.publish();
  auto before = cache.snapshot();
  // The ghost node is not in the snapshot, and neither are its pods.
  BOOST_TEST(before->nodeInfoList().empty());
  BOOST_TEST(before->getNodeInfo("n1") == nullptr);
  BOOST_TEST(podsMatching(*before, anyAppIn({"ns"})).empty());
  BOOST_TEST(cache.numNodes() == 0u);
  BOOST_TEST(cache.numAssignedPods() == 1u);

  cache.upsertNode(MakeNode().name("n1").obj());
  cache.publish();
  auto after = cache.snapshot();
  BOOST_TEST((podsByNode(*after) == Pods{{"n1", {"p1"}}}));
  BOOST_TEST((podsMatching(*after, anyAppIn({"ns"})) == Strings{"p1@n1"}));
  BOOST_TEST(cache.numNodes() == 1u);
}

BOOST_AUTO_TEST_CASE(node_deleted_while_pods_remain_then_pods_deleted) {
  Cache cache;
  cache.upsertNode(MakeNode().name("n1").obj());
  cache.upsertPod(MakePod().name("p1").ns("ns").uid("u1").label("app", "a").node("n1").obj());
  cache.upsertPod(MakePod()
                      .name("p2")
                      .ns("ns")
                      .uid("u2")
                      .label("app", "b")
                      .node("n1")
                      .podAntiAffinityIn("app", kHostname, {"x"}, kRequiredReq)
                      .obj());
  cache.deleteNode("n1");
  cache.publish();
  auto ghost = cache.snapshot();
  BOOST_TEST(ghost->nodeInfoList().empty());
  BOOST_TEST(podsMatching(*ghost, anyAppIn({"ns"})).empty());
  BOOST_TEST(antiTermCounts(*ghost).empty());
  BOOST_TEST(cache.numNodes() == 0u);
  BOOST_TEST(cache.numAssignedPods() == 2u);

  cache.deletePod("u1");
  cache.deletePod("u2");
  BOOST_TEST(cache.numAssignedPods() == 0u);
  // With the last pod gone the ghost is gone too: the node comes back empty.
  cache.upsertNode(MakeNode().name("n1").obj());
  cache.publish();
  BOOST_TEST((podsByNode(*cache.snapshot()) == Pods{{"n1", {}}}));
}

BOOST_AUTO_TEST_CASE(node_back_while_ghost_keeps_its_pods) {
  Cache cache;
  cache.upsertNode(MakeNode().name("n1").obj());
  cache.upsertPod(MakePod().name("p1").ns("ns").uid("u1").label("app", "a").node("n1").obj());
  cache.deleteNode("n1");
  cache.upsertNode(MakeNode().name("n1").label(kZone, "z1").obj());
  cache.publish();
  auto snapshot = cache.snapshot();
  BOOST_TEST((podsByNode(*snapshot) == Pods{{"n1", {"p1"}}}));
  BOOST_TEST((podsMatching(*snapshot, anyAppIn({"ns"})) == Strings{"p1@n1"}));
  BOOST_TEST(*snapshot->getNodeInfo("n1")->labels().get(kZone) == "z1");
}

BOOST_AUTO_TEST_CASE(pod_moved_between_nodes) {
  Cache cache;
  cache.upsertNode(MakeNode().name("n1").obj());
  cache.upsertNode(MakeNode().name("n2").obj());
  auto pod = MakePod().name("p1").ns("ns").uid("u1").label("app", "a");
  pod.podAntiAffinityIn("app", kHostname, {"a"}, kRequiredReq);
  cache.upsertPod(pod.node("n1").obj());
  cache.upsertPod(pod.node("n2").obj());
  cache.publish();
  auto snapshot = cache.snapshot();
  BOOST_TEST((podsByNode(*snapshot) == Pods{{"n1", {}}, {"n2", {"p1"}}}));
  BOOST_TEST((podsMatching(*snapshot, anyAppIn({"ns"})) == Strings{"p1@n2"}));
  BOOST_TEST((antiTermCounts(*snapshot) == std::map<std::string, std::int64_t>{{"n2", 1}}));
  BOOST_TEST((nodeNames(snapshot->havePodsWithRequiredAntiAffinityList()) == Strings{"n2"}));
  BOOST_TEST(cache.numAssignedPods() == 1u);
}

BOOST_AUTO_TEST_CASE(nominated_then_bound) {
  Cache cache;
  cache.upsertNode(MakeNode().name("n1").obj());
  cache.upsertNode(MakeNode().name("n2").obj());
  cache.upsertPod(MakePod().name("p1").ns("ns").uid("u1").nominatedNodeName("n1").obj());
  cache.upsertPod(MakePod().name("p2").ns("ns").uid("u2").nominatedNodeName("n1").obj());
  cache.upsertPod(MakePod().name("p3").ns("ns").uid("u3").nominatedNodeName("n1").obj());
  cache.publish();
  auto nominated = cache.snapshot();
  BOOST_TEST((nominatedNames(*nominated, "n1") == Strings{"p1", "p2", "p3"}));
  BOOST_TEST((podsByNode(*nominated) == Pods{{"n1", {}}, {"n2", {}}}));
  BOOST_TEST(cache.numAssignedPods() == 0u);

  // An update re-nominates (delete then add, as nominator.go), so p1 goes last; p2 moves
  // to n2; p3 loses its nomination.
  cache.upsertPod(MakePod().name("p1").ns("ns").uid("u1").nominatedNodeName("n1").obj());
  cache.upsertPod(MakePod().name("p2").ns("ns").uid("u2").nominatedNodeName("n2").obj());
  cache.upsertPod(MakePod().name("p3").ns("ns").uid("u3").obj());
  cache.publish();
  auto moved = cache.snapshot();
  BOOST_TEST((nominatedNames(*moved, "n1") == Strings{"p1"}));
  BOOST_TEST((nominatedNames(*moved, "n2") == Strings{"p2"}));

  // Binding ends the nomination, even with the status field still set.
  cache.upsertPod(MakePod().name("p1").ns("ns").uid("u1").nominatedNodeName("n1").node("n1").obj());
  cache.publish();
  auto bound = cache.snapshot();
  BOOST_TEST(nominatedNames(*bound, "n1").empty());
  BOOST_TEST((podsByNode(*bound) == Pods{{"n1", {"p1"}}, {"n2", {}}}));
  BOOST_TEST(cache.numAssignedPods() == 1u);
}

// "pod" for each nominated pod whose required anti-affinity term may select an app=web pod
// of namespace "ns", sorted.
Strings nominatedSelectingWeb(const Snapshot& snapshot) {
  api::Labels web;
  web.set("app", "web");
  Strings out;
  snapshot.forEachNominatedPodWithRequiredAntiAffinitySelecting(
      "ns", web, [&](const framework::AffinityTerm& term, const framework::PodInfo& pod) {
        if (term.selector.matches(web)) out.push_back(pod.pod().metadata.name);
      });
  std::sort(out.begin(), out.end());
  return out;
}

// Replicas of one workload share their parsed terms: a nomination that adds or removes one
// replica changes that term's pods without changing the set of terms, which a publish then
// updates in place. Each snapshot keeps what was true when it was published.
// Pods are made ready for the cache on the threads that decode them, two at once while a list
// loads: replicas prepared on different threads still end up on one copy of their terms and
// of their labels (the pools lock on their own; TSan watches this suite).
BOOST_AUTO_TEST_CASE(replicas_prepared_on_two_threads_share_terms_and_labels) {
  constexpr int kPerThread = 2000;
  Cache cache;
  std::vector<scheduling::framework::PodInfoPtr> prepared[2];
  const auto prepare = [&](int thread) {
    for (int i = 0; i < kPerThread; ++i) {
      const std::string name = "r" + std::to_string(thread) + "-" + std::to_string(i);
      prepared[thread].push_back(
          cache.preparePod(MakePod()
                               .name(name)
                               .ns("ns")
                               .uid(name)
                               .label("app", "web")
                               .label("pod-template-hash", std::to_string(i % 3))
                               .podAntiAffinityIn("app", kHostname, {"web"}, kRequiredReq)
                               .node("n1")
                               .obj()));
    }
  };
  std::thread other(prepare, 1);
  prepare(0);
  other.join();

  std::set<const void*> terms;
  std::set<const void*> labelSets;
  for (const auto& pods : prepared) {
    for (const auto& pod : pods) {
      terms.insert(&pod->requiredAntiAffinityTerms());
      labelSets.insert(pod->pod().metadata.labels.bufferId());
      BOOST_TEST(!pod->pod().spec.affinity);  // parsed, then dropped
    }
  }
  BOOST_TEST(terms.size() == 1u);
  BOOST_TEST(labelSets.size() == 3u);  // one per template hash
  for (auto& pods : prepared) {
    for (auto& pod : pods) cache.upsertPod(std::move(pod));
  }
  BOOST_TEST(cache.numAssignedPods() == 2u * kPerThread);
}

BOOST_AUTO_TEST_CASE(nominated_replicas_sharing_terms_across_publishes) {
  Cache cache;
  for (const char* node : {"n0", "n1", "n2"}) {
    cache.upsertNode(MakeNode().name(node).label(kHostname, node).obj());
  }
  const auto replica = [](const std::string& name, const std::string& node) {
    return MakePod()
        .name(name)
        .ns("ns")
        .uid(name)
        .label("app", "web")
        .podAntiAffinityIn("app", kHostname, {"web"}, kRequiredReq)
        .nominatedNodeName(node)
        .obj();
  };
  cache.upsertPod(replica("r0", "n0"));
  cache.upsertPod(replica("r1", "n1"));
  cache.upsertPod(replica("r2", "n1"));
  cache.publish();
  const auto first = cache.snapshot();
  BOOST_TEST((nominatedSelectingWeb(*first) == Strings{"r0", "r1", "r2"}));

  cache.deletePod("r1");
  cache.publish();
  const auto removed = cache.snapshot();
  BOOST_TEST((nominatedSelectingWeb(*removed) == Strings{"r0", "r2"}));
  BOOST_TEST((nominatedNames(*removed, "n1") == Strings{"r2"}));

  cache.upsertPod(replica("r3", "n0"));
  cache.publish();
  const auto added = cache.snapshot();
  BOOST_TEST((nominatedSelectingWeb(*added) == Strings{"r0", "r2", "r3"}));
  BOOST_TEST((nominatedNames(*added, "n0") == Strings{"r0", "r3"}));
  // By slot, as the framework asks for a node it filters.
  BOOST_TEST(added->nominatedPodsFor(*added->getNodeInfo("n0")).size() == 2u);

  // A nomination to a node the cache has not seen is found by name, then by slot once the
  // node comes.
  cache.upsertPod(replica("r4", "n9"));
  cache.publish();
  const auto unknown = cache.snapshot();
  BOOST_TEST((nominatedNames(*unknown, "n9") == Strings{"r4"}));
  BOOST_TEST((nominatedSelectingWeb(*unknown) == Strings{"r0", "r2", "r3", "r4"}));
  cache.upsertNode(MakeNode().name("n9").label(kHostname, "n9").obj());
  cache.publish();
  const auto known = cache.snapshot();
  BOOST_TEST((nominatedNames(*known, "n9") == Strings{"r4"}));
  BOOST_TEST(known->nominatedPodsFor(*known->getNodeInfo("n9")).size() == 1u);

  // The last replica leaves: the term goes with it.
  for (const char* uid : {"r0", "r2", "r3", "r4"}) cache.deletePod(uid);
  cache.publish();
  BOOST_TEST(nominatedSelectingWeb(*cache.snapshot()).empty());
  // By slot too, while the snapshots before still see theirs.
  const auto none = cache.snapshot();
  BOOST_TEST(none->nominatedPodsFor(*none->getNodeInfo("n0")).empty());
  BOOST_TEST(none->nominatedPodsFor(*none->getNodeInfo("n9")).empty());
  BOOST_TEST(added->nominatedPodsFor(*added->getNodeInfo("n0")).size() == 2u);
  BOOST_TEST(known->nominatedPodsFor(*known->getNodeInfo("n9")).size() == 1u);

  BOOST_TEST((nominatedSelectingWeb(*first) == Strings{"r0", "r1", "r2"}));
  BOOST_TEST((nominatedNames(*first, "n1") == Strings{"r1", "r2"}));
  BOOST_TEST((nominatedSelectingWeb(*removed) == Strings{"r0", "r2"}));
  BOOST_TEST(nominatedNames(*unknown, "n9").size() == 1u);
}

struct TerminalCase {
  std::string name;
  std::vector<api::Pod> updates;
  Pods wantPods;
  Strings wantNominated;
  std::size_t wantAssigned;
};

BOOST_AUTO_TEST_CASE(terminal_phase_removes) {
  auto assigned = MakePod().name("p").ns("ns").uid("u").node("n1");
  auto nominated = MakePod().name("p").ns("ns").uid("u").nominatedNodeName("n1");
  const std::vector<TerminalCase> tests = {
      {"assigned pod succeeds",
       {assigned.obj(), MakePod(assigned).phase("Succeeded").obj()},
       {{"n1", {}}},
       {},
       0},
      {"assigned pod fails",
       {assigned.obj(), MakePod(assigned).phase("Failed").obj()},
       {{"n1", {}}},
       {},
       0},
      {"terminal pod never enters",
       {MakePod(assigned).phase("Succeeded").obj()},
       {{"n1", {}}},
       {},
       0},
      {"nominated pod fails",
       {nominated.obj(), MakePod(nominated).phase("Failed").obj()},
       {{"n1", {}}},
       {},
       0},
      {"running pod stays",
       {assigned.obj(), MakePod(assigned).phase("Running").obj()},
       {{"n1", {"p"}}},
       {},
       1},
      {"terminating pod stays", {MakePod(assigned).terminating().obj()}, {{"n1", {"p"}}}, {}, 1},
      {"terminating nominated pod stays",
       {MakePod(nominated).terminating().obj()},
       {{"n1", {}}},
       {"p"},
       0},
  };
  for (const auto& test : tests) {
    BOOST_TEST_CONTEXT(test.name) {
      Cache cache;
      cache.upsertNode(MakeNode().name("n1").obj());
      for (const auto& pod : test.updates) cache.upsertPod(pod);
      cache.publish();
      auto snapshot = cache.snapshot();
      BOOST_TEST((podsByNode(*snapshot) == test.wantPods));
      BOOST_TEST(nominatedNames(*snapshot, "n1") == test.wantNominated,
                 boost::test_tools::per_element());
      BOOST_TEST(cache.numAssignedPods() == test.wantAssigned);
    }
  }
}

BOOST_AUTO_TEST_CASE(namespace_label_change_visible_in_next_snapshot) {
  Cache cache;
  cache.upsertNamespace(makeNamespace("ns1", {{"team", "a"}}));
  cache.publish();
  auto first = cache.snapshot();
  cache.upsertNamespace(makeNamespace("ns1", {{"team", "b"}}));
  cache.upsertNamespace(makeNamespace("ns2"));
  cache.publish();
  auto second = cache.snapshot();
  cache.deleteNamespace("ns1");
  cache.publish();
  auto third = cache.snapshot();

  BOOST_TEST((first->namespaceLabels("ns1") == api::Labels{{"team", "a"}}));
  BOOST_TEST((second->namespaceLabels("ns1") == api::Labels{{"team", "b"}}));
  BOOST_TEST(third->namespaceLabels("ns1").empty());
  Strings names;
  second->forEachNamespace(
      [&](const std::string& name, const api::Labels&) { names.push_back(name); });
  BOOST_TEST((names == Strings{"ns1", "ns2"}));
}

BOOST_AUTO_TEST_CASE(old_snapshots_unchanged_after_further_mutations) {
  Cache cache;
  cache.upsertNode(MakeNode().name("n1").label(kZone, "z1").obj());
  cache.upsertNode(MakeNode().name("n2").label(kZone, "z2").obj());
  cache.upsertNamespace(makeNamespace("ns", {{"team", "a"}}));
  cache.upsertPod(MakePod()
                      .name("p1")
                      .ns("ns")
                      .uid("u1")
                      .label("app", "a")
                      .node("n1")
                      .podAntiAffinityIn("app", kHostname, {"a"}, kRequiredReq)
                      .obj());
  cache.upsertPod(MakePod().name("p2").ns("ns").uid("u2").label("app", "b").node("n2").obj());
  cache.upsertPod(MakePod().name("p3").ns("ns").uid("u3").nominatedNodeName("n2").obj());
  cache.publish();
  auto old = cache.snapshot();

  auto check = [&] {
    BOOST_TEST((podsByNode(*old) == Pods{{"n1", {"p1"}}, {"n2", {"p2"}}}));
    BOOST_TEST((nodeNames(old->nodeInfoList()) == Strings{"n1", "n2"}));
    BOOST_TEST((podsMatching(*old, anyAppIn({"ns"})) == Strings{"p1@n1", "p2@n2"}));
    BOOST_TEST((antiTermCounts(*old) == std::map<std::string, std::int64_t>{{"n1", 1}}));
    BOOST_TEST((nominatedNames(*old, "n2") == Strings{"p3"}));
    BOOST_TEST((old->namespaceLabels("ns") == api::Labels{{"team", "a"}}));
    BOOST_TEST(*old->getNodeInfo("n1")->labels().get(kZone) == "z1");
  };
  check();

  cache.upsertNode(MakeNode().name("n1").label(kZone, "z3").obj());
  cache.upsertNode(MakeNode().name("n3").obj());
  cache.deleteNode("n2");
  cache.upsertPod(MakePod().name("p1").ns("ns").uid("u1").label("app", "c").node("n3").obj());
  cache.upsertPod(MakePod().name("p4").ns("ns").uid("u4").label("app", "d").node("n1").obj());
  cache.deletePod("u2");
  cache.upsertPod(MakePod().name("p3").ns("ns").uid("u3").node("n1").obj());
  cache.upsertNamespace(makeNamespace("ns", {{"team", "b"}}));
  cache.publish();
  check();

  auto now = cache.snapshot();
  BOOST_TEST((podsByNode(*now) == Pods{{"n1", {"p4", "p3"}}, {"n3", {"p1"}}}));
  BOOST_TEST((podsMatching(*now, anyAppIn({"ns"})) == Strings{"p1@n3", "p4@n1"}));
  BOOST_TEST(antiTermCounts(*now).empty());
}

// Enough namespaces that their indexes are built on several threads at the first publish
// (and after a change to every one of them): each still answers for its own pods only.
BOOST_AUTO_TEST_CASE(many_namespaces_indexed_at_once) {
  constexpr int kNamespaces = 300;
  Cache cache;
  cache.upsertNode(MakeNode().name("n1").obj());
  const auto ns = [](int i) { return "ns" + std::to_string(i); };
  for (int i = 0; i < kNamespaces; ++i) {
    for (int p = 0; p < 3; ++p) {
      const std::string name = ns(i) + "-p" + std::to_string(p);
      cache.upsertPod(MakePod().name(name).ns(ns(i)).uid(name).label("app", "a").node("n1").obj());
    }
  }
  cache.publish();
  const auto first = cache.snapshot();
  for (int i : {0, 150, kNamespaces - 1}) {
    BOOST_TEST((podsMatching(*first, anyAppIn({ns(i)})) ==
                Strings{ns(i) + "-p0@n1", ns(i) + "-p1@n1", ns(i) + "-p2@n1"}));
  }
  // Every namespace loses two pods of three, which is past any overlay's bound.
  for (int i = 0; i < kNamespaces; ++i) {
    cache.deletePod(ns(i) + "-p0");
    cache.deletePod(ns(i) + "-p2");
  }
  cache.publish();
  const auto second = cache.snapshot();
  for (int i : {0, 150, kNamespaces - 1}) {
    BOOST_TEST((podsMatching(*second, anyAppIn({ns(i)})) == Strings{ns(i) + "-p1@n1"}));
    BOOST_TEST(podsMatching(*first, anyAppIn({ns(i)})).size() == 3u);
  }
}

BOOST_AUTO_TEST_CASE(unchanged_node_infos_are_shared_between_snapshots) {
  Cache cache;
  cache.upsertNode(MakeNode().name("n1").obj());
  cache.upsertNode(MakeNode().name("n2").obj());
  cache.upsertPod(MakePod().name("p1").ns("ns").uid("u1").node("n1").obj());
  cache.publish();
  auto first = cache.snapshot();
  cache.upsertPod(MakePod().name("p2").ns("ns").uid("u2").node("n1").obj());
  cache.publish();
  auto second = cache.snapshot();
  BOOST_TEST(first->getNodeInfo("n2") == second->getNodeInfo("n2"));
  BOOST_TEST(first->getNodeInfo("n1") != second->getNodeInfo("n1"));
  BOOST_TEST(first->getNodeInfo("n1")->pods().size() == 1u);
  BOOST_TEST(second->getNodeInfo("n1")->pods().size() == 2u);
}

BOOST_AUTO_TEST_CASE(have_lists_order) {
  Cache cache;
  // Zones a (a1, a2, a3) and b (b1, b2): node order a1 b1 a2 b2 a3.
  for (const char* name : {"a1", "a2", "a3"}) {
    cache.upsertNode(MakeNode().name(name).label(kZone, "a").obj());
  }
  for (const char* name : {"b1", "b2"}) {
    cache.upsertNode(MakeNode().name(name).label(kZone, "b").obj());
  }
  cache.upsertPod(MakePod()
                      .name("p1")
                      .ns("ns")
                      .uid("u1")
                      .node("a3")
                      .podAffinityIn("app", kZone, {"x"}, kRequiredReq)
                      .obj());
  cache.upsertPod(MakePod()
                      .name("p2")
                      .ns("ns")
                      .uid("u2")
                      .node("b2")
                      .podAntiAffinityIn("app", kHostname, {"x"}, kRequiredReq)
                      .obj());
  cache.upsertPod(MakePod()
                      .name("p3")
                      .ns("ns")
                      .uid("u3")
                      .node("a1")
                      .podAntiAffinityIn("app", kHostname, {"y"}, kRequiredReq)
                      .obj());
  cache.upsertPod(MakePod().name("p4").ns("ns").uid("u4").node("b1").obj());
  cache.publish();
  auto snapshot = cache.snapshot();
  BOOST_TEST((nodeNames(snapshot->nodeInfoList()) == Strings{"a1", "b1", "a2", "b2", "a3"}));
  BOOST_TEST((nodeNames(snapshot->havePodsWithAffinityList()) == Strings{"a1", "b2", "a3"}));
  BOOST_TEST((nodeNames(snapshot->havePodsWithRequiredAntiAffinityList()) == Strings{"a1", "b2"}));
}

BOOST_AUTO_TEST_CASE(node_zone_change_reorders) {
  Cache cache;
  cache.upsertNode(MakeNode().name("a1").label(kZone, "a").obj());
  cache.upsertNode(MakeNode().name("a2").label(kZone, "a").obj());
  cache.upsertNode(MakeNode().name("b1").label(kZone, "b").obj());
  cache.publish();
  BOOST_TEST((nodeNames(cache.snapshot()->nodeInfoList()) == Strings{"a1", "b1", "a2"}));
  // A label change within the zone keeps the order; a zone change moves the node.
  cache.upsertNode(MakeNode().name("a2").label(kZone, "a").label("x", "y").obj());
  cache.publish();
  BOOST_TEST((nodeNames(cache.snapshot()->nodeInfoList()) == Strings{"a1", "b1", "a2"}));
  BOOST_TEST(cache.snapshot()->getNodeInfo("a2")->labels().has("x"));
  cache.upsertNode(MakeNode().name("a1").label(kZone, "b").obj());
  cache.publish();
  BOOST_TEST((nodeNames(cache.snapshot()->nodeInfoList()) == Strings{"a2", "b1", "a1"}));
  BOOST_TEST(cache.numNodes() == 3u);
}

// Readers take snapshots while a writer mutates and publishes: each snapshot they see is
// whole (its node list, pod index and term index agree) and they never go back in time.
BOOST_AUTO_TEST_CASE(concurrent_readers_see_whole_snapshots) {
  Cache cache;
  cache.upsertNode(MakeNode().name("n1").obj());
  cache.publish();
  constexpr int kPods = 300;
  std::atomic<bool> done = false;
  auto reader = [&] {
    std::size_t last = 0;
    bool ok = true;
    while (!done.load()) {
      auto snapshot = cache.snapshot();
      const std::size_t pods = snapshot->getNodeInfo("n1")->pods().size();
      const std::size_t matched = podsMatching(*snapshot, anyAppIn({"ns"})).size();
      const auto anti = antiTermCounts(*snapshot);
      const std::int64_t terms = anti.empty() ? 0 : anti.at("n1");
      ok = ok && pods >= last && matched == pods && terms == static_cast<std::int64_t>(pods);
      last = pods;
    }
    return ok;
  };
  bool ok1 = false;
  bool ok2 = false;
  std::thread r1([&] { ok1 = reader(); });
  std::thread r2([&] { ok2 = reader(); });
  for (int i = 0; i < kPods; ++i) {
    const std::string id = std::to_string(i);
    cache.upsertPod(MakePod()
                        .name("p" + id)
                        .ns("ns")
                        .uid(id)
                        .label("app", id)
                        .node("n1")
                        .podAntiAffinityIn("app", kHostname, {"x"}, kRequiredReq)
                        .obj());
    cache.publish();
  }
  done = true;
  r1.join();
  r2.join();
  BOOST_TEST(ok1);
  BOOST_TEST(ok2);
  BOOST_TEST(cache.snapshot()->getNodeInfo("n1")->pods().size() == std::size_t{kPods});
}

// Every node of a snapshot reads its own labels from the snapshot's topology columns, by its
// slot, and finds itself by name, whatever came, went or changed labels before.
void checkTopology(const Snapshot& snapshot) {
  const framework::TopologyIndex& topology = snapshot.topology();
  for (const framework::NodeInfo* node : snapshot.nodeInfoList()) {
    BOOST_TEST_CONTEXT("node " << node->name()) {
      BOOST_TEST(snapshot.getNodeInfo(node->name()) == node);
      BOOST_REQUIRE(node->slot() != framework::kNoSlot);
      for (const auto& column : topology.columns()) {
        const auto label = node->labels().get(column.key());
        const framework::TopologyValueId id = column.at(node->slot());
        BOOST_TEST(label.has_value() == (id != framework::TopologyIndex::kAbsent), column.key());
        if (label && id != framework::TopologyIndex::kAbsent) {
          BOOST_TEST(column.value(id) == *label, column.key());
        }
      }
      for (const auto& [key, value] : node->labels()) {
        BOOST_TEST(topology.column(key) != nullptr, key);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(SnapshotTopologyFollowsNodeLabels) {
  Cache cache;
  for (int i = 0; i < 6; ++i) {
    const std::string name = "n" + std::to_string(i);
    cache.upsertNode(
        MakeNode().name(name).labels({{kZone, i % 2 ? "z1" : "z2"}, {kHostname, name}}).obj());
  }
  cache.upsertPod(MakePod().name("p").uid("p").node("ghost").obj());  // a ghost node's slot
  cache.publish();
  const auto first = cache.snapshot();
  checkTopology(*first);

  // A status update leaves the labels alone: the next snapshot shares the topology.
  cache.upsertNode(MakeNode().name("n1").labels({{kZone, "z1"}, {kHostname, "n1"}}).obj());
  cache.publish();
  BOOST_TEST(&cache.snapshot()->topology() == &first->topology());

  cache.upsertNode(MakeNode().name("n1").labels({{kZone, "z3"}, {"gpu", "a100"}}).obj());
  cache.deleteNode("n2");
  cache.upsertNode(MakeNode().name("n6").labels({{kZone, "z3"}, {kHostname, "n6"}}).obj());
  cache.publish();
  const auto second = cache.snapshot();
  BOOST_TEST(&second->topology() != &first->topology());
  checkTopology(*second);
  BOOST_TEST(second->getNodeInfo("n2") == nullptr);
  BOOST_TEST(second->getNodeInfo("ghost") == nullptr);
  // The published snapshot before is unchanged.
  checkTopology(*first);
  BOOST_TEST(first->getNodeInfo("n2") != nullptr);
  BOOST_TEST(first->topology().column("gpu") == nullptr);
}

// The publish timing (scheduler_extender_cache_publish_duration_seconds) hears of every
// publish while attached, with a duration the publish could have taken, and of none after.
BOOST_AUTO_TEST_CASE(publish_observer_times_each_publish) {
  struct Timings : framework::runtime::DurationObserver {
    void observe(double seconds) override { observed.push_back(seconds); }
    std::vector<double> observed;
  } timings;
  Cache cache;
  cache.setPublishObserver(&timings);
  const auto began = std::chrono::steady_clock::now();
  cache.upsertNode(MakeNode().name("n1").obj());
  cache.publish();
  cache.upsertPod(MakePod().name("p1").ns("ns").uid("u1").node("n1").obj());
  cache.publish();
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - began;
  cache.setPublishObserver(nullptr);
  cache.publish();
  BOOST_TEST_REQUIRE(timings.observed.size() == 2u);
  for (const double seconds : timings.observed) {
    BOOST_TEST(seconds > 0);
    BOOST_TEST(seconds <= elapsed.count());
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::cache
