#include "scheduling/scheduler/in_flight_pods.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/test/unit_test.hpp>
#include <optional>

#include "test/testing/wrappers.hpp"

namespace scheduling {
namespace {

using ::testing::MakePod;
using namespace std::chrono_literals;

framework::PodInfoPtr podInfo(const std::string& uid) {
  return std::make_shared<const framework::PodInfo>(
      std::make_shared<const api::Pod>(MakePod().name(uid).ns("default").uid(uid).obj()));
}

// Held continuations run on an io_context the test runs by hand, so what has run is known.
struct InFlightFixture {
  boost::asio::io_context io;
  InFlightPods inFlight{io.get_executor(), 60s};
  std::optional<InFlightWait> result;

  void ask(std::string_view self, bool matters = true, InFlightPods::VictimsLeft victims = {}) {
    inFlight.whenSettled(
        self, [matters](const framework::PodInfo&) { return matters; }, std::move(victims),
        [this](InFlightWait wait) { result = wait; });
  }
  void runPosted() {
    io.restart();
    io.poll();
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(in_flight_pods)

BOOST_FIXTURE_TEST_CASE(nothing_in_flight_goes_on_at_once, InFlightFixture) {
  ask("b");
  BOOST_REQUIRE(result);
  BOOST_TEST(!result->held);
}

BOOST_FIXTURE_TEST_CASE(a_request_never_waits_for_its_own_pod, InFlightFixture) {
  inFlight.track(podInfo("a"));
  ask("a");
  BOOST_REQUIRE(result);
  BOOST_TEST(!result->held);
}

BOOST_FIXTURE_TEST_CASE(a_pod_that_does_not_matter_holds_nothing, InFlightFixture) {
  inFlight.track(podInfo("a"));
  ask("b", /*matters=*/false);
  BOOST_REQUIRE(result);
  BOOST_TEST(!result->held);
}

BOOST_FIXTURE_TEST_CASE(held_until_the_placement_is_published, InFlightFixture) {
  inFlight.track(podInfo("a"));
  ask("b");
  runPosted();
  BOOST_TEST(!result);
  BOOST_TEST(inFlight.numWaiting() == 1u);
  BOOST_TEST(inFlight.awaits("a"));
  BOOST_TEST(!inFlight.awaits("b"));
  inFlight.placementsPublished({"other", "a"});
  BOOST_TEST(inFlight.numWaiting() == 0u);
  BOOST_TEST(!inFlight.awaits("a"));
  BOOST_TEST(!result);  // goes on on the executor, not in the publisher's thread
  runPosted();
  BOOST_REQUIRE(result);
  BOOST_TEST(result->held);
  BOOST_TEST(!result->timedOut);
}

BOOST_FIXTURE_TEST_CASE(held_until_every_pod_that_matters_is_placed, InFlightFixture) {
  inFlight.track(podInfo("a"));
  inFlight.track(podInfo("c"));
  ask("b");
  inFlight.placementsPublished({"a"});
  runPosted();
  BOOST_TEST(!result);
  inFlight.settle("c");  // its binding failed: it will not be placed by this attempt
  runPosted();
  BOOST_REQUIRE(result);
  BOOST_TEST(!result->timedOut);
  BOOST_TEST(inFlight.numInFlight() == 0u);
}

BOOST_FIXTURE_TEST_CASE(a_pod_placed_before_the_request_holds_nothing, InFlightFixture) {
  inFlight.track(podInfo("a"));
  inFlight.placementsPublished({"a"});
  ask("b");
  BOOST_REQUIRE(result);
  BOOST_TEST(!result->held);
}

BOOST_FIXTURE_TEST_CASE(a_drain_releases_held_requests, InFlightFixture) {
  inFlight.track(podInfo("a"));
  ask("b");
  inFlight.releaseAll();
  runPosted();
  BOOST_REQUIRE(result);
  BOOST_TEST(result->held);
  BOOST_TEST(!result->timedOut);
}

BOOST_AUTO_TEST_CASE(the_wait_is_bounded) {
  boost::asio::io_context io;
  InFlightPods inFlight(io.get_executor(), 20ms);
  inFlight.track(podInfo("a"));
  std::optional<InFlightWait> result;
  inFlight.whenSettled(
      "b", [](const framework::PodInfo&) { return true; }, {},
      [&](InFlightWait wait) { result = wait; });
  io.run();  // returns once the timer has fired and the request gone on
  BOOST_REQUIRE(result);
  BOOST_TEST(result->held);
  BOOST_TEST(result->timedOut);
  BOOST_TEST(result->waited.count() > 0.0);
  // The pod is past its time: the next request does not wait for it.
  std::optional<InFlightWait> next;
  inFlight.whenSettled(
      "c", [](const framework::PodInfo&) { return true; }, {},
      [&](InFlightWait wait) { next = wait; });
  BOOST_REQUIRE(next);
  BOOST_TEST(!next->held);
}

BOOST_AUTO_TEST_CASE(a_zero_wait_tracks_nothing) {
  boost::asio::io_context io;
  InFlightPods inFlight(io.get_executor(), 0ms);
  inFlight.track(podInfo("a"));
  BOOST_TEST(inFlight.numInFlight() == 0u);
  BOOST_TEST(!inFlight.awaits("a"));
}

// --- preemptions in progress ---

// The preemptor "p" answered with victims v1 and v2 on n1 and v3 on n2.
const InFlightPods::Preemption kPreemption = {{"n1", {"v1", "v2"}}, {"n2", {"v3"}}};

std::vector<std::string> nodesOf(const std::shared_ptr<const InFlightPods::Preemption>& p) {
  std::vector<std::string> nodes;
  if (p) {
    for (const auto& candidate : *p) nodes.push_back(candidate.node);
  }
  return nodes;
}

BOOST_FIXTURE_TEST_CASE(a_preemption_is_remembered_until_answered_again, InFlightFixture) {
  BOOST_TEST(!inFlight.preemption("p"));
  inFlight.notePreemption("p", kPreemption);
  BOOST_TEST(nodesOf(inFlight.preemption("p")) == (std::vector<std::string>{"n1", "n2"}));
  BOOST_TEST(inFlight.preemption("p")->front().uids == (std::vector<std::string>{"v1", "v2"}));
  BOOST_TEST(!inFlight.preemption("q"));
  BOOST_TEST(inFlight.numPreemptions() == 1u);
  // The cache is to report the preemptor's placement and the victims' removal.
  for (const char* uid : {"p", "v1", "v2", "v3"}) BOOST_TEST(inFlight.awaits(uid), uid);
  BOOST_TEST(!inFlight.awaits("q"));

  inFlight.notePreemption("p", {{"n3", {"v3", "v4"}}});
  BOOST_TEST(nodesOf(inFlight.preemption("p")) == std::vector<std::string>{"n3"});
  BOOST_TEST(inFlight.numPreemptions() == 1u);
  BOOST_TEST(!inFlight.awaits("v1"));
  BOOST_TEST(inFlight.awaits("v3"));  // named by both answers: still awaited
  BOOST_TEST(inFlight.awaits("v4"));

  // An answer that names no victim: kube-scheduler deletes nothing for it.
  inFlight.notePreemption("p", {{"n1", {}}});
  BOOST_TEST(!inFlight.preemption("p"));
  BOOST_TEST(inFlight.numPreemptions() == 0u);
  BOOST_TEST(!inFlight.awaits("v3"));
}

BOOST_FIXTURE_TEST_CASE(a_preemption_is_forgotten_once_its_preemptor_is_placed, InFlightFixture) {
  inFlight.notePreemption("p", kPreemption);
  inFlight.notePreemption("q", {{"n2", {"v3"}}});
  inFlight.placementsPublished({"p"});
  BOOST_TEST(!inFlight.preemption("p"));
  BOOST_TEST(!inFlight.awaits("p"));
  BOOST_TEST(!inFlight.awaits("v1"));
  BOOST_TEST(inFlight.awaits("v3"));  // q still counts on it
  BOOST_TEST(nodesOf(inFlight.preemption("q")) == std::vector<std::string>{"n2"});
  BOOST_TEST(inFlight.numPreemptions() == 1u);
}

BOOST_FIXTURE_TEST_CASE(a_preemption_is_forgotten_once_its_preemptor_is_deleted, InFlightFixture) {
  inFlight.notePreemption("p", kPreemption);
  inFlight.removalsPublished({"p"});
  BOOST_TEST(!inFlight.preemption("p"));
  BOOST_TEST(inFlight.numPreemptions() == 0u);
  BOOST_TEST(!inFlight.awaits("v1"));
}

// Removals are reported once per victim: one gone is awaited no more, while the preemption
// that named it is remembered.
BOOST_FIXTURE_TEST_CASE(a_victim_gone_is_awaited_no_more, InFlightFixture) {
  inFlight.notePreemption("p", kPreemption);
  inFlight.removalsPublished({"v1"});
  BOOST_TEST(!inFlight.awaits("v1"));
  BOOST_TEST(inFlight.awaits("v2"));
  BOOST_TEST(nodesOf(inFlight.preemption("p")) == (std::vector<std::string>{"n1", "n2"}));
}

BOOST_AUTO_TEST_CASE(a_preemption_is_forgotten_after_its_time) {
  boost::asio::io_context io;
  // Remembered for no time at all: past its time as soon as it is answered.
  InFlightPods inFlight(io.get_executor(), 60s, 0ms);
  inFlight.notePreemption("p", kPreemption);
  BOOST_TEST(!inFlight.preemption("p"));
  BOOST_TEST(inFlight.numPreemptions() == 0u);
  BOOST_TEST(!inFlight.awaits("v1"));
}

BOOST_AUTO_TEST_CASE(a_zero_wait_remembers_no_preemption) {
  boost::asio::io_context io;
  InFlightPods inFlight(io.get_executor(), 0ms);
  inFlight.notePreemption("p", kPreemption);
  BOOST_TEST(!inFlight.preemption("p"));
  BOOST_TEST(!inFlight.awaits("v1"));
}

// Memory is bounded by the victims remembered: the oldest answers go first.
BOOST_FIXTURE_TEST_CASE(the_oldest_preemptions_go_past_the_bound, InFlightFixture) {
  const auto victims = [](const std::string& prefix, std::size_t count) {
    InFlightPods::CandidateVictims candidate{"n1", {}};
    for (std::size_t i = 0; i < count; ++i) candidate.uids.push_back(prefix + std::to_string(i));
    return InFlightPods::Preemption{candidate};
  };
  const std::size_t half = InFlightPods::kMaxRememberedVictims / 2;
  inFlight.notePreemption("a", victims("a-", half));
  inFlight.notePreemption("b", victims("b-", half));
  BOOST_TEST(inFlight.numPreemptions() == 2u);
  inFlight.notePreemption("a", victims("a-", half));  // answered again: now the newest
  inFlight.notePreemption("c", victims("c-", 1));
  BOOST_TEST(!inFlight.preemption("b"));
  BOOST_TEST(!inFlight.awaits("b-0"));
  BOOST_TEST(inFlight.preemption("a"));
  BOOST_TEST(inFlight.preemption("c"));
}

BOOST_FIXTURE_TEST_CASE(held_until_the_victims_of_one_node_leave, InFlightFixture) {
  inFlight.notePreemption("p", kPreemption);
  ask("p", true, {{"v1", "v2"}, {"v3"}});
  runPosted();
  BOOST_TEST(!result);
  BOOST_TEST(inFlight.numWaiting() == 1u);
  inFlight.removalsPublished({"v1", "other"});
  runPosted();
  BOOST_TEST(!result);  // v2 is still on n1, v3 on n2
  inFlight.removalsPublished({"v2"});
  BOOST_TEST(inFlight.numWaiting() == 0u);
  BOOST_TEST(!result);  // goes on on the executor
  runPosted();
  BOOST_REQUIRE(result);
  BOOST_TEST(result->held);
  BOOST_TEST(!result->timedOut);
  BOOST_TEST((result->victims == InFlightWait::Victims::Gone));
}

BOOST_FIXTURE_TEST_CASE(a_victim_gone_before_the_request_holds_nothing, InFlightFixture) {
  inFlight.notePreemption("p", kPreemption);
  inFlight.removalsPublished({"v3"});
  // The request's snapshot predates the removal; the removal is published all the same.
  ask("p", true, {{"v1", "v2"}, {"v3"}});
  BOOST_REQUIRE(result);
  BOOST_TEST(!result->held);
  BOOST_TEST((result->victims == InFlightWait::Victims::NotAwaited));
}

// A victim the preemptor's new answer no longer names will not be deleted for it.
BOOST_FIXTURE_TEST_CASE(a_new_answer_releases_requests_held_for_the_old_one, InFlightFixture) {
  inFlight.notePreemption("p", kPreemption);
  ask("p", true, {{"v3"}});
  runPosted();
  BOOST_TEST(!result);
  inFlight.notePreemption("p", {{"n1", {"v1"}}});
  runPosted();
  BOOST_REQUIRE(result);
  BOOST_TEST(!result->timedOut);
}

BOOST_FIXTURE_TEST_CASE(held_for_victims_and_a_pod_in_flight_until_both, InFlightFixture) {
  inFlight.notePreemption("p", kPreemption);
  inFlight.track(podInfo("a"));
  ask("p", true, {{"v3"}});
  inFlight.removalsPublished({"v3"});
  runPosted();
  BOOST_TEST(!result);
  inFlight.placementsPublished({"a"});
  runPosted();
  BOOST_REQUIRE(result);
  BOOST_TEST((result->victims == InFlightWait::Victims::Gone));
}

BOOST_FIXTURE_TEST_CASE(a_drain_releases_requests_held_for_victims, InFlightFixture) {
  inFlight.notePreemption("p", kPreemption);
  ask("p", true, {{"v3"}});
  inFlight.releaseAll();
  runPosted();
  BOOST_REQUIRE(result);
  BOOST_TEST(result->held);
  BOOST_TEST(!result->timedOut);
}

BOOST_AUTO_TEST_CASE(the_wait_for_victims_is_bounded) {
  boost::asio::io_context io;
  InFlightPods inFlight(io.get_executor(), 20ms);
  inFlight.notePreemption("p", kPreemption);
  std::optional<InFlightWait> result;
  inFlight.whenSettled(
      "p", [](const framework::PodInfo&) { return true; }, {{"v1"}},
      [&](InFlightWait wait) { result = wait; });
  io.run();  // returns once the timer has fired and the request gone on
  BOOST_REQUIRE(result);
  BOOST_TEST(result->held);
  BOOST_TEST(result->timedOut);
  BOOST_TEST((result->victims == InFlightWait::Victims::TimedOut));
  BOOST_TEST(result->waited.count() > 0.0);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace scheduling
