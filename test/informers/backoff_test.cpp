#include "scheduling/informers/backoff.hpp"

#include <boost/test/unit_test.hpp>

using namespace std::chrono_literals;
using scheduling::informers::Backoff;

BOOST_AUTO_TEST_SUITE(backoff)

BOOST_AUTO_TEST_CASE(delays_double_up_to_the_cap_with_jitter_and_reset) {
  Backoff backoff(100ms, 800ms, 7);
  const Backoff::Duration ceilings[] = {100ms, 200ms, 400ms, 800ms, 800ms, 800ms};
  for (const auto ceiling : ceilings) {
    const auto delay = backoff.next();
    BOOST_TEST(delay.count() >= ceiling.count() / 2);
    BOOST_TEST(delay.count() <= ceiling.count());
  }
  backoff.reset();
  BOOST_TEST(backoff.next().count() <= 100);
}

BOOST_AUTO_TEST_CASE(replicas_with_different_seeds_do_not_retry_in_step) {
  Backoff a(1000ms, 8000ms, 1);
  Backoff b(1000ms, 8000ms, 2);
  bool differ = false;
  for (int i = 0; i < 5; ++i) differ = differ || a.next() != b.next();
  BOOST_TEST(differ);
}

BOOST_AUTO_TEST_SUITE_END()
