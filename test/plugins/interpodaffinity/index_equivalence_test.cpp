// The plugin answers PreFilter and PreScore through the lister's index queries
// (forEachPodMatching, forEachExistingTerm). This suite checks, on seeded random clusters,
// that every answer equals the one of upstream's straightforward loops (spec A.1–A.3),
// written out below as a reference that touches no index: the PreFilter maps, Filter on every
// node, AddPod/RemovePod on cloned states, PreScore's map, Score and NormalizeScore.

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "plugins/interpodaffinity/filtering.hpp"
#include "plugins/interpodaffinity/plugin.hpp"
#include "plugins/interpodaffinity/scoring.hpp"
#include "test/testing/affinity_fixtures.hpp"
#include "test/testing/fake_lister.hpp"
#include "test/testing/status.hpp"
#include "test/testing/wrappers.hpp"

namespace {

namespace api = scheduling::api;
namespace fw = scheduling::framework;
namespace ipa = plugins::interpodaffinity;

using CountMap = testing::TopologyCounts;
using ScoreMap = std::map<std::string, std::map<std::string, std::int64_t>>;

const api::Labels kNoLabels;
using testing::show;

std::string show(const ScoreMap& scores) {
  std::string out = "{";
  for (const auto& [key, values] : scores) {
    for (const auto& [value, n] : values) out += " " + key + "=" + value + ":" + std::to_string(n);
  }
  return out + " }";
}

// --- the reference: upstream's loops, no index ---------------------------------------------

// mergeAffinityTermNamespacesIfNotEmpty, written again.
void refMerge(fw::AffinityTerm& term, const fw::SharedLister& lister) {
  if (term.namespaceSelector.isEverything()) return;
  lister.forEachNamespace([&](const std::string& name, const api::Labels& labels) {
    if (term.namespaceSelector.matches(labels) && !term.hasNamespace(name)) {
      term.namespaces.push_back(name);
      std::sort(term.namespaces.begin(), term.namespaces.end());
    }
  });
  term.namespaceSelector = scheduling::labels::Selector::nothing();
}

bool refMatchesAll(const std::vector<fw::AffinityTerm>& terms, const api::Pod& pod) {
  if (terms.empty()) return false;
  for (const auto& t : terms) {
    if (!t.matches(pod, kNoLabels)) return false;
  }
  return true;
}

// The label's value as a string, for the reference maps keyed by strings.
std::optional<std::string> labelOf(const api::Labels& labels, std::string_view key) {
  const auto value = labels.get(key);
  if (!value) return std::nullopt;
  return std::string(*value);
}

// m[pair] += v, deleting exact zeros (updateWith*Terms).
void refUpdate(CountMap& m, const std::string& key, const std::string& value, std::int64_t v) {
  auto& n = m[{key, value}];
  n += v;
  if (n == 0) m.erase({key, value});
}

struct RefFilterState {
  CountMap existingAnti;
  CountMap affinity;
  CountMap anti;
  fw::PodInfo pod;  // namespaces merged
  api::Labels nsLabels;

