#include <boost/test/unit_test.hpp>
#include <memory>
#include <optional>
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

PodInfoPtr makePod(const std::string& name, bool withAntiAffinity = false) {
  MakePod pod = MakePod().name(name).uid(name).ns("default");
  if (withAntiAffinity) pod.podAntiAffinityExists("app", "zone", ::testing::kRequiredReq);
  return std::make_shared<const PodInfo>(std::make_shared<const api::Pod>(pod.obj()));
}

std::vector<std::string> names(const PodList& pods) {
  std::vector<std::string> out;
  for (const PodInfo* pod : pods) out.push_back(pod->pod().metadata.name);
  return out;
}

// A borrowing copy lists the origin's pods, then those added to it, without changing the
// origin; a copy of that copy the same; removing a pod from a copy leaves the origin whole.
BOOST_AUTO_TEST_CASE(BorrowingCopiesListTheOriginsPodsThenTheirOwn) {
  NodeInfo origin(std::make_shared<const api::Node>(::testing::MakeNode().name("n").obj()));
  origin.addPod(makePod("a"));
  origin.addPod(makePod("b", true));
  NodeInfo copy = origin.borrowingCopy();
  copy.addPod(makePod("c", true));
  using Names = std::vector<std::string>;
  BOOST_TEST(names(copy.pods()) == (Names{"a", "b", "c"}), boost::test_tools::per_element());
  BOOST_TEST(names(copy.podsWithRequiredAntiAffinity()) == (Names{"b", "c"}),
             boost::test_tools::per_element());
  BOOST_TEST(names(copy.podsWithAffinity()) == (Names{"b", "c"}), boost::test_tools::per_element());
  BOOST_TEST(copy.pods().size() == 3U);
  BOOST_TEST(copy.pods()[2]->pod().metadata.name == "c");
  BOOST_TEST(&copy.origin() == &origin);
  BOOST_TEST(names(origin.pods()) == (Names{"a", "b"}), boost::test_tools::per_element());

  NodeInfo copyOfCopy;
  copyOfCopy.borrow(copy);
  copyOfCopy.addPod(makePod("d"));
  BOOST_TEST(&copyOfCopy.origin() == &origin);
  BOOST_TEST(names(copyOfCopy.pods()) == (Names{"a", "b", "c", "d"}),
             boost::test_tools::per_element());
  BOOST_TEST(names(copy.pods()) == (Names{"a", "b", "c"}), boost::test_tools::per_element());

  BOOST_TEST(copyOfCopy.removePod("a"));
  BOOST_TEST(copyOfCopy.removePod("c"));
  BOOST_TEST(!copyOfCopy.removePod("a"));
  BOOST_TEST(names(copyOfCopy.pods()).size() == 2U);
  BOOST_TEST(copyOfCopy.podsWithRequiredAntiAffinity().size() == 1U);
  BOOST_TEST(names(origin.pods()) == (Names{"a", "b"}), boost::test_tools::per_element());
  BOOST_TEST(names(copy.pods()) == (Names{"a", "b", "c"}), boost::test_tools::per_element());

  // Borrowing again reuses the object: nothing of the previous node is left.
  NodeInfo other(std::make_shared<const api::Node>(::testing::MakeNode().name("m").obj()));
  copyOfCopy.borrow(other);
  BOOST_TEST(copyOfCopy.pods().empty());
  BOOST_TEST(copyOfCopy.name() == "m");
}

BOOST_AUTO_TEST_CASE(NominatedPodKeepsPriorityAndComparesUids) {
  const auto pod = [](const std::string& uid, std::optional<std::int32_t> priority) {
    api::Pod p = MakePod().name("p").uid(uid).obj();
    p.spec.priority = priority;
    return std::make_shared<const PodInfo>(std::make_shared<const api::Pod>(p));
  };
  BOOST_TEST(NominatedPod(pod("u1", std::nullopt)).priority == 0);
  BOOST_TEST(NominatedPod(pod("u1", 1000)).priority == 1000);
  BOOST_TEST(NominatedPod(pod("u1", -5)).priority == -5);
  BOOST_TEST(NominatedPod(pod("u1", 1)).sameUid(*pod("u1", 2)));
  BOOST_TEST(!NominatedPod(pod("u1", 1)).sameUid(*pod("u2", 1)));
  BOOST_TEST(NominatedPod(pod("", 1)).sameUid(*pod("", 1)));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::framework
