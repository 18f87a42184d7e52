// The assumed-pod lifecycle of the Cache (backend/cache/cache.go: AssumePod, FinishBinding,
// ForgetPod, and the informer's confirmation; no expiry, as upstream since kubernetes#106361),
// against every order in which /bind, the API server's answer, the watch's events and a relist
// can arrive.

#include <algorithm>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <ostream>
#include <string>
#include <vector>

#include "scheduling/cache/cache.hpp"
#include "test/testing/wrappers.hpp"

namespace scheduling::cache {
namespace {

using ::testing::MakeNode;
using ::testing::MakePod;
using Clock = std::chrono::steady_clock;

enum class Step {
  Assume1,       // /bind to n1: assumePod
  Assume2,       // /bind to n2
  Finish,        // the API server bound it: finishBinding, now
  Forget,        // the binding failed: forgetPod
  WatchUnbound,  // a watch event from before the binding: no spec.nodeName
  WatchNominated2,
  WatchBound1,  // the watch shows the binding
  WatchBound2,
  WatchDeleted,
  WatchSucceeded,
  // A relist of the pods that does not list p, begun an hour after now, or an hour before.
  RelistLacking,
  RelistLackingBegunEarlier,
  RelistListing,  // one that lists p (unbound: it began before the binding reached it)
};

struct LifecycleCase {
  std::string name;
  std::vector<Step> steps;
  std::string wantNode;           // where the pod counts in the published snapshot; "" nowhere
  std::size_t wantAssumed = 0;    // numAssumedPods
  std::string wantNominated;      // the node it is nominated to; "" none
  std::size_t wantForgotten = 0;  // what the relists dropped
};
std::ostream& operator<<(std::ostream& out, const LifecycleCase& c) { return out << c.name; }

const std::vector<LifecycleCase> kLifecycleCases = {
    {"an assumed pod counts on its node", {Step::Assume1}, "n1", 1, "", 0},
    {"the watch confirms it", {Step::Assume1, Step::Finish, Step::WatchBound1}, "n1", 0, "", 0},
    {"confirmed before the API server answered",
     {Step::Assume1, Step::WatchBound1, Step::Finish},
     "n1",
     0,
     "",
     0},
    {"the watch has it on another node", {Step::Assume1, Step::WatchBound2}, "n2", 0, "", 0},
    {"an event from before the binding keeps the assumption",
     {Step::Assume1, Step::WatchUnbound},
     "n1",
     1,
     "",
     0},
    {"a stale nomination keeps the assumption",
     {Step::Assume1, Step::WatchNominated2},
     "n1",
     1,
     "",
     0},
    {"deleted before the watch confirmed it", {Step::Assume1, Step::WatchDeleted}, "", 0, "", 0},
    {"finished before the watch confirmed it", {Step::Assume1, Step::WatchSucceeded}, "", 0, "", 0},
    {"the binding failed", {Step::Assume1, Step::Forget}, "", 0, "", 0},
    {"a failure after the watch confirmed it changes nothing",
     {Step::Assume1, Step::WatchBound1, Step::Forget},
     "n1",
     0,
     "",
     0},
    {"a failure after the watch moved it changes nothing",
     {Step::Assume1, Step::WatchBound2, Step::Forget},
     "n2",
     0,
     "",
     0},
    {"the watch first: assuming leaves the bound pod",
     {Step::WatchBound2, Step::Assume1},
     "n2",
     0,
     "",
     0},
    {"a second binding leaves the first assumption",
     {Step::Assume1, Step::Assume2},
     "n1",
     1,
     "",
     0},
    {"assuming a nominated pod drops its nomination",
     {Step::WatchNominated2, Step::Assume1},
     "n1",
     1,
     "",
     0},
    {"a finished binding never expires", {Step::Assume1, Step::Finish}, "n1", 1, "", 0},
    {"a relist begun after the binding that lacks the pod forgets it",
     {Step::Assume1, Step::Finish, Step::RelistLacking},
     "",
     0,
     "",
     1},
    {"a relist begun before the binding finished may predate it",
     {Step::Assume1, Step::Finish, Step::RelistLackingBegunEarlier},
     "n1",
     1,
     "",
     0},
    {"a relist while the binding is in progress keeps it",
     {Step::Assume1, Step::RelistLacking},
     "n1",
     1,
     "",
     0},
    {"a relist that lists the pod keeps it",
     {Step::Assume1, Step::Finish, Step::RelistListing},
     "n1",
     1,
     "",
     0},
    {"a relist lacking a pod the watch confirmed deletes it, as any pod it lacks",
     {Step::Assume1, Step::Finish, Step::WatchBound1, Step::RelistLacking},
     "",
     0,
     "",
     1},
    {"a relist lacking a pod the API server showed before its binding deletes it",
     {Step::WatchNominated2, Step::Assume1, Step::RelistLackingBegunEarlier},
     "",
     0,
     "",
     1},
    {"forgetting an unknown pod does nothing", {Step::Forget}, "", 0, "", 0},
    {"the watch after a relist forgot it brings it back",
     {Step::Assume1, Step::Finish, Step::RelistLacking, Step::WatchBound1},
     "n1",
     0,
     "",
     1},
};

// The pod being scheduled, as its ExtenderArgs and the watch show it.
MakePod pending() {
  return std::move(MakePod().name("p").ns("default").uid("p").label("app", "web"));
}
api::Pod pendingPod() { return pending().obj(); }

struct Outcome {
  std::string node;
  std::string nominated;
  std::size_t forgotten = 0;
};

Outcome run(Cache& cache, const std::vector<Step>& steps) {
  Outcome out;
  for (const Step step : steps) {
    switch (step) {
      case Step::Assume1:
        cache.assumePod(pendingPod(), "n1");
        break;
      case Step::Assume2:
        cache.assumePod(pendingPod(), "n2");
        break;
      case Step::Finish:
        cache.finishBinding("p", Clock::now());
        break;
      case Step::Forget:
        cache.forgetPod("p");
        break;
      case Step::WatchUnbound:
        cache.upsertPod(pendingPod());
        break;
      case Step::WatchNominated2:
        cache.upsertPod(pending().nominatedNodeName("n2").obj());
        break;
      case Step::WatchBound1:
        cache.upsertPod(pending().node("n1").obj());
        break;
      case Step::WatchBound2:
        cache.upsertPod(pending().node("n2").obj());
        break;
      case Step::WatchDeleted:
        cache.deletePod("p");
        break;
      case Step::WatchSucceeded:
        cache.upsertPod(pending().node("n1").phase("Succeeded").obj());
        break;
      case Step::RelistLacking:
      case Step::RelistLackingBegunEarlier:
      case Step::RelistListing: {
        const auto began =
            Clock::now() + (step == Step::RelistLackingBegunEarlier ? -std::chrono::hours(1)
                                                                    : std::chrono::hours(1));
        cache.beginPodRelist();
        if (step == Step::RelistListing) cache.upsertPod(pendingPod());
        out.forgotten += cache.endPodRelist(began);
        break;
      }
    }
    cache.publish();
  }
  const auto snapshot = cache.snapshot();
  for (const auto* node : snapshot->nodeInfoList()) {
    for (const auto& pod : node->pods()) {
      if (pod->pod().metadata.uid == "p") out.node = node->name();
    }
    if (!snapshot->nominatedPodsForNode(node->name()).empty()) out.nominated = node->name();
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(assumed_pods)

BOOST_DATA_TEST_CASE(lifecycle, boost::unit_test::data::make(kLifecycleCases), c) {
  Cache cache;
  cache.upsertNode(MakeNode().name("n1").obj());
  cache.upsertNode(MakeNode().name("n2").obj());
  const Outcome out = run(cache, c.steps);
  BOOST_TEST(out.node == c.wantNode);
  BOOST_TEST(out.nominated == c.wantNominated);
  BOOST_TEST(out.forgotten == c.wantForgotten);
  BOOST_TEST(cache.numAssumedPods() == c.wantAssumed);
  BOOST_TEST(cache.numAssignedPods() == (c.wantNode.empty() ? 0u : 1u));
}

BOOST_AUTO_TEST_CASE(an_assumed_pod_counts_for_affinity_as_an_assigned_one) {
  Cache cache;
  cache.upsertNode(MakeNode().name("n1").obj());
  BOOST_TEST((cache.assumePod(pendingPod(), "n1") == AssumeResult::Assumed));
  cache.publish();
  const auto snapshot = cache.snapshot();
  const framework::AffinityTerm web{
      labels::Selector::of({labels::Requirement{"app", labels::Operator::In, {"web"}}}),
      {"default"},
      labels::Selector::nothing(),
      "kubernetes.io/hostname"};
  std::vector<std::string> found;
  snapshot->forEachPodMatching(web, [&](const framework::PodInfo& pod, framework::NodeSlot slot) {
    found.push_back(pod.pod().metadata.name + "@" + snapshot->nodeInfoAt(slot)->name() + "@" +
                    pod.pod().spec.nodeName);
  });
  BOOST_TEST(found == std::vector<std::string>{"p@n1@n1"});
  BOOST_TEST((cache.assumePod(pendingPod(), "n1") == AssumeResult::AlreadyPlaced));
}

// What /bind's policy and the oldest-assumption gauge read.
BOOST_AUTO_TEST_CASE(the_cache_tells_where_a_pod_counts_and_its_oldest_assumption) {
  Cache cache;
  cache.upsertNode(MakeNode().name("n1").obj());
  BOOST_TEST(!cache.oldestAssumedPod().has_value());
  BOOST_TEST(!cache.assignedNode("p").has_value());
  cache.upsertPod(pending().nominatedNodeName("n1").obj());
  BOOST_TEST(!cache.assignedNode("p").has_value());  // nominated is not assigned

  const auto before = Clock::now();
  cache.assumePod(pendingPod(), "n1");
  const auto after = Clock::now();
  BOOST_TEST(cache.assignedNode("p").value_or("") == "n1");
  const auto oldest = cache.oldestAssumedPod();
  BOOST_REQUIRE(oldest.has_value());
  BOOST_TEST((*oldest >= before && *oldest <= after));
  cache.assumePod(MakePod().name("q").ns("default").uid("q").obj(), "n1");
  BOOST_TEST((cache.oldestAssumedPod() == oldest));  // still the first

  cache.upsertPod(pending().node("n1").obj());  // p confirmed
  BOOST_TEST((cache.oldestAssumedPod() > oldest));
  BOOST_TEST(cache.assignedNode("p").value_or("") == "n1");
  cache.upsertPod(MakePod().name("q").ns("default").uid("q").node("n1").obj());
  BOOST_TEST(!cache.oldestAssumedPod().has_value());
}

// What InFlightPods relies on: it hears of a placement or a removal it waits for only once a
// published snapshot shows it, and of no other pod.
class RecordingObserver final : public PlacementObserver {
 public:
  std::vector<std::string> awaited{"p"};
  std::vector<std::vector<std::string>> published;
  std::vector<std::vector<std::string>> removed;
  bool awaits(std::string_view uid) const override {
    return std::find(awaited.begin(), awaited.end(), uid) != awaited.end();
  }
  void placementsPublished(const std::vector<std::string>& uids) override {
    published.push_back(uids);
  }
  void removalsPublished(const std::vector<std::string>& uids) override { removed.push_back(uids); }
};

BOOST_AUTO_TEST_CASE(the_observer_hears_of_awaited_placements_after_their_publish) {
  Cache cache;
  RecordingObserver observer;
  cache.setPlacementObserver(&observer);
  cache.upsertNode(MakeNode().name("n1").obj());
  cache.upsertPod(MakePod().name("other").uid("other").node("n1").obj());
  cache.assumePod(pendingPod(), "n1");
  BOOST_TEST(observer.published.empty());  // not visible yet
  cache.publish();
  BOOST_REQUIRE(observer.published.size() == 1u);
  BOOST_TEST(observer.published[0] == std::vector<std::string>{"p"});
  cache.upsertPod(pending().node("n1").obj());  // confirmation: no new placement
  cache.publish();
  BOOST_TEST(observer.published.size() == 1u);
  BOOST_TEST(observer.removed.empty());
  cache.deletePod("p");
  BOOST_TEST(observer.removed.empty());  // not visible yet
  cache.publish();
  BOOST_TEST(observer.published.size() == 1u);
  BOOST_REQUIRE(observer.removed.size() == 1u);
  BOOST_TEST(observer.removed[0] == std::vector<std::string>{"p"});
}

// An awaited pod leaves the cache by the watch's DELETED, by turning terminal, or by a relist
// that lacks it: each removal is reported once published; an update that leaves it in place,
// and the removal of a pod nobody awaits, are not.
BOOST_AUTO_TEST_CASE(the_observer_hears_of_awaited_removals_after_their_publish) {
  Cache cache;
  RecordingObserver observer;
  observer.awaited = {"v1", "v2", "v3"};
  cache.upsertNode(MakeNode().name("n1").obj());
  for (const char* uid : {"v1", "v2", "v3", "other"}) {
    cache.upsertPod(MakePod().name(uid).uid(uid).node("n1").obj());
  }
  cache.publish();
  cache.setPlacementObserver(&observer);
  cache.upsertPod(MakePod().name("v1").uid("v1").node("n1").label("k", "v").obj());
  cache.deletePod("v1");
  cache.upsertPod(MakePod().name("v2").uid("v2").node("n1").phase("Failed").obj());
  cache.deletePod("other");
  cache.publish();
  BOOST_REQUIRE(observer.removed.size() == 1u);
  BOOST_TEST(observer.removed[0] == (std::vector<std::string>{"v1", "v2"}),
             boost::test_tools::per_element());
  cache.beginPodRelist();
  cache.upsertPod(MakePod().name("other").uid("other").node("n1").obj());
  cache.endPodRelist(std::chrono::steady_clock::now());
  cache.publish();
  BOOST_REQUIRE(observer.removed.size() == 2u);
  BOOST_TEST(observer.removed[1] == std::vector<std::string>{"v3"});
  BOOST_TEST(observer.published.empty());
}

BOOST_AUTO_TEST_CASE(a_pod_bound_by_the_watch_is_reported_as_placed) {
  Cache cache;
  cache.upsertNode(MakeNode().name("n1").obj());
  BOOST_TEST(!cache.upsertPod(pendingPod()));
  BOOST_TEST(cache.upsertPod(pending().node("n1").obj()));
  BOOST_TEST(!cache.upsertPod(pending().node("n1").label("v", "2").obj()));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace scheduling::cache
