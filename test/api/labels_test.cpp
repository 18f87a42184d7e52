#include "scheduling/api/labels.hpp"

#include <boost/test/unit_test.hpp>
#include <map>
#include <random>
#include <string>
#include <string_view>
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

// One buffer holds every key and value, and overwritten values stay behind in it: equality,
// copies and a shrunk set must not depend on that layout.
BOOST_AUTO_TEST_CASE(EqualityIgnoresTheBufferLayout) {
  std::mt19937 random(2718);
  for (int round = 0; round < 300; ++round) {
    Labels labels;
    std::vector<std::pair<std::string, std::string>> sets;
    int next = 0;
    for (int i = 0, n = static_cast<int>(random() % 12); i < n; ++i) {
      next = random() % 4 == 0 ? static_cast<int>(random() % 10) : next + 1;
      // Keys of different lengths, so that a shifted key/value boundary would show.
      sets.emplace_back(std::string(1 + next % 3, 'k') + std::to_string(next),
                        std::string(random() % 3, 'v'));
    }
    for (const auto& [key, value] : sets) labels.set(key, value);
    Labels inOrder;  // the same final entries, each set once, in key order
    for (const auto& [key, value] : labels) inOrder.set(key, value);
    Labels copy = labels;
    copy.shrinkToFit();
    BOOST_TEST_REQUIRE((labels == inOrder), "round " << round);
    BOOST_TEST_REQUIRE((copy == labels), "round " << round);
  }
}

BOOST_AUTO_TEST_CASE(DiffersWhereEntriesDiffer) {
  const Labels labels{{"zone", "a"}, {"hostname", "n1"}};
  BOOST_TEST((labels == Labels{{"hostname", "n1"}, {"zone", "a"}}));
  BOOST_TEST(!(labels == Labels{{"zone", "b"}, {"hostname", "n1"}}));
  BOOST_TEST(!(labels == Labels{{"zone", "a"}}));
  BOOST_TEST(!(labels == Labels{{"zone", "a"}, {"hostname", "n1"}, {"x", ""}}));
  BOOST_TEST(!(labels == Labels{{"zon", "ea"}, {"hostname", "n1"}}));
  BOOST_TEST(!(labels == Labels{}));
  BOOST_TEST((Labels{} == Labels{}));
  BOOST_TEST(!labels.get("zon").has_value());
  BOOST_TEST(*labels.get("zone") == "a");
}

// Copies share one buffer until either is modified: then the modified one gets its own, and
// views into the other stay valid and unchanged.
BOOST_AUTO_TEST_CASE(CopiesShareUntilModified) {
  Labels original{{"app", "web"}, {"tier", "front"}};
  Labels copy = original;
  // As addresses: Boost.Test would compare char pointers as C strings.
  BOOST_TEST(static_cast<const void*>(copy.get("app")->data()) ==
             static_cast<const void*>(original.get("app")->data()));
  const std::string_view app = *original.get("app");
  copy.set("app", "api");
  copy.set("zone", "a");
  BOOST_TEST(app == "web");
  BOOST_TEST((original == Labels{{"app", "web"}, {"tier", "front"}}));
  BOOST_TEST((copy == Labels{{"app", "api"}, {"tier", "front"}, {"zone", "a"}}));
  original.set("tier", "back");
  BOOST_TEST(*copy.get("tier") == "front");
  BOOST_TEST(*original.get("tier") == "back");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::api
