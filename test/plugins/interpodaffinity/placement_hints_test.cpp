// InterPodAffinity's PlacementHints: which pods in flight can change its Filter verdict or its
// Score for the pod being scheduled. A "true" costs a wait, a "false" where the answer does
// depend on the placement a stale answer, so every term kind is covered both ways.

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <ostream>
#include <string>

#include "plugins/interpodaffinity/plugin.hpp"
#include "test/testing/fake_lister.hpp"
#include "test/testing/wrappers.hpp"

namespace {

namespace api = scheduling::api;
namespace fw = scheduling::framework;
namespace ipa = plugins::interpodaffinity;
using testing::kPreferredReq;
using testing::kRequiredReq;
using testing::MakePod;

using ::testing::kHostname;
using ::testing::kZone;

struct HintCase {
  std::string name;
  api::Pod pod;     // being scheduled
  api::Pod placed;  // in flight
  bool wantFilter;
  bool wantScore;
  ipa::InterPodAffinityArgs args = {};
};
std::ostream& operator<<(std::ostream& out, const HintCase& c) { return out << c.name; }

MakePod web(const std::string& name) {
  return std::move(MakePod().name(name).ns("shop").uid(name).label("app", "web"));
}

const std::vector<HintCase> kHintCases = {
    {"pods that know nothing of each other", web("a").obj(),
     MakePod().name("b").ns("shop").uid("b").label("app", "db").obj(), false, false},
    {"required anti-affinity selects the placed pod",
     web("a").podAntiAffinityIn("app", kHostname, {"web"}, kRequiredReq).obj(), web("b").obj(),
     true, false},
    {"required affinity selects the placed pod",
     web("a").podAffinityIn("app", kZone, {"web"}, kRequiredReq).obj(), web("b").obj(), true,
     false},
    {"a required term that selects other pods",
     web("a").podAntiAffinityIn("app", kHostname, {"batch"}, kRequiredReq).obj(), web("b").obj(),
     false, false},
    {"the placed pod's required anti-affinity selects the pod", web("a").obj(),
     MakePod()
         .name("b")
         .ns("shop")
         .uid("b")
         .label("app", "batch")
         .podAntiAffinityIn("app", kHostname, {"web"}, kRequiredReq)
         .obj(),
     true, false},
    {"preferred anti-affinity selects the placed pod",
     web("a").podAntiAffinityIn("app", kZone, {"web"}, kPreferredReq).obj(), web("b").obj(), false,
     true},
    {"preferred affinity selects the placed pod",
     web("a").podAffinityIn("app", kZone, {"web"}, kPreferredReq).obj(), web("b").obj(), false,
     true},
    {"the placed pod's preferred affinity selects the pod", web("a").obj(),
     web("b").podAffinityIn("app", kZone, {"web"}, kPreferredReq).obj(), false, true},
    {"the placed pod's required affinity counts with hardPodAffinityWeight", web("a").obj(),
     web("b").podAffinityIn("app", kZone, {"web"}, kRequiredReq).obj(), false, true},
    {"not with hardPodAffinityWeight 0",
     web("a").obj(),
     web("b").podAffinityIn("app", kZone, {"web"}, kRequiredReq).obj(),
     false,
     false,
     {0, false}},
    {"PreScore skips: no preferred terms and ignorePreferredTermsOfExistingPods",
     web("a").obj(),
     web("b").podAffinityIn("app", kZone, {"web"}, kPreferredReq).obj(),
     false,
     false,
     {1, true}},
    {"a term limited to its own namespace does not see another",
     web("a").podAntiAffinityIn("app", kHostname, {"web"}, kRequiredReq).obj(),
     MakePod().name("b").ns("other").uid("b").label("app", "web").obj(), false, false},
    {"a namespaceSelector that selects the placed pod's namespace",
     web("a")
         .podAntiAffinity(
             testing::affinityTerm(testing::MakeLabelSelector().in("app", {"web"}).obj(), kHostname,
                                   {}, testing::MakeLabelSelector().in("team", {"red"}).obj()),
             kRequiredReq)
         .obj(),
     MakePod().name("b").ns("red-team").uid("b").label("app", "web").obj(), true, false},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(interpodaffinity_placement_hints)

BOOST_DATA_TEST_CASE(hints, boost::unit_test::data::make(kHintCases), c) {
  const auto lister =
      testing::FakeLister::make({}, {},
                                {testing::makeNamespace("red-team", {{"team", "red"}}),
                                 testing::makeNamespace("shop"), testing::makeNamespace("other")});
  const ipa::InterPodAffinity plugin(c.args);
  const fw::PodInfo pod(std::make_shared<const api::Pod>(c.pod));
  const fw::PodInfo placed(std::make_shared<const api::Pod>(c.placed));
  BOOST_TEST(plugin.placementChangesFilter(pod, placed, *lister) == c.wantFilter);
  BOOST_TEST(plugin.placementChangesScore(pod, placed, *lister) == c.wantScore);
}

BOOST_AUTO_TEST_SUITE_END()
