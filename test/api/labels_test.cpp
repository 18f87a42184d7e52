#include "scheduling/api/labels.hpp"

#include <boost/test/unit_test.hpp>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace scheduling::api {
namespace {

BOOST_AUTO_TEST_SUITE(LabelsTest)

// set() appends when the key sorts last and inserts otherwise; either way Labels must hold
// what a std::map holds after the same sets (later values win), in key order.
BOOST_AUTO_TEST_CASE(SetKeepsKeyOrderAndLastValue) {
  std::mt19937 random(424242);
  for (int round = 0; round < 300; ++round) {
    Labels labels;
    std::map<std::string, std::string> want;
    const int sets = static_cast<int>(random() % 12);
    // Mostly ascending keys, as decoded objects list them, with some out of order.
    int next = 0;
    for (int i = 0; i < sets; ++i) {
      next = random() % 4 == 0 ? static_cast<int>(random() % 10) : next + 1;
      const std::string key = "k" + std::to_string(next);
      const std::string value = "v" + std::to_string(random() % 3);
      labels.set(key, value);
      want[key] = value;
    }
    const std::vector<Labels::Entry> got(labels.begin(), labels.end());
    const std::vector<Labels::Entry> expected(want.begin(), want.end());
    BOOST_TEST_REQUIRE((got == expected), "round " << round);
    for (const auto& [key, value] : want) BOOST_TEST_REQUIRE(*labels.get(key) == value);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::api
