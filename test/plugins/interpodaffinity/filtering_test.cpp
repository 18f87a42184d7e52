// Ported from kubernetes/kubernetes
// pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go, case by case with the
// upstream case names (newest expectations: single reasons, PreFilter Skip).

#include "plugins/interpodaffinity/filtering.hpp"

#include <boost/test/unit_test.hpp>
#include <map>
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
using testing::kRequiredReq;
using testing::MakeLabelSelector;
using testing::MakeNode;
using testing::MakePod;
using testing::teamNamespaces;
using testing::term;

using CountMap = testing::TopologyCounts;
using testing::show;

const std::string kDefaultNamespace;

const fw::Status kAffinityRulesNotMatch(fw::Code::UnschedulableAndUnresolvable,
                                        std::string(ipa::kErrReasonAffinityRulesNotMatch));
const fw::Status kAntiAffinityRulesNotMatch(fw::Code::Unschedulable,
                                            std::string(ipa::kErrReasonAntiAffinityRulesNotMatch));
const fw::Status kExistingAntiAffinityRulesNotMatch(
    fw::Code::Unschedulable, std::string(ipa::kErrReasonExistingAntiAffinityRulesNotMatch));
const fw::Status kSkip(fw::Code::Skip);
const fw::Status kSuccess;

// createPodWithAffinityTerms: both podAffinity and podAntiAffinity set, with these required
// terms.
api::Pod createPodWithAffinityTerms(const std::string& ns, const std::string& nodeName,
                                    const api::Labels& labels,
                                    std::vector<api::PodAffinityTerm> affinity,
                                    std::vector<api::PodAffinityTerm> antiAffinity) {
  api::Affinity a;
  a.podAffinity.emplace().requiredDuringSchedulingIgnoredDuringExecution = std::move(affinity);
  a.podAntiAffinity.emplace().requiredDuringSchedulingIgnoredDuringExecution =
      std::move(antiAffinity);
  return MakePod().ns(ns).node(nodeName).labels(labels).affinity(std::move(a)).obj();
}

struct Run {
  std::shared_ptr<const testing::FakeLister> lister;
  fw::CycleState state;
  fw::PodInfo pod;
  fw::Status preFilter;
};

Run runPreFilter(const ipa::InterPodAffinity& plugin, const api::Pod& pod,
                 std::vector<api::Pod> pods, std::vector<api::Node> nodes,
                 std::vector<api::Namespace> namespaces) {
  auto lister = testing::FakeLister::make(std::move(nodes), std::move(pods), std::move(namespaces));
  Run run{lister, fw::CycleState(lister), testing::podInfo(pod), {}};
  run.preFilter = plugin.preFilter(run.state, run.pod, lister->nodeInfoList());
  return run;
}

// A topology index with one node per value of one key, to build counts from domain names.
class Topology {
 public:
  explicit Topology(std::initializer_list<std::string_view> values, std::string_view key = "name") {
    fw::NodeSlot slot = 0;
    for (std::string_view value : values) index_.setNode(slot++, api::Labels{{key, value}});
  }
  fw::TopologyKey key(std::string_view key) const { return fw::TopologyKey(key, index_); }
  fw::TopologyValue value(std::string_view value, std::string_view key = "name") const {
    return {index_.column(key)->find(value), {}};
  }
  // PreFilter-made counts: n at each value of `key`.
  ipa::TopologyToMatchedTermCount counts(
      std::initializer_list<std::pair<std::string_view, std::int64_t>> values,
      std::string_view key = "name") const {
    ipa::TopologyToMatchedTermCount counts;
    for (const auto& [value, n] : values)
      counts.addToBase(this->key(key), this->value(value, key), n);
    return counts;
  }

 private:
  fw::TopologyIndex index_;
};

