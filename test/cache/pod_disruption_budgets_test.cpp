// PodDisruptionBudgets as the cache keeps them for /preempt: which pods a budget covers
// (FilterVictimsWithPDBViolation's reading of spec.selector), and what snapshots see of them.
#include "scheduling/cache/pod_disruption_budgets.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "scheduling/cache/cache.hpp"
#include "test/testing/wrappers.hpp"

namespace scheduling::cache {
namespace {

using ::testing::MakeLabelSelector;
using ::testing::MakePodDisruptionBudget;

struct SelectorCase {
  std::string name;
  std::optional<api::LabelSelector> selector;
  api::Labels podLabels;
  bool want;
};

std::ostream& operator<<(std::ostream& os, const SelectorCase& c) { return os << c.name; }

const std::vector<SelectorCase> kSelectorCases = {
    {"matching labels", MakeLabelSelector().label("app", "web").obj(), {{"app", "web"}}, true},
    {"other labels", MakeLabelSelector().label("app", "web").obj(), {{"app", "db"}}, false},
    {"an expression", MakeLabelSelector().in("app", {"web", "db"}).obj(), {{"app", "db"}}, true},
    {"nil selector covers nothing", std::nullopt, {{"app", "web"}}, false},
    {"empty selector covers nothing", api::LabelSelector{}, {{"app", "web"}}, false},
    {"empty selector, pod without labels", api::LabelSelector{}, {}, false},
    {"invalid selector covers nothing",
     MakeLabelSelector().in("app", {}).obj(),
     {{"app", "web"}},
     false},
    {"unknown operator covers nothing",
     MakeLabelSelector().expression("app", "Matches", {"web"}).obj(),
     {{"app", "web"}},
     false},
};

// "name:allowed" for every budget of the namespace, in the order a snapshot lists them.
std::vector<std::string> budgets(const Snapshot& snapshot, std::string_view ns) {
  std::vector<std::string> out;
  for (const auto& pdb : snapshot.podDisruptionBudgets(ns)) {
    out.push_back(pdb.name + ":" + std::to_string(pdb.disruptionsAllowed));
  }
  return out;
}

BOOST_AUTO_TEST_SUITE(cache_pod_disruption_budgets)

BOOST_DATA_TEST_CASE(SelectorCoversPods, boost::unit_test::data::make(kSelectorCases), c) {
  const PodDisruptionBudgetInfo info(
      MakePodDisruptionBudget().name("b").ns("shop").selector(c.selector).obj());
  BOOST_TEST(info.selects(c.podLabels) == c.want);
}

BOOST_AUTO_TEST_CASE(DisruptedPodsAreLookedUpByName) {
  const PodDisruptionBudgetInfo info(MakePodDisruptionBudget()
                                         .name("b")
                                         .ns("shop")
                                         .disruptedPod("web-2")
                                         .disruptedPod("web-0")
                                         .disruptedPod("web-2")
                                         .obj());
  BOOST_TEST(info.disrupted("web-0"));
  BOOST_TEST(info.disrupted("web-2"));
  BOOST_TEST(!info.disrupted("web-1"));
  BOOST_TEST((info.disruptedPods == std::vector<std::string>{"web-0", "web-2"}));
}

BOOST_AUTO_TEST_CASE(SnapshotsSeeBudgetsByNamespaceAsOfTheirPublish) {
  Cache cache;
  const auto pdb = [](std::string ns, std::string name, std::int32_t allowed) {
    return MakePodDisruptionBudget()
        .name(std::move(name))
        .ns(std::move(ns))
        .matchLabel("app", "web")
        .disruptionsAllowed(allowed)
        .obj();
  };
  cache.upsertPodDisruptionBudget(pdb("shop", "web", 1));
  cache.upsertPodDisruptionBudget(pdb("shop", "api", 0));
  cache.upsertPodDisruptionBudget(pdb("batch", "jobs", 2));
  BOOST_TEST(cache.snapshot()->podDisruptionBudgets("shop").empty());  // not published yet
  cache.publish();
  const auto first = cache.snapshot();
  BOOST_TEST((budgets(*first, "shop") == std::vector<std::string>{"api:0", "web:1"}));
  BOOST_TEST((budgets(*first, "batch") == std::vector<std::string>{"jobs:2"}));
  BOOST_TEST(budgets(*first, "default").empty());

  // A status update in one namespace, a delete in another; the first snapshot stays as it was.
  cache.upsertPodDisruptionBudget(pdb("shop", "web", 0));
  cache.deletePodDisruptionBudget("batch/jobs");
  cache.deletePodDisruptionBudget("batch/never-there");
  cache.deletePodDisruptionBudget("nowhere");
  cache.publish();
  const auto second = cache.snapshot();
  BOOST_TEST((budgets(*second, "shop") == std::vector<std::string>{"api:0", "web:0"}));
  BOOST_TEST(budgets(*second, "batch").empty());
  BOOST_TEST((budgets(*first, "shop") == std::vector<std::string>{"api:0", "web:1"}));
  BOOST_TEST((budgets(*first, "batch") == std::vector<std::string>{"jobs:2"}));
}

BOOST_AUTO_TEST_CASE(UntouchedNamespacesShareTheirListsAcrossPublishes) {
  Cache cache;
  cache.upsertPodDisruptionBudget(MakePodDisruptionBudget().name("a").ns("shop").obj());
  cache.upsertPodDisruptionBudget(MakePodDisruptionBudget().name("b").ns("batch").obj());
  cache.publish();
  const auto first = cache.snapshot();
  cache.upsertPodDisruptionBudget(
      MakePodDisruptionBudget().name("b").ns("batch").disruptionsAllowed(3).obj());
  cache.publish();
  const auto second = cache.snapshot();
  BOOST_TEST(
      (first->podDisruptionBudgets("shop").data() == second->podDisruptionBudgets("shop").data()));
  BOOST_TEST((first->podDisruptionBudgets("batch").data() !=
              second->podDisruptionBudgets("batch").data()));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::cache
