#include "scheduling/scheduler/scheduler.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "plugins/registry.hpp"
#include "test/testing/wrappers.hpp"

namespace scheduling {
namespace {

using ::testing::kRequiredReq;
using ::testing::MakeNode;
using ::testing::MakePod;

using ::testing::kHostname;

struct Profile {
  std::int32_t percentageOfNodesToScore = 100;
  std::int32_t parallelism = 16;
  std::vector<config::PluginRef> score = {{"InterPodAffinity", 2}, {"PodState", 1}};
};

// The in-tree plugins over a cache holding `nodes` and `pods`.
struct Fixture {
  std::shared_ptr<cache::Cache> cache = std::make_shared<cache::Cache>();
  std::unique_ptr<Scheduler> scheduler;

  Fixture(const std::vector<api::Node>& nodes, const std::vector<api::Pod>& pods,
          const Profile& profile = {}) {
    for (const auto& node : nodes) cache->upsertNode(node);
    for (const auto& pod : pods) cache->upsertPod(pod);
    cache->publish();
    config::Configuration configuration = config::defaultConfiguration();
    configuration.percentageOfNodesToScore = profile.percentageOfNodesToScore;
    configuration.parallelism = profile.parallelism;
    configuration.score = profile.score;
    scheduler = std::make_unique<Scheduler>(
        std::make_shared<framework::runtime::Framework>(configuration, plugins::inTreeRegistry()),
        cache);
  }
};

std::vector<api::Node> makeNodes(int count) {
  std::vector<api::Node> nodes;
  for (int i = 0; i < count; ++i) {
    const std::string name = "node-" + std::to_string(1000 + i);
    nodes.push_back(MakeNode().name(name).label(kHostname, name).obj());
  }
  return nodes;
}

// The arguments keep their own copies of the names: callers pass temporaries.
api::ExtenderArgs argsFor(const api::Pod& pod, const std::vector<std::string>& nodeNames) {
  api::ExtenderArgs args;
  args.pod = pod;
  args.nodeNames.emplace();
  for (const auto& name : nodeNames) args.copyNodeName(name);
  return args;
}

std::vector<std::string> namesOf(const std::vector<api::Node>& nodes) {
  std::vector<std::string> names;
  for (const auto& node : nodes) names.push_back(node.name);
  return names;
}

// The feasible names of an answer (views of the request's names) as strings.
std::vector<std::string> strings(const std::vector<std::string_view>& views) {
  return {views.begin(), views.end()};
}

std::vector<std::string> slice(const std::vector<std::string>& all, std::size_t from,
                               std::size_t count) {
  return {all.begin() + static_cast<std::ptrdiff_t>(from),
          all.begin() + static_cast<std::ptrdiff_t>(from + count)};
}

const api::Pod kPlainPod = MakePod().name("p").ns("default").uid("p").obj();

std::vector<std::string> outcomeNames(const PreemptionResult& result) {
  std::vector<std::string> names;
  for (const auto outcome : result.outcomes) names.emplace_back(preemption::outcomeName(outcome));
  return names;
}

api::Pod webPod(const std::string& name, const std::string& node, std::int32_t priority) {
  return MakePod()
      .name(name)
      .ns("default")
      .uid(name)
      .label("app", "web")
      .priority(priority)
      .node(node)
      .obj();
}

// web-3 (priority 100) wants no other web pod on its node: node-1000 holds web-1, node-1001
// web-2 (priority 0), node-1002 nothing.
MakePod preemptor() {
  MakePod pod;
  pod.name("web-3")
      .ns("default")
      .uid("web-3")
      .label("app", "web")
      .priority(100)
      .podAntiAffinityIn("app", kHostname, {"web"}, kRequiredReq);
  return pod;
}

// The scheduler with a live cluster's InFlightPods: the cache reports to it, and held
// requests go on on an io_context the test runs by hand.
struct PreemptionFixture {
  boost::asio::io_context io;
  InFlightPods inFlight;
  std::shared_ptr<cache::Cache> cache = std::make_shared<cache::Cache>();
  std::unique_ptr<Scheduler> scheduler;
  std::optional<InFlightWait> result;

