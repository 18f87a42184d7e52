#include "scheduling/cache/namespace_pod_index.hpp"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <random>
#include <string>
#include <vector>

#include "test/testing/namespace_pods.hpp"

namespace scheduling::cache {
namespace {

using labels::Operator;
using labels::Requirement;
using labels::Selector;
using ::testing::namespacePods;
using Names = std::vector<std::string>;

// An index over pods named p0, p1, … with these label sets, pod i on slot i.
NamespacePodIndex indexOf(const std::vector<api::Labels>& podLabels) {
  return NamespacePodIndex("ns", namespacePods("ns", "p", podLabels, 0));
}

// The pods the index visits, in its order.
Names visited(const NamespacePodIndex& index, const Selector& selector) {
  Names out;
  index.forEachMatching(selector, [&](const NamespacePodIndex::Entry& e) {
    out.push_back(e.pod->pod().metadata.name);
  });
  return out;
}

Selector selectorOf(std::vector<Requirement> requirements) {
  return Selector::of(std::move(requirements));
}

struct IndexCase {
  const char* name;
  Selector selector;
  Names want;
};

BOOST_AUTO_TEST_SUITE(namespace_pod_index)

// Pods 0, 2 and 4 share one label set; pod 3's set has equal labels in buffers of its own;
// pod 1 has other values for the same keys; pod 5 has no labels.
BOOST_AUTO_TEST_CASE(shared_copied_and_equal_label_sets_index_alike) {
  const api::Labels web{{"app", "web"}, {"tier", "front"}};
  const api::Labels equalToWeb{{"app", "web"}, {"tier", "front"}};
  const api::Labels db{{"app", "db"}, {"tier", "back"}, {"disk", "ssd"}};
  const NamespacePodIndex index = indexOf({web, db, web, equalToWeb, web, {}});

  const std::vector<IndexCase> cases = {
      {"a value of shared and equal sets",
       selectorOf({{"app", Operator::In, {"web"}}}),
       {"p0", "p2", "p3", "p4"}},
      {"a value of one set", selectorOf({{"app", Operator::In, {"db"}}}), {"p1"}},
      {"two values",
       selectorOf({{"app", Operator::In, {"db", "web"}}}),
       {"p0", "p1", "p2", "p3", "p4"}},
      {"a key", selectorOf({{"tier", Operator::Exists, {}}}), {"p0", "p1", "p2", "p3", "p4"}},
      {"a key one set has", selectorOf({{"disk", Operator::Exists, {}}}), {"p1"}},
      {"a value no pod has", selectorOf({{"app", Operator::In, {"cache"}}}), {}},
      {"a value of another key", selectorOf({{"tier", Operator::In, {"web"}}}), {}},
      {"two requirements",
       selectorOf({{"app", Operator::In, {"web"}}, {"tier", Operator::In, {"front"}}}),
       {"p0", "p2", "p3", "p4"}},
      {"a negative requirement walks every pod",
       selectorOf({{"app", Operator::NotIn, {"web"}}}),
       {"p1", "p5"}},
      {"everything", Selector::everything(), {"p0", "p1", "p2", "p3", "p4", "p5"}},
      {"nothing", Selector::nothing(), {}},
  };
  for (const IndexCase& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      Names got = visited(index, c.selector);
      std::sort(got.begin(), got.end());  // the order of runs follows their hashes
      BOOST_TEST(got == c.want, boost::test_tools::per_element());
    }
  }
  // Within a run, pods come in the index's order.
  BOOST_TEST(visited(index, selectorOf({{"app", Operator::In, {"web"}}})) ==
                 Names({"p0", "p2", "p3", "p4"}),
             boost::test_tools::per_element());
}

// Against matching every pod's labels one by one: many pods, few label sets shared among
// them and sets of equal labels apart, random selectors.
BOOST_AUTO_TEST_CASE(visits_exactly_the_pods_a_selector_matches) {
  std::mt19937 random(27);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(random() % n); };
  const std::vector<std::string> keys = {"app", "tier", "zone", "pod-template-hash", "x"};
  const auto value = [&] { return std::string(1, static_cast<char>('a' + pick(6))); };

  std::vector<api::Labels> podLabels;
  for (int i = 0; i < 600; ++i) {
    if (!podLabels.empty() && pick(3) != 0) {
      podLabels.push_back(podLabels[pick(podLabels.size())]);  // shares that pod's buffers
      continue;
    }
    api::Labels labels;
    for (const std::string& key : keys) {
      if (pick(3) != 0) labels.set(key, value());
    }
    podLabels.push_back(std::move(labels));
  }
  const NamespacePodIndex index = indexOf(podLabels);

  const Operator ops[] = {Operator::In, Operator::NotIn, Operator::Exists, Operator::DoesNotExist};
  for (int s = 0; s < 300; ++s) {
    std::vector<Requirement> requirements;
    for (std::size_t r = 0, n = 1 + pick(2); r < n; ++r) {
      Requirement req{keys[pick(keys.size())], ops[pick(4)], {}};
      if (req.op == Operator::In || req.op == Operator::NotIn) {
        for (std::size_t v = 0, nv = 1 + pick(3); v < nv; ++v) req.values.push_back(value());
        std::sort(req.values.begin(), req.values.end());  // as Requirement keeps them
        req.values.erase(std::unique(req.values.begin(), req.values.end()), req.values.end());
      }
      requirements.push_back(std::move(req));
    }
    const Selector selector = Selector::of(requirements);
    Names want;
    for (std::size_t i = 0; i < podLabels.size(); ++i) {
      if (selector.matches(podLabels[i])) want.push_back("p" + std::to_string(i));
    }
    Names got = visited(index, selector);
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());  // a pod twice stays twice, and fails the comparison
    BOOST_TEST_CONTEXT("selector " << s) {
      BOOST_TEST(got == want, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::cache
