#include "scheduling/cache/spanning_selector_memo.hpp"

#include <boost/test/unit_test.hpp>
#include <memory>
#include <string>
#include <vector>

#include "test/testing/namespace_pods.hpp"

namespace scheduling::cache {
namespace {

using labels::Operator;
using labels::Requirement;
using labels::Selector;
using ::testing::namespacePods;
using Positions = std::vector<std::uint32_t>;
using Slot = std::uint32_t;
using Slots = std::vector<Slot>;

// A namespace's index over pods with the given label sets, each on a node slot of its own
// (numbered on from every index made before), so that kept slots can be told apart.
std::shared_ptr<const NamespacePodIndex> index(const std::string& ns,
                                               const std::vector<api::Labels>& podLabels) {
  static std::uint32_t nextSlot = 0;
  auto entries = namespacePods(ns, ns + "-", podLabels, nextSlot);
  nextSlot += static_cast<std::uint32_t>(podLabels.size());
  return std::make_shared<const NamespacePodIndex>(ns, std::move(entries));
}

api::Labels labelSet(std::initializer_list<std::pair<std::string, std::string>> pairs) {
  api::Labels labels;
  for (const auto& [k, v] : pairs) labels.set(k, v);
  return labels;
}

// A snapshot's view of its namespaces, as Snapshot hands it to the memo.
struct Namespaces {
  std::vector<std::shared_ptr<const NamespacePodIndex>> held;
  std::vector<const NamespacePodIndex*> indexes;
  std::vector<std::uint64_t> serials;

  void add(std::shared_ptr<const NamespacePodIndex> index) {
    indexes.push_back(index.get());
    serials.push_back(index->serial());
    held.push_back(std::move(index));
  }
  void replace(std::size_t position, std::shared_ptr<const NamespacePodIndex> index) {
    indexes[position] = index.get();
    serials[position] = index->serial();
    held[position] = std::move(index);
  }
};

using Names = std::vector<std::string>;

Names namesOf(const NamespacePodIndex& index, const Selector& selector) {
  Names out;
  index.forEachMatching(selector, [&](const NamespacePodIndex::Entry& e) {
    out.push_back(e.pod->pod().metadata.name);
  });
  return out;
}

Slots slotsOf(const NamespacePodIndex& index, const Selector& selector) {
  Slots out;
  index.forEachMatching(selector,
                        [&](const NamespacePodIndex::Entry& e) { out.push_back(e.slot); });
  return out;
}

// The positions the memo visits; each with a plan that walks the pods the index's own
// forEachMatching finds, and kept slots (`slotsKept` says whether there must be some) that
// are those pods' slots, whether the memo planned it now or kept it from an earlier request.
Positions candidates(SpanningSelectorMemo& memo, const Selector& selector, const Namespaces& n,
                     bool slotsKept = true) {
  Positions out;
  memo.forEachCandidate(
      selector, nullptr, n.indexes, n.serials,
      [&](std::uint32_t p, const NamespacePodIndex::Plan& plan,
          std::span<const NamespacePodIndex::Range> ranges, const std::span<const Slot>* slots) {
        out.push_back(p);
        BOOST_TEST_REQUIRE(plan.endRange <= ranges.size());
        Names walked;
        n.indexes[p]->forEachMatching(plan, ranges, selector,
                                      [&](const NamespacePodIndex::Entry& e) {
                                        walked.push_back(e.pod->pod().metadata.name);
                                      });
        BOOST_TEST(walked == namesOf(*n.indexes[p], selector), boost::test_tools::per_element());
        BOOST_TEST_REQUIRE((slots != nullptr) == slotsKept);
        if (slots != nullptr) {
          BOOST_TEST(Slots(slots->begin(), slots->end()) == slotsOf(*n.indexes[p], selector),
                     boost::test_tools::per_element());
        }
      });
  return out;
}

// The positions whose index holds a pod `selector` matches: what the memo must answer for a
// selector of one `In` requirement, whose plan exists exactly where its value has pods.
Positions holdingMatches(const Selector& selector, const Namespaces& n) {
  Positions out;
  for (std::uint32_t i = 0; i < n.indexes.size(); ++i) {
    if (!namesOf(*n.indexes[i], selector).empty()) out.push_back(i);
  }
  return out;
}

Namespaces threeNamespaces() {
  Namespaces n;
  n.add(index("a", {labelSet({{"tier", "batch"}}), labelSet({{"tier", "web"}})}));
  n.add(index("b", {labelSet({{"app", "db"}})}));
  n.add(index("c", {labelSet({{"tier", "batch"}, {"app", "db"}})}));
  n.add(index("d", {}));
  return n;
}

// Named apart from snapshot_test.cpp's `in`: the unity build may put both files in one batch.
Selector selectorIn(std::string key, std::vector<std::string> values) {
  return Selector::of({Requirement{std::move(key), Operator::In, std::move(values)}});
}

struct MemoCase {
  const char* name;
  Selector selector;
  Positions want;
};

BOOST_AUTO_TEST_SUITE(spanning_selector_memo)

BOOST_AUTO_TEST_CASE(candidates_are_the_namespaces_that_may_match) {
  const std::vector<MemoCase> cases = {
      {"a value some namespaces hold", selectorIn("tier", {"batch"}), {0, 2}},
      {"one of several values", selectorIn("tier", {"web", "none"}), {0}},
      {"a value none holds", selectorIn("tier", {"none"}), {}},
      {"a key", Selector::of({Requirement{"app", Operator::Exists, {}}}), {1, 2}},
      {"both keys",
       Selector::of({Requirement{"app", Operator::Exists, {}},
                     Requirement{"tier", Operator::In, {"batch"}}}),
       {2}},
      {"only a negative requirement: every namespace with pods",
       Selector::of({Requirement{"tier", Operator::NotIn, {"batch"}}}),
       {0, 1, 2}},
      {"everything", Selector::everything(), {0, 1, 2}},
      {"nothing", Selector::nothing(), {}},
  };
  const Namespaces n = threeNamespaces();
  SpanningSelectorMemo memo;
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      BOOST_TEST(candidates(memo, c.selector, n) == c.want, boost::test_tools::per_element());
      // Asked again, the remembered answer is the same.
      BOOST_TEST(candidates(memo, c.selector, n) == c.want, boost::test_tools::per_element());
    }
  }
  BOOST_TEST(memo.size() == cases.size());
}