  explicit PreemptionFixture(std::chrono::milliseconds maxWait = std::chrono::minutes(1))
      : inFlight(io.get_executor(), maxWait) {
    for (const auto& node : makeNodes(3)) cache->upsertNode(node);
    cache->upsertPod(webPod("web-1", "node-1000", 0));
    cache->upsertPod(webPod("web-2", "node-1001", 0));
    cache->publish();
    cache->setPlacementObserver(&inFlight);
    scheduler =
        std::make_unique<Scheduler>(std::make_shared<framework::runtime::Framework>(
                                        config::defaultConfiguration(), plugins::inTreeRegistry()),
                                    cache, &inFlight);
  }
  ~PreemptionFixture() { cache->setPlacementObserver(nullptr); }

  // /preempt for web-3 on node-1000 and node-1001, each with its web pod as the victim: both
  // kept, and remembered.
  void preempt() {
    api::ExtenderPreemptionArgs args;
    args.pod = preemptor().obj();
    args.nodeNameToMetaVictims = api::WireMap<api::MetaVictims>{{"node-1000", {{"web-1"}, 0}},
                                                                {"node-1001", {{"web-2"}, 0}}};
    const auto answer = scheduler->preempt(args);
    BOOST_TEST(outcomeNames(answer) == (std::vector<std::string>{"kept", "kept"}),
               boost::test_tools::per_element());
  }
  void whenSettled(const api::ExtenderArgs& args) {
    scheduler->whenInFlightSettled(args, [this](InFlightWait wait) { result = wait; });
  }
  void runPosted() {
    io.restart();
    io.poll();
  }
};

// Which candidates a retried preemptor's /filter waits on, given the node it is nominated to
// and the nodes sent, and which deletion lets it go.
struct VictimsCase {
  std::string name;
  std::string nominated;          // status.nominatedNodeName of the /filter's pod
  std::vector<std::string> sent;  // the /filter's NodeNames
  std::string deleted;            // the victim whose deletion is then published; "" for none
  bool heldAtFirst = false;
  bool released = false;              // by that deletion
  std::vector<std::string> feasible;  // the /filter's answer once released
};
std::ostream& operator<<(std::ostream& out, const VictimsCase& c) { return out << c.name; }

const std::vector<VictimsCase> kVictimsCases = {
    {"nominated node's victim leaves",
     "node-1000",
     {"node-1000", "node-1001"},
     "web-1",
     true,
     true,
     {"node-1000"}},
    {"another candidate's victim leaves",
     "node-1000",
     {"node-1000", "node-1001"},
     "web-2",
     true,
     false,
     {}},
    {"not nominated: the first candidate cleared",
     "",
     {"node-1000", "node-1001"},
     "web-2",
     true,
     true,
     {"node-1001"}},
    {"nominated node not sent",
     "node-1000",
     {"node-1001", "node-1002"},
     "",
     false,
     false,
     {"node-1002"}},
    {"no candidate sent", "", {"node-1002"}, "", false, false, {"node-1002"}},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(scheduler)

// 300 nodes at 10%: numFeasibleNodesToFind is 100 (never fewer), so each /filter answers the
// next window of 100 nodes and the start index wraps around (nextStartNodeIndex).
BOOST_AUTO_TEST_CASE(filter_rotates_the_start_index_across_requests) {
  const auto nodes = makeNodes(300);
  Fixture f(nodes, {}, Profile{10, 1});
  const auto names = namesOf(nodes);
  const auto args = argsFor(kPlainPod, names);
  for (std::size_t window : {0u, 100u, 200u, 0u}) {
    const auto result = f.scheduler->filter(args);
    BOOST_TEST(strings(*result.nodeNames) == slice(names, window, 100), "window " << window);
    BOOST_TEST(result.failedNodes.empty());
  }
}

// With parallel workers the feasible set is not a window, but it holds exactly
// numFeasibleNodesToFind nodes: workers stop once enough are found.
BOOST_AUTO_TEST_CASE(parallel_filter_stops_at_num_feasible_nodes_to_find) {
  const auto nodes = makeNodes(1000);
  Fixture f(nodes, {}, Profile{10, 16});
  const auto args = argsFor(kPlainPod, namesOf(nodes));
  for (int round = 0; round < 5; ++round) {
    const auto result = f.scheduler->filter(args);
    BOOST_TEST(result.nodeNames->size() == 100u);
    BOOST_TEST(std::set<std::string>(result.nodeNames->begin(), result.nodeNames->end()).size() ==
               100u);
  }
}

BOOST_AUTO_TEST_CASE(explain_is_a_dry_run_that_shows_the_next_window) {
  const auto nodes = makeNodes(300);
  Fixture f(nodes, {}, Profile{10, 1});
  const auto names = namesOf(nodes);
  const auto args = argsFor(kPlainPod, names);
  f.scheduler->filter(args);  // the next window starts at node 100

  const Explanation explanation = f.scheduler->explain(args);
  BOOST_TEST(explanation.numAllNodes == 300);
  BOOST_TEST(explanation.numFeasibleNodesToFind == 100);
  BOOST_TEST(explanation.pod == "default/p");
  std::vector<std::string> feasible;
  for (const auto& node : explanation.nodes) {
    if (node.feasible) {
      feasible.push_back(node.name);
      BOOST_TEST(node.scores.size() == 2u);
    } else {
      BOOST_TEST(node.filter.empty(), node.name << " was never examined");
    }
  }
  BOOST_TEST(feasible == slice(names, 100, 100));
  BOOST_TEST(strings(*f.scheduler->filter(args).nodeNames) == slice(names, 100, 100));
}

BOOST_AUTO_TEST_CASE(unknown_nodes_fail_by_name_and_score_zero) {
  const auto nodes = makeNodes(2);
  Fixture f(nodes, {});
  const auto args = argsFor(kPlainPod, {"node-1000", "ghost", "node-1001"});

  const auto filtered = f.scheduler->filter(args);
  BOOST_TEST(strings(*filtered.nodeNames) == (std::vector<std::string>{"node-1000", "node-1001"}));
  BOOST_REQUIRE(filtered.failedNodes.size() == 1u);
  BOOST_TEST(filtered.failedNodes[0].first == "ghost");
  BOOST_TEST(filtered.failedNodes[0].second == "node \"ghost\" not found in cluster state");

  api::HostPriorityList priorities;
  BOOST_TEST(f.scheduler->prioritize(args, priorities).isSuccess());
  BOOST_REQUIRE(priorities.size() == 3u);
  BOOST_TEST(priorities[1].host == "ghost");
  BOOST_TEST(priorities[1].score == 0);
}

// A PreFilter rejection is every node's status, in the map of its code.
BOOST_AUTO_TEST_CASE(prefilter_rejection_fails_every_node_as_unresolvable) {
  const auto nodes = makeNodes(3);
  Fixture f(nodes, {});
  const auto pod = MakePod()
                       .name("p")
                       .ns("default")
                       .podAffinityIn("app", kHostname, {"{{bad}}"}, kRequiredReq)
                       .obj();
  // The answer views the request's names: the request must outlive it.
  const auto args = argsFor(pod, namesOf(nodes));
  const auto result = f.scheduler->filter(args);
  BOOST_TEST(result.nodeNames->empty());
  BOOST_TEST(result.failedNodes.empty());
  BOOST_REQUIRE(result.failedAndUnresolvableNodes.size() == 3u);
  for (const auto& [node, reason] : result.failedAndUnresolvableNodes) {
    BOOST_TEST(reason.starts_with("parsing pod: requiredAffinityTerms: "), node << ": " << reason);
  }
  BOOST_TEST(result.error.empty());
}

BOOST_AUTO_TEST_CASE(filter_sorts_rejections_by_code_and_keeps_reasons) {
  const auto nodes = makeNodes(3);
  Fixture f(nodes, {MakePod()
                        .name("web-1")
                        .ns("default")
                        .uid("web-1")
                        .label("app", "web")
                        .node("node-1001")
                        .obj()});
  const auto pod = MakePod()
                       .name("web-2")
                       .ns("default")
                       .label("app", "web")
                       .podAntiAffinityIn("app", kHostname, {"web"}, kRequiredReq)
                       .obj();
  // The answer views the request's names: the request must outlive it.
  const auto args = argsFor(pod, namesOf(nodes));
  const auto result = f.scheduler->filter(args);
  BOOST_TEST(strings(*result.nodeNames) == (std::vector<std::string>{"node-1000", "node-1002"}));
  BOOST_REQUIRE(result.failedNodes.size() == 1u);
  BOOST_TEST(result.failedNodes[0].first == "node-1001");
  BOOST_TEST(result.failedNodes[0].second == "node(s) didn't match pod anti-affinity rules");
  BOOST_TEST(result.failedAndUnresolvableNodes.empty());
}

// /prioritize: round(Σ weight × normalized × 10 / (100 × Σ weight)), half away from zero;
// a plugin whose PreScore skipped the pod still counts in Σ weight.
struct PrioritizeCase {
  std::string name;
  std::vector<config::PluginRef> score;
  std::map<std::string, int> terminatingPods;  // per node
  std::map<std::string, int> nominatedPods;    // per node
  std::map<std::string, std::int64_t> want;
};
std::ostream& operator<<(std::ostream& out, const PrioritizeCase& c) { return out << c.name; }

const std::vector<PrioritizeCase> kPrioritizeCases = {
    {"skipped InterPodAffinity still counts in the weight sum",
     {{"InterPodAffinity", 2}, {"PodState", 1}},
     {{"node-1000", 1}},
     {{"node-1002", 1}},
     // PodState normalizes +1 / 0 / −1 to 100 / 50 / 0; totals 100, 50, 0 of 300.
     {{"node-1000", 3}, {"node-1001", 2}, {"node-1002", 0}}},
    {"half rounds away from zero",
     {{"PodState", 1}},
     {{"node-1000", 20}, {"node-1001", 9}},
     {},
     // 100, 45 and 0 normalized: 10, round(4.5) = 5, 0.
     {{"node-1000", 10}, {"node-1001", 5}, {"node-1002", 0}}},
    {"no score plugin scores zero",
     {},
     {{"node-1000", 3}},
     {},
     {{"node-1000", 0}, {"node-1001", 0}, {"node-1002", 0}}},
};

BOOST_DATA_TEST_CASE(prioritize_maps_totals_onto_extender_priorities,
                     boost::unit_test::data::make(kPrioritizeCases), c) {
  const auto nodes = makeNodes(3);
  std::vector<api::Pod> pods;
  for (const auto& [node, count] : c.terminatingPods) {
    for (int i = 0; i < count; ++i) {
      const std::string name = node + "-terminating-" + std::to_string(i);
      pods.push_back(MakePod().name(name).ns("default").uid(name).node(node).terminating().obj());
    }
  }
  for (const auto& [node, count] : c.nominatedPods) {
    for (int i = 0; i < count; ++i) {
      const std::string name = node + "-nominated-" + std::to_string(i);
      pods.push_back(MakePod().name(name).ns("default").uid(name).nominatedNodeName(node).obj());
    }
  }
  Fixture f(nodes, pods, Profile{100, 16, c.score});
  api::HostPriorityList priorities;
  const auto args = argsFor(kPlainPod, namesOf(nodes));  // outlives the hosts that view it
  BOOST_TEST(f.scheduler->prioritize(args, priorities).isSuccess());
  std::map<std::string, std::int64_t> got;
  for (const auto& p : priorities) got[std::string(p.host)] = p.score;
  BOOST_TEST(got == c.want);
}

// /preempt in either input form: a candidate whose victims make room is kept as sent, one
// where a pod of lower priority stands in the way too gets it added, one where a pod of equal
// priority does is dropped, and so is a node the cache does not hold; the answer keeps the
// request's order and names every candidate's outcome.
BOOST_AUTO_TEST_CASE(preempt_keeps_extends_or_drops_each_candidate) {
  const auto nodes = makeNodes(3);
  const std::vector<api::Pod> pods = {webPod("web-1", "node-1000", 0),
                                      webPod("web-2", "node-1001", 0),
                                      webPod("web-9", "node-1002", 100)};
  Fixture f(nodes, pods);
  const auto pod = MakePod()
                       .name("web-3")
                       .ns("default")
                       .uid("web-3")
                       .label("app", "web")
                       .priority(100)
                       .podAntiAffinityIn("app", kHostname, {"web"}, kRequiredReq)
                       .obj();
  const std::vector<std::string> wantOutcomes = {"kept", "extended", "rejected", "rejected"};
  const auto check = [&](const PreemptionResult& result) {
    BOOST_TEST(outcomeNames(result) == wantOutcomes, boost::test_tools::per_element());
    const auto& victims = result.answer.nodeNameToMetaVictims;
    BOOST_REQUIRE(victims.size() == 2u);
    BOOST_TEST(victims[0].first == "node-1000");
    BOOST_TEST(victims[0].second.podUIDs == std::vector<std::string>{"web-1"});
    BOOST_TEST(victims[0].second.numPDBViolations == 1);  // as sent
    BOOST_TEST(victims[1].first == "node-1001");
    BOOST_TEST(victims[1].second.podUIDs == std::vector<std::string>{"web-2"});
    BOOST_TEST(victims[1].second.numPDBViolations == 0);  // the cache has no budgets
  };

  api::ExtenderPreemptionArgs byUID;
  byUID.pod = pod;
  byUID.nodeNameToMetaVictims = api::WireMap<api::MetaVictims>{
      {"node-1000", {{"web-1"}, 1}},  // the victim is what blocks the pod: kept
      {"node-1001", {{}, 0}},         // web-2 blocks it and may go: added
      {"node-1002", {{}, 0}},         // web-9 blocks it and may not
      {"node-9999", {{}, 0}},         // unknown
  };
  check(f.scheduler->preempt(byUID));

  api::ExtenderPreemptionArgs byPod;
  byPod.pod = pod;
  byPod.nodeNameToVictims = api::WireMap<api::Victims>{
      {"node-1000", {{webPod("web-1", "node-1000", 0)}, 1}},
      {"node-1001", {{}, 0}},
      {"node-1002", {{}, 0}},
      {"node-9999", {{}, 0}},
  };
  check(f.scheduler->preempt(byPod));
}

// A pod its PreFilter rejects (here: a selector that does not parse) fits no candidate.
BOOST_AUTO_TEST_CASE(preempt_drops_every_candidate_when_prefilter_rejects_the_pod) {
  const auto nodes = makeNodes(2);
  Fixture f(nodes, {});
  api::Affinity affinity;
  affinity.podAntiAffinity.emplace().requiredDuringSchedulingIgnoredDuringExecution.push_back(
      testing::affinityTerm(
          testing::MakeLabelSelector().expression("app", "Matches", {"web"}).obj(), kHostname));
  api::ExtenderPreemptionArgs args;
  args.pod = MakePod().name("p").ns("default").uid("p").priority(10).affinity(affinity).obj();
  args.nodeNameToMetaVictims =
      api::WireMap<api::MetaVictims>{{"node-1000", {{}, 0}}, {"node-1001", {{}, 0}}};
  const auto result = f.scheduler->preempt(args);
  BOOST_TEST(result.answer.nodeNameToMetaVictims.empty());
  BOOST_TEST(outcomeNames(result) == (std::vector<std::string>{"rejected", "rejected"}),
             boost::test_tools::per_element());
}

// kube-scheduler deletes the victims of the node it picks and tries the preemptor again as
// soon as its own cache has the deletions; the extender's /filter then waits until a
// published snapshot has them too, and answers on that snapshot.
BOOST_DATA_TEST_CASE(a_preemptors_filter_waits_for_its_victims_to_leave,
                     boost::unit_test::data::make(kVictimsCases), c) {
  PreemptionFixture f;
  f.preempt();
  const auto args = argsFor(preemptor().nominatedNodeName(c.nominated).obj(), c.sent);
  f.whenSettled(args);
  BOOST_TEST(f.result.has_value() == !c.heldAtFirst);
  if (!c.heldAtFirst) {
    BOOST_TEST(!f.result->held);
  } else {
    BOOST_TEST(f.inFlight.numWaiting() == 1u);
    f.cache->deletePod(c.deleted);
    f.runPosted();
    BOOST_TEST(!f.result);  // not published yet
    f.cache->publish();
    f.runPosted();
    BOOST_TEST(f.result.has_value() == c.released);
    if (!c.released) {
      f.inFlight.releaseAll();
      return;
    }
    BOOST_TEST(f.result->held);
    BOOST_TEST(!f.result->timedOut);
    BOOST_TEST((f.result->victims == InFlightWait::Victims::Gone));
  }
  BOOST_TEST(strings(*f.scheduler->filter(args).nodeNames) == c.feasible,
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_preemptors_filter_is_answered_stale_once_the_wait_runs_out) {
  PreemptionFixture f(std::chrono::milliseconds(20));
  f.preempt();
  const auto args = argsFor(preemptor().nominatedNodeName("node-1000").obj(), {"node-1000"});
  f.whenSettled(args);
  BOOST_TEST(!f.result);
  f.io.run();  // returns once the timer has fired and the request gone on
  BOOST_REQUIRE(f.result);
  BOOST_TEST(f.result->timedOut);
  BOOST_TEST((f.result->victims == InFlightWait::Victims::TimedOut));
  const auto answer = f.scheduler->filter(args);
  BOOST_TEST(answer.nodeNames->empty());
  BOOST_REQUIRE(answer.failedNodes.size() == 1u);
  BOOST_TEST(answer.failedNodes[0].first == "node-1000");
  BOOST_TEST(answer.failedNodes[0].second == "node(s) didn't match pod anti-affinity rules");
}

// Only the preemptor waits: a pod with the very same terms, which the victims keep off the
// same nodes, is answered at once while the preemptor is held.
BOOST_AUTO_TEST_CASE(another_pods_filter_is_not_held_for_the_victims) {
  PreemptionFixture f;
  f.preempt();
  f.whenSettled(argsFor(preemptor().nominatedNodeName("node-1000").obj(), {"node-1000"}));
  BOOST_TEST(f.inFlight.numWaiting() == 1u);
  const auto other = preemptor().name("web-4").uid("web-4").obj();
  std::optional<InFlightWait> otherWait;
  f.scheduler->whenInFlightSettled(argsFor(other, {"node-1000", "node-1001"}),
                                   [&](InFlightWait wait) { otherWait = wait; });
  BOOST_REQUIRE(otherWait);
  BOOST_TEST(!otherWait->held);
  BOOST_TEST(f.inFlight.numWaiting() == 1u);
  f.inFlight.releaseAll();
}

// The preemptor once bound preempts no more: its victims are awaited no longer.
BOOST_AUTO_TEST_CASE(a_preemption_ends_when_the_preemptor_is_bound) {
  PreemptionFixture f;
  f.preempt();
  BOOST_TEST(f.inFlight.numPreemptions() == 1u);
  f.cache->upsertPod(preemptor().node("node-1002").obj());
  f.cache->publish();
  BOOST_TEST(f.inFlight.numPreemptions() == 0u);
  BOOST_TEST(!f.inFlight.awaits("web-1"));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace scheduling
