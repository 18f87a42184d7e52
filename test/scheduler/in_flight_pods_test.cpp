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

  void ask(std::string_view self, bool matters = true) {
    inFlight.whenSettled(
        self, [matters](const framework::PodInfo&) { return matters; },
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
      "b", [](const framework::PodInfo&) { return true; },
      [&](InFlightWait wait) { result = wait; });
  io.run();  // returns once the timer has fired and the request gone on
  BOOST_REQUIRE(result);
  BOOST_TEST(result->held);
  BOOST_TEST(result->timedOut);
  BOOST_TEST(result->waited.count() > 0.0);
  // The pod is past its time: the next request does not wait for it.
  std::optional<InFlightWait> next;
  inFlight.whenSettled(
      "c", [](const framework::PodInfo&) { return true; }, [&](InFlightWait wait) { next = wait; });
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

BOOST_AUTO_TEST_SUITE_END()

}  // namespace scheduling
