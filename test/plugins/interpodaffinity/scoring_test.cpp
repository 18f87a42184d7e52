// Ported from kubernetes/kubernetes
// pkg/scheduler/framework/plugins/interpodaffinity/scoring_test.go, case by case with the
// upstream case names (newest expectations: PreScore Skip, min–max from the observed minimum).

#include "plugins/interpodaffinity/scoring.hpp"

#include <boost/test/unit_test.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "plugins/interpodaffinity/plugin.hpp"
#include "test/testing/affinity_fixtures.hpp"
#include "test/testing/fake_lister.hpp"
#include "test/testing/status.hpp"
#include "test/testing/wrappers.hpp"

namespace {

namespace api = scheduling::api;
namespace fw = scheduling::framework;
namespace ipa = plugins::interpodaffinity;
using testing::kPreferredReq;
using testing::kRequiredReq;
using testing::MakeLabelSelector;
using testing::MakeNode;
using testing::MakePod;
using testing::teamNamespaces;
using testing::term;

constexpr std::int64_t kMax = fw::kMaxNodeScore;

struct NodeScore {
  std::string name;
  std::int64_t score;
};

std::string show(const std::vector<NodeScore>& list) {
  std::string out;
  for (const auto& ns : list) out += ns.name + "=" + std::to_string(ns.score) + " ";
  return out;
}

api::WeightedPodAffinityTerm weighted(std::int32_t weight, api::PodAffinityTerm t) {
  return api::WeightedPodAffinityTerm{weight, std::move(t)};
}

api::Affinity preferredAffinity(std::vector<api::WeightedPodAffinityTerm> terms) {
  api::Affinity a;
  a.podAffinity.emplace().preferredDuringSchedulingIgnoredDuringExecution = std::move(terms);
  return a;
}

api::Affinity preferredAntiAffinity(std::vector<api::WeightedPodAffinityTerm> terms) {
  api::Affinity a;
  a.podAntiAffinity.emplace().preferredDuringSchedulingIgnoredDuringExecution = std::move(terms);
  return a;
}

// A pod {labels, namespace, spec.nodeName, affinity} as the Go tables write them inline.
api::Pod pod(const api::Labels& labels, const std::string& nodeName = "",
             std::optional<api::Affinity> affinity = std::nullopt, const std::string& ns = "") {
  MakePod p;
  p.labels(labels).node(nodeName).ns(ns);
  if (affinity) p.affinity(*affinity);
  return p.obj();
}

api::Node node(const std::string& name, const api::Labels& labels) {
  return MakeNode().name(name).labels(labels).obj();
}

struct Outcome {
  fw::Status preScore;
  std::vector<NodeScore> scores;  // after NormalizeScore; empty when PreScore did not succeed
};

// PreScore over all nodes, then Score each node and NormalizeScore the list, as the Go loop.
Outcome runScoring(const ipa::InterPodAffinity& plugin, const api::Pod& incoming,
                   std::vector<api::Pod> pods, std::vector<api::Node> nodes,
                   std::vector<api::Namespace> namespaces) {
  auto lister = testing::FakeLister::make(std::move(nodes), std::move(pods), std::move(namespaces));
  fw::CycleState state(lister);
  const fw::PodInfo podInfo = testing::podInfo(incoming);
  Outcome out;
  out.preScore = plugin.preScore(state, podInfo, lister->nodeInfoList());
  if (!out.preScore.isSuccess()) return out;
  std::vector<fw::NodeScore> list;
  for (const fw::NodeInfo* n : lister->nodeInfoList()) {
    std::int64_t score = 0;
    const fw::Status s = plugin.score(state, podInfo, *n, score);
    BOOST_TEST(s.isSuccess(), "Score: " << testing::describe(s));
    list.push_back({n, score});
  }
  const fw::Status s = plugin.normalizeScore(state, podInfo, list);
  BOOST_TEST(s.isSuccess(), "NormalizeScore: " << testing::describe(s));
  for (const auto& ns : list) out.scores.push_back({ns.node->name(), ns.score});
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(interpodaffinity_scoring)

BOOST_AUTO_TEST_CASE(TestPreferredAffinity) {
  const api::Labels labelRgChina{{"region", "China"}};
  const api::Labels labelRgIndia{{"region", "India"}};
  const api::Labels labelAzAz1{{"az", "az1"}};
  const api::Labels labelAzAz2{{"az", "az2"}};
  const api::Labels labelRgChinaAzAz1{{"region", "China"}, {"az", "az1"}};
  const api::Labels podLabelSecurityS1{{"security", "S1"}};
  const api::Labels podLabelSecurityS2{{"security", "S2"}};
  const api::Labels noLabels;

  const api::Affinity stayWithS1InRegion = preferredAffinity(
      {weighted(5, term(MakeLabelSelector().in("security", {"S1"}).obj(), "region"))});
  const api::Affinity stayWithS2InRegion = preferredAffinity(
      {weighted(6, term(MakeLabelSelector().in("security", {"S2"}).obj(), "region"))});
  const api::Affinity affinity3 = preferredAffinity(
      {weighted(8, term(MakeLabelSelector().notIn("security", {"S1"}).in("security", {"S2"}).obj(),
                        "region")),
       weighted(
           2, term(MakeLabelSelector().exists("security").notExist("wrongkey").obj(), "region"))});
  api::Affinity hardAffinity;
  hardAffinity.podAffinity.emplace().requiredDuringSchedulingIgnoredDuringExecution = {
      term(MakeLabelSelector().in("security", {"S1", "value2"}).obj(), "region"),
      term(MakeLabelSelector().exists("security").notExist("wrongkey").obj(), "region")};
  const api::Affinity awayFromS1InAz = preferredAntiAffinity(
      {weighted(5, term(MakeLabelSelector().in("security", {"S1"}).obj(), "az"))});
  // to stay away from security S2 in any az.
  const api::Affinity awayFromS2InAz = preferredAntiAffinity(
      {weighted(5, term(MakeLabelSelector().in("security", {"S2"}).obj(), "az"))});
  // to stay with security S1 in same region, stay away from security S2 in any az.
  api::Affinity stayWithS1InRegionAwayFromS2InAz = preferredAffinity(
      {weighted(8, term(MakeLabelSelector().in("security", {"S1"}).obj(), "region"))});
  stayWithS1InRegionAwayFromS2InAz.podAntiAffinity =
      preferredAntiAffinity(
          {weighted(5, term(MakeLabelSelector().in("security", {"S2"}).obj(), "az"))})
          .podAntiAffinity;
  const auto team1 = MakeLabelSelector().in("team", {"team1"}).obj();
  const api::Affinity affinityNamespaceSelector =
      preferredAffinity({weighted(5, term(MakeLabelSelector().in("security", {"S1"}).obj(),
                                          "region", {"subteam2.team2"}, team1))});
  const api::Affinity antiAffinityNamespaceSelector =
      preferredAntiAffinity({weighted(5, term(MakeLabelSelector().in("security", {"S1"}).obj(),
                                              "region", {"subteam2.team2"}, team1))});
  const api::Affinity invalidAffinityLabels = preferredAffinity(
      {weighted(8, term(MakeLabelSelector().in("security", {"{{.bad-value.}}"}).obj(), "region"))});
  const api::Affinity invalidAntiAffinityLabels = preferredAntiAffinity(
      {weighted(5, term(MakeLabelSelector().in("security", {"{{.bad-value.}}"}).obj(), "az"))});

  struct Case {
    Case(std::string name_, api::Pod pod_, std::vector<api::Pod> pods_,
         std::vector<api::Node> nodes_, std::vector<NodeScore> expectedList_,
         bool ignorePreferredTermsOfExistingPods_ = false, fw::Status wantStatus_ = {})
        : name(std::move(name_)),
          pod(std::move(pod_)),
          pods(std::move(pods_)),
          nodes(std::move(nodes_)),
          expectedList(std::move(expectedList_)),
          ignorePreferredTermsOfExistingPods(ignorePreferredTermsOfExistingPods_),
          wantStatus(std::move(wantStatus_)) {}
    std::string name;
    api::Pod pod;
    std::vector<api::Pod> pods;
    std::vector<api::Node> nodes;
    std::vector<NodeScore> expectedList;
    bool ignorePreferredTermsOfExistingPods;
    fw::Status wantStatus;
  };
  const fw::Status skip(fw::Code::Skip);
  const fw::Status badValue(fw::Code::Error, "Invalid value: \"{{.bad-value.}}\"");
  const std::vector<Case> tests = {
      {"all nodes are same priority as Affinity is nil",
       pod(podLabelSecurityS1),
       {},
       {node("node1", labelRgChina), node("node2", labelRgIndia), node("node3", labelAzAz1)},
       {},
       false,
       skip},
      // the node(node1) that have the label {"region": "China"} (match the topology key) and
      // that have existing pods that match the labelSelector get high score; the node(node3)
      // that don't have the label but have existing pods that match the labelSelector get low
      // score; the node(node2) that have the label but existing pods that mismatch the
      // labelSelector get low score.
      {"Affinity: pod that matches topology key & pods in nodes will get high score comparing "
       "to otherswhich doesn't match either pods in nodes or in topology key",
       pod(podLabelSecurityS1, "", stayWithS1InRegion),
       {pod(podLabelSecurityS1, "node1"), pod(podLabelSecurityS2, "node2"),
        pod(podLabelSecurityS1, "node3")},
       {node("node1", labelRgChina), node("node2", labelRgIndia), node("node3", labelAzAz1)},
       {{"node1", kMax}, {"node2", 0}, {"node3", 0}}},
      {"All the nodes that have the same topology key & label value with one of them has an "
       "existing pod that match the affinity rules, have the same score",
       pod(noLabels, "", stayWithS1InRegion),
       {pod(podLabelSecurityS1, "node1")},
       {node("node1", labelRgChina), node("node2", labelRgChinaAzAz1), node("node3", labelRgIndia)},
       {{"node1", kMax}, {"node2", kMax}, {"node3", 0}}},
      {"Affinity: nodes in one region has more matching pods comparing to other region, so the "
       "region which has more matches will get high score",
       pod(podLabelSecurityS1, "", stayWithS2InRegion),
       {pod(podLabelSecurityS2, "node1"), pod(podLabelSecurityS2, "node1"),
        pod(podLabelSecurityS2, "node2"), pod(podLabelSecurityS2, "node3"),
        pod(podLabelSecurityS2, "node4"), pod(podLabelSecurityS2, "node5")},
       {node("node1", labelRgChina), node("node2", labelRgIndia), node("node3", labelRgChina),
        node("node4", labelRgChina), node("node5", labelRgIndia)},
       {{"node1", kMax}, {"node2", 0}, {"node3", kMax}, {"node4", kMax}, {"node5", 0}}},
      {"Affinity: different Label operators and values for pod affinity scheduling preference, "
       "including some match failures ",
       pod(podLabelSecurityS1, "", affinity3),
       {pod(podLabelSecurityS1, "node1"), pod(podLabelSecurityS2, "node2"),
        pod(podLabelSecurityS1, "node3")},
       {node("node1", labelRgChina), node("node2", labelRgIndia), node("node3", labelAzAz1)},
       {{"node1", 20}, {"node2", kMax}, {"node3", 0}}},
      {"Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution "
       "in pod affinity symmetry",
       pod(podLabelSecurityS2),
       {pod(podLabelSecurityS1, "node1", stayWithS1InRegion),
        pod(podLabelSecurityS2, "node2", stayWithS2InRegion)},
       {node("node1", labelRgChina), node("node2", labelRgIndia), node("node3", labelAzAz1)},
       {{"node1", 0}, {"node2", kMax}, {"node3", 0}}},
      {"Affinity symmetry with namespace selector",
       pod(podLabelSecurityS1, "", std::nullopt, "subteam1.team1"),
       {pod(podLabelSecurityS1, "node1", affinityNamespaceSelector),
        pod(podLabelSecurityS2, "node2", stayWithS2InRegion)},
       {node("node1", labelRgChina), node("node2", labelRgIndia), node("node3", labelAzAz1)},
       {{"node1", kMax}, {"node2", 0}, {"node3", 0}}},
      {"AntiAffinity symmetry with namespace selector",
       pod(podLabelSecurityS1, "", std::nullopt, "subteam1.team1"),
       {pod(podLabelSecurityS1, "node1", antiAffinityNamespaceSelector),
        pod(podLabelSecurityS2, "node2", stayWithS2InRegion)},
       {node("node1", labelRgChina), node("node2", labelRgIndia), node("node3", labelAzAz1)},
       {{"node1", 0}, {"node2", kMax}, {"node3", kMax}}},
      {"Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod "
       "affinity symmetry",
       pod(podLabelSecurityS1),
       {pod(podLabelSecurityS1, "node1", hardAffinity),
        pod(podLabelSecurityS2, "node2", hardAffinity)},
       {node("node1", labelRgChina), node("node2", labelRgIndia), node("node3", labelAzAz1)},
       {{"node1", kMax}, {"node2", kMax}, {"node3", 0}}},
      // The pod to schedule prefers to stay away from some existing pods at node level.
      {"Anti Affinity: pod that does not match existing pods in node will get high score ",
       pod(podLabelSecurityS1, "", awayFromS1InAz),
       {pod(podLabelSecurityS1, "node1"), pod(podLabelSecurityS2, "node2")},
       {node("node1", labelAzAz1), node("node2", labelRgChina)},
       {{"node1", 0}, {"node2", kMax}}},
      {"Anti Affinity: pod that does not match topology key & match the pods in nodes will get "
       "higher score comparing to others ",
       pod(podLabelSecurityS1, "", awayFromS1InAz),
       {pod(podLabelSecurityS1, "node1"), pod(podLabelSecurityS1, "node2")},
       {node("node1", labelAzAz1), node("node2", labelRgChina)},
       {{"node1", 0}, {"node2", kMax}}},
      {"Anti Affinity: one node has more matching pods comparing to other node, so the node "
       "which has more unmatches will get high score",
       pod(podLabelSecurityS1, "", awayFromS1InAz),
       {pod(podLabelSecurityS1, "node1"), pod(podLabelSecurityS1, "node1"),
        pod(podLabelSecurityS2, "node2")},
       {node("node1", labelAzAz1), node("node2", labelRgIndia)},
       {{"node1", 0}, {"node2", kMax}}},
      // Test the symmetry cases for anti affinity
      {"Anti Affinity symmetry: the existing pods in node which has anti affinity match will "
       "get high score",
       pod(podLabelSecurityS2),
       {pod(podLabelSecurityS1, "node1", awayFromS2InAz),
        pod(podLabelSecurityS2, "node2", awayFromS1InAz)},
       {node("node1", labelAzAz1), node("node2", labelAzAz2)},
       {{"node1", 0}, {"node2", kMax}}},
      // Test both affinity and anti-affinity
      {"Affinity and Anti Affinity: considered only "
       "preferredDuringSchedulingIgnoredDuringExecution "
       "in both pod affinity & anti affinity",
       pod(podLabelSecurityS1, "", stayWithS1InRegionAwayFromS2InAz),
       {pod(podLabelSecurityS1, "node1"), pod(podLabelSecurityS1, "node2")},
       {node("node1", labelRgChina), node("node2", labelAzAz1)},
       {{"node1", kMax}, {"node2", 0}}},
      // The pod prefers to run with its brothers in the same region but away from them at
      // node level; node1, node3, node4 are in China, node2, node5 in India.
      {"Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to "
       "schedule and existing pods have the same labels",
       pod(podLabelSecurityS1, "", stayWithS1InRegionAwayFromS2InAz),
       {pod(podLabelSecurityS1, "node1"), pod(podLabelSecurityS1, "node1"),
        pod(podLabelSecurityS1, "node2"), pod(podLabelSecurityS1, "node3"),
        pod(podLabelSecurityS1, "node3"), pod(podLabelSecurityS1, "node4"),
        pod(podLabelSecurityS1, "node5")},
       {node("node1", labelRgChinaAzAz1), node("node2", labelRgIndia), node("node3", labelRgChina),
        node("node4", labelRgChina), node("node5", labelRgIndia)},
       {{"node1", kMax}, {"node2", 0}, {"node3", kMax}, {"node4", kMax}, {"node5", 0}}},
      // Affinity, anti-affinity and symmetry together; weights 8, -5, 8, -5.
      {"Affinity and Anti Affinity and symmetry: considered only "
       "preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity & "
       "symmetry",
       pod(podLabelSecurityS1, "", stayWithS1InRegionAwayFromS2InAz),
       {pod(podLabelSecurityS1, "node1"), pod(podLabelSecurityS2, "node2"),
        pod(noLabels, "node3", stayWithS1InRegionAwayFromS2InAz),
        pod(noLabels, "node4", awayFromS1InAz)},
       {node("node1", labelRgChina), node("node2", labelAzAz1), node("node3", labelRgIndia),
        node("node4", labelAzAz2)},
       {{"node1", kMax}, {"node2", 0}, {"node3", kMax}, {"node4", 0}}},
      // Cover https://github.com/kubernetes/kubernetes/issues/82796.
      {"Avoid panic when partial nodes in a topology don't have pods with affinity",
       pod(podLabelSecurityS1),
       {pod(podLabelSecurityS1, "node1"), pod(noLabels, "node2", stayWithS1InRegionAwayFromS2InAz)},
       {node("node1", labelRgChina), node("node2", labelRgChina)},
       {{"node1", 0}, {"node2", 0}}},
      {"invalid Affinity fails PreScore",
       pod(noLabels, "", invalidAffinityLabels),
       {},
       {node("node1", labelRgChina), node("node2", labelRgChina)},
       {},
       false,
       badValue},
      {"invalid AntiAffinity fails PreScore",
       pod(noLabels, "", invalidAntiAffinityLabels),
       {},
       {node("node1", labelRgChina), node("node2", labelRgChina)},
       {},
       false,
       badValue},
      {"Affinity with pods matching NamespaceSelector",
       pod(podLabelSecurityS1, "", affinityNamespaceSelector, "subteam1.team1"),
       {pod(podLabelSecurityS1, "node1", std::nullopt, "subteam1.team1"),
        pod(podLabelSecurityS1, "node1", std::nullopt, "subteam1.team1"),
        pod(podLabelSecurityS1, "node1", std::nullopt, "subteam1.team2"),
        pod(podLabelSecurityS1, "node2", std::nullopt, "subteam2.team1")},
       {node("node1", labelRgChina), node("node2", labelRgIndia)},
       {{"node1", kMax}, {"node2", 0}}},
      {"Affinity with pods matching both NamespaceSelector and Namespaces fields",
       pod(podLabelSecurityS1, "", affinityNamespaceSelector, "subteam1.team1"),
       {pod(podLabelSecurityS1, "node1", std::nullopt, "subteam1.team1"),
        pod(podLabelSecurityS1, "node1", std::nullopt, "subteam1.team1"),
        pod(podLabelSecurityS1, "node1", std::nullopt, "subteam2.team2"),
        pod(podLabelSecurityS1, "node2", std::nullopt, "subteam2.team1")},
       {node("node1", labelRgChina), node("node2", labelRgIndia)},
       {{"node1", kMax}, {"node2", 0}}},
      {"Affinity with pods matching NamespaceSelector",
       pod(podLabelSecurityS1, "", antiAffinityNamespaceSelector, "subteam1.team1"),
       {pod(podLabelSecurityS1, "node1", std::nullopt, "subteam1.team1"),
        pod(podLabelSecurityS1, "node1", std::nullopt, "subteam1.team1"),
        pod(podLabelSecurityS1, "node1", std::nullopt, "subteam1.team2"),
        pod(podLabelSecurityS1, "node2", std::nullopt, "subteam2.team1")},
       {node("node1", labelRgChina), node("node2", labelRgIndia)},
       {{"node1", 0}, {"node2", kMax}}},
      {"Affinity with pods matching both NamespaceSelector and Namespaces fields",
       pod(podLabelSecurityS1, "", antiAffinityNamespaceSelector, "subteam1.team1"),
       {pod(podLabelSecurityS1, "node1", std::nullopt, "subteam1.team1"),
        pod(podLabelSecurityS1, "node1", std::nullopt, "subteam1.team1"),
        pod(podLabelSecurityS1, "node1", std::nullopt, "subteam2.team2"),
        pod(podLabelSecurityS1, "node2", std::nullopt, "subteam2.team1")},
       {node("node1", labelRgChina), node("node2", labelRgIndia)},
       {{"node1", 0}, {"node2", kMax}}},
      {"Ignore preferred terms of existing pods",
       pod(podLabelSecurityS2),
       {pod(podLabelSecurityS1, "node1", stayWithS1InRegionAwayFromS2InAz),
        pod(podLabelSecurityS2, "node2", stayWithS2InRegion)},
       {node("node1", labelRgChina), node("node2", labelRgIndia)},
       {{"node1", 0}, {"node2", 0}},
       true,
       skip},
      {"Do not ignore preferred terms of existing pods",
       pod(podLabelSecurityS2),
       {pod(podLabelSecurityS1, "node1", stayWithS1InRegionAwayFromS2InAz),
        pod(podLabelSecurityS2, "node2", stayWithS2InRegion)},
       {node("node1", labelRgChina), node("node2", labelRgIndia)},
       {{"node1", 0}, {"node2", kMax}},
       false},
      {"No nodes to score", pod(podLabelSecurityS2), {}, {}, {}, false, skip},
  };

  for (const auto& test : tests) {
    BOOST_TEST_CONTEXT(test.name) {
      const ipa::InterPodAffinity plugin(
          {.hardPodAffinityWeight = 1,
           .ignorePreferredTermsOfExistingPods = test.ignorePreferredTermsOfExistingPods});
      const Outcome got = runScoring(plugin, test.pod, test.pods, test.nodes, teamNamespaces());
      if (!got.preScore.isSuccess()) {
        // As upstream: the code must match and the message must contain the wanted one.
        BOOST_TEST(fw::codeName(got.preScore.code()) == fw::codeName(test.wantStatus.code()));
        BOOST_TEST(got.preScore.message().find(test.wantStatus.message()) != std::string::npos,
                   got.preScore.message() << " does not contain " << test.wantStatus.message());
        continue;
      }
      BOOST_TEST(test.wantStatus.isSuccess());
      BOOST_TEST(show(got.scores) == show(test.expectedList));
    }
  }
}

BOOST_AUTO_TEST_CASE(TestPreferredAffinityWithHardPodAffinitySymmetricWeight) {
  const api::Labels podLabelServiceS1{{"service", "S1"}};
  const api::Labels labelRgChina{{"region", "China"}};
  const api::Labels labelRgIndia{{"region", "India"}};
  const api::Labels labelAzAz1{{"az", "az1"}};
  api::Affinity hardPodAffinity;
  hardPodAffinity.podAffinity.emplace().requiredDuringSchedulingIgnoredDuringExecution = {
      term(MakeLabelSelector().in("service", {"S1"}).obj(), "region", {"", "subteam2.team2"},
           MakeLabelSelector().in("team", {"team1"}).obj())};
  constexpr std::int32_t kDefaultHardPodAffinitySymmetricWeight = 1;  // v1 default

  struct Case {
    std::string name;
    api::Pod pod;
    std::int32_t hardPodAffinityWeight;
    std::vector<NodeScore> expectedList;
    fw::Status wantStatus;
  };
  const std::vector<Case> tests = {
      {"with default weight",
       pod(podLabelServiceS1),
       kDefaultHardPodAffinitySymmetricWeight,
       {{"node1", kMax}, {"node2", kMax}, {"node3", 0}},
       {}},
      {"with zero weight", pod(podLabelServiceS1), 0, {}, fw::Status(fw::Code::Skip)},
      {"with no matching namespace",
       pod(podLabelServiceS1, "", std::nullopt, "subteam1.team2"),
       kDefaultHardPodAffinitySymmetricWeight,
       {},
       fw::Status(fw::Code::Skip)},
      {"with matching NamespaceSelector",
       pod(podLabelServiceS1, "", std::nullopt, "subteam1.team1"),
       kDefaultHardPodAffinitySymmetricWeight,
       {{"node1", kMax}, {"node2", kMax}, {"node3", 0}},
       {}},
      {"with matching Namespaces",
       pod(podLabelServiceS1, "", std::nullopt, "subteam2.team2"),
       kDefaultHardPodAffinitySymmetricWeight,
       {{"node1", kMax}, {"node2", kMax}, {"node3", 0}},
       {}},
  };

  for (const auto& test : tests) {
    BOOST_TEST_CONTEXT(test.name) {
      const ipa::InterPodAffinity plugin({.hardPodAffinityWeight = test.hardPodAffinityWeight});
      const Outcome got = runScoring(
          plugin, test.pod, {pod({}, "node1", hardPodAffinity), pod({}, "node2", hardPodAffinity)},
          {node("node1", labelRgChina), node("node2", labelRgIndia), node("node3", labelAzAz1)},
          teamNamespaces());
      BOOST_TEST(testing::describe(got.preScore) == testing::describe(test.wantStatus));
      if (!got.preScore.isSuccess()) continue;
      BOOST_TEST(show(got.scores) == show(test.expectedList));
    }
  }
}

// Not upstream: the NormalizeScore arithmetic on the spec's examples (divide in double,
// scale by 100, truncate; min and max observed, not started at 0).
BOOST_AUTO_TEST_CASE(NormalizeScoreArithmetic) {
  const ipa::InterPodAffinity plugin;
  auto lister = testing::FakeLister::make(
      {node("a", {{"k", "1"}}), node("b", {{"k", "2"}}), node("c", {{"k", "3"}})}, {});
  fw::CycleState state(lister);
  auto s = std::make_unique<ipa::PreScoreState>();
  const fw::TopologyKey key("k", lister->topology());
  s->topologyScore.add(key, key.valueOf(*lister->getNodeInfo("a")), 0);  // any entry: non-empty map
  state.write(ipa::kPreScoreStateKey, std::move(s));
  const fw::PodInfo pod = testing::podInfo(api::Pod{});
  const auto normalize = [&](std::vector<std::int64_t> raw) {
    std::vector<fw::NodeScore> list;
    for (std::size_t i = 0; i < raw.size(); ++i)
      list.push_back({lister->nodeInfoList()[i], raw[i]});
    BOOST_TEST(plugin.normalizeScore(state, pod, list).isSuccess());
    std::vector<std::int64_t> out;
    for (const auto& ns : list) out.push_back(ns.score);
    return out;
  };
  BOOST_TEST(normalize({5, 10}) == (std::vector<std::int64_t>{0, 100}),
             boost::test_tools::per_element());
  BOOST_TEST(normalize({5, 5}) == (std::vector<std::int64_t>{0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(normalize({-5, -10}) == (std::vector<std::int64_t>{100, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(normalize({0, 0}) == (std::vector<std::int64_t>{0, 0}),
             boost::test_tools::per_element());
  // 100 * (1/3) = 33.33 → 33; 100 * (2/3) = 66.67 → 66 (truncation, not rounding).
  BOOST_TEST(normalize({0, 1, 2, 3}).size() == 4U);
  BOOST_TEST(normalize({0, 1, 3}) == (std::vector<std::int64_t>{0, 33, 100}),
             boost::test_tools::per_element());
  BOOST_TEST(normalize({0, 2, 3}) == (std::vector<std::int64_t>{0, 66, 100}),
             boost::test_tools::per_element());
  BOOST_TEST(normalize({}).empty());
}

// Not upstream: scores sit at the snapshot's topology value ids; a node whose labels the
// request overrides reads its domain from its own labels, and a domain no node of the
// snapshot has scores by its text.
BOOST_AUTO_TEST_CASE(TopologyScoreByValueIdAndByText) {
  auto lister =
      testing::FakeLister::make({node("a", {{"zone", "z1"}}), node("b", {{"zone", "z2"}})}, {});
  const fw::TopologyKey zone("zone", lister->topology());
  const fw::NodeInfo inZ2(std::make_shared<const api::Node>(node("x", {{"zone", "z2"}})));
  const fw::NodeInfo inZ9(std::make_shared<const api::Node>(node("y", {{"zone", "z9"}})));
  const fw::NodeInfo noZone(std::make_shared<const api::Node>(node("z", {{"rack", "r1"}})));
  ipa::TopologyScore scores;
  scores.add(zone, zone.valueOf(*lister->getNodeInfo("a")), 3);
  scores.add(zone, zone.valueAt(lister->getNodeInfo("b")->slot()), 5);
  scores.add(zone, zone.valueOf(inZ9), 7);
  scores.add(zone, zone.valueOf(noZone), 11);  // no zone: nothing
  BOOST_TEST(scores.scoreFor(*lister->getNodeInfo("a")) == 3);
  BOOST_TEST(scores.scoreFor(*lister->getNodeInfo("b")) == 5);
  BOOST_TEST(scores.scoreFor(inZ2) == 5);
  BOOST_TEST(scores.scoreFor(inZ9) == 7);
  BOOST_TEST(scores.scoreFor(noZone) == 0);
  BOOST_TEST(scores.toMap() == (std::map<std::string, std::map<std::string, std::int64_t>>{
                                   {"zone", {{"z1", 3}, {"z2", 5}, {"z9", 7}}}}));
}

// Not upstream: +w and −w cancelling to 0 still leave an entry, so PreScore does not Skip.
BOOST_AUTO_TEST_CASE(CancellingWeightsDoNotSkip) {
  const ipa::InterPodAffinity plugin;
  const api::Pod incoming =
      MakePod()
          .label("app", "web")
          .podAffinity(term(MakeLabelSelector().label("app", "db").obj(), "zone"), kPreferredReq, 5)
          .podAntiAffinity(term(MakeLabelSelector().label("app", "db").obj(), "zone"),
                           kPreferredReq, 5)
          .obj();
  const Outcome got = runScoring(plugin, incoming, {MakePod().label("app", "db").node("n1").obj()},
                                 {node("n1", {{"zone", "z1"}}), node("n2", {{"zone", "z2"}})}, {});
  BOOST_TEST(got.preScore.isSuccess());
  BOOST_TEST(show(got.scores) == show({{"n1", 0}, {"n2", 0}}));
}

BOOST_AUTO_TEST_CASE(MissingPreScoreState) {
  const ipa::InterPodAffinity plugin;
  auto lister = testing::FakeLister::make({node("n1", {})}, {});
  fw::CycleState state(lister);
  const fw::PodInfo pod = testing::podInfo(api::Pod{});
  std::int64_t score = 0;
  const fw::Status got = plugin.score(state, pod, *lister->getNodeInfo("n1"), score);
  BOOST_TEST(testing::describe(got) ==
             "Error: failed to read \"PreScoreInterPodAffinity\" from cycleState: not found");
}

BOOST_AUTO_TEST_SUITE_END()
