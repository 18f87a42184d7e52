#include "scheduling/informers/pod_filing.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

#include "scheduling/api/decode_error.hpp"

namespace {

using scheduling::cache::Cache;
using scheduling::informers::PodFiling;

// The text of pod i of a list, on `node` (unbound when empty).
std::string listedPod(int i, const std::string& node) {
  const std::string n = std::to_string(i);
  return R"({"metadata":{"name":"p)" + n + R"(","namespace":"default","uid":"u)" + n +
         R"("},"spec":{"nodeName":")" + node + R"("}})";
}

// Adds item i of a list: the item's index in the list is its number.
void add(PodFiling& filing, int i, const std::string& node) {
  filing.add(listedPod(i, node), static_cast<std::size_t>(i));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(pod_filing)

// Far more pods than the batches in flight hold, and a pod listed twice: every pod is filed,
// in the order added (the later version of a pod is the one that stays).
BOOST_AUTO_TEST_CASE(every_pod_is_filed_in_the_order_added) {
  constexpr int kPods = 5000;
  Cache cache;
  PodFiling filing(cache);
  for (int i = 0; i < kPods; ++i) {
    add(filing, i, i % 5 == 0 ? "" : "n" + std::to_string(i % 7));
  }
  filing.add(listedPod(1, "moved"), kPods);
  BOOST_TEST(filing.finish());  // pods got nodes

  for (int i = 2; i < kPods; i += 997) {
    const auto node = cache.assignedNode("u" + std::to_string(i));
    if (i % 5 == 0) {
      BOOST_TEST(!node.has_value());
    } else {
      BOOST_TEST(node.value_or("") == "n" + std::to_string(i % 7));
    }
  }
  BOOST_TEST(cache.assignedNode("u1").value_or("") == "moved");
  BOOST_TEST(cache.numAssignedPods() == static_cast<std::size_t>(kPods - kPods / 5));
}

BOOST_AUTO_TEST_CASE(a_list_of_unbound_pods_placed_none) {
  Cache cache;
  PodFiling filing(cache);
  for (int i = 0; i < 600; ++i) add(filing, i, "");
  BOOST_TEST(!filing.finish());
  BOOST_TEST(cache.numAssignedPods() == 0u);
}

// A list cut short (the connection dropped, the reflector stopped): what it delivered is
// filed when the filing ends, not dropped with the batches still waiting.
BOOST_AUTO_TEST_CASE(a_list_cut_short_still_files_what_it_delivered) {
  Cache cache;
  {
    PodFiling filing(cache);
    for (int i = 0; i < 1000; ++i) add(filing, i, "n1");
  }
  BOOST_TEST(cache.numAssignedPods() == 1000u);
}

// An item that is not a pod stops the list: its error, naming the item, comes back to the
// reflector (which relists), and the pods listed before it are filed.
BOOST_AUTO_TEST_CASE(an_item_that_does_not_decode_fails_the_filing_naming_it) {
  Cache cache;
  PodFiling filing(cache);
  for (int i = 0; i < 700; ++i) add(filing, i, "n1");
  filing.add(R"({"metadata":{"name":"bad","uid":"ub"},"spec":{"nodeName":5}})", 700);
  for (int i = 701; i < 800; ++i) add(filing, i, "n1");
  try {
    filing.finish();
    BOOST_FAIL("the filing finished despite the bad item");
  } catch (const scheduling::api::DecodeError& e) {
    BOOST_TEST(std::string(e.what()).find("items[700]") != std::string::npos, e.what());
  }
  BOOST_TEST(cache.numAssignedPods() == 700u);
  BOOST_TEST(!cache.assignedNode("ub").has_value());
}

// What a thread failed with is met by add() as well, once the batches before it are taken:
// the reflector stops reading a list that already failed.
BOOST_AUTO_TEST_CASE(adding_after_a_bad_item_rethrows_its_error) {
  Cache cache;
  PodFiling filing(cache);
  filing.add(R"({"metadata":{"name":"bad"},"spec":{"nodeName":[]}})", 0);
  BOOST_CHECK_THROW(for (int i = 1; i < 100000; ++i) add(filing, i, "n1"),
                    scheduling::api::DecodeError);
}

BOOST_AUTO_TEST_SUITE_END()