const ipa::PreFilterState& preFilterState(const fw::CycleState& state) {
  const auto* s = state.read<ipa::PreFilterState>(ipa::kPreFilterStateKey);
  BOOST_REQUIRE(s != nullptr);
  return *s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(interpodaffinity_filtering)

BOOST_AUTO_TEST_CASE(TestRequiredAffinitySingleNode) {
  const api::Labels podLabel{{"service", "securityscan"}};
  const api::Pod pod = MakePod().labels(podLabel).node("node1").obj();
  const api::Labels podLabel2{{"security", "S1"}};
  const api::Node node1 =
      MakeNode().name("node1").labels({{"region", "r1"}, {"zone", "z11"}}).obj();
  const std::string badValueError =
      "parsing pod: requiredAffinityTerms: values[0][service]: Invalid value: "
      "\"{{.bad-value.}}\": a valid label must be an empty string or consist of alphanumeric "
      "characters, '-', '_' or '.', and must start and end with an alphanumeric character "
      "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
      "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  const auto team1 = MakeLabelSelector().in("team", {"team1"}).obj();

  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::Pod> pods;
    fw::Status wantPreFilterStatus;
    fw::Status wantFilterStatus;
  };
  const std::vector<Case> tests = {
      {"A pod that has no required pod affinity scheduling rules can schedule onto a node with "
       "no existing pods",
       api::Pod{},
       {},
       kSkip,
       kSuccess},
      {"satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In "
       "operator that matches the existing pod",
       MakePod()
           .ns(kDefaultNamespace)
           .labels(podLabel2)
           .podAffinityIn("service", "region", {"securityscan", "value2"}, kRequiredReq)
           .obj(),
       {pod},
       kSuccess,
       kSuccess},
      {"satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity "
       "using not in operator in labelSelector that matches the existing pod",
       MakePod()
           .ns(kDefaultNamespace)
           .labels(podLabel2)
           .podAffinityNotIn("service", "region", {"securityscan3", "value3"}, kRequiredReq)
           .obj(),
       {pod},
       kSuccess,
       kSuccess},
      {"Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
       createPodWithAffinityTerms(
           kDefaultNamespace, "", podLabel2,
           {term(MakeLabelSelector().in("service", {"securityscan", "value2"}).obj(), "",
                 {"DiffNameSpace"})},
           {}),
       {MakePod().ns("ns").label("service", "securityscan").node("node1").obj()},
       kSuccess,
       kAffinityRulesNotMatch},
      {"Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing "
       "pod",
       MakePod()
           .ns(kDefaultNamespace)
           .labels(podLabel)
           .podAffinityIn("service", "", {"antivirusscan", "value2"}, kRequiredReq)
           .obj(),
       {pod},
       kSuccess,
       kAffinityRulesNotMatch},
      {"satisfies the PodAffinity with different label Operators in multiple "
       "RequiredDuringSchedulingIgnoredDuringExecution ",
       createPodWithAffinityTerms(
           kDefaultNamespace, "", podLabel2,
           {term(MakeLabelSelector().exists("service").notExist("wrongkey").obj(), "region"),
            term(MakeLabelSelector()
                     .in("service", {"securityscan"})
                     .notIn("service", {"WrongValue"})
                     .obj(),
                 "region")},
           {}),
       {pod},
       kSuccess,
       kSuccess},
      {"The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot "
       "schedule onto the node because one of the matchExpression item don't match.",
       createPodWithAffinityTerms(
           kDefaultNamespace, "", podLabel2,
           {term(MakeLabelSelector().exists("service").notExist("wrongkey").obj(), "region"),
            term(MakeLabelSelector()
                     .in("service", {"securityscan2"})
                     .notIn("service", {"WrongValue"})
                     .obj(),
                 "region")},
           {}),
       {pod},
       kSuccess,
       kAffinityRulesNotMatch},
      {"satisfies the PodAffinity and PodAntiAffinity with the existing pod",
       MakePod()
           .ns(kDefaultNamespace)
           .labels(podLabel2)
           .podAffinityIn("service", "region", {"securityscan", "value2"}, kRequiredReq)
           .podAntiAffinityIn("service", "node", {"antivirusscan", "value2"}, kRequiredReq)
           .obj(),
       {pod},
       kSuccess,
       kSuccess},
      {"satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the "
       "existing pod",
       MakePod()
           .ns(kDefaultNamespace)
           .labels(podLabel2)
           .podAffinityIn("service", "region", {"securityscan", "value2"}, kRequiredReq)
           .podAntiAffinityIn("service", "node", {"antivirusscan", "value2"}, kRequiredReq)
           .obj(),
       {MakePod()
            .ns(kDefaultNamespace)
            .node("node1")
            .labels(podLabel)
            .podAntiAffinityIn("service", "node", {"antivirusscan", "value2"}, kRequiredReq)
            .obj()},
       kSuccess,
       kSuccess},
      {"satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
       MakePod()
           .ns(kDefaultNamespace)
           .labels(podLabel2)
           .podAffinityIn("service", "region", {"securityscan", "value2"}, kRequiredReq)
           .podAntiAffinityIn("service", "zone", {"securityscan", "value2"}, kRequiredReq)
           .obj(),
       {pod},
       kSuccess,
       kAntiAffinityRulesNotMatch},
      {"satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity "
       "symmetry with the existing pod",
       MakePod()
           .ns(kDefaultNamespace)
           .labels(podLabel)
           .podAffinityIn("service", "region", {"securityscan", "value2"}, kRequiredReq)
           .podAntiAffinityIn("service", "node", {"antivirusscan", "value2"}, kRequiredReq)
           .obj(),
       {MakePod()
            .ns(kDefaultNamespace)
            .labels(podLabel)
            .node("node1")
            .podAntiAffinityIn("service", "zone", {"securityscan", "value2"}, kRequiredReq)
            .obj()},
       kSuccess,
       kExistingAntiAffinityRulesNotMatch},
      {"pod matches its own Label in PodAffinity and that matches the existing pod Labels",
       MakePod()
           .ns(kDefaultNamespace)
           .labels(podLabel)
           .podAffinityNotIn("service", "region", {"securityscan", "value2"}, kRequiredReq)
           .obj(),
       {MakePod().label("service", "securityscan").node("node2").obj()},
       kSuccess,
       kAffinityRulesNotMatch},
      {"verify that PodAntiAffinity from existing pod is respected when pod has no "
       "AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing "
       "pod",
       MakePod().labels(podLabel).obj(),
       {MakePod()
            .ns(kDefaultNamespace)
            .node("node1")
            .labels(podLabel)
            .podAntiAffinityIn("service", "zone", {"securityscan", "value2"}, kRequiredReq)
            .obj()},
       kSuccess,
       kExistingAntiAffinityRulesNotMatch},
      {"verify that PodAntiAffinity from existing pod is respected when pod has no "
       "AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing pod",
       MakePod().labels(podLabel).obj(),
       {MakePod()
            .ns(kDefaultNamespace)
            .node("node1")
            .labels(podLabel)
            .podAntiAffinityNotIn("service", "zone", {"securityscan", "value2"}, kRequiredReq)
            .obj()},
       kSkip,
       kSuccess},
      {"satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity "
       "symmetry with incoming pod",
       MakePod()
           .ns(kDefaultNamespace)
           .labels(podLabel)
           .podAntiAffinityExists("service", "region", kRequiredReq)
           .podAntiAffinityExists("security", "region", kRequiredReq)
           .obj(),
       {MakePod()
            .ns(kDefaultNamespace)
            .node("node1")
            .labels(podLabel2)
            .podAntiAffinityExists("security", "zone", kRequiredReq)
            .obj()},
       kSuccess,
       kAntiAffinityRulesNotMatch},
      {"PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each "
       "other on AffinityTerms",
       MakePod()
           .ns(kDefaultNamespace)
           .labels(podLabel)
           .podAntiAffinityExists("service", "zone", kRequiredReq)
           .podAntiAffinityExists("security", "zone", kRequiredReq)
           .obj(),
       {MakePod()
            .ns(kDefaultNamespace)
            .node("node1")
            .labels(podLabel2)
            .podAntiAffinityExists("security", "zone", kRequiredReq)
            .obj()},
       kSuccess,
       kAntiAffinityRulesNotMatch},
      {"PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each "
       "other on AffinityTerms",
       MakePod()
           .ns(kDefaultNamespace)
           .labels(podLabel2)
           .podAntiAffinityExists("security", "zone", kRequiredReq)
           .obj(),
       {MakePod()
            .ns(kDefaultNamespace)
            .node("node1")
            .labels(podLabel)
            .podAntiAffinityExists("service", "zone", kRequiredReq)
            .podAntiAffinityExists("security", "zone", kRequiredReq)
            .obj()},
       kSuccess,
       kExistingAntiAffinityRulesNotMatch},
      {"PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each "
       "other on AffinityTerms",
       MakePod()
           .ns(kDefaultNamespace)
           .labels({{"abc", ""}, {"xyz", ""}})
           .podAntiAffinityExists("abc", "zone", kRequiredReq)
           .podAntiAffinityExists("def", "zone", kRequiredReq)
           .obj(),
       {MakePod()
            .ns(kDefaultNamespace)
            .node("node1")
            .labels({{"def", ""}, {"xyz", ""}})
            .podAntiAffinityExists("abc", "zone", kRequiredReq)
            .podAntiAffinityExists("def", "zone", kRequiredReq)
            .obj()},
       kSuccess,
       kAntiAffinityRulesNotMatch},
      {"PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each "
       "other on AffinityTerms",
       MakePod()
           .ns(kDefaultNamespace)
           .labels({{"def", ""}, {"xyz", ""}})
           .podAntiAffinityExists("abc", "zone", kRequiredReq)
           .podAntiAffinityExists("def", "zone", kRequiredReq)
           .obj(),
       {MakePod()
            .ns(kDefaultNamespace)
            .node("node1")
            .labels({{"abc", ""}, {"xyz", ""}})
            .podAntiAffinityExists("abc", "zone", kRequiredReq)
            .podAntiAffinityExists("def", "zone", kRequiredReq)
            .obj()},
       kSuccess,
       kAntiAffinityRulesNotMatch},
      {"PodAffinity fails PreFilter with an invalid affinity label syntax",
       MakePod()
           .ns(kDefaultNamespace)
           .labels(podLabel)
           .podAffinityIn("service", "region", {"{{.bad-value.}}"}, kRequiredReq)
           .podAffinityIn("service", "node", {"antivirusscan", "value2"}, kRequiredReq)
           .obj(),
       {},
       fw::Status(fw::Code::UnschedulableAndUnresolvable, badValueError),
       kSuccess},
      {"PodAntiAffinity fails PreFilter with an invalid antiaffinity label syntax",
       MakePod()
           .ns(kDefaultNamespace)
           .labels(podLabel)
           .podAffinityIn("service", "region", {"foo"}, kRequiredReq)
           .podAffinityIn("service", "node", {"{{.bad-value.}}"}, kRequiredReq)
           .obj(),
       {},
       fw::Status(fw::Code::UnschedulableAndUnresolvable, badValueError),
       kSuccess},
      {"affinity with NamespaceSelector",
       createPodWithAffinityTerms(
           kDefaultNamespace, "", podLabel2,
           {term(MakeLabelSelector().in("service", {"securityscan", "value2"}).obj(), "region", {},
                 team1)},
           {}),
       {MakePod().node("node1").ns("subteam1.team1").labels(podLabel).obj()},
       kSuccess,
       kSuccess},
      {"affinity with non-matching NamespaceSelector",
       createPodWithAffinityTerms(
           kDefaultNamespace, "", podLabel2,
           {term(MakeLabelSelector().in("service", {"securityscan", "value2"}).obj(), "region", {},
                 team1)},
           {}),
       {MakePod().node("node1").ns("subteam1.team2").labels(podLabel).obj()},
       kSuccess,
       kAffinityRulesNotMatch},
      {"anti-affinity with matching NamespaceSelector",
       createPodWithAffinityTerms(
           "subteam1.team1", "", podLabel2, {},
           {term(MakeLabelSelector().in("service", {"securityscan", "value2"}).obj(), "zone", {},
                 team1)}),
       {MakePod().node("node1").ns("subteam2.team1").labels(podLabel).obj()},
       kSuccess,
       kAntiAffinityRulesNotMatch},
      {"anti-affinity with matching all NamespaceSelector",
       createPodWithAffinityTerms(
           "subteam1.team1", "", podLabel2, {},
           {term(MakeLabelSelector().in("service", {"securityscan", "value2"}).obj(), "zone", {},
                 api::LabelSelector{})}),
       {MakePod().node("node1").ns("subteam2.team1").labels(podLabel).obj()},
       kSuccess,
       kAntiAffinityRulesNotMatch},
      {"anti-affinity with non-matching NamespaceSelector",
       createPodWithAffinityTerms(
           "subteam1.team1", "", podLabel2, {},
           {term(MakeLabelSelector().in("service", {"securityscan", "value2"}).obj(), "zone", {},
                 team1)}),
       {MakePod().node("node1").ns("subteam1.team2").labels(podLabel).obj()},
       kSuccess,
       kSuccess},
  };

  const ipa::InterPodAffinity plugin;
  for (const auto& test : tests) {
    BOOST_TEST_CONTEXT(test.name) {
      auto run = runPreFilter(plugin, test.pod, test.pods, {node1}, teamNamespaces());
      BOOST_TEST(testing::describe(run.preFilter) == testing::describe(test.wantPreFilterStatus));
      if (!run.preFilter.isSuccess()) continue;
      const fw::NodeInfo* nodeInfo = run.lister->getNodeInfo("node1");
      BOOST_REQUIRE(nodeInfo != nullptr);
      const fw::Status got = plugin.filter(run.state, run.pod, *nodeInfo);
      BOOST_TEST(testing::describe(got) == testing::describe(test.wantFilterStatus));
    }
  }
}

