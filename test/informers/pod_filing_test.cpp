#include "scheduling/informers/pod_filing.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

#include "test/testing/wrappers.hpp"

namespace {

using scheduling::cache::Cache;
using scheduling::informers::PodFiling;

// Pod i of a list, on `node` (unbound when empty).
scheduling::api::Pod listedPod(int i, const std::string& node) {
  return testing::MakePod()
      .name("p" + std::to_string(i))
      .ns("default")
      .uid("u" + std::to_string(i))
      .node(node)
      .obj();
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
    filing.add(listedPod(i, i % 5 == 0 ? "" : "n" + std::to_string(i % 7)));
  }
  filing.add(listedPod(1, "moved"));
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
  for (int i = 0; i < 600; ++i) filing.add(listedPod(i, ""));
  BOOST_TEST(!filing.finish());
  BOOST_TEST(cache.numAssignedPods() == 0u);
}

// A list cut short (the connection dropped, the reflector stopped): what it delivered is
// filed when the filing ends, not dropped with the batches still waiting.
BOOST_AUTO_TEST_CASE(a_list_cut_short_still_files_what_it_delivered) {
  Cache cache;
  {
    PodFiling filing(cache);
    for (int i = 0; i < 1000; ++i) filing.add(listedPod(i, "n1"));
  }
  BOOST_TEST(cache.numAssignedPods() == 1000u);
}

BOOST_AUTO_TEST_SUITE_END()
