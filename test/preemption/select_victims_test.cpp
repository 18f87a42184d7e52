// VictimSelector: SelectVictimsOnNode for the candidates kube-scheduler sends /preempt, over
// a cache, with InterPodAffinity and a pod-counting filter that stands in for kube-scheduler's
// resource plugins (the reason its dry run chose the victims it sends).
#include "scheduling/preemption/select_victims.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "scheduling/api/time.hpp"
#include "scheduling/cache/cache.hpp"
#include "test/testing/pod_capacity_filter.hpp"
#include "test/testing/wrappers.hpp"

namespace select_victims_test {

namespace api = scheduling::api;
namespace fw = scheduling::framework;
using scheduling::preemption::Candidate;
using scheduling::preemption::Outcome;
using testing::kHostname;
using testing::kRequiredReq;
using testing::kZone;
using testing::MakeNode;
using testing::MakePod;
using testing::MakePodDisruptionBudget;
using testing::PodCapacityFilter;

std::int64_t at(std::string_view rfc3339) { return api::parseRfc3339(rfc3339).value(); }

constexpr std::string_view kNow = "2025-01-01T00:00:00Z";
constexpr std::string_view kEarly = "2024-05-01T09:00:00Z";
constexpr std::string_view kLate = "2024-05-01T10:00:00Z";

// A node of zone z1 with room for `capacity` pods (any number when 0).
api::Node node(const std::string& name, int capacity = 0) {
  MakeNode n;
  n.name(name).label(kHostname, name).label(kZone, "z1");
  if (capacity > 0) n.label(std::string(PodCapacityFilter::kLabel), std::to_string(capacity));
  return n.obj();
}

// A pod of namespace "default" on `nodeName`, labelled app=<name>, its UID its name.
MakePod pod(const std::string& name, std::int32_t priority, const std::string& nodeName = "n1") {
  MakePod p;
  p.name(name).ns("default").uid(name).node(nodeName).label("app", name).priority(priority);
  return p;
}

// The pod being placed: app=web, priority 100.
MakePod preemptor() {
  MakePod p;
  p.name("preemptor").ns("default").uid("preemptor").label("app", "web").priority(100);
  return p;
}

struct Case {
  std::string name;
  std::vector<api::Node> nodes;
  std::vector<api::Pod> pods;
  api::Pod preemptor;
  std::vector<std::string> victims;  // the UIDs kube-scheduler sends for n1
  std::vector<api::PodDisruptionBudget> pdbs = {};
  // Victims sent whole (NodeNameToVictims), by UID: what the selector knows of those the
  // cache does not hold.
  std::map<std::string, api::Pod> sent = {};
  std::int64_t numPDBViolations = 0;  // as sent
  std::string_view now = kNow;
  std::string candidateNode = "n1";
  Outcome want = Outcome::Rejected;
  std::vector<std::string> wantVictims = {};
  std::int64_t wantNumPDBViolations = 0;
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.name; }

const std::vector<Case> kCases = {
    {.name = "the victims sent make room: kept as sent",
     .nodes = {node("n1", 2)},
     .pods = {pod("x", 10).obj(), pod("y", 10).obj()},
     .preemptor = preemptor().obj(),
     .victims = {"x"},
     .numPDBViolations = 3,
     .want = Outcome::Kept,
     .wantVictims = {"x"},
     .wantNumPDBViolations = 3},
    {.name = "kept victims keep the order they were sent in",
     .nodes = {node("n1", 1)},
     .pods = {pod("x", 10).startTime(kLate).obj(), pod("y", 20).startTime(kEarly).obj()},
     .preemptor = preemptor().obj(),
     .victims = {"x", "y"},
     .want = Outcome::Kept,
     .wantVictims = {"x", "y"}},
    {.name = "nothing in the way and no victims sent: kept empty",
     .nodes = {node("n1")},
     .pods = {pod("x", 10).obj()},
     .preemptor = preemptor().obj(),
     .victims = {},
     .want = Outcome::Kept,
     .wantVictims = {}},
    {.name = "the preemptor's anti-affinity refuses a pod of lower priority: it is added",
     .nodes = {node("n1", 2)},
     .pods = {pod("x", 10).startTime(kEarly).obj(), pod("db", 10).startTime(kLate).obj()},
     .preemptor = preemptor().podAntiAffinityIn("app", kHostname, {"db"}, kRequiredReq).obj(),
     .victims = {"x"},
     .want = Outcome::Extended,
     .wantVictims = {"x", "db"}},
    {.name = "a pod of lower priority whose anti-affinity refuses the preemptor is added",
     .nodes = {node("n1", 2)},
     .pods = {pod("x", 10).startTime(kLate).obj(),
              pod("batch", 10)
                  .startTime(kEarly)
                  .podAntiAffinityIn("app", kHostname, {"web"}, kRequiredReq)
                  .obj()},
     .preemptor = preemptor().obj(),
     .victims = {"x"},
     .want = Outcome::Extended,
     .wantVictims = {"batch", "x"}},
    {.name = "a required affinity no pod of the node satisfies: dropped",
     .nodes = {node("n1", 2), node("n2")},
     .pods = {pod("x", 10).obj(), pod("y", 10).obj(), pod("cache", 10, "n2").obj()},
     .preemptor = preemptor().podAffinityIn("app", kHostname, {"cache"}, kRequiredReq).obj(),
     .victims = {"x"},
     .want = Outcome::Rejected},
    {.name = "a refusing pod of equal priority is no victim: dropped",
     .nodes = {node("n1", 3)},
     .pods = {pod("x", 10).obj(), pod("z", 10).obj(), pod("db", 100).obj()},
     .preemptor = preemptor().podAntiAffinityIn("app", kHostname, {"db"}, kRequiredReq).obj(),
     .victims = {"x"},
     .want = Outcome::Rejected},
    {.name = "a refusing pod on another node of the domain is no victim: dropped",
     .nodes = {node("n1", 2), node("n2")},
     .pods = {pod("x", 10).obj(), pod("db", 10, "n2").obj()},
     .preemptor = preemptor().podAntiAffinityIn("app", kZone, {"db"}, kRequiredReq).obj(),
     .victims = {"x"},
     .want = Outcome::Rejected},
    {.name = "of two pods either of which makes room, the more important is reprieved",
     .nodes = {node("n1", 2)},
     .pods = {pod("g", 5).obj(), pod("a", 20).obj(), pod("b", 10).obj()},
     .preemptor = preemptor().obj(),
     .victims = {"g"},
     .want = Outcome::Extended,
     .wantVictims = {"b", "g"}},
    {.name = "at equal priority the pod that started first is reprieved",
     .nodes = {node("n1", 2)},
     .pods = {pod("g", 5).obj(), pod("a", 10).startTime(kLate).obj(),
              pod("b", 10).startTime(kEarly).obj()},
     .preemptor = preemptor().obj(),
     .victims = {"g"},
     .want = Outcome::Extended,
     .wantVictims = {"a", "g"}},
    {.name = "a pod without a start time counts as started now",
     .nodes = {node("n1", 2)},
     .pods = {pod("g", 5).obj(), pod("a", 10).obj(), pod("b", 10).startTime(kLate).obj()},
     .preemptor = preemptor().obj(),
     .victims = {"g"},
     .want = Outcome::Extended,
     .wantVictims = {"a", "g"}},
    {.name = "a pod without a start time is older than one that starts after now",
     .nodes = {node("n1", 2)},
     .pods = {pod("g", 5).obj(), pod("a", 10).obj(), pod("b", 10).startTime(kLate).obj()},
     .preemptor = preemptor().obj(),
     .victims = {"g"},
     .now = kEarly,
     .want = Outcome::Extended,
     .wantVictims = {"b", "g"}},
    {.name = "a pod whose eviction exceeds a budget is reprieved first",
     .nodes = {node("n1", 2)},
     .pods = {pod("g", 5).obj(), pod("a", 20).obj(), pod("b", 10).obj()},
     .preemptor = preemptor().obj(),
     .victims = {"g"},
     .pdbs = {MakePodDisruptionBudget().name("b").ns("default").matchLabel("app", "b").obj()},
     .want = Outcome::Extended,
     .wantVictims = {"a", "g"}},
    {.name = "victims exceeding a budget are counted, the ones sent included",
     .nodes = {node("n1", 2)},
     .pods = {pod("g", 5).label("tier", "x").obj(), pod("a", 20).obj(),
              pod("b", 10).label("tier", "x").obj()},
     .preemptor = preemptor().obj(),
     .victims = {"g"},
     .pdbs = {MakePodDisruptionBudget()
                  .name("tier")
                  .ns("default")
                  .matchLabel("tier", "x")
                  .disruptionsAllowed(1)
                  .obj()},
     .numPDBViolations = 5,
     .want = Outcome::Extended,
     .wantVictims = {"b", "g"},
     .wantNumPDBViolations = 1},
    {.name = "budgets are spent from the most important pod down",
     .nodes = {node("n1", 2)},
     .pods = {pod("g", 5).label("tier", "x").obj(), pod("a", 20).label("tier", "x").obj(),
              pod("b", 10).obj()},
     .preemptor = preemptor().obj(),
     .victims = {"g"},
     .pdbs = {MakePodDisruptionBudget()
                  .name("tier")
                  .ns("default")
                  .matchLabel("tier", "x")
                  .disruptionsAllowed(1)
                  .obj()},
     .want = Outcome::Extended,
     .wantVictims = {"b", "g"},
     .wantNumPDBViolations = 1},
    {.name = "a pod already disrupted, or covered by another namespace's budget, exceeds none",
     .nodes = {node("n1", 2)},
     .pods = {pod("g", 5).label("tier", "x").obj(), pod("a", 20).obj(),
              pod("b", 10).label("tier", "x").obj()},
     .preemptor = preemptor().obj(),
     .victims = {"g"},
     .pdbs = {MakePodDisruptionBudget()
                  .name("tier")
                  .ns("default")
                  .matchLabel("tier", "x")
                  .disruptedPod("g")
                  .disruptedPod("b")
                  .obj(),
              MakePodDisruptionBudget().name("tier").ns("other").matchLabel("tier", "x").obj()},
     .want = Outcome::Extended,
     .wantVictims = {"b", "g"},
     .wantNumPDBViolations = 0},
    {.name = "no victims sent: the extender chooses them all",
     .nodes = {node("n1", 2)},
     .pods = {pod("a", 20).obj(), pod("b", 10).obj()},
     .preemptor = preemptor().obj(),
     .victims = {},
     .want = Outcome::Extended,
     .wantVictims = {"b"}},
    {.name = "no victims sent and none of lower priority: dropped",
     .nodes = {node("n1", 1)},
     .pods = {pod("a", 100).obj()},
     .preemptor = preemptor().obj(),
     .victims = {},
     .want = Outcome::Rejected},
    {.name = "an unknown victim stays in a kept answer",
     .nodes = {node("n1", 2)},
     .pods = {pod("x", 10).obj(), pod("y", 10).obj()},
     .preemptor = preemptor().obj(),
     .victims = {"gone", "x"},
     .want = Outcome::Kept,
     .wantVictims = {"gone", "x"}},
    {.name = "an unknown victim comes last in an extended answer",
     .nodes = {node("n1", 2)},
     .pods = {pod("g", 5).obj(), pod("a", 20).obj(), pod("b", 10).obj()},
     .preemptor = preemptor().obj(),
     .victims = {"gone", "g"},
     .want = Outcome::Extended,
     .wantVictims = {"b", "g", "gone"}},
    {.name = "an unknown victim sent whole is ordered as the pod sent",
     .nodes = {node("n1", 2)},
     .pods = {pod("g", 5).obj(), pod("a", 20).obj(), pod("b", 10).obj()},
     .preemptor = preemptor().obj(),
     .victims = {"gone", "g"},
     .sent = {{"gone", pod("gone", 15).obj()}},
     .want = Outcome::Extended,
     .wantVictims = {"gone", "b", "g"}},
    {.name = "a node the cache does not hold: dropped",
     .nodes = {node("n1")},
     .pods = {},
     .preemptor = preemptor().obj(),
     .victims = {"x"},
     .candidateNode = "n9",
     .want = Outcome::Rejected},
};

// The cache of a case and a cycle of the preemptor on it, PreFilter done.
struct Fixture {
  explicit Fixture(const Case& c)
      : framework(configuration(), testing::registryWithPodCapacity()),
        preemptor(std::make_shared<const api::Pod>(c.preemptor)) {
    for (const auto& n : c.nodes) cache.upsertNode(n);
    for (const auto& p : c.pods) cache.upsertPod(p);
    for (const auto& b : c.pdbs) cache.upsertPodDisruptionBudget(b);
    cache.publish();
    snapshot = cache.snapshot();
    state.emplace(snapshot);
    preFilter = framework.runPreFilterPlugins(*state, preemptor, snapshot->nodeInfoList());
  }