BOOST_AUTO_TEST_CASE(TestRequiredAffinityMultipleNodes) {
  const api::Labels podLabelA{{"foo", "bar"}};
  const api::Labels labelRgChina{{"region", "China"}};
  const api::Labels labelRgChinaAzAz1{{"region", "China"}, {"az", "az1"}};
  const api::Labels labelRgIndia{{"region", "India"}};
  const auto node = [](const std::string& name, const api::Labels& labels) {
    return MakeNode().name(name).labels(labels).obj();
  };
  const auto rzh = [](const std::string& name, const std::string& zone) {
    return MakeNode()
        .name(name)
        .labels({{"region", "r1"}, {"zone", zone}, {"hostname", name}})
        .obj();
  };

  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::Pod> pods;
    std::vector<api::Node> nodes;
    std::vector<fw::Status> wantFilterStatuses;
    fw::Status wantPreFilterStatus;
  };
  const std::vector<Case> tests = {
      {"A pod can be scheduled onto all the nodes that have the same topology key & label value "
       "with one of them has an existing pod that matches the affinity rules",
       MakePod().ns(kDefaultNamespace).podAffinityIn("foo", "region", {"bar"}, kRequiredReq).obj(),
       {MakePod().name("p1").node("node1").labels(podLabelA).obj()},
       {node("node1", labelRgChina), node("node2", labelRgChinaAzAz1), node("node3", labelRgIndia)},
       {kSuccess, kSuccess, kAffinityRulesNotMatch},
       kSuccess},
      {"The affinity rule is to schedule all of the pods of this collection to the same zone. "
       "The first pod of the collection should not be blocked from being scheduled onto any "
       "node, even there's no existing pod that matches the rule anywhere.",
       MakePod()
           .ns(kDefaultNamespace)
           .labels({{"foo", "bar"}, {"service", "securityscan"}})
           .podAffinityIn("foo", "zone", {"bar"}, kRequiredReq)
           .podAffinityIn("service", "zone", {"securityscan"}, kRequiredReq)
           .obj(),
       {MakePod().name("p1").node("nodeA").labels({{"foo", "bar"}}).obj()},
       {node("nodeA", {{"zone", "az1"}, {"hostname", "h1"}}),
        node("nodeB", {{"zone", "az2"}, {"hostname", "h2"}})},
       {kSuccess, kSuccess},
       kSuccess},
      {"The first pod of the collection can only be scheduled on nodes labelled with the "
       "requested topology keys",
       MakePod()
           .ns(kDefaultNamespace)
           .labels({{"foo", "bar"}, {"service", "securityscan"}})
           .podAffinityIn("foo", "zone", {"bar"}, kRequiredReq)
           .podAffinityIn("service", "zone", {"securityscan"}, kRequiredReq)
           .obj(),
       {MakePod().name("p1").node("nodeA").labels({{"foo", "bar"}}).obj()},
       {node("nodeA", {{"zoneLabel", "az1"}, {"hostname", "h1"}}),
        node("nodeB", {{"zoneLabel", "az2"}, {"hostname", "h2"}})},
       {kAffinityRulesNotMatch, kAffinityRulesNotMatch},
       kSuccess},
      {"NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
       "matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
       MakePod()
           .ns(kDefaultNamespace)
           .podAntiAffinityIn("foo", "region", {"abc"}, kRequiredReq)
           .obj(),
       {MakePod().node("nodeA").labels({{"foo", "abc"}}).obj()},
       {node("nodeA", {{"region", "r1"}, {"hostname", "nodeA"}}),
        node("nodeB", {{"region", "r1"}, {"hostname", "nodeB"}})},
       {kAntiAffinityRulesNotMatch, kAntiAffinityRulesNotMatch},
       kSuccess},
      {"This test ensures that anti-affinity matches a pod when any term of the anti-affinity "
       "rule matches a pod.",
       MakePod()
           .ns(kDefaultNamespace)
           .podAntiAffinityIn("foo", "region", {"abc"}, kRequiredReq)
           .podAntiAffinityIn("service", "zone", {"securityscan"}, kRequiredReq)
           .obj(),
       {MakePod().node("nodeA").labels({{"foo", "abc"}, {"service", "securityscan"}}).obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z2")},
       {kAntiAffinityRulesNotMatch, kAntiAffinityRulesNotMatch},
       kSuccess},
      {"NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
       "matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB "
       "but can be scheduled onto nodeC",
       MakePod()
           .ns(kDefaultNamespace)
           .podAntiAffinityIn("foo", "region", {"abc"}, kRequiredReq)
           .obj(),
       {MakePod().node("nodeA").labels({{"foo", "abc"}}).obj()},
       {node("nodeA", labelRgChina), node("nodeB", labelRgChinaAzAz1), node("nodeC", labelRgIndia)},
       {kAntiAffinityRulesNotMatch, kAntiAffinityRulesNotMatch, kSuccess},
       kSuccess},
      {"NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
       "matches the inter pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, "
       "but can be scheduled onto nodeC (NodeC has an existing pod that match the inter pod "
       "affinity rule but in different namespace)",
       MakePod()
           .ns("NS1")
           .labels({{"foo", "123"}})
           .podAntiAffinityIn("foo", "region", {"bar"}, kRequiredReq)
           .obj(),
       {MakePod().node("nodeA").ns("NS1").labels({{"foo", "bar"}}).obj(),
        MakePod()
            .node("nodeC")
            .ns("NS2")
            .podAntiAffinityIn("foo", "region", {"123"}, kRequiredReq)
            .obj()},
       {node("nodeA", labelRgChina), node("nodeB", labelRgChinaAzAz1), node("nodeC", labelRgIndia)},
       {kAntiAffinityRulesNotMatch, kAntiAffinityRulesNotMatch, kSuccess},
       kSuccess},
      {"Test existing pod's anti-affinity: if an existing pod has a term with invalid "
       "topologyKey, labelSelector of the term is firstly checked, and then topologyKey of the "
       "term is also checked",
       MakePod().label("foo", "").obj(),
       {MakePod()
            .node("nodeA")
            .ns(kDefaultNamespace)
            .podAntiAffinityExists("foo", "invalid-node-label", kRequiredReq)
            .obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z1")},
       {kSuccess, kSuccess},
       kSkip},
      {"Test incoming pod's anti-affinity: even if labelSelector matches, we still check if "
       "topologyKey matches",
       MakePod()
           .node("nodeA")
           .ns(kDefaultNamespace)
           .podAntiAffinityExists("foo", "invalid-node-label", kRequiredReq)
           .obj(),
       {MakePod().node("nodeA").labels({{"foo", ""}}).obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z1")},
       {kSuccess, kSuccess},
       kSuccess},
      {"Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it "
       "violates each existingPod's terms on all nodes",
       MakePod().label("foo", "").label("bar", "").obj(),
       {MakePod()
            .node("nodeA")
            .ns(kDefaultNamespace)
            .podAntiAffinityExists("foo", "zone", kRequiredReq)
            .obj(),
        MakePod()
            .node("nodeA")
            .ns(kDefaultNamespace)
            .podAntiAffinityExists("bar", "region", kRequiredReq)
            .obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z2")},
       {kExistingAntiAffinityRulesNotMatch, kExistingAntiAffinityRulesNotMatch},
       kSuccess},
      {"Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at "
       "least violates one anti-affinity rule of existingPod",
       MakePod()
           .ns(kDefaultNamespace)
           .podAntiAffinityExists("foo", "zone", kRequiredReq)
           .podAntiAffinityExists("bar", "region", kRequiredReq)
           .obj(),
       {MakePod().node("nodeA").labels({{"foo", ""}}).obj(),
        MakePod().node("nodeB").labels({{"bar", ""}}).obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z2")},
       {kAntiAffinityRulesNotMatch, kAntiAffinityRulesNotMatch},
       kSuccess},
      {"Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, "
       "it's counted as a single term match - case when one term has invalid topologyKey",
       MakePod().label("foo", "").label("bar", "").obj(),
       {MakePod()
            .node("nodeA")
            .ns(kDefaultNamespace)
            .podAntiAffinityExists("foo", "invalid-node-label", kRequiredReq)
            .podAntiAffinityExists("bar", "zone", kRequiredReq)
            .obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z2")},
       {kExistingAntiAffinityRulesNotMatch, kSuccess},
       kSuccess},
      {"Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, "
       "it's counted as a single term match - case when one term has invalid topologyKey",
       MakePod()
           .ns(kDefaultNamespace)
           .podAntiAffinityExists("foo", "invalid-node-label", kRequiredReq)
           .podAntiAffinityExists("bar", "zone", kRequiredReq)
           .obj(),
       {MakePod().name("podA").node("nodeA").labels({{"foo", ""}, {"bar", ""}}).obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z2")},
       {kAntiAffinityRulesNotMatch, kSuccess},
       kSuccess},
      {"Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, "
       "it's counted as a single term match - case when all terms have valid topologyKey",
       MakePod().label("foo", "").label("bar", "").obj(),
       {MakePod()
            .ns(kDefaultNamespace)
            .node("nodeA")
            .podAntiAffinityExists("foo", "region", kRequiredReq)
            .podAntiAffinityExists("bar", "zone", kRequiredReq)
            .obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z2")},
       {kExistingAntiAffinityRulesNotMatch, kExistingAntiAffinityRulesNotMatch},
       kSuccess},
      {"Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, "
       "it's counted as a single term match - case when all terms have valid topologyKey",
       MakePod()
           .ns(kDefaultNamespace)
           .podAntiAffinityExists("foo", "region", kRequiredReq)
           .podAntiAffinityExists("bar", "zone", kRequiredReq)
           .obj(),
       {MakePod().node("nodeA").labels({{"foo", ""}, {"bar", ""}}).obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z2")},
       {kAntiAffinityRulesNotMatch, kAntiAffinityRulesNotMatch},
       kSuccess},
      {"Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one "
       "anti-affinity term matches incoming pod, so incoming pod can only be scheduled to nodeC",
       MakePod().label("foo", "").label("bar", "").obj(),
       {MakePod()
            .node("nodeA")
            .ns(kDefaultNamespace)
            .podAntiAffinityExists("foo", "zone", kRequiredReq)
            .podAntiAffinityExists("labelA", "zone", kRequiredReq)
            .obj(),
        MakePod()
            .node("nodeB")
            .ns(kDefaultNamespace)
            .podAntiAffinityExists("bar", "zone", kRequiredReq)
            .podAntiAffinityExists("labelB", "zone", kRequiredReq)
            .obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z2"), rzh("nodeC", "z3")},
       {kExistingAntiAffinityRulesNotMatch, kExistingAntiAffinityRulesNotMatch, kSuccess},
       kSuccess},
      {"Test incoming pod's affinity: firstly check if all affinityTerms match, and then check "
       "if all topologyKeys match",
       MakePod()
           .ns(kDefaultNamespace)
           .podAffinityExists("foo", "region", kRequiredReq)
           .podAffinityExists("bar", "zone", kRequiredReq)
           .obj(),
       {MakePod().name("pod1").labels({{"foo", ""}, {"bar", ""}}).node("nodeA").obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z1")},
       {kSuccess, kSuccess},
       kSuccess},
      {"Test incoming pod's affinity: firstly check if all affinityTerms match, and then check "
       "if all topologyKeys match, and the match logic should be satisfied on the same pod",
       MakePod()
           .ns(kDefaultNamespace)
           .podAffinityExists("foo", "region", kRequiredReq)
           .podAffinityExists("bar", "zone", kRequiredReq)
           .obj(),
       {MakePod().node("nodeA").name("pod1").ns(kDefaultNamespace).labels({{"foo", ""}}).obj(),
        MakePod().node("nodeB").name("pod2").ns(kDefaultNamespace).labels({{"bar", ""}}).obj()},
       {rzh("nodeA", "z1"), rzh("nodeB", "z2")},
       {kAffinityRulesNotMatch, kAffinityRulesNotMatch},
       kSuccess},
  };

  const ipa::InterPodAffinity plugin;
  for (const auto& test : tests) {
    BOOST_TEST_CONTEXT(test.name) {
      auto run =
          runPreFilter(plugin, test.pod, test.pods, test.nodes, {testing::makeNamespace("NS1")});
      BOOST_TEST(testing::describe(run.preFilter) == testing::describe(test.wantPreFilterStatus));
      if (run.preFilter.isSkip()) continue;
      BOOST_REQUIRE_EQUAL(test.nodes.size(), test.wantFilterStatuses.size());
      for (std::size_t i = 0; i < test.nodes.size(); ++i) {
        BOOST_TEST_CONTEXT("node " << test.nodes[i].name) {
          const fw::NodeInfo* nodeInfo = run.lister->getNodeInfo(test.nodes[i].name);
          BOOST_REQUIRE(nodeInfo != nullptr);
          const fw::Status got = plugin.filter(run.state, run.pod, *nodeInfo);
          BOOST_TEST(testing::describe(got) == testing::describe(test.wantFilterStatuses[i]));
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(TestPreFilterDisabled) {
  const ipa::InterPodAffinity plugin;
  auto lister = testing::FakeLister::make({}, {});
  fw::CycleState state(lister);
  const fw::PodInfo pod = testing::podInfo(api::Pod{});
  const fw::NodeInfo nodeInfo(std::make_shared<const api::Node>());
  const fw::Status got = plugin.filter(state, pod, nodeInfo);
  const fw::Status want =
      fw::Status::error("error reading \"PreFilterInterPodAffinity\" from cycleState: not found");
  BOOST_TEST(testing::describe(got) == testing::describe(want));
  // The extensions need the state too.
  BOOST_TEST(fw::codeName(plugin.addPod(state, pod, pod, nodeInfo).code()) == "Error");
  BOOST_TEST(fw::codeName(plugin.removePod(state, pod, pod, nodeInfo).code()) == "Error");
}

BOOST_AUTO_TEST_CASE(TestPreFilterStateAddRemovePod) {
  const api::Labels label1{{"region", "r1"}, {"zone", "z11"}};
  const api::Labels label2{{"region", "r1"}, {"zone", "z12"}};
  const api::Labels label3{{"region", "r2"}, {"zone", "z21"}};
  const api::Labels selector1{{"foo", "bar"}};
  const auto fooInBarBuzz = term(MakeLabelSelector().in("foo", {"bar", "buzz"}).obj(), "region");
  const auto serviceNotIn =
      term(MakeLabelSelector().notIn("service", {"bar", "security", "test"}).obj(), "zone");
  api::PodAffinity antiAffinityFooBar;
  antiAffinityFooBar.requiredDuringSchedulingIgnoredDuringExecution = {
      term(MakeLabelSelector().in("foo", {"bar"}).obj(), "region")};
  api::PodAffinity antiAffinityComplex;
  antiAffinityComplex.requiredDuringSchedulingIgnoredDuringExecution = {fooInBarBuzz, serviceNotIn};
  const api::PodAffinity affinityComplex = antiAffinityComplex;
  const auto withAffinity = [](std::optional<api::PodAffinity> affinity,
                               std::optional<api::PodAffinity> anti) {
    return api::Affinity{std::move(affinity), std::move(anti)};
  };
  const std::vector<api::Node> nodes = {MakeNode().name("nodeA").labels(label1).obj(),
                                        MakeNode().name("nodeB").labels(label2).obj(),
                                        MakeNode().name("nodeC").labels(label3).obj()};

  struct Case {
    std::string name;
    api::Pod pendingPod;
    api::Pod addedPod;
    std::vector<api::Pod> existingPods;
    CountMap expectedAntiAffinity;
    CountMap expectedAffinity;
  };
  const std::vector<Case> tests = {
      {"preFilterState anti-affinity terms are updated correctly after adding and removing a pod",
       MakePod()
           .name("pending")
           .labels(selector1)
           .affinity(withAffinity(std::nullopt, antiAffinityFooBar))
           .obj(),
       MakePod()
           .name("addedPod")
           .labels(selector1)
           .node("nodeB")
           .affinity(withAffinity(std::nullopt, antiAffinityFooBar))
           .obj(),
       {MakePod().name("p1").labels(selector1).node("nodeA").obj(),
        MakePod()
            .name("p2")
            .node("nodeC")
            .affinity(withAffinity(std::nullopt, antiAffinityFooBar))
            .obj()},
       {{{"region", "r1"}, 2}},
       {}},
      {"preFilterState anti-affinity terms are updated correctly after adding and removing a pod",
       MakePod()
           .name("pending")
           .labels(selector1)
           .affinity(withAffinity(std::nullopt, antiAffinityComplex))
           .obj(),
       MakePod()
           .name("addedPod")
           .labels(selector1)
           .node("nodeA")
           .affinity(withAffinity(std::nullopt, antiAffinityComplex))
           .obj(),
       {MakePod().name("p1").labels(selector1).node("nodeA").obj(),
        MakePod()
            .name("p2")
            .node("nodeC")
            .affinity(withAffinity(std::nullopt, antiAffinityFooBar))
            .obj()},
       {{{"region", "r1"}, 2}, {{"zone", "z11"}, 2}, {{"zone", "z21"}, 1}},
       {}},
      {"preFilterState matching pod affinity and anti-affinity are updated correctly after "
       "adding and removing a pod",
       MakePod()
           .name("pending")
           .labels(selector1)
           .affinity(withAffinity(affinityComplex, std::nullopt))
           .obj(),
       MakePod()
           .name("addedPod")
           .labels(selector1)
           .node("nodeA")
           .affinity(withAffinity(std::nullopt, antiAffinityComplex))
           .obj(),
       {MakePod().name("p1").labels(selector1).node("nodeA").obj(),
        MakePod()
            .name("p2")
            .node("nodeC")
            .affinity(withAffinity(affinityComplex, antiAffinityFooBar))
            .obj()},
       {},
       {{{"region", "r1"}, 2}, {{"zone", "z11"}, 2}}},
  };

  const ipa::InterPodAffinity plugin;
  for (const auto& test : tests) {
    BOOST_TEST_CONTEXT(test.name) {
      // allPodsState: PreFilter with the added pod among the existing ones.
      std::vector<api::Pod> allPods = test.existingPods;
      allPods.push_back(test.addedPod);
      auto all = runPreFilter(plugin, test.pendingPod, allPods, nodes, {});
      BOOST_REQUIRE(all.preFilter.isSuccess());
      const auto& allPodsState = preFilterState(all.state);

      auto run = runPreFilter(plugin, test.pendingPod, test.existingPods, nodes, {});
      BOOST_REQUIRE(run.preFilter.isSuccess());
      const fw::CycleState originalCycle = run.state.clone();
      const auto& originalState = preFilterState(originalCycle);

      const fw::NodeInfo* nodeInfo = run.lister->getNodeInfo(test.addedPod.spec.nodeName);
      BOOST_REQUIRE(nodeInfo != nullptr);
      const fw::PodInfo added = testing::podInfo(test.addedPod);
      BOOST_TEST(plugin.addPod(run.state, run.pod, added, *nodeInfo).isSuccess());
      const auto& state = preFilterState(run.state);
      BOOST_TEST(show(state.antiAffinityCounts.toMap()) == show(test.expectedAntiAffinity));
      BOOST_TEST(show(state.affinityCounts.toMap()) == show(test.expectedAffinity));
      BOOST_TEST(show(state.existingAntiAffinityCounts.toMap()) ==
                 show(allPodsState.existingAntiAffinityCounts.toMap()));
      BOOST_TEST(show(state.affinityCounts.toMap()) == show(allPodsState.affinityCounts.toMap()));
      BOOST_TEST(show(state.antiAffinityCounts.toMap()) ==
                 show(allPodsState.antiAffinityCounts.toMap()));

      BOOST_TEST(plugin.removePod(run.state, run.pod, added, *nodeInfo).isSuccess());
      BOOST_TEST(show(state.existingAntiAffinityCounts.toMap()) ==
                 show(originalState.existingAntiAffinityCounts.toMap()));
      BOOST_TEST(show(state.affinityCounts.toMap()) == show(originalState.affinityCounts.toMap()));
      BOOST_TEST(show(state.antiAffinityCounts.toMap()) ==
                 show(originalState.antiAffinityCounts.toMap()));
      BOOST_TEST(state.existingAntiAffinityCounts.size() ==
                 originalState.existingAntiAffinityCounts.size());
      BOOST_TEST(state.affinityCounts.size() == originalState.affinityCounts.size());
      BOOST_TEST(state.antiAffinityCounts.size() == originalState.antiAffinityCounts.size());
    }
  }
}

// nominatedPodLeavesStateUnchanged lets the runtime filter a node once despite its nominated
// pods: it must say "unchanged" exactly when AddPod leaves every count as it was. The pod is
// nominated to the node, as the runtime asks only about those, and PreFilter finds the ones
// that matter through the lister.
BOOST_AUTO_TEST_CASE(NominatedPodLeavesStateUnchangedExactlyWhenCountsStay) {
  const api::Labels app{{"app", "web"}};
  api::PodAffinity affinity;  // towards app=cache in the zone
  affinity.requiredDuringSchedulingIgnoredDuringExecution = {
      term(MakeLabelSelector().in("app", {"cache"}).obj(), "zone")};
  api::PodAffinity antiAffinity;  // away from other app=web pods on the host
  antiAffinity.requiredDuringSchedulingIgnoredDuringExecution = {
      term(MakeLabelSelector().in("app", {"web"}).obj(), "hostname")};
  const api::Pod pending =
      MakePod().name("pending").labels(app).affinity(api::Affinity{affinity, antiAffinity}).obj();
  const std::vector<api::Node> nodes = {
      MakeNode().name("full").labels({{"zone", "z1"}, {"hostname", "full"}}).obj(),
      MakeNode().name("no-zone").labels({{"hostname", "no-zone"}}).obj(),
      MakeNode().name("bare").obj()};
  // A cache pod exists, so the affinity counts have a base to add to.
  const std::vector<api::Pod> existing = {
      MakePod().name("cache").labels({{"app", "cache"}}).node("full").obj()};

  struct Case {
    std::string name;
    api::Pod added;
    std::string node;
    bool wantUnchanged;
  };
  const auto pod = [](const std::string& name, const api::Labels& labels) {
    return MakePod().name(name).uid(name).labels(labels);
  };
  const std::vector<Case> cases = {
      {"a pod no term selects", pod("other", {{"app", "batch"}}).obj(), "full", true},
      {"a cache pod, on a node in a zone", pod("cache2", {{"app", "cache"}}).obj(), "full", false},
      {"a cache pod, on a node without a zone", pod("cache3", {{"app", "cache"}}).obj(), "no-zone",
       true},
      {"a web pod, on a node with a hostname", pod("web2", app).obj(), "no-zone", false},
      {"a web pod, on a node without labels", pod("web3", app).obj(), "bare", true},
      {"a pod whose anti-affinity selects the pending pod",
       pod("guard", {{"app", "guard"}}).affinity(api::Affinity{std::nullopt, antiAffinity}).obj(),
       "full", false},
      {"a pod whose anti-affinity selects the pending pod, on a node without labels",
       pod("guard2", {{"app", "guard"}}).affinity(api::Affinity{std::nullopt, antiAffinity}).obj(),
       "bare", true},
  };

  const ipa::InterPodAffinity plugin;
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      api::Pod nominated = c.added;
      nominated.status.nominatedNodeName = c.node;
      std::vector<api::Pod> pods = existing;
      pods.push_back(nominated);
      auto run = runPreFilter(plugin, pending, pods, nodes, {});
      BOOST_REQUIRE(run.preFilter.isSuccess());
      const fw::NodeInfo* node = run.lister->getNodeInfo(c.node);
      BOOST_REQUIRE(node != nullptr);
      const auto nominatedPods = run.lister->nominatedPodsFor(*node);
      BOOST_REQUIRE(nominatedPods.size() == 1u);
      const fw::PodInfo& added = *nominatedPods.front().info;
      const bool unchanged =
          plugin.nominatedPodLeavesStateUnchanged(run.state, run.pod, added, *node);
      BOOST_TEST(unchanged == c.wantUnchanged);

      const auto& before = preFilterState(run.state);
      fw::CycleState copy = run.state.clone();
      BOOST_TEST(plugin.addPod(copy, run.pod, added, *node).isSuccess());
      const auto& after = preFilterState(copy);
      const bool countsStayed =
          after.existingAntiAffinityCounts.toMap() == before.existingAntiAffinityCounts.toMap() &&
          after.affinityCounts.toMap() == before.affinityCounts.toMap() &&
          after.antiAffinityCounts.toMap() == before.antiAffinityCounts.toMap();
      BOOST_TEST(unchanged == countsStayed);
    }
  }
}

BOOST_AUTO_TEST_CASE(TestPreFilterStateClone) {
  // The counts name their domains by the snapshot's topology values: one node per value of
  // the "name" key here.
  const Topology topology({"node1", "node2", "nodeA", "nodeC", "nodeN", "nodeM", "nodeZ"});
  const fw::TopologyKey name = topology.key("name");
  ipa::PreFilterState source;
  source.existingAntiAffinityCounts = topology.counts({{"node1", 1}, {"node2", 1}});
  source.affinityCounts = topology.counts({{"nodeA", 1}, {"nodeC", 2}});
  source.antiAffinityCounts = topology.counts({{"nodeN", 3}, {"nodeM", 1}});

  auto cloned = source.clone();
  BOOST_TEST(cloned.get() != static_cast<const fw::StateData*>(&source));
  auto* clone = dynamic_cast<ipa::PreFilterState*>(cloned.get());
  BOOST_REQUIRE(clone != nullptr);
  BOOST_TEST(show(clone->existingAntiAffinityCounts.toMap()) ==
             show(source.existingAntiAffinityCounts.toMap()));
  BOOST_TEST(show(clone->affinityCounts.toMap()) == show(source.affinityCounts.toMap()));
  BOOST_TEST(show(clone->antiAffinityCounts.toMap()) == show(source.antiAffinityCounts.toMap()));

  // Not upstream: the clone shares its base with the source, so check that writes to one
  // never show through the other.
  clone->affinityCounts.add(name, topology.value("nodeA"), -1);
  clone->affinityCounts.add(name, topology.value("nodeZ"), 5);
  BOOST_TEST(show(clone->affinityCounts.toMap()) ==
             show((CountMap{{{"name", "nodeC"}, 2}, {{"name", "nodeZ"}, 5}})));
  BOOST_TEST(show(source.affinityCounts.toMap()) ==
             show((CountMap{{{"name", "nodeA"}, 1}, {{"name", "nodeC"}, 2}})));
  source.antiAffinityCounts.add(name, topology.value("nodeN"), -3);
  BOOST_TEST(source.antiAffinityCounts.size() == 1U);
  BOOST_TEST(clone->antiAffinityCounts.size() == 2U);
  BOOST_TEST(clone->antiAffinityCounts.count(name, topology.value("nodeN")) == 3);
}

// Not upstream: "map is empty" follows upstream's delete-at-zero rule exactly, also for
// counts that go negative (RemovePod of a pod PreFilter never counted) and come back.
BOOST_AUTO_TEST_CASE(TopologyToMatchedTermCountEmptiness) {
  const Topology topology({"z1", "z2"}, "zone");
  const fw::TopologyKey zone = topology.key("zone");
  const auto z1 = topology.value("z1", "zone");
  const auto z2 = topology.value("z2", "zone");
  // Nodes without a slot: their zone is read from their labels (a request's own labels).
  const fw::NodeInfo inZ1(std::make_shared<const api::Node>(MakeNode().label("zone", "z1").obj()));
  const fw::NodeInfo inZ2(std::make_shared<const api::Node>(MakeNode().label("zone", "z2").obj()));
  ipa::TopologyToMatchedTermCount counts = topology.counts({{"z1", 1}}, "zone");
  BOOST_TEST(!counts.empty());
  counts.add(zone, z1, -1);
  BOOST_TEST(counts.empty());
  BOOST_TEST(counts.count(zone, z1) == 0);
  counts.add(zone, z2, -1);  // an entry of -1 is an entry
  BOOST_TEST(counts.size() == 1U);
  BOOST_TEST(!counts.anyPositiveOn(inZ2));
  counts.add(zone, z2, 2);
  BOOST_TEST(counts.anyPositiveOn(inZ2));
  BOOST_TEST(!counts.anyPositiveOn(inZ1));
  counts.add(zone, z1, 1);
  BOOST_TEST(counts.size() == 2U);
  BOOST_TEST(show(counts.toMap()) == show((CountMap{{{"zone", "z1"}, 1}, {{"zone", "z2"}, 1}})));
  counts.add(zone, z2, -1);
  counts.add(zone, z1, -1);
  BOOST_TEST(counts.empty());
  BOOST_TEST(counts.toMap().empty());
}

// Not upstream: a domain no node of the snapshot has (a node whose labels the request
// overrides) is counted by its text, apart from the known domains, and under a key no node
// of the snapshot has at all.
BOOST_AUTO_TEST_CASE(TopologyToMatchedTermCountUnknownDomains) {
  const Topology topology({"z1"}, "zone");
  const fw::NodeInfo inZ9(
      std::make_shared<const api::Node>(MakeNode().labels({{"zone", "z9"}, {"rack", "r1"}}).obj()));
  const fw::NodeInfo inZ1(std::make_shared<const api::Node>(MakeNode().label("zone", "z1").obj()));
  const fw::TopologyKey zone = topology.key("zone");
  const fw::TopologyKey rack = topology.key("rack");
  BOOST_TEST(rack.column() == nullptr);
  const fw::TopologyValue z9 = zone.valueOf(inZ9);
  BOOST_TEST(!z9.known());
  BOOST_TEST(z9.present());
  ipa::TopologyToMatchedTermCount counts = topology.counts({{"z1", 2}}, "zone");
  counts.add(zone, z9, 1);
  counts.add(rack, rack.valueOf(inZ9), 4);
  BOOST_TEST(counts.count(zone, z9) == 1);
  BOOST_TEST(counts.count(zone, zone.valueOf(inZ1)) == 2);
  BOOST_TEST(counts.count(rack, rack.valueOf(inZ9)) == 4);
  BOOST_TEST(counts.size() == 3U);
  BOOST_TEST(show(counts.toMap()) ==
             show((CountMap{{{"rack", "r1"}, 4}, {{"zone", "z1"}, 2}, {{"zone", "z9"}, 1}})));
  counts.add(zone, zone.valueOf(inZ1), -2);
  counts.add(zone, z9, -1);
  BOOST_TEST(counts.anyPositiveOn(inZ9));  // through rack
  counts.add(rack, rack.valueOf(inZ9), -4);
  BOOST_TEST(!counts.anyPositiveOn(inZ9));
  BOOST_TEST(counts.empty());
}

BOOST_AUTO_TEST_CASE(TestGetTPMapMatchingIncomingAffinityAntiAffinity) {
  const auto newPod = [](std::initializer_list<std::string> labels) {
    MakePod pod;
    pod.name("normal").node("nodeA");
    for (const auto& l : labels) pod.label(l, "");
    return pod.obj();
  };
  const api::Pod normalPodA = newPod({"aaa"});
  const api::Pod normalPodB = newPod({"bbb"});
  const api::Pod normalPodAB = newPod({"aaa", "bbb"});
  const api::Node nodeA = MakeNode().name("nodeA").label("hostname", "nodeA").obj();
  using testing::kRequiredReq;

  struct Case {
    std::string name;
    std::vector<api::Pod> existingPods;
    api::Pod pod;
    CountMap wantAffinityPodsMap;
    CountMap wantAntiAffinityPodsMap;
  };
  const std::vector<Case> tests = {
      {"nil test", {}, MakePod().name("aaa-normal").obj(), {}, {}},
      {"incoming pod without affinity/anti-affinity causes a no-op",
       {normalPodA},
       MakePod().name("aaa-normal").obj(),
       {},
       {}},
      {"no pod has label that violates incoming pod's affinity and anti-affinity",
       {normalPodB},
       MakePod()
           .name("aaa-anti")
           .podAffinityExists("aaa", "hostname", kRequiredReq)
           .podAntiAffinityExists("aaa", "hostname", kRequiredReq)
           .obj(),
       {},
       {}},
      {"existing pod matches incoming pod's affinity and anti-affinity - single term case",
       {normalPodA},
       MakePod()
           .name("affi-antiaffi")
           .podAffinityExists("aaa", "hostname", kRequiredReq)
           .podAntiAffinityExists("aaa", "hostname", kRequiredReq)
           .obj(),
       {{{"hostname", "nodeA"}, 1}},
       {{{"hostname", "nodeA"}, 1}}},
      {"existing pod matches incoming pod's affinity and anti-affinity - multiple terms case",
       {normalPodAB},
       MakePod()
           .name("affi-antiaffi")
           .podAffinityExists("aaa", "hostname", kRequiredReq)
           .podAffinityExists("bbb", "hostname", kRequiredReq)
           .podAntiAffinityExists("aaa", "hostname", kRequiredReq)
           .obj(),
       {{{"hostname", "nodeA"}, 2}},
       {{{"hostname", "nodeA"}, 1}}},
      {"existing pod not match incoming pod's affinity but matches anti-affinity",
       {normalPodA},
       MakePod()
           .name("affi-antiaffi")
           .podAffinityExists("aaa", "hostname", kRequiredReq)
           .podAffinityExists("bbb", "hostname", kRequiredReq)
           .podAntiAffinityExists("aaa", "hostname", kRequiredReq)
           .podAntiAffinityExists("bbb", "hostname", kRequiredReq)
           .obj(),
       {},
       {{{"hostname", "nodeA"}, 1}}},
      {"incoming pod's anti-affinity has more than one term - existing pod violates partial "
       "term - case 1",
       {normalPodAB},
       MakePod()
           .name("anaffi-antiaffiti")
           .podAffinityExists("aaa", "hostname", kRequiredReq)
           .podAffinityExists("ccc", "hostname", kRequiredReq)
           .podAntiAffinityExists("aaa", "hostname", kRequiredReq)
           .podAntiAffinityExists("ccc", "hostname", kRequiredReq)
           .obj(),
       {},
       {{{"hostname", "nodeA"}, 1}}},
      {"incoming pod's anti-affinity has more than one term - existing pod violates partial "
       "term - case 2",
       {normalPodB},
       MakePod()
           .name("affi-antiaffi")
           .podAffinityExists("aaa", "hostname", kRequiredReq)
           .podAffinityExists("bbb", "hostname", kRequiredReq)
           .podAntiAffinityExists("aaa", "hostname", kRequiredReq)
           .podAntiAffinityExists("bbb", "hostname", kRequiredReq)
           .obj(),
       {},
       {{{"hostname", "nodeA"}, 1}}},
  };

  for (const auto& test : tests) {
    BOOST_TEST_CONTEXT(test.name) {
      const testing::FakeLister lister({nodeA}, test.existingPods);
      auto [affinity, antiAffinity] =
          ipa::incomingAffinityAntiAffinityCounts(testing::podInfo(test.pod), lister);
      BOOST_TEST(show(ipa::TopologyToMatchedTermCount(std::move(affinity)).toMap()) ==
                 show(test.wantAffinityPodsMap));
      BOOST_TEST(show(ipa::TopologyToMatchedTermCount(std::move(antiAffinity)).toMap()) ==
                 show(test.wantAntiAffinityPodsMap));
    }
  }
}

// Not upstream: how the runtime evaluates a node with nominated pods — AddPod on a clone of
// the CycleState — must leave the original state untouched, and a nominated pod carrying a
// matching anti-affinity term must block the node through the clone only.
BOOST_AUTO_TEST_CASE(NominatedPodAddedToClonedState) {
  const ipa::InterPodAffinity plugin;
  const api::Pod incoming = MakePod()
                                .name("incoming")
                                .label("app", "web")
                                .podAffinityIn("app", "zone", {"db"}, kRequiredReq)
                                .obj();
  auto run =
      runPreFilter(plugin, incoming, {MakePod().name("db").label("app", "db").node("n1").obj()},
                   {MakeNode().name("n1").label("zone", "z1").obj(),
                    MakeNode().name("n2").label("zone", "z2").obj()},
                   {});
  BOOST_REQUIRE(run.preFilter.isSuccess());
  const fw::NodeInfo& n1 = *run.lister->getNodeInfo("n1");
  const fw::NodeInfo& n2 = *run.lister->getNodeInfo("n2");
  BOOST_TEST(plugin.filter(run.state, run.pod, n1).isSuccess());

  fw::CycleState clone = run.state.clone();
  const fw::PodInfo nominated =
      testing::podInfo(MakePod()
                           .name("nominated")
                           .label("app", "cache")
                           .podAntiAffinityIn("app", "zone", {"web"}, kRequiredReq)
                           .obj());
  BOOST_TEST(plugin.addPod(clone, run.pod, nominated, n1).isSuccess());
  BOOST_TEST(testing::describe(plugin.filter(clone, run.pod, n1)) ==
             testing::describe(kExistingAntiAffinityRulesNotMatch));
  // The original state never saw the nominated pod.
  BOOST_TEST(plugin.filter(run.state, run.pod, n1).isSuccess());
  BOOST_TEST(preFilterState(run.state).existingAntiAffinityCounts.empty());
  // n2 is in another zone: the nominated pod's term does not reach it.
  BOOST_TEST(testing::describe(plugin.filter(clone, run.pod, n2)) ==
             testing::describe(kAffinityRulesNotMatch));
}

BOOST_AUTO_TEST_SUITE_END()
