// Ported from kubernetes-sigs/scheduler-plugins pkg/podstate/pod_state_test.go, case by case
// with the upstream case names.

#include "plugins/podstate/pod_state.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "plugins/names.hpp"
#include "scheduling/config/configuration.hpp"
#include "test/testing/fake_lister.hpp"
#include "test/testing/wrappers.hpp"

namespace {

namespace api = scheduling::api;
namespace fw = scheduling::framework;
using testing::MakeNode;
using testing::MakePod;

// makeNodeInfo: terminating, nominated and regular pods of one node. Upstream puts the
// nominated pods in NodeInfo.Pods too (unbound, so they only count through the nominator);
// here they are what the cache makes of them: unbound pods nominated to the node.
struct NodeSpec {
  std::string node;
  int terminatingPodNumber;
  int nominatedPodNumber;
  int regularPodNumber;
};

void addPods(const NodeSpec& spec, std::vector<api::Pod>& pods) {
  for (int i = 1; i <= spec.terminatingPodNumber; ++i) {
    pods.push_back(MakePod()
                       .name("tpod_" + spec.node + "_" + std::to_string(i))
                       .node(spec.node)
                       .terminating()
                       .obj());
  }
  for (int i = 1; i <= spec.nominatedPodNumber; ++i) {
    const std::string name = "npod_" + spec.node + "_" + std::to_string(i);
    pods.push_back(MakePod().name(name).uid(name).nominatedNodeName(spec.node).obj());
  }
  for (int i = 1; i <= spec.regularPodNumber; ++i) {
    pods.push_back(
        MakePod().name("rpod_" + spec.node + "_" + std::to_string(i)).node(spec.node).obj());
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(podstate)

BOOST_AUTO_TEST_CASE(TestPodState) {
  constexpr std::int64_t kMax = fw::kMaxNodeScore;
  constexpr std::int64_t kMin = fw::kMinNodeScore;
  struct Case {
    std::string name;
    std::vector<NodeSpec> nodeInfos;
    std::vector<std::int64_t> expectedList;
  };
  const std::vector<Case> tests = {
      {"node has more terminating pods will be scored with higher score, node has regular pods "
       "only will be scored with the lowest score.",
       {{"node1", 6, 0, 10}, {"node2", 3, 0, 10}, {"node3", 0, 0, 10}},
       {kMax, 50, kMin}},
      {"node has more nominated pods will be scored with lower score, node has regular pods "
       "only will be scored with the highest score.",
       {{"node1", 0, 2, 10}, {"node2", 0, 1, 10}, {"node3", 0, 0, 10}},
       {kMin, 50, kMax}},
      {"node has more (terminatingPodNumber - nominatedPodNumber) will be scored with higher "
       "score",
       {{"node1", 5, 2, 10}, {"node2", 3, 1, 10}},
       {kMax, kMin}},
      {"node has less (terminatingPodNumber - nominatedPodNumber) will be scored with lower "
       "score",
       {{"node1", 5, 4, 10}, {"node2", 3, 1, 10}},
       {kMin, kMax}},
      {"node has more (terminatingPodNumber - nominatedPodNumber) will be scored with higher "
       "score",
       {{"node1", 5, 0, 10}, {"node2", 3, 1, 10}, {"node3", 2, 1, 10}, {"node4", 0, 1, 10}},
       {kMax, 50, 33, kMin}},
  };

  const plugins::podstate::PodState plugin;
  for (const auto& test : tests) {
    BOOST_TEST_CONTEXT(test.name) {
      std::vector<api::Node> nodes;
      std::vector<api::Pod> pods;
      for (const auto& spec : test.nodeInfos) {
        nodes.push_back(MakeNode().name(spec.node).obj());
        addPods(spec, pods);
      }
      auto lister = testing::FakeLister::make(std::move(nodes), std::move(pods));
      fw::CycleState state(lister);
      const fw::PodInfo pod = testing::podInfo(api::Pod{});
      std::vector<fw::NodeScore> gotList;
      for (const fw::NodeInfo* n : lister->nodeInfoList()) {
        std::int64_t score = 0;
        BOOST_TEST(plugin.score(state, pod, *n, score).isSuccess());
        gotList.push_back({n, score});
      }
      BOOST_TEST(plugin.scoreExtensions()->normalizeScore(state, pod, gotList).isSuccess());
      BOOST_REQUIRE_EQUAL(gotList.size(), test.expectedList.size());
      for (std::size_t i = 0; i < gotList.size(); ++i) {
        BOOST_TEST(gotList[i].score == test.expectedList[i], "node " << gotList[i].node->name());
      }
    }
  }
}

// Not upstream: raw scores and the rules the sample's README leaves implicit.
BOOST_AUTO_TEST_CASE(RawScore) {
  const plugins::podstate::PodState plugin;
  BOOST_TEST(plugin.name() == plugins::names::kPodState);
  auto lister = testing::FakeLister::make(
      {MakeNode().name("n1").obj(), MakeNode().name("n2").obj()},
      {MakePod().name("t1").node("n1").terminating().obj(),
       MakePod().name("t2").node("n1").terminating().phase("Running").obj(),
       // Terminal pods are not on the node at all.
       MakePod().name("done").node("n1").terminating().phase("Succeeded").obj(),
       // Nominated pods count whatever their priority; so does the incoming pod itself.
       MakePod().name("low").uid("low").priority(-10).nominatedNodeName("n1").obj(),
       MakePod().name("self").uid("self").nominatedNodeName("n2").obj()});
  fw::CycleState state(lister);
  const fw::PodInfo self =
      testing::podInfo(MakePod().name("self").uid("self").nominatedNodeName("n2").obj());
  std::int64_t score = 0;
  BOOST_TEST(plugin.score(state, self, *lister->getNodeInfo("n1"), score).isSuccess());
  BOOST_TEST(score == 1);
  BOOST_TEST(plugin.score(state, self, *lister->getNodeInfo("n2"), score).isSuccess());
  BOOST_TEST(score == -1);

  // Equal raw scores normalise to MinNodeScore.
  std::vector<fw::NodeScore> equal = {{lister->getNodeInfo("n1"), 4},
                                      {lister->getNodeInfo("n2"), 4}};
  BOOST_TEST(plugin.normalizeScore(state, self, equal).isSuccess());
  BOOST_TEST(equal[0].score == 0);
  BOOST_TEST(equal[1].score == 0);
}

BOOST_AUTO_TEST_CASE(RejectsArgs) {
  using plugins::podstate::PodState;
  BOOST_CHECK_NO_THROW(PodState::validateArgs(YAML::Node(), "pluginConfig[1].args"));
  BOOST_CHECK_NO_THROW(PodState::validateArgs(YAML::Load("~"), "pluginConfig[1].args"));
  BOOST_CHECK_NO_THROW(PodState::validateArgs(YAML::Load("{}"), "pluginConfig[1].args"));
  try {
    PodState::validateArgs(YAML::Load("{weight: 3}"), "pluginConfig[1].args");
    BOOST_FAIL("expected a ConfigError");
  } catch (const scheduling::config::ConfigError& e) {
    BOOST_TEST(std::string(e.what()).rfind("pluginConfig[1].args.weight: ", 0) == 0, e.what());
  }
  BOOST_CHECK_THROW(PodState::validateArgs(YAML::Load("[1]"), "a"),
                    scheduling::config::ConfigError);
}

BOOST_AUTO_TEST_SUITE_END()