// The memo never trusts an entry: each change below is one a later snapshot brings.
BOOST_AUTO_TEST_CASE(an_index_rebuilt_or_moved_is_probed_again) {
  const Selector batch = selectorIn("tier", {"batch"});
  Namespaces n = threeNamespaces();
  SpanningSelectorMemo memo;
  BOOST_TEST(candidates(memo, batch, n) == Positions({0, 2}), boost::test_tools::per_element());

  // "b" gains a batch pod, "c" loses its one: same positions, new indexes.
  n.replace(1, index("b", {labelSet({{"tier", "batch"}})}));
  n.replace(2, index("c", {labelSet({{"app", "db"}})}));
  BOOST_TEST(candidates(memo, batch, n) == Positions({0, 1}), boost::test_tools::per_element());

  // A namespace sorted first moves every position; one removed keeps the count equal.
  Namespaces moved;
  moved.add(index("0", {labelSet({{"tier", "batch"}})}));
  for (std::size_t i = 0; i < 3; ++i) moved.add(n.held[i]);
  BOOST_TEST(candidates(memo, batch, moved) == holdingMatches(batch, moved),
             boost::test_tools::per_element());
  BOOST_TEST(candidates(memo, batch, moved) == Positions({0, 1, 2}),
             boost::test_tools::per_element());

  // An older snapshot asking after a newer one still gets its own answer.
  const Namespaces old = threeNamespaces();
  BOOST_TEST(candidates(memo, batch, old) == Positions({0, 2}), boost::test_tools::per_element());
}

