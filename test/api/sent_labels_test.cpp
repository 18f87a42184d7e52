#include "scheduling/api/sent_labels.hpp"

#include <boost/test/unit_test.hpp>
#include <random>
#include <string>

namespace scheduling::api {
namespace {

BOOST_AUTO_TEST_SUITE(SentLabelsTest)

// Whatever the order and repetition of the sets, SentLabels holds what Labels holds after
// the same sets: equal to it, to a copy built another way, and to its own toLabels().
BOOST_AUTO_TEST_CASE(HoldsWhatLabelsHoldsAfterTheSameSets) {
  std::mt19937 random(2718);
  for (int round = 0; round < 300; ++round) {
    Labels labels;
    SentLabels sent;
    SentLabels inOrder;  // the same final entries, each set once, in key order
    std::vector<std::pair<std::string, std::string>> sets;
    int next = 0;
    for (int i = 0, n = static_cast<int>(random() % 12); i < n; ++i) {
      next = random() % 4 == 0 ? static_cast<int>(random() % 10) : next + 1;
      // Keys of different lengths, so that a shifted key/value boundary would show.
      sets.emplace_back(std::string(1 + next % 3, 'k') + std::to_string(next),
                        std::string(random() % 3, 'v'));
    }
    for (const auto& [key, value] : sets) {
      labels.set(key, value);
      sent.set(key, value);
    }
    for (const auto& [key, value] : labels) inOrder.set(key, value);
    BOOST_TEST_REQUIRE((sent == labels), "round " << round);
    BOOST_TEST_REQUIRE((sent == inOrder), "round " << round);
    BOOST_TEST_REQUIRE((sent.toLabels() == labels), "round " << round);
  }
}

BOOST_AUTO_TEST_CASE(DiffersWhereLabelsDiffer) {
  SentLabels sent;
  sent.set("zone", "a");
  sent.set("hostname", "n1");
  BOOST_TEST((sent == Labels{{"zone", "a"}, {"hostname", "n1"}}));
  BOOST_TEST(!(sent == Labels{{"zone", "b"}, {"hostname", "n1"}}));
  BOOST_TEST(!(sent == Labels{{"zone", "a"}}));
  BOOST_TEST(!(sent == Labels{{"zone", "a"}, {"hostname", "n1"}, {"x", ""}}));
  BOOST_TEST(!(sent == Labels{{"zon", "ea"}, {"hostname", "n1"}}));
  BOOST_TEST(!(sent == Labels{}));
  BOOST_TEST((SentLabels{} == Labels{}));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::api
