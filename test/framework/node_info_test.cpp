#include <boost/test/unit_test.hpp>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "scheduling/framework/types.hpp"
#include "test/testing/wrappers.hpp"

namespace scheduling::framework {
namespace {

using ::testing::MakePod;

std::int64_t countTerminating(const NodeInfo& node) {
  std::int64_t n = 0;
  for (const auto& p : node.pods()) n += p->pod().isTerminating() ? 1 : 0;
  return n;
}

BOOST_AUTO_TEST_SUITE(NodeInfoTest)

// numTerminatingPods is kept as pods come and go; it must always equal the count over
// pods() that PodState used to compute per node and per request.
BOOST_AUTO_TEST_CASE(NumTerminatingPodsFollowsAddAndRemove) {
  std::mt19937 random(20240601);
  NodeInfo node;
  std::vector<std::string> present;
  for (int step = 0; step < 2000; ++step) {
    if (present.empty() || random() % 3 != 0) {
      const std::string uid = "pod-" + std::to_string(step);
      MakePod pod = MakePod().name(uid).uid(uid).ns("default");
      if (random() % 2 == 0) pod.terminating();
      node.addPod(std::make_shared<const PodInfo>(std::make_shared<const api::Pod>(pod.obj())));
      present.push_back(uid);
    } else {
      const std::size_t i = random() % present.size();
      BOOST_TEST(node.removePod(present[i]));
      present.erase(present.begin() + static_cast<std::ptrdiff_t>(i));
    }
    BOOST_TEST_REQUIRE(node.numTerminatingPods() == countTerminating(node));
  }
  BOOST_TEST(!node.removePod("no-such-pod"));
  BOOST_TEST(node.numTerminatingPods() == countTerminating(node));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::framework