  static scheduling::config::Configuration configuration() {
    auto configuration = scheduling::config::defaultConfiguration();
    configuration.filter = {{std::string(PodCapacityFilter::kName), 0}, {"InterPodAffinity", 0}};
    configuration.parallelism = 1;
    return configuration;
  }

  scheduling::cache::Cache cache;
  fw::runtime::Framework framework;
  fw::PodInfo preemptor;
  std::shared_ptr<const scheduling::cache::Snapshot> snapshot;
  std::optional<fw::CycleState> state;
  fw::Status preFilter;
};

Candidate candidateOf(const Case& c) {
  Candidate candidate{c.candidateNode, {}, c.numPDBViolations};
  for (const auto& uid : c.victims) {
    const auto sent = c.sent.find(uid);
    candidate.victims.push_back({uid, sent == c.sent.end() ? nullptr : &sent->second});
  }
  return candidate;
}

}  // namespace select_victims_test

using namespace select_victims_test;

BOOST_AUTO_TEST_SUITE(preemption_select_victims)

BOOST_DATA_TEST_CASE(SelectVictimsOnNode, boost::unit_test::data::make(kCases), c) {
  Fixture f(c);
  BOOST_TEST_REQUIRE(f.preFilter.isSuccess(), f.preFilter.message());
  const scheduling::preemption::VictimSelector selector(f.framework, *f.state, f.preemptor,
                                                        *f.snapshot, at(c.now));
  const auto got = selector.select(candidateOf(c));
  BOOST_TEST(scheduling::preemption::outcomeName(got.outcome) ==
             scheduling::preemption::outcomeName(c.want));
  if (c.want == Outcome::Rejected) return;
  BOOST_TEST(got.victims.podUIDs == c.wantVictims, boost::test_tools::per_element());
  BOOST_TEST(got.victims.numPDBViolations == c.wantNumPDBViolations);
}

// The same candidate tried twice on one selector answers the same: each try works on copies,
// and nothing of the snapshot or of the cycle's state changes.
BOOST_AUTO_TEST_CASE(TriesLeaveTheSnapshotAndTheStateAsTheyWere) {
  const Case& c = kCases[3];  // extended through anti-affinity
  Fixture f(c);
  const scheduling::preemption::VictimSelector selector(f.framework, *f.state, f.preemptor,
                                                        *f.snapshot, at(c.now));
  const auto first = selector.select(candidateOf(c));
  const auto second = selector.select(candidateOf(c));
  BOOST_TEST(first.victims.podUIDs == second.victims.podUIDs, boost::test_tools::per_element());
  BOOST_TEST(f.snapshot->getNodeInfo("n1")->pods().size() == c.pods.size());
  BOOST_TEST(
      !f.framework
           .runFilterPluginsWithNominatedPods(*f.state, f.preemptor, *f.snapshot->getNodeInfo("n1"))
           .isSuccess());
}

BOOST_AUTO_TEST_SUITE_END()
