#include "scheduling/cache/snapshot.hpp"

#include <boost/test/unit_test.hpp>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "scheduling/cache/cache.hpp"
#include "test/testing/wrappers.hpp"

namespace scheduling::cache {
namespace {

using framework::AffinityTerm;
using framework::TermKind;
using labels::Operator;
using labels::Requirement;
using labels::Selector;
using ::testing::kRequiredReq;
using ::testing::MakeNode;
using ::testing::MakePod;
using Strings = std::vector<std::string>;

using ::testing::kHostname;
using ::testing::kZone;

AffinityTerm term(Selector selector, Strings namespaces,
                  Selector namespaceSelector = Selector::nothing()) {
  return AffinityTerm{std::move(selector), std::move(namespaces), std::move(namespaceSelector),
                      kHostname};
}

Selector in(std::string key, Strings values) {
  return Selector::of({Requirement{std::move(key), Operator::In, std::move(values)}});
}

// "pod@node" for every pod the index yields, sorted. Checks on the way that the batched
// walk (forEachNodeOfPodMatching) yields these pods' nodes, as often as they hold one.
Strings matching(const Snapshot& snapshot, const AffinityTerm& t) {
  Strings out;
  std::vector<framework::NodeSlot> podNodes;
  snapshot.forEachPodMatching(t, [&](const framework::PodInfo& pod, framework::NodeSlot slot) {
    const framework::NodeInfo* node = snapshot.nodeInfoAt(slot);
    BOOST_TEST_REQUIRE(node != nullptr, "a slot this snapshot does not hold");
    out.push_back(pod.pod().metadata.name + "@" + node->name());
    podNodes.push_back(slot);
  });
  std::vector<framework::NodeSlot> batchedNodes;
  snapshot.forEachNodeOfPodMatching(t, [&](std::span<const framework::NodeSlot> slots) {
    BOOST_TEST(!slots.empty(), "an empty batch");
    batchedNodes.insert(batchedNodes.end(), slots.begin(), slots.end());
  });
  std::sort(podNodes.begin(), podNodes.end());
  std::sort(batchedNodes.begin(), batchedNodes.end());
  BOOST_TEST(batchedNodes == podNodes, boost::test_tools::per_element());
  std::sort(out.begin(), out.end());
  return out;
}

// The same by walking every pod of every node: the semantics the index must reproduce.
Strings bruteForceMatching(const framework::SharedLister& lister, const AffinityTerm& t) {
  Strings out;
  for (const auto* node : lister.nodeInfoList()) {
    for (const auto& pod : node->pods()) {
      if (t.matches(pod->pod(), {})) out.push_back(pod->pod().metadata.name + "@" + node->name());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// One existing-term group: the term, its weight and node → count.
struct Group {
  AffinityTerm term;
  std::int32_t weight;
  std::map<std::string, std::int64_t> nodes;
  bool operator==(const Group&) const = default;
};

std::vector<Group> existingTerms(const Snapshot& lister, TermKind kind) {
  std::vector<Group> out;
  lister.forEachExistingTerm(kind, [&](const AffinityTerm& t, std::int32_t weight,
                                       std::span<const framework::NodeTermCount> nodes) {
    Group group{t, weight, {}};
    for (const auto& n : nodes) {
      BOOST_TEST(n.count > 0);
      const framework::NodeInfo* node = lister.nodeInfoAt(n.slot);
      BOOST_TEST_REQUIRE(node != nullptr, "a slot without a node in the snapshot");
      BOOST_TEST(node->slot() == n.slot);
      BOOST_TEST(group.nodes.count(node->name()) == 0u, "node listed twice in a group");
      group.nodes[node->name()] = n.count;
    }
    out.push_back(std::move(group));
  });
  return out;
}

std::vector<framework::WeightedAffinityTerm> termsOf(const framework::PodInfo& pod, TermKind kind) {
  std::vector<framework::WeightedAffinityTerm> out;
  switch (kind) {
    case TermKind::RequiredAffinity:
      for (const auto& t : pod.requiredAffinityTerms()) out.push_back({t, 0});
      break;
    case TermKind::RequiredAntiAffinity:
      for (const auto& t : pod.requiredAntiAffinityTerms()) out.push_back({t, 0});
      break;
    case TermKind::PreferredAffinity:
      out = pod.preferredAffinityTerms();
      break;
    case TermKind::PreferredAntiAffinity:
      out = pod.preferredAntiAffinityTerms();
      break;
  }
  return out;
}

std::vector<Group> bruteForceExistingTerms(const framework::SharedLister& lister, TermKind kind) {
  std::vector<Group> out;
  for (const auto* node : lister.nodeInfoList()) {
    for (const auto& pod : node->pods()) {
      for (const auto& wt : termsOf(*pod, kind)) {
        auto it = std::find_if(out.begin(), out.end(), [&](const Group& g) {
          return g.term == wt.term && g.weight == wt.weight;
        });
        if (it == out.end()) it = out.insert(out.end(), Group{wt.term, wt.weight, {}});
        ++it->nodes[node->name()];
      }
    }
  }
  return out;
}

// Same groups, whatever their order.
bool sameGroups(const std::vector<Group>& got, const std::vector<Group>& want) {
  if (got.size() != want.size()) return false;
  return std::all_of(want.begin(), want.end(),
                     [&](const Group& g) { return std::count(got.begin(), got.end(), g) == 1; });
}

BOOST_AUTO_TEST_SUITE(snapshot)

// A small cluster for the table tests: n1, n2 real; pods in ns1 and ns2; one pod on a ghost.
std::shared_ptr<const Snapshot> smallCluster(Cache& cache) {
  cache.upsertNode(MakeNode().name("n1").obj());
  cache.upsertNode(MakeNode().name("n2").obj());
  cache.upsertPod(MakePod()
                      .name("a")
                      .ns("ns1")
                      .uid("a")
                      .label("app", "web")
                      .label("tier", "fe")
                      .node("n1")
                      .obj());
  cache.upsertPod(MakePod().name("b").ns("ns1").uid("b").label("app", "db").node("n2").obj());
  cache.upsertPod(MakePod().name("c").ns("ns2").uid("c").label("app", "web").node("n2").obj());
  cache.upsertPod(MakePod().name("d").ns("ns2").uid("d").node("n1").obj());
  cache.upsertPod(MakePod().name("g").ns("ns1").uid("g").label("app", "web").node("gone").obj());
  cache.publish();
  return cache.snapshot();
}

struct MatchCase {
  std::string name;
  AffinityTerm term;
  Strings want;
};

BOOST_AUTO_TEST_CASE(for_each_pod_matching) {
  Cache cache;
  auto snapshot = smallCluster(cache);
  const Selector negativeOnly = Selector::of({Requirement{"team", Operator::DoesNotExist, {}}});
  const std::vector<MatchCase> tests = {
      {"nothing selector matches no pod", term(Selector::nothing(), {"ns1", "ns2"}), {}},
      {"everything selector matches the listed namespaces",
       term(Selector::everything(), {"ns1"}),
       {"a@n1", "b@n2"}},
      {"in with one value", term(in("app", {"web"}), {"ns1", "ns2"}), {"a@n1", "c@n2"}},
      {"in with several values", term(in("app", {"db", "web"}), {"ns1"}), {"a@n1", "b@n2"}},
      {"in on a key nobody has", term(in("zz", {"web"}), {"ns1", "ns2"}), {}},
      {"exists",
       term(Selector::of({Requirement{"tier", Operator::Exists, {}}}), {"ns1"}),
       {"a@n1"}},
      {"not in only walks every pod",
       term(Selector::of({Requirement{"app", Operator::NotIn, {"web"}}}), {"ns1", "ns2"}),
       {"b@n2", "d@n1"}},
      {"the and of in and not in",
       term(Selector::of({Requirement{"app", Operator::In, {"web"}},
                          Requirement{"tier", Operator::NotIn, {"fe"}}}),
            {"ns1", "ns2"}),
       {"c@n2"}},
      {"no namespaces and a nothing namespace selector", term(in("app", {"web"}), {}), {}},
      {"unknown namespace", term(in("app", {"web"}), {"ns9"}), {}},
      {"everything namespace selector covers every namespace",
       term(in("app", {"web"}), {}, Selector::everything()),
       {"a@n1", "c@n2"}},
      {"a namespace selector that admits empty labels covers every namespace",
       term(in("app", {"web"}), {}, negativeOnly),
       {"a@n1", "c@n2"}},
      {"a namespace selector that needs labels leaves the listed namespaces",
       term(in("app", {"web"}), {"ns2"}, in("team", {"x"})),
       {"c@n2"}},
  };
  for (const auto& test : tests) {
    BOOST_TEST_CONTEXT(test.name) {
      BOOST_TEST(matching(*snapshot, test.term) == test.want, boost::test_tools::per_element());
      BOOST_TEST(matching(*snapshot, test.term) == bruteForceMatching(*snapshot, test.term),
                 boost::test_tools::per_element());
    }
  }
}

// More matching pods than one batch of forEachNodeOfPodMatching holds, across namespaces and
// with ghosts' pods among them: every real node's pod in some batch, once.
BOOST_AUTO_TEST_CASE(nodes_of_pods_matching_in_batches) {
  Cache cache;
  for (int n = 0; n < 7; ++n) cache.upsertNode(MakeNode().name("n" + std::to_string(n)).obj());
  constexpr int kPods = 1300;
  for (int i = 0; i < kPods; ++i) {
    const std::string name = "p" + std::to_string(i);
    cache.upsertPod(MakePod()
                        .name(name)
                        .ns(i % 3 == 0 ? "ns1" : "ns2")
                        .uid(name)
                        .label("app", "web")
                        .node(i % 13 == 0 ? "ghost" : "n" + std::to_string(i % 7))
                        .obj());
  }
  cache.publish();
  const auto snapshot = cache.snapshot();
  for (const auto& t : {term(in("app", {"web"}), {"ns1", "ns2"}),
                        term(in("app", {"web"}), {}, Selector::everything())}) {
    const Strings pods = matching(*snapshot, t);  // checks the batches against these
    BOOST_TEST(pods.size() == static_cast<std::size_t>(kPods - (kPods + 12) / 13));
  }
}

// A term listing many namespaces (as a namespaceSelector resolves to) goes through the memo
// of planned namespaces: it still walks only the namespaces listed, the overlays of small
// changes included, before and after those changes.
BOOST_AUTO_TEST_CASE(a_term_listing_many_namespaces) {
  Cache cache;
  cache.upsertNode(MakeNode().name("n1").obj());
  cache.upsertNode(MakeNode().name("n2").obj());
  Strings listed;
  for (int i = 0; i < 24; ++i) {
    const std::string ns = "ns" + std::to_string(10 + i);
    if (i % 4 != 1) listed.push_back(ns);
    for (int p = 0; p < 3; ++p) {
      const std::string name = ns + "-" + std::to_string(p);
      cache.upsertPod(MakePod()
                          .name(name)
                          .ns(ns)
                          .uid(name)
                          .label("app", p == 2 ? "db" : "web")
                          .node(p == 0 ? "n1" : "n2")
                          .obj());
    }
  }
  BOOST_TEST_REQUIRE(listed.size() >= Snapshot::kListedNamespacesForMemo);
  const AffinityTerm t = term(in("app", {"web"}), listed);
  cache.publish();
  auto snapshot = cache.snapshot();
  BOOST_TEST(matching(*snapshot, t).size() == 2 * listed.size());
  BOOST_TEST(matching(*snapshot, t) == bruteForceMatching(*snapshot, t),
             boost::test_tools::per_element());

  // Small changes, in a listed namespace and in one not listed, served as overlays.
  cache.upsertPod(MakePod().name("new").ns("ns10").uid("new").label("app", "web").node("n1").obj());
  cache.upsertPod(MakePod().name("out").ns("ns11").uid("out").label("app", "web").node("n1").obj());
  cache.deletePod("ns12-0");
  cache.publish();
  snapshot = cache.snapshot();
  BOOST_TEST(matching(*snapshot, t).size() == 2 * listed.size());
  BOOST_TEST(matching(*snapshot, t) == bruteForceMatching(*snapshot, t),
             boost::test_tools::per_element());
}

// The names of a request found together, in node order or not, with unknown names and
// repeats: each as getNodeInfo finds it alone.
BOOST_AUTO_TEST_CASE(node_infos_of_a_request_as_found_one_by_one) {
  Cache cache;
  // More nodes than a block of names the snapshot resolves at once (256).
  for (int i = 0; i < 600; ++i) {
    cache.upsertNode(
        MakeNode().name("n" + std::to_string(i)).label(kZone, "z" + std::to_string(i % 2)).obj());
  }
  cache.publish();
  const auto snapshot = cache.snapshot();
  Strings inOrder;
  for (const auto* node : snapshot->nodeInfoList()) inOrder.push_back(node->name());
  Strings reversed(inOrder.rbegin(), inOrder.rend());
  Strings rotated(inOrder.begin() + 250, inOrder.end());
  rotated.insert(rotated.end(), inOrder.begin(), inOrder.begin() + 250);
  Strings sampled;
  for (std::size_t i = 0; i < inOrder.size(); i += 3) sampled.push_back(inOrder[i]);
  const std::vector<Strings> requests = {
      inOrder,
      reversed,
      rotated,
      sampled,
      {inOrder[0], "unknown", inOrder[1], inOrder[1], "", inOrder[5], inOrder[0]},
      {},
  };
  for (const auto& names : requests) {
    const std::vector<std::string_view> views(names.begin(), names.end());
    std::vector<const framework::NodeInfo*> found(views.size());
    snapshot->getNodeInfos(views, found);
    for (std::size_t i = 0; i < views.size(); ++i) {
      BOOST_TEST(found[i] == snapshot->getNodeInfo(views[i]), "name " << i << " " << views[i]);
    }
  }
}

BOOST_AUTO_TEST_CASE(unknown_namespace_and_node_lookups) {
  Cache cache;
  auto snapshot = smallCluster(cache);
  BOOST_TEST(snapshot->namespaceLabels("nope").empty());
  BOOST_TEST(snapshot->nominatedPodsForNode("n1").empty());
  BOOST_TEST(snapshot->getNodeInfo("gone") == nullptr);
  BOOST_TEST(snapshot->getNodeInfo("n2")->name() == "n2");
}

BOOST_AUTO_TEST_CASE(existing_terms_grouped_with_per_node_counts) {
  Cache cache;
  // Node order n1 n3 n2 (zones round-robin), unlike the order they were added in.
  cache.upsertNode(MakeNode().name("n1").label(kZone, "a").obj());
  cache.upsertNode(MakeNode().name("n2").label(kZone, "a").obj());
  cache.upsertNode(MakeNode().name("n3").label(kZone, "b").obj());
  // p1 lists the same term twice; p2 and p3 share it; p4 has the same selector in another
  // namespace (so its term differs); the ghost pod does not count.
  cache.upsertPod(MakePod()
                      .name("p1")
                      .ns("ns")
                      .uid("1")
                      .node("n2")
                      .podAntiAffinityIn("app", kHostname, {"x"}, kRequiredReq)
                      .podAntiAffinityIn("app", kHostname, {"x"}, kRequiredReq)
                      .obj());
  cache.upsertPod(MakePod()
                      .name("p2")
                      .ns("ns")
                      .uid("2")
                      .node("n2")
                      .podAntiAffinityIn("app", kHostname, {"x"}, kRequiredReq)
                      .obj());
  cache.upsertPod(MakePod()
                      .name("p3")
                      .ns("ns")
                      .uid("3")
                      .node("n3")
                      .podAntiAffinityIn("app", kHostname, {"x"}, kRequiredReq)
                      .obj());
  cache.upsertPod(MakePod()
                      .name("p4")
                      .ns("other")
                      .uid("4")
                      .node("n1")
                      .podAntiAffinityIn("app", kHostname, {"x"}, kRequiredReq)
                      .obj());
  cache.upsertPod(MakePod()
                      .name("p5")
                      .ns("ns")
                      .uid("5")
                      .node("ghost")
                      .podAntiAffinityIn("app", kHostname, {"x"}, kRequiredReq)
                      .obj());
  cache.upsertPod(MakePod()
                      .name("p6")
                      .ns("ns")
                      .uid("6")
                      .node("ghost2")
                      .podAffinityIn("app", kZone, {"y"}, kRequiredReq)
                      .obj());
  cache.publish();
  auto snapshot = cache.snapshot();

  const AffinityTerm inNs{in("app", {"x"}), {"ns"}, Selector::nothing(), kHostname};
  const AffinityTerm inOther{in("app", {"x"}), {"other"}, Selector::nothing(), kHostname};
  const std::vector<Group> want = {{inNs, 0, {{"n2", 3}, {"n3", 1}}}, {inOther, 0, {{"n1", 1}}}};
  const auto got = existingTerms(*snapshot, TermKind::RequiredAntiAffinity);
  BOOST_TEST(sameGroups(got, want));
  // A group whose pods are all on ghosts is left out.
  BOOST_TEST(existingTerms(*snapshot, TermKind::RequiredAffinity).empty());

  // Nodes of a group come in node order.
  std::vector<std::string> order;
  snapshot->forEachExistingTerm(
      TermKind::RequiredAntiAffinity,
      [&](const AffinityTerm& t, std::int32_t, std::span<const framework::NodeTermCount> nodes) {
        if (t != inNs) return;
        for (const auto& n : nodes) order.push_back(snapshot->nodeInfoAt(n.slot)->name());
      });
  BOOST_TEST((order == Strings{"n3", "n2"}));
}

// Seeded random clusters, mutated and published several times: the indexes must give
// exactly what a walk over nodeInfoList() gives.
class ClusterGenerator {
 public:
  explicit ClusterGenerator(std::uint32_t seed) : rng_(seed) {}

  int uniform(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  bool chance(int percent) { return uniform(100) < percent; }
  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[uniform(static_cast<int>(v.size()))];
  }

  std::string node() { return "n" + std::to_string(uniform(kNodes)); }
  std::string ns() { return pick(kNamespaces); }

  api::Labels labels() {
    api::Labels l;
    for (const auto& key : kKeys) {
      if (chance(60)) l.set(key, pick(kValues));
    }
    return l;
  }

  api::LabelSelector labelSelector() {
    api::LabelSelector s;
    const int n = uniform(3);
    for (int i = 0; i < n; ++i) {
      if (chance(30)) {
        // Named first: the order of evaluating function arguments is unspecified.
        std::string key = pick(kKeys);
        s.matchLabels.set(std::move(key), pick(kValues));
        continue;
      }
      static const Strings ops = {"In", "NotIn", "Exists", "DoesNotExist"};
      api::LabelSelectorRequirement r{pick(kKeys), pick(ops), {}};
      if (r.op == "In" || r.op == "NotIn") {
        const int values = 1 + uniform(2);
        for (int v = 0; v < values; ++v) r.values.push_back(pick(kValues));
      }
      s.matchExpressions.push_back(std::move(r));
    }
    return s;
  }

  std::optional<api::LabelSelector> optionalSelector() {
    if (chance(10)) return std::nullopt;
    return labelSelector();
  }

  api::PodAffinityTerm podAffinityTerm() {
    api::PodAffinityTerm t;
    t.labelSelector = optionalSelector();
    if (chance(30)) {
      const int n = 1 + uniform(2);
      for (int i = 0; i < n; ++i) t.namespaces.push_back(ns());
    }
    if (chance(25)) t.namespaceSelector = chance(50) ? api::LabelSelector{} : labelSelector();
    t.topologyKey = chance(50) ? kHostname : kZone;
    return t;
  }

  api::PodAffinity podAffinity() {
    api::PodAffinity a;
    const int required = uniform(3);
    for (int i = 0; i < required; ++i) {
      // Reuse the previous term sometimes, so that pods share and repeat terms.
      if (i > 0 && chance(30)) {
        a.requiredDuringSchedulingIgnoredDuringExecution.push_back(
            a.requiredDuringSchedulingIgnoredDuringExecution.back());
      } else {
        a.requiredDuringSchedulingIgnoredDuringExecution.push_back(pick(termPool_));
      }
    }
    const int preferred = uniform(3);
    for (int i = 0; i < preferred; ++i) {
      a.preferredDuringSchedulingIgnoredDuringExecution.push_back(
          {1 + uniform(3), pick(termPool_)});
    }
    return a;
  }

  api::Pod pod(int uid) {
    auto builder = MakePod().name("p" + std::to_string(uid)).uid(std::to_string(uid)).ns(ns());
    for (const auto& [k, v] : labels()) builder.label(std::string(k), std::string(v));
    if (chance(90)) {
      builder.node(chance(10) ? "ghost" + std::to_string(uniform(3)) : node());
    } else {
      builder.nominatedNodeName(node());
    }
    if (chance(50)) builder.affinity(api::Affinity{podAffinity(), podAffinity()});
    if (chance(5)) builder.phase("Succeeded");
    return builder.obj();
  }

  api::Node makeNode(const std::string& name) {
    auto builder = MakeNode().name(name).label(kZone, "z" + std::to_string(uniform(3)));
    if (chance(90)) builder.label(kHostname, name);
    return builder.obj();
  }

  // A pool of raw terms, so that generated pods share identical terms.
  void fillTermPool() {
    for (int i = 0; i < 12; ++i) termPool_.push_back(podAffinityTerm());
  }

  AffinityTerm queryTerm() {
    std::vector<std::string> errors;
    auto selector = labels::fromLabelSelector(optionalSelector(), errors);
    Strings namespaces;
    const int n = uniform(3);
    for (int i = 0; i < n; ++i) namespaces.push_back(ns());
    std::sort(namespaces.begin(), namespaces.end());
    namespaces.erase(std::unique(namespaces.begin(), namespaces.end()), namespaces.end());
    Selector namespaceSelector = Selector::nothing();
    if (chance(20))
      namespaceSelector = Selector::everything();
    else if (chance(15)) {
      namespaceSelector = *labels::fromLabelSelector(labelSelector(), errors);
    }
    return AffinityTerm{selector ? *selector : Selector::nothing(), namespaces, namespaceSelector,
                        kHostname};
  }

  static constexpr int kNodes = 12;

 private:
  inline static const Strings kNamespaces = {"ns0", "ns1", "ns2", "ns3"};
  inline static const Strings kKeys = {"app", "tier", "env"};
  inline static const Strings kValues = {"a", "b", "c", ""};

  std::mt19937 rng_;
  std::vector<api::PodAffinityTerm> termPool_;
};

// A term may select a pod of namespace `ns` with `podLabels`: its selector matches them, and
// it lists the namespace or has a namespaceSelector (which some namespace labels may match).
bool maySelect(const AffinityTerm& t, std::string_view ns, const api::Labels& podLabels) {
  return t.selector.matches(podLabels) && (t.hasNamespace(ns) || !t.namespaceSelector.isNothing());
}

// The groups forEachExistingTermSelecting hands over for a pod of `ns` with `podLabels` that
// may select it; each must come at most once.
std::vector<Group> selectingTerms(const Snapshot& lister, TermKind kind, std::string_view ns,
                                  const api::Labels& podLabels) {
  std::vector<Group> out;
  lister.forEachExistingTermSelecting(kind, ns, podLabels,
                                      [&](const AffinityTerm& t, std::int32_t weight,
                                          std::span<const framework::NodeTermCount> nodes) {
                                        if (!maySelect(t, ns, podLabels)) return;
                                        Group g{t, weight, {}};
                                        for (const auto& n : nodes)
                                          g.nodes[lister.nodeInfoAt(n.slot)->name()] += n.count;
                                        out.push_back(std::move(g));
                                      });
  return out;
}

std::vector<Group> selectingBruteForce(const framework::SharedLister& lister, TermKind kind,
                                       std::string_view ns, const api::Labels& podLabels) {
  std::vector<Group> out = bruteForceExistingTerms(lister, kind);
  std::erase_if(out, [&](const Group& g) { return !maySelect(g.term, ns, podLabels); });
  return out;
}

// Every pod nominated to one of the generator's nodes, whether the node is there or not.
std::vector<const framework::PodInfo*> nominatedPods(const framework::SharedLister& lister) {
  std::vector<const framework::PodInfo*> out;
  for (int i = 0; i < ClusterGenerator::kNodes; ++i) {
    for (const auto& p : lister.nominatedPodsForNode("n" + std::to_string(i))) {
      out.push_back(p.info.get());
    }
  }
  return out;
}

// The nominated pods the index yields for `t`, by name, sorted, and the same by brute force.
Strings nominatedMatching(const framework::SharedLister& lister, const AffinityTerm& t) {
  Strings out;
  lister.forEachNominatedPodMatching(
      t, [&](const framework::PodInfo& pod) { out.push_back(pod.pod().metadata.name); });
  std::sort(out.begin(), out.end());
  return out;
}
Strings bruteForceNominatedMatching(const framework::SharedLister& lister, const AffinityTerm& t) {
  Strings out;
  for (const auto* pod : nominatedPods(lister)) {
    if (t.matches(pod->pod(), {})) out.push_back(pod->pod().metadata.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// "pod#i" for each required anti-affinity term i of a nominated pod that may select a pod
// of `ns` with `podLabels`, as the index yields them (checked here, as callers do), and by
// brute force.
Strings nominatedSelecting(const framework::SharedLister& lister, std::string_view ns,
                           const api::Labels& podLabels) {
  Strings out;
  lister.forEachNominatedPodWithRequiredAntiAffinitySelecting(
      ns, podLabels, [&](const AffinityTerm& t, const framework::PodInfo& pod) {
        if (!maySelect(t, ns, podLabels)) return;
        const auto i = &t - pod.requiredAntiAffinityTerms().data();
        out.push_back(pod.pod().metadata.name + "#" + std::to_string(i));
      });
  std::sort(out.begin(), out.end());
  return out;
}
Strings bruteForceNominatedSelecting(const framework::SharedLister& lister, std::string_view ns,
                                     const api::Labels& podLabels) {
  Strings out;
  for (const auto* pod : nominatedPods(lister)) {
    const auto& terms = pod->requiredAntiAffinityTerms();
    for (std::size_t i = 0; i < terms.size(); ++i) {
      if (maySelect(terms[i], ns, podLabels)) {
        out.push_back(pod->pod().metadata.name + "#" + std::to_string(i));
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

void checkAgainstBruteForce(const Snapshot& snapshot, ClusterGenerator& gen) {
  for (int q = 0; q < 40; ++q) {
    const AffinityTerm t = gen.queryTerm();
    BOOST_TEST(matching(snapshot, t) == bruteForceMatching(snapshot, t),
               boost::test_tools::per_element());
    BOOST_TEST(nominatedMatching(snapshot, t) == bruteForceNominatedMatching(snapshot, t),
               boost::test_tools::per_element());
  }
  for (int q = 0; q < 20; ++q) {
    const std::string ns = gen.ns();
    const api::Labels podLabels = gen.labels();
    BOOST_TEST(nominatedSelecting(snapshot, ns, podLabels) ==
                   bruteForceNominatedSelecting(snapshot, ns, podLabels),
               boost::test_tools::per_element());
  }
  for (TermKind kind : {TermKind::RequiredAffinity, TermKind::RequiredAntiAffinity,
                        TermKind::PreferredAffinity, TermKind::PreferredAntiAffinity}) {
    BOOST_TEST_CONTEXT("term kind " << static_cast<int>(kind)) {
      BOOST_TEST(
          sameGroups(existingTerms(snapshot, kind), bruteForceExistingTerms(snapshot, kind)));
      // The selector index leaves out no term that selects the pod.
      for (int q = 0; q < 20; ++q) {
        const std::string ns = gen.ns();
        const api::Labels podLabels = gen.labels();
        BOOST_TEST(sameGroups(selectingTerms(snapshot, kind, ns, podLabels),
                              selectingBruteForce(snapshot, kind, ns, podLabels)));
      }
    }
  }
}

// What the test sent the Cache, as a model of the nominations it must hold: pods by UID, as
// last upserted and not deleted since.
class NominationModel {
 public:
  void upsert(const api::Pod& pod) { pods_.insert_or_assign(pod.metadata.uid, pod); }
  void remove(const std::string& uid) { pods_.erase(uid); }

  // The names of the pods nominated to `node`, sorted: unassigned, not terminal, and naming it.
  Strings nominatedTo(const std::string& node) const {
    Strings out;
    for (const auto& [uid, pod] : pods_) {
      if (pod.spec.nodeName.empty() && !pod.isTerminal() && pod.status.nominatedNodeName == node) {
        out.push_back(pod.metadata.name);
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::map<std::string, api::Pod> pods_;
};

// Every generator node's nominated pods in the snapshot equal the model's.
void checkNominations(const Snapshot& snapshot, const NominationModel& model) {
  for (int i = 0; i < ClusterGenerator::kNodes; ++i) {
    const std::string node = "n" + std::to_string(i);
    Strings got;
    for (const auto& p : snapshot.nominatedPodsForNode(node)) {
      got.push_back(p.info->pod().metadata.name);
    }
    std::sort(got.begin(), got.end());
    BOOST_TEST(got == model.nominatedTo(node), boost::test_tools::per_element());
    if (const framework::NodeInfo* info = snapshot.getNodeInfo(node)) {
      // By slot, as the framework asks, the same pods as by name.
      BOOST_TEST(snapshot.nominatedPodsFor(*info).size() ==
                 snapshot.nominatedPodsForNode(node).size());
    }
  }
}

BOOST_AUTO_TEST_CASE(indexes_equal_brute_force_on_seeded_clusters) {
  for (std::uint32_t seed : {1u, 2u, 3u, 42u, 2024u, 31337u}) {
    BOOST_TEST_CONTEXT("seed " << seed) {
      ClusterGenerator gen(seed);
      gen.fillTermPool();
      Cache cache;
      for (int i = 0; i < ClusterGenerator::kNodes; ++i) {
        cache.upsertNode(gen.makeNode("n" + std::to_string(i)));
      }
      NominationModel model;
      const auto upsert = [&](const api::Pod& pod) {
        model.upsert(pod);
        cache.upsertPod(pod);
      };
      int nextUid = 0;
      for (; nextUid < 150; ++nextUid) upsert(gen.pod(nextUid));
      cache.publish();
      auto first = cache.snapshot();
      checkAgainstBruteForce(*first, gen);
      checkNominations(*first, model);

      // Rounds of mutations: pod updates (moves, relabels, terminal), deletes, new pods and,
      // every other round, node relabels, deletes and returns. Rounds with pod changes only
      // keep the node order, so the snapshot reuses what it can from the previous one; every
      // third round publishes after each change, as the informers do between reads.
      std::vector<std::shared_ptr<const Snapshot>> kept = {first};
      for (int round = 0; round < 6; ++round) {
        const bool nodesToo = round % 2 == 1;
        const bool publishEach = round % 3 == 2;
        for (int m = 0; m < 40; ++m) {
          const int what = gen.uniform(nodesToo ? 10 : 8);
          if (what < 4) {
            upsert(gen.pod(gen.uniform(nextUid)));
          } else if (what < 6) {
            const std::string uid = std::to_string(gen.uniform(nextUid));
            model.remove(uid);
            cache.deletePod(uid);
          } else if (what < 8) {
            upsert(gen.pod(nextUid++));
          } else if (what < 9) {
            cache.deleteNode(gen.node());
          } else {
            const std::string name =
                gen.chance(20) ? "ghost" + std::to_string(gen.uniform(3)) : gen.node();
            cache.upsertNode(gen.makeNode(name));
          }
          if (publishEach) {
            cache.publish();
            checkNominations(*cache.snapshot(), model);
          }
        }
        cache.publish();
        kept.push_back(cache.snapshot());
        checkAgainstBruteForce(*kept.back(), gen);
        checkNominations(*kept.back(), model);
      }
      // Earlier snapshots still agree with themselves after all of that.
      for (const auto& old : kept) checkAgainstBruteForce(*old, gen);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::cache
