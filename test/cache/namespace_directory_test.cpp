#include "scheduling/cache/namespace_directory.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

namespace scheduling::cache {
namespace {

using labels::Operator;
using labels::Requirement;
using labels::Selector;
using Strings = std::vector<std::string>;

NamespaceDirectory::Labels cluster() {
  return {{"batch-a", {{"team", "batch"}, {"env", "prod"}}},
          {"batch-b", {{"team", "batch"}}},
          {"default", {}},
          {"shop-dev", {{"team", "shop"}, {"env", "dev"}}},
          {"shop-prod", {{"team", "shop"}, {"env", "prod"}, {"pci", ""}}}};
}

Strings matching(const NamespaceDirectory& directory, const Selector& selector) {
  Strings out;
  directory.forEachMatching(selector, [&](const std::string& name) { out.push_back(name); });
  return out;
}

// What the index must reproduce: every namespace's labels tested in name order.
Strings testingEach(const NamespaceDirectory& directory, const Selector& selector) {
  Strings out;
  if (selector.isNothing()) return out;
  for (const auto& [name, labels] : directory.all()) {
    if (selector.matches(labels)) out.push_back(name);
  }
  return out;
}

struct DirectoryCase {
  const char* name;
  Selector selector;
  Strings want;
};

BOOST_AUTO_TEST_CASE(a_namespace_selector_resolves_to_the_namespaces_its_labels_admit) {
  const NamespaceDirectory directory(cluster());
  const auto of = [](std::vector<Requirement> r) { return Selector::of(std::move(r)); };
  const DirectoryCase cases[] = {
      {"one value", of({{"team", Operator::In, {"shop"}}}), {"shop-dev", "shop-prod"}},
      {"two values, in name order",
       of({{"team", Operator::In, {"batch", "shop"}}}),
       {"batch-a", "batch-b", "shop-dev", "shop-prod"}},
      {"the smaller requirement narrows, the other still checked",
       of({{"env", Operator::In, {"prod"}}, {"team", Operator::In, {"shop"}}}),
       {"shop-prod"}},
      {"an empty value", of({{"pci", Operator::In, {""}}}), {"shop-prod"}},
      {"exists", of({{"env", Operator::Exists, {}}}), {"batch-a", "shop-dev", "shop-prod"}},
      {"a key no namespace has", of({{"owner", Operator::In, {"x"}}}), {}},
      {"a value no namespace has", of({{"team", Operator::In, {"infra"}}}), {}},
      {"only negative requirements test every namespace",
       of({{"team", Operator::NotIn, {"batch"}}}),
       {"default", "shop-dev", "shop-prod"}},
      {"does not exist", of({{"team", Operator::DoesNotExist, {}}}), {"default"}},
      {"exists and not in",
       of({{"env", Operator::Exists, {}}, {"env", Operator::NotIn, {"dev"}}}),
       {"batch-a", "shop-prod"}},
      {"everything",
       Selector::everything(),
       {"batch-a", "batch-b", "default", "shop-dev", "shop-prod"}},
      {"nothing", Selector::nothing(), {}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      BOOST_TEST(matching(directory, c.selector) == c.want, boost::test_tools::per_element());
      BOOST_TEST(matching(directory, c.selector) == testingEach(directory, c.selector),
                 boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(a_selector_asked_again_is_answered_from_the_memo_which_stays_bounded) {
  const NamespaceDirectory directory(cluster());
  const Selector shop = Selector::of({{"team", Operator::In, {"shop"}}});
  const Selector notBatch = Selector::of({{"team", Operator::NotIn, {"batch"}}});
  BOOST_TEST(directory.memoSize() == 0u);
  for (int round = 0; round < 2; ++round) {
    BOOST_TEST_CONTEXT("round " << round) {
      BOOST_TEST(matching(directory, shop) == (Strings{"shop-dev", "shop-prod"}),
                 boost::test_tools::per_element());
      BOOST_TEST(matching(directory, notBatch) == (Strings{"default", "shop-dev", "shop-prod"}),
                 boost::test_tools::per_element());
      BOOST_TEST(directory.memoSize() == 2u);
    }
  }
  // Selectors that differ only in a value are different answers, and a stream of them is
  // forgotten at the bound rather than kept.
  for (std::size_t i = 0; i <= NamespaceDirectory::kMaxMemoEntries; ++i) {
    const Selector one = Selector::of({{"team", Operator::In, {"t" + std::to_string(i)}}});
    BOOST_TEST_REQUIRE(matching(directory, one).empty());
  }
  BOOST_TEST(directory.memoSize() <= NamespaceDirectory::kMaxMemoEntries);
  BOOST_TEST(matching(directory, shop) == (Strings{"shop-dev", "shop-prod"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(labels_of_a_known_and_an_unknown_namespace) {
  const NamespaceDirectory directory(cluster());
  BOOST_TEST_REQUIRE(directory.labelsOf("shop-dev") != nullptr);
  BOOST_TEST(directory.labelsOf("shop-dev")->size() == 2u);
  BOOST_TEST(directory.labelsOf("kube-system") == nullptr);
}

}  // namespace
}  // namespace scheduling::cache