  void updateWithPod(const fw::PodInfo& p, const fw::NodeInfo& node, std::int64_t m) {
    const api::Labels& labels = node.labels();
    for (const auto& t : p.requiredAntiAffinityTerms()) {
      const auto v = labelOf(labels, t.topologyKey);
      if (t.matches(pod.pod(), nsLabels) && v) refUpdate(existingAnti, t.topologyKey, *v, m);
    }
    if (refMatchesAll(pod.requiredAffinityTerms(), p.pod())) {
      for (const auto& t : pod.requiredAffinityTerms()) {
        if (const auto v = labelOf(labels, t.topologyKey))
          refUpdate(affinity, t.topologyKey, *v, m);
      }
    }
    for (const auto& t : pod.requiredAntiAffinityTerms()) {
      const auto v = labelOf(labels, t.topologyKey);
      if (t.matches(p.pod(), kNoLabels) && v) refUpdate(anti, t.topologyKey, *v, m);
    }
  }
};

// PreFilter (A.1): nullopt state with the status when it does not succeed.
std::pair<fw::Status, std::optional<RefFilterState>> refPreFilter(const fw::PodInfo& incoming,
                                                                  const fw::SharedLister& lister) {
  if (!incoming.parseError().empty()) {
    return {
        fw::Status(fw::Code::UnschedulableAndUnresolvable, "parsing pod: " + incoming.parseError()),
        std::nullopt};
  }
  RefFilterState s{{}, {}, {}, incoming, lister.namespaceLabels(incoming.pod().metadata.ns)};
  for (auto& t : s.pod.mutableRequiredAffinityTerms()) refMerge(t, lister);
  for (auto& t : s.pod.mutableRequiredAntiAffinityTerms()) refMerge(t, lister);
  for (const fw::NodeInfo* node : lister.havePodsWithRequiredAntiAffinityList()) {
    for (const auto& p : node->podsWithRequiredAntiAffinity()) {
      for (const auto& t : p->requiredAntiAffinityTerms()) {
        const auto v = labelOf(node->labels(), t.topologyKey);
        if (t.matches(s.pod.pod(), s.nsLabels) && v) s.existingAnti[{t.topologyKey, *v}] += 1;
      }
    }
  }
  const bool hasRequired =
      !s.pod.requiredAffinityTerms().empty() || !s.pod.requiredAntiAffinityTerms().empty();
  if (hasRequired) {
    for (const fw::NodeInfo* node : lister.nodeInfoList()) {
      for (const auto& p : node->pods()) {
        if (refMatchesAll(s.pod.requiredAffinityTerms(), p->pod())) {
          for (const auto& t : s.pod.requiredAffinityTerms()) {
            if (const auto v = labelOf(node->labels(), t.topologyKey))
              s.affinity[{t.topologyKey, *v}] += 1;
          }
        }
        for (const auto& t : s.pod.requiredAntiAffinityTerms()) {
          const auto v = labelOf(node->labels(), t.topologyKey);
          if (t.matches(p->pod(), kNoLabels) && v) s.anti[{t.topologyKey, *v}] += 1;
        }
      }
    }
  }
  if (s.existingAnti.empty() && !hasRequired) return {fw::Status(fw::Code::Skip), std::nullopt};
  return {fw::Status(), std::move(s)};
}

// Filter (A.2), with upstream's map lookups (a missing pair reads 0).
fw::Status refFilter(const RefFilterState& s, const fw::NodeInfo& node) {
  const auto at = [](const CountMap& m, std::string_view k, std::string_view v) {
    auto it = m.find({std::string(k), std::string(v)});
    return it == m.end() ? 0 : it->second;
  };
  const api::Labels& labels = node.labels();
  bool podsExist = true;
  bool affinityOk = true;
  for (const auto& t : s.pod.requiredAffinityTerms()) {
    const auto v = labelOf(labels, t.topologyKey);
    if (!v) {
      affinityOk = false;
      break;
    }
    if (at(s.affinity, t.topologyKey, *v) <= 0) podsExist = false;
  }
  if (affinityOk && !podsExist) {
    affinityOk = s.affinity.empty() && refMatchesAll(s.pod.requiredAffinityTerms(), s.pod.pod());
  }
  if (!affinityOk) {
    return fw::Status(fw::Code::UnschedulableAndUnresolvable,
                      std::string(ipa::kErrReasonAffinityRulesNotMatch));
  }
  if (!s.anti.empty()) {
    for (const auto& t : s.pod.requiredAntiAffinityTerms()) {
      const auto v = labelOf(labels, t.topologyKey);
      if (v && at(s.anti, t.topologyKey, *v) > 0) {
        return fw::Status(fw::Code::Unschedulable,
                          std::string(ipa::kErrReasonAntiAffinityRulesNotMatch));
      }
    }
  }
  if (!s.existingAnti.empty()) {
    for (const auto& [k, v] : labels) {
      if (at(s.existingAnti, k, v) > 0) {
        return fw::Status(fw::Code::Unschedulable,
                          std::string(ipa::kErrReasonExistingAntiAffinityRulesNotMatch));
      }
    }
  }
  return {};
}

bool specHasPreferred(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  return a && ((a->podAffinity &&
                !a->podAffinity->preferredDuringSchedulingIgnoredDuringExecution.empty()) ||
               (a->podAntiAffinity &&
                !a->podAntiAffinity->preferredDuringSchedulingIgnoredDuringExecution.empty()));
}

// PreScore (A.3): the score map, or the status when it does not succeed.
std::pair<fw::Status, ScoreMap> refPreScore(const fw::PodInfo& incoming,
                                            const fw::SharedLister& lister,
                                            const ipa::InterPodAffinityArgs& args,
                                            std::size_t numNodes) {
  if (numNodes == 0) return {fw::Status(fw::Code::Skip), {}};
  const bool hasPreferred = specHasPreferred(incoming.pod());
  if (args.ignorePreferredTermsOfExistingPods && !hasPreferred)
    return {fw::Status(fw::Code::Skip), {}};
  if (!incoming.parseError().empty()) {
    return {fw::Status::error("failed to parse pod: " + incoming.parseError()), {}};
  }
  fw::PodInfo pod = incoming;
  for (auto& w : pod.mutablePreferredAffinityTerms()) refMerge(w.term, lister);
  for (auto& w : pod.mutablePreferredAntiAffinityTerms()) refMerge(w.term, lister);
  const api::Labels& nsLabels = lister.namespaceLabels(pod.pod().metadata.ns);
  ScoreMap m;
  const auto process = [&m](const fw::AffinityTerm& t, std::int32_t weight, const api::Pod& p,
                            const api::Labels& ns, const api::Labels& nodeLabels,
                            std::int32_t multiplier) {
    if (!t.matches(p, ns)) return;
    if (const auto v = labelOf(nodeLabels, t.topologyKey)) {
      m[t.topologyKey][*v] += static_cast<std::int64_t>(weight * multiplier);
    }
  };
  const auto nodes = hasPreferred ? lister.nodeInfoList() : lister.havePodsWithAffinityList();
  for (const fw::NodeInfo* node : nodes) {
    const auto& pods = hasPreferred ? node->pods() : node->podsWithAffinity();
    for (const auto& existing : pods) {
      const api::Labels& nodeLabels = node->labels();
      if (nodeLabels.empty()) continue;
      for (const auto& w : pod.preferredAffinityTerms()) {
        process(w.term, w.weight, existing->pod(), kNoLabels, nodeLabels, 1);
      }
      for (const auto& w : pod.preferredAntiAffinityTerms()) {
        process(w.term, w.weight, existing->pod(), kNoLabels, nodeLabels, -1);
      }
      if (args.hardPodAffinityWeight > 0) {
        for (const auto& t : existing->requiredAffinityTerms()) {
          process(t, args.hardPodAffinityWeight, pod.pod(), nsLabels, nodeLabels, 1);
        }
      }
      for (const auto& w : existing->preferredAffinityTerms()) {
        process(w.term, w.weight, pod.pod(), nsLabels, nodeLabels, 1);
      }
      for (const auto& w : existing->preferredAntiAffinityTerms()) {
        process(w.term, w.weight, pod.pod(), nsLabels, nodeLabels, -1);
      }
    }
  }
  if (m.empty()) return {fw::Status(fw::Code::Skip), {}};
  return {fw::Status(), std::move(m)};
}

std::int64_t refScore(const ScoreMap& m, const fw::NodeInfo& node) {
  std::int64_t score = 0;
  for (const auto& [key, values] : m) {
    if (const auto v = labelOf(node.labels(), key)) {
      auto it = values.find(*v);
      if (it != values.end()) score += it->second;
    }
  }
  return score;
}

// --- random clusters -------------------------------------------------------------------------

class Generator {
 public:
  explicit Generator(std::uint32_t seed) : rng_(seed) {}

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(uniform(0, static_cast<int>(v.size()) - 1))];
  }

  std::vector<api::Namespace> namespaces() {
    return {testing::makeNamespace("ns1", {{"team", "a"}}),
            testing::makeNamespace("ns2", {{"team", "b"}}),
            testing::makeNamespace("ns3", {{"team", "a"}, {"env", "prod"}}),
            testing::makeNamespace("ns4")};
  }

  api::Node node(int i) {
    testing::MakeNode n;
    const std::string name = "node" + std::to_string(i);
    n.name(name);
    if (chance(0.1)) return n.obj();  // no labels at all
    if (chance(0.85)) n.label("zone", pick<std::string>({"z1", "z2", "z3"}));
    if (chance(0.8)) n.label("region", pick<std::string>({"r1", "r2"}));
    if (chance(0.9)) n.label("hostname", chance(0.9) ? name : "shared");  // not always unique
    if (chance(0.3)) n.label("rack", pick<std::string>({"", "rk1"}));     // empty value is a value
    return n.obj();
  }

  std::optional<api::LabelSelector> selector(bool allowInvalid) {
    switch (uniform(0, 9)) {
      case 0:
        return std::nullopt;  // nil: nothing
      case 1:
        return api::LabelSelector{};  // {}: everything
      case 2:
        return testing::MakeLabelSelector().label("app", pick(apps_)).obj();
      case 3:
        return testing::MakeLabelSelector().in("app", {pick(apps_), pick(apps_)}).obj();
      case 4:
        return testing::MakeLabelSelector().notIn("app", {pick(apps_)}).obj();
      case 5:
        return testing::MakeLabelSelector().exists("tier").obj();
      case 6:
        return testing::MakeLabelSelector().notExist("tier").in("app", {pick(apps_)}).obj();
      case 7:
        if (allowInvalid && chance(0.3)) {
          return testing::MakeLabelSelector().expression("app", "Bogus", {"x"}).obj();
        }
        return testing::MakeLabelSelector().label("tier", pick<std::string>({"fe", "be"})).obj();
      default:
        return testing::MakeLabelSelector().in("app", {pick(apps_)}).obj();
    }
  }

  // Terms repeat across pods (replicas of one workload carry the same terms), so most come
  // from a small per-cluster pool: that is what makes the index group them.
  api::PodAffinityTerm term(bool allowInvalid) {
    if (pool_.empty()) {
      for (int i = 0; i < 5; ++i) pool_.push_back(freshTerm(false));
    }
    if (chance(0.6)) return pick(pool_);
    return freshTerm(allowInvalid);
  }

  api::PodAffinityTerm freshTerm(bool allowInvalid) {
    api::PodAffinityTerm t;
    t.labelSelector = selector(allowInvalid);
    t.topologyKey = pick<std::string>({"zone", "zone", "region", "hostname", "rack", "missing"});
    if (chance(0.25)) t.namespaces = {pick(namespaceNames_)};
    if (chance(0.1)) t.namespaces.push_back(pick(namespaceNames_));
    switch (uniform(0, 5)) {
      case 0:
        t.namespaceSelector = api::LabelSelector{};
        break;
      case 1:
        t.namespaceSelector = testing::MakeLabelSelector().label("team", "a").obj();
        break;
      case 2:
        t.namespaceSelector = testing::MakeLabelSelector().exists("env").obj();
        break;
      default:
        break;
    }
    return t;
  }

  api::Pod pod(int i, const std::vector<api::Node>& nodes, bool incoming) {
    testing::MakePod p;
    p.name("pod" + std::to_string(i)).uid("uid" + std::to_string(i));
    p.ns(chance(0.5) ? "ns1" : pick(namespaceNames_));
    if (chance(0.8)) p.label("app", pick(apps_));
    if (chance(0.4)) p.label("tier", pick<std::string>({"fe", "be"}));
    if (!incoming && !nodes.empty()) {
      if (chance(0.1)) {
        p.nominatedNodeName(pick(nodes).name);
      } else {
        p.node(pick(nodes).name);
        if (chance(0.05)) p.phase("Succeeded");
        if (chance(0.1)) p.terminating();
      }
    }
    const bool allowInvalid = incoming ? chance(0.05) : chance(0.1);
    if (chance(incoming ? 0.9 : 0.5)) {
      if (chance(0.15)) p.emptyPodAffinity();
      if (chance(0.15)) p.emptyPodAntiAffinity();
      const auto add = [&](bool anti, testing::PodAffinityKind kind, int max) {
        for (int n = uniform(0, max); n > 0; --n) {
          const std::int32_t weight =
              chance(0.7) ? pick<std::int32_t>({1, 5, 50}) : uniform(1, 100);
          if (anti) {
            p.podAntiAffinity(term(allowInvalid), kind, weight);
          } else {
            p.podAffinity(term(allowInvalid), kind, weight);
          }
        }
      };
      add(false, testing::kRequiredReq, incoming ? 2 : 1);
      add(true, testing::kRequiredReq, 2);
      add(false, testing::kPreferredReq, 2);
      add(true, testing::kPreferredReq, 2);
    }
    return p.obj();
  }

 private:
  std::mt19937 rng_;
  const std::vector<std::string> apps_ = {"web", "db", "cache"};
  const std::vector<std::string> namespaceNames_ = {"ns1", "ns2", "ns3", "ns4", "ns-unknown"};
  std::vector<api::PodAffinityTerm> pool_;
};