// With a list of namespaces, only theirs: each list its own entry beside the spanning one.
BOOST_AUTO_TEST_CASE(candidates_of_listed_namespaces) {
  const Namespaces n = threeNamespaces();
  const Selector batch = selectorIn("tier", {"batch"});
  SpanningSelectorMemo memo;
  const auto listed = [&](const std::vector<std::string>& namespaces) {
    Positions out;
    memo.forEachCandidate(batch, &namespaces, n.indexes, n.serials,
                          [&](std::uint32_t p, const NamespacePodIndex::Plan&,
                              std::span<const NamespacePodIndex::Range>,
                              const std::span<const Slot>*) { out.push_back(p); });
    return out;
  };
  BOOST_TEST(candidates(memo, batch, n) == Positions({0, 2}), boost::test_tools::per_element());
  BOOST_TEST(listed({"a", "c"}) == Positions({0, 2}), boost::test_tools::per_element());
  BOOST_TEST(listed({"c", "d", "x"}) == Positions({2}), boost::test_tools::per_element());
  BOOST_TEST(listed({"b"}).empty());
  BOOST_TEST(listed({}).empty());
  BOOST_TEST(listed({"c", "d", "x"}) == Positions({2}), boost::test_tools::per_element());
  BOOST_TEST(memo.size() == 5U);
}

// A kept plan's ranges move within the entry when a namespace before it plans again with
// fewer ranges: they must still name the postings of its own index.
BOOST_AUTO_TEST_CASE(a_kept_plan_walks_its_own_pods_after_one_before_it_changed) {
  const Selector batchOrWeb = selectorIn("tier", {"batch", "web"});
  // In each, the selector's pods are fewer than all, so that its plan walks postings ranges:
  // "a" two (one per value), "c" one.
  Namespaces n;
  n.add(index("a", {labelSet({{"tier", "batch"}}), labelSet({{"tier", "web"}}), {}}));
  n.add(index("b", {labelSet({{"app", "db"}})}));
  n.add(index("c", {labelSet({{"tier", "batch"}}), labelSet({{"app", "db"}})}));
  SpanningSelectorMemo memo;
  BOOST_TEST(candidates(memo, batchOrWeb, n) == Positions({0, 2}),
             boost::test_tools::per_element());
  n.replace(0, index("a", {labelSet({{"tier", "batch"}}), {}}));  // one range now
  BOOST_TEST(candidates(memo, batchOrWeb, n) == Positions({0, 2}),
             boost::test_tools::per_element());
}

// Past kMaxSlotsPerEntry an entry keeps plans only; once the pods are fewer again, slots.
BOOST_AUTO_TEST_CASE(slots_are_kept_up_to_the_bound) {
  const Selector batch = selectorIn("tier", {"batch"});
  Namespaces n = threeNamespaces();
  const std::vector<api::Labels> many(SpanningSelectorMemo::kMaxSlotsPerEntry,
                                      labelSet({{"tier", "batch"}}));
  n.add(index("e", many));  // with "a" and "c", two pods too many
  SpanningSelectorMemo memo;
  BOOST_TEST(candidates(memo, batch, n, false) == Positions({0, 2, 4}),
             boost::test_tools::per_element());
  // "e" loses two pods, and all fit: "a" and "c" are kept plans whose slots are walked now.
  n.replace(4, index("e", std::vector(many.begin() + 2, many.end())));
  BOOST_TEST(candidates(memo, batch, n) == Positions({0, 2, 4}), boost::test_tools::per_element());
  // And "b" gains one: the kept slots are copied, its own walked.
  n.replace(1, index("b", {labelSet({{"tier", "batch"}})}));
  n.replace(4, index("e", std::vector(many.begin() + 3, many.end())));
  BOOST_TEST(candidates(memo, batch, n) == Positions({0, 1, 2, 4}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(distinct_selectors_are_bounded) {
  const Namespaces n = threeNamespaces();
  SpanningSelectorMemo memo;
  for (std::size_t i = 0; i < SpanningSelectorMemo::kMaxEntries + 10; ++i) {
    const Selector s = selectorIn("tier", {std::to_string(i)});
    BOOST_TEST_REQUIRE(candidates(memo, s, n).empty());
    BOOST_TEST_REQUIRE(memo.size() <= SpanningSelectorMemo::kMaxEntries);
  }
  // Still right for a selector asked before the memo forgot everything.
  BOOST_TEST(candidates(memo, selectorIn("tier", {"batch"}), n) == Positions({0, 2}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::cache
