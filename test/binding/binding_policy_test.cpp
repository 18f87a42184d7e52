#include "scheduling/binding/binding_policy.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <ostream>

#include "plugins/registry.hpp"
#include "scheduling/config/configuration.hpp"
#include "test/testing/wrappers.hpp"

namespace scheduling::binding {
namespace {

using ::testing::kRequiredReq;
using ::testing::MakeNode;
using ::testing::MakePod;

using ::testing::kHostname;

// Two nodes; a web replica on n1, a pod nominated to n2 and one assumed on n2.
struct Fixture {
  std::shared_ptr<cache::Cache> cache = std::make_shared<cache::Cache>();
  Scheduler scheduler{std::make_shared<framework::runtime::Framework>(
                          config::defaultConfiguration(), plugins::inTreeRegistry()),
                      cache};
  BindingPolicy policy{{"default-scheduler", "web-scheduler"}, *cache, scheduler};

  Fixture() {
    for (const char* name : {"n1", "n2"}) {
      cache->upsertNode(MakeNode().name(name).label(kHostname, name).obj());
    }
    cache->upsertPod(MakePod()
                         .name("running")
                         .ns("default")
                         .uid("running")
                         .label("app", "web")
                         .node("n1")
                         .obj());
    cache->upsertPod(MakePod()
                         .name("nominated")
                         .ns("default")
                         .uid("nominated")
                         .label("app", "db")
                         .nominatedNodeName("n2")
                         .obj());
    cache->assumePod(
        MakePod().name("assumed").ns("default").uid("assumed").label("app", "cache").obj(), "n2");
    cache->publish();
  }
};

// A web replica: one per node.
MakePod web(std::string name) {
  return std::move(MakePod()
                       .name(name)
                       .ns("default")
                       .uid(name)
                       .label("app", "web")
                       .podAntiAffinityIn("app", kHostname, {"web"}, kRequiredReq));
}

struct PodCase {
  std::string name;
  api::Pod pod;
  std::string node;
  std::optional<RefusalReason> want;
  std::string wantMessage;
};
std::ostream& operator<<(std::ostream& out, const PodCase& c) { return out << c.name; }

const std::vector<PodCase> kPodCases = {
    {"a replica on a free node", web("w").obj(), "n2", std::nullopt, ""},
    {"an empty schedulerName is default-scheduler's", web("w").schedulerName("").obj(), "n2",
     std::nullopt, ""},
    {"another served scheduler", web("w").schedulerName("web-scheduler").obj(), "n2", std::nullopt,
     ""},
    {"a scheduler not served", web("w").schedulerName("batch").obj(), "n2",
     RefusalReason::SchedulerName,
     "the pod's spec.schedulerName is \"batch\", not one this extender binds for "
     "(--scheduler-names default-scheduler,web-scheduler)"},
    {"a replica next to a replica", web("w").obj(), "n1", RefusalReason::NodeNoLongerFits,
     "node n1 no longer fits pod default/w: node(s) didn't match pod anti-affinity rules"},
    {"the pod the cache assumed", MakePod().name("assumed").ns("default").uid("assumed").obj(),
     "n1", RefusalReason::AlreadyAssigned,
     "the extender's cache has the pod on node \"n2\" already"},
    {"the pod the API server has bound", web("w").node("n2").obj(), "n2",
     RefusalReason::AlreadyAssigned, "the API server has the pod on node \"n2\" already"},
    // Nominated pods of equal priority count as Filter counts them; the pod's own nomination
    // does not stand in its way.
    {"the nominated pod itself onto its node",
     MakePod()
         .name("nominated")
         .ns("default")
         .uid("nominated")
         .label("app", "db")
         .podAntiAffinityIn("app", kHostname, {"db"}, kRequiredReq)
         .obj(),
     "n2", std::nullopt, ""},
    {"a pod that refuses the nominated one's node",
     MakePod()
         .name("d")
         .ns("default")
         .uid("d")
         .podAntiAffinityIn("app", kHostname, {"db"}, kRequiredReq)
         .obj(),
     "n2", RefusalReason::NodeNoLongerFits,
     "node n2 no longer fits pod default/d: node(s) didn't match pod anti-affinity rules"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(binding_policy)

BOOST_DATA_TEST_CASE(check_pod, boost::unit_test::data::make(kPodCases), c) {
  Fixture f;
  const auto refusal = f.policy.checkPod(c.pod, c.node);
  BOOST_TEST(refusal.has_value() == c.want.has_value());
  if (refusal && c.want) {
    BOOST_TEST(reasonName(refusal->reason) == reasonName(*c.want));
    BOOST_TEST(refusal->message == c.wantMessage);
  }
}

BOOST_AUTO_TEST_CASE(check_target_needs_no_pod) {
  Fixture f;
  const auto args = [](std::string uid, std::string node) {
    return api::ExtenderBindingArgs{"p", "default", std::move(uid), std::move(node)};
  };
  BOOST_TEST(!f.policy.checkTarget(args("w", "n1")).has_value());
  BOOST_TEST(!f.policy.checkTarget(args("", "n1")).has_value());  // checkPod looks later

  const auto unknown = f.policy.checkTarget(args("w", "n9"));
  BOOST_REQUIRE(unknown.has_value());
  BOOST_TEST(reasonName(unknown->reason) == "unknown_node");
  BOOST_TEST(unknown->message == "node \"n9\" is not in the extender's cache");

  for (const char* uid : {"assumed", "running"}) {
    const auto placed = f.policy.checkTarget(args(uid, "n1"));
    BOOST_REQUIRE(placed.has_value());
    BOOST_TEST(reasonName(placed->reason) == "already_assigned");
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace scheduling::binding