CountMap toCountMap(const ipa::TopologyToMatchedTermCount& counts) { return counts.toMap(); }

ScoreMap toScoreMap(const ipa::TopologyScore& scores) { return scores.toMap(); }

// The keys, with their domains of non-zero score: a domain scoring 0 adds nothing to any
// node, while the keys decide whether PreScore skips.
ScoreMap withoutZeros(ScoreMap scores) {
  for (auto& [key, values] : scores) {
    std::erase_if(values, [](const auto& entry) { return entry.second == 0; });
  }
  return scores;
}

// Filter of every node, plugin vs reference.
void checkFilter(const ipa::InterPodAffinity& plugin, const fw::CycleState& state,
                 const fw::PodInfo& pod, const RefFilterState& ref,
                 const fw::SharedLister& lister) {
  for (const fw::NodeInfo* node : lister.nodeInfoList()) {
    BOOST_TEST_CONTEXT("Filter " << node->name()) {
      BOOST_TEST(testing::describe(plugin.filter(state, pod, *node)) ==
                 testing::describe(refFilter(ref, *node)));
    }
  }
}

void checkState(const ipa::PreFilterState& got, const RefFilterState& want) {
  BOOST_TEST(show(toCountMap(got.existingAntiAffinityCounts)) == show(want.existingAnti));
  BOOST_TEST(show(toCountMap(got.affinityCounts)) == show(want.affinity));
  BOOST_TEST(show(toCountMap(got.antiAffinityCounts)) == show(want.anti));
  BOOST_TEST(got.existingAntiAffinityCounts.size() == want.existingAnti.size());
  BOOST_TEST(got.affinityCounts.size() == want.affinity.size());
  BOOST_TEST(got.antiAffinityCounts.size() == want.anti.size());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(interpodaffinity_index_equivalence)

BOOST_AUTO_TEST_CASE(IndexedPathEqualsUpstreamLoops) {
  int preFilterRan = 0;
  int preScoreRan = 0;
  int sampledPreScoreRan = 0;
  int nominatedUnchanged = 0;
  int nominatedChanging = 0;
  for (std::uint32_t seed = 1; seed <= 400; ++seed) {
    BOOST_TEST_CONTEXT("seed " << seed) {
      Generator gen(seed);
      std::vector<api::Node> nodes;
      const int numNodes = gen.chance(0.3) ? gen.uniform(1, 3) : gen.uniform(0, 10);
      for (int i = 0; i < numNodes; ++i) nodes.push_back(gen.node(i));
      std::vector<api::Pod> pods;
      const int numPods = gen.uniform(0, 40);
      for (int i = 0; i < numPods; ++i) pods.push_back(gen.pod(i, nodes, false));
      const api::Pod incoming = gen.pod(1000, nodes, true);
      const ipa::InterPodAffinityArgs args{
          .hardPodAffinityWeight = gen.pick<std::int32_t>({0, 1, 1, 5, 100}),
          .ignorePreferredTermsOfExistingPods = gen.chance(0.3)};
      const ipa::InterPodAffinity plugin(args);

      auto lister = testing::FakeLister::make(nodes, pods, gen.namespaces());
      const fw::PodInfo pod = testing::podInfo(incoming);

      // PreFilter and Filter.
      fw::CycleState state(lister);
      const fw::Status preFilter = plugin.preFilter(state, pod, lister->nodeInfoList());
      auto [refStatus, ref] = refPreFilter(pod, *lister);
      BOOST_TEST(testing::describe(preFilter) == testing::describe(refStatus));
      if (preFilter.isSuccess() && ref) {
        ++preFilterRan;
        const auto* got = state.read<ipa::PreFilterState>(ipa::kPreFilterStateKey);
        BOOST_REQUIRE(got != nullptr);
        checkState(*got, *ref);
        checkFilter(plugin, state, pod, *ref, *lister);

        // AddPod on clones: random pods (nominated ones first) added to random nodes.
        std::vector<fw::PodInfoPtr> candidates;
        for (const fw::NodeInfo* n : lister->nodeInfoList()) {
          for (const auto& p : lister->nominatedPodsForNode(n->name()))
            candidates.push_back(p.info);
        }
        for (int i = 0; i < 3; ++i)
          candidates.push_back(testing::podInfoPtr(gen.pod(2000 + i, nodes, true)));
        for (const auto& candidate : candidates) {
          if (lister->nodeInfoList().empty()) break;
          const fw::NodeInfo& target = *gen.pick(std::vector<const fw::NodeInfo*>(
              lister->nodeInfoList().begin(), lister->nodeInfoList().end()));
          BOOST_TEST_CONTEXT("AddPod " << candidate->pod().metadata.name << " on "
                                       << target.name()) {
            fw::CycleState clone = state.clone();
            BOOST_TEST(plugin.addPod(clone, pod, *candidate, target).isSuccess());
            RefFilterState refAdded = *ref;
            refAdded.updateWithPod(*candidate, target, 1);
            checkState(*clone.read<ipa::PreFilterState>(ipa::kPreFilterStateKey), refAdded);
            checkFilter(plugin, clone, pod, refAdded, *lister);
            // Also against PreFilter recomputed with the pod bound to that node.
            api::Pod bound = candidate->pod();
            bound.spec.nodeName = target.name();
            bound.status = {};
            std::vector<api::Pod> withPod = pods;
            withPod.push_back(bound);
            auto listerWith = testing::FakeLister::make(nodes, withPod, gen.namespaces());
            auto [statusWith, refWith] = refPreFilter(pod, *listerWith);
            BOOST_REQUIRE(refWith.has_value());
            checkState(*clone.read<ipa::PreFilterState>(ipa::kPreFilterStateKey), *refWith);
            // Removing it again restores the original answers.
            BOOST_TEST(plugin.removePod(clone, pod, *candidate, target).isSuccess());
            checkState(*clone.read<ipa::PreFilterState>(ipa::kPreFilterStateKey), *ref);
          }
        }
        // Each nominated pod on each node: "unchanged" exactly when AddPod changes no count.
        const auto counts = [](const ipa::PreFilterState& s) {
          return std::tuple(s.existingAntiAffinityCounts.toMap(), s.affinityCounts.toMap(),
                            s.antiAffinityCounts.toMap());
        };
        for (const fw::NodeInfo* n : lister->nodeInfoList()) {
          for (const auto& nominated : lister->nominatedPodsForNode(n->name())) {
            for (const fw::NodeInfo* target : lister->nodeInfoList()) {
              fw::CycleState clone = state.clone();
              BOOST_TEST(plugin.addPod(clone, pod, *nominated.info, *target).isSuccess());
              const bool stayed =
                  counts(*clone.read<ipa::PreFilterState>(ipa::kPreFilterStateKey)) == counts(*got);
              const bool unchanged =
                  plugin.nominatedPodLeavesStateUnchanged(state, pod, *nominated.info, *target);
              BOOST_TEST(unchanged == stayed,
                         nominated.info->pod().metadata.name << " on " << target->name());
              ++(unchanged ? nominatedUnchanged : nominatedChanging);
            }
          }
        }
        // RemovePod of existing pods (preemption victims), then of a pod never counted:
        // counts may go negative and must still follow the delete-at-zero rule.
        fw::CycleState clone = state.clone();
        RefFilterState refRemoved = *ref;
        for (const fw::NodeInfo* n : lister->nodeInfoList()) {
          for (const auto& victim : n->pods()) {
            if (!gen.chance(0.3)) continue;
            BOOST_TEST(plugin.removePod(clone, pod, *victim, *n).isSuccess());
            refRemoved.updateWithPod(*victim, *n, -1);
            if (gen.chance(0.2)) {
              BOOST_TEST(plugin.removePod(clone, pod, *victim, *n).isSuccess());
              refRemoved.updateWithPod(*victim, *n, -1);
            }
          }
        }
        BOOST_TEST_CONTEXT("after RemovePod") {
          checkState(*clone.read<ipa::PreFilterState>(ipa::kPreFilterStateKey), refRemoved);
          checkFilter(plugin, clone, pod, refRemoved, *lister);
        }
        // The original state is untouched by everything done to its clones.
        checkState(*got, *ref);
      }

      // PreScore, Score, NormalizeScore.
      fw::CycleState scoreState(lister);
      const fw::Status preScore = plugin.preScore(scoreState, pod, lister->nodeInfoList());
      auto [refScoreStatus, refMap] =
          refPreScore(pod, *lister, args, lister->nodeInfoList().size());
      BOOST_TEST(testing::describe(preScore) == testing::describe(refScoreStatus));
      if (preScore.isSuccess() && refScoreStatus.isSuccess()) {
        ++preScoreRan;
        const auto* got = scoreState.read<ipa::PreScoreState>(ipa::kPreScoreStateKey);
        BOOST_REQUIRE(got != nullptr);
        BOOST_TEST(show(toScoreMap(got->topologyScore)) == show(withoutZeros(refMap)));
        std::vector<fw::NodeScore> list;
        std::vector<std::int64_t> raw;
        for (const fw::NodeInfo* n : lister->nodeInfoList()) {
          std::int64_t score = 0;
          BOOST_TEST(plugin.score(scoreState, pod, *n, score).isSuccess());
          BOOST_TEST(score == refScore(refMap, *n), "Score " << n->name());
          list.push_back({n, score});
          raw.push_back(score);
        }
        BOOST_TEST(plugin.normalizeScore(scoreState, pod, list).isSuccess());
        const auto [lo, hi] = std::minmax_element(raw.begin(), raw.end());
        for (std::size_t i = 0; i < list.size(); ++i) {
          const std::int64_t want =
              *hi > *lo ? static_cast<std::int64_t>(100.0 * (static_cast<double>(raw[i] - *lo) /
                                                             static_cast<double>(*hi - *lo)))
                        : 0;
          BOOST_TEST(list[i].score == want);
        }
      }

      // PreScore on a sample of the nodes, as a sampled request sends them: each scores as
      // in the reference over the whole cluster, under keys whose values are each one
      // node's (where pods on other nodes are skipped) and under the others.
      std::vector<const fw::NodeInfo*> sample;
      for (const fw::NodeInfo* n : lister->nodeInfoList()) {
        if (gen.chance(0.4)) sample.push_back(n);
      }
      fw::CycleState sampleState(lister);
      const fw::Status sampled = plugin.preScore(sampleState, pod, sample);
      auto [refSampledStatus, refSampledMap] = refPreScore(pod, *lister, args, sample.size());
      BOOST_TEST(testing::describe(sampled) == testing::describe(refSampledStatus));
      if (sampled.isSuccess() && refSampledStatus.isSuccess()) {
        ++sampledPreScoreRan;
        for (const fw::NodeInfo* n : sample) {
          std::int64_t score = 0;
          BOOST_TEST(plugin.score(sampleState, pod, *n, score).isSuccess());
          BOOST_TEST(score == refScore(refSampledMap, *n), "sampled Score " << n->name());
        }
      }
    }
  }
  // The generator must actually exercise both paths.
  BOOST_TEST(preFilterRan > 100);
  BOOST_TEST(preScoreRan > 100);
  BOOST_TEST(sampledPreScoreRan > 50);
  BOOST_TEST(nominatedUnchanged > 100);
  BOOST_TEST(nominatedChanging > 100);
}

BOOST_AUTO_TEST_SUITE_END()
