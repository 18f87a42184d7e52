// plugin.go: the plugin's identity and mergeAffinityTermNamespacesIfNotEmpty. Upstream's
// plugin_test.go covers the queueing hints (isSchedulableAfterPodChange/NodeChange), which
// the extender has no use for: kube-scheduler requeues pods itself.

#include "plugins/interpodaffinity/plugin.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "plugins/names.hpp"
#include "test/testing/fake_lister.hpp"
#include "test/testing/status.hpp"
#include "test/testing/wrappers.hpp"

namespace {

namespace api = scheduling::api;
namespace fw = scheduling::framework;
namespace ipa = plugins::interpodaffinity;
using testing::MakeLabelSelector;

fw::AffinityTerm parsedTerm(const std::string& ns, api::PodAffinityTerm term) {
  const auto pod =
      testing::MakePod().ns(ns).podAffinity(std::move(term), testing::kRequiredReq).obj();
  const fw::PodInfo info = testing::podInfo(pod);
  BOOST_REQUIRE(info.parseError().empty());
  BOOST_REQUIRE_EQUAL(info.requiredAffinityTerms().size(), 1U);
  return info.requiredAffinityTerms().front();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(interpodaffinity_plugin)

BOOST_AUTO_TEST_CASE(Name) {
  const ipa::InterPodAffinity plugin;
  BOOST_TEST(plugin.name() == plugins::names::kInterPodAffinity);
  BOOST_TEST(plugin.name() == "InterPodAffinity");
  BOOST_TEST(plugin.preFilterExtensions() != nullptr);
  BOOST_TEST(plugin.scoreExtensions() != nullptr);
}

BOOST_AUTO_TEST_CASE(MergeAffinityTermNamespacesIfNotEmpty) {
  const testing::FakeLister lister(
      {}, {},
      {testing::makeNamespace("b", {{"team", "x"}}), testing::makeNamespace("a", {{"team", "x"}}),
       testing::makeNamespace("c", {{"team", "y"}})});
  const auto any = MakeLabelSelector().exists("app").obj();

  // Everything ({}): left alone, matches every namespace.
  auto everything = parsedTerm("own", testing::affinityTerm(any, "zone", {}, api::LabelSelector{}));
  ipa::mergeAffinityTermNamespacesIfNotEmpty(everything, lister);
  BOOST_TEST(everything.namespaceSelector.isEverything());

  // nil selector: the owner's namespace only; the selector stays Nothing.
  auto nil = parsedTerm("own", testing::affinityTerm(any, "zone"));
  ipa::mergeAffinityTermNamespacesIfNotEmpty(nil, lister);
  BOOST_TEST(nil.namespaces == (std::vector<std::string>{"own"}), boost::test_tools::per_element());
  BOOST_TEST(nil.namespaceSelector.isNothing());

  // A selector: the matching namespaces join the listed ones, sorted and unique.
  auto selected = parsedTerm(
      "own",
      testing::affinityTerm(any, "zone", {"b", "z"}, MakeLabelSelector().label("team", "x").obj()));
  ipa::mergeAffinityTermNamespacesIfNotEmpty(selected, lister);
  BOOST_TEST(selected.namespaces == (std::vector<std::string>{"a", "b", "z"}),
             boost::test_tools::per_element());
  BOOST_TEST(selected.namespaceSelector.isNothing());
  const auto pod = [](const std::string& ns) {
    return testing::MakePod().ns(ns).label("app", "x").obj();
  };
  BOOST_TEST(selected.matches(pod("a"), {}));
  BOOST_TEST(!selected.matches(pod("c"), {}));
  BOOST_TEST(!selected.matches(pod("own"), {}));

  // A selector matching no namespace: only the listed ones (here none).
  auto none = parsedTerm(
      "own", testing::affinityTerm(any, "zone", {}, MakeLabelSelector().label("team", "q").obj()));
  ipa::mergeAffinityTermNamespacesIfNotEmpty(none, lister);
  BOOST_TEST(none.namespaces.empty());
  BOOST_TEST(!none.matches(pod("own"), {}));
}

// Upstream decides "has preferred terms" on the pod spec, before parsing: a pod whose only
// preferred term is invalid is not skipped by ignorePreferredTermsOfExistingPods but fails.
BOOST_AUTO_TEST_CASE(PreScoreInvalidPreferredTermIsNotSkipped) {
  const ipa::InterPodAffinity plugin({.ignorePreferredTermsOfExistingPods = true});
  auto lister = testing::FakeLister::make({testing::MakeNode().name("n1").obj()}, {});
  fw::CycleState state(lister);
  const fw::PodInfo pod = testing::podInfo(
      testing::MakePod()
          .podAffinity(
              testing::affinityTerm(MakeLabelSelector().in("app", {"{{bad}}"}).obj(), "zone"),
              testing::kPreferredReq, 3)
          .obj());
  BOOST_REQUIRE(!pod.parseError().empty());
  const fw::Status got = plugin.preScore(state, pod, lister->nodeInfoList());
  BOOST_TEST(testing::describe(got) == "Error: failed to parse pod: " + pod.parseError());
}

BOOST_AUTO_TEST_SUITE_END()
