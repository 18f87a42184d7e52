#include <algorithm>

#include "scheduling/framework/affinity_term_pool.hpp"
#include "scheduling/framework/string_table.hpp"
#include "scheduling/framework/types.hpp"

namespace scheduling::framework {

namespace {

// getNamespacesFromPodAffinityTerm: the owner's namespace when the term names none and has
// no namespaceSelector; otherwise exactly the listed ones (possibly none).
std::vector<std::string> termNamespaces(const api::Pod& pod, const api::PodAffinityTerm& term) {
  std::vector<std::string> namespaces;
  if (term.namespaces.empty() && !term.namespaceSelector) {
    namespaces.push_back(pod.metadata.ns);
  } else {
    namespaces = term.namespaces;
    std::sort(namespaces.begin(), namespaces.end());
    namespaces.erase(std::unique(namespaces.begin(), namespaces.end()), namespaces.end());
  }
  return namespaces;
}

// newAffinityTerm.
std::optional<AffinityTerm> newAffinityTerm(const api::Pod& pod, const api::PodAffinityTerm& term,
                                            std::vector<std::string>& errors) {
  auto selector = labels::fromLabelSelector(term.labelSelector, errors);
  if (!selector) return std::nullopt;
  auto namespaceSelector = labels::fromLabelSelector(term.namespaceSelector, errors);
  if (!namespaceSelector) return std::nullopt;
  return AffinityTerm{std::move(*selector), termNamespaces(pod, term),
                      std::move(*namespaceSelector), term.topologyKey};
}

// getAffinityTerms: the first bad term empties the whole list.
std::vector<AffinityTerm> affinityTerms(const api::Pod& pod,
                                        const std::vector<api::PodAffinityTerm>& terms,
                                        std::vector<std::string>& errors) {
  std::vector<AffinityTerm> out;
  out.reserve(terms.size());
  for (const auto& term : terms) {
    auto parsed = newAffinityTerm(pod, term, errors);
    if (!parsed) return {};
    out.push_back(std::move(*parsed));
  }
  return out;
}

// getWeightedAffinityTerms.
std::vector<WeightedAffinityTerm> weightedAffinityTerms(
    const api::Pod& pod, const std::vector<api::WeightedPodAffinityTerm>& terms,
    std::vector<std::string>& errors) {
  std::vector<WeightedAffinityTerm> out;
  out.reserve(terms.size());
  for (const auto& weighted : terms) {
    auto parsed = newAffinityTerm(pod, weighted.podAffinityTerm, errors);
    if (!parsed) return {};
    out.push_back(WeightedAffinityTerm{std::move(*parsed), weighted.weight});
  }
  return out;
}

// utilerrors.NewAggregate(...).Error(): one message as is; several, de-duplicated in
// order, joined with ", " inside brackets.
std::string aggregate(const std::vector<std::string>& errors) {
  std::vector<std::string> unique;
  for (const auto& e : errors) {
    if (std::find(unique.begin(), unique.end(), e) == unique.end()) unique.push_back(e);
  }
  if (unique.size() == 1) return unique.front();
  std::string joined;
  for (const auto& e : unique) {
    if (!joined.empty()) joined += ", ";
    joined += e;
  }
  return unique.empty() ? joined : "[" + joined + "]";
}

// What every pod without terms points to, so that such pods allocate no lists.
const std::shared_ptr<AffinityTermLists>& noTerms() {
  static const auto none = std::make_shared<AffinityTermLists>();
  return none;
}

const std::vector<api::PodAffinityTerm> kNoTerms;
const std::vector<api::WeightedPodAffinityTerm> kNoWeightedTerms;

const std::vector<api::PodAffinityTerm>& required(const std::optional<api::PodAffinity>& a) {
  return a ? a->requiredDuringSchedulingIgnoredDuringExecution : kNoTerms;
}
const std::vector<api::WeightedPodAffinityTerm>& preferred(
    const std::optional<api::PodAffinity>& a) {
  return a ? a->preferredDuringSchedulingIgnoredDuringExecution : kNoWeightedTerms;
}

}  // namespace

bool AffinityTerm::hasNamespace(std::string_view ns) const {
  // Most terms list one namespace (their pod's own): comparing for equality, a word at a
  // time, beats the ordering comparisons of a binary search, each a call to memcmp. Every
  // existing term that may select the incoming pod asks this once.
  constexpr std::size_t kScanned = 4;
  if (namespaces.size() <= kScanned) {
    return std::any_of(namespaces.begin(), namespaces.end(),
                       [&](const std::string& listed) { return equalStrings(listed, ns); });
  }
  return std::binary_search(namespaces.begin(), namespaces.end(), ns);
}

bool AffinityTerm::matches(const api::Pod& pod, const api::Labels& nsLabels) const {
  if (hasNamespace(pod.metadata.ns) || namespaceSelector.matches(nsLabels)) {
    return selector.matches(pod.metadata.labels);
  }
  return false;
}

PodInfo::PodInfo(std::shared_ptr<const api::Pod> pod)
    : pod_(std::move(pod)),
      priority_(pod_->priority()),
      uidHash_(hashString(pod_->metadata.uid)),
      terms_(noTerms()) {
  const auto& affinity = pod_->spec.affinity;
  if (!affinity) return;
  hasPodAffinity_ = affinity->podAffinity || affinity->podAntiAffinity;
  // NewPodInfo wraps each list's error with the list's name.
  std::vector<std::string> errors;
  const auto collect = [&errors](const char* list, std::vector<std::string>& local) {
    if (!local.empty()) errors.push_back(std::string(list) + ": " + aggregate(local));
    local.clear();
  };
  std::vector<std::string> local;
  AffinityTermLists lists;
  lists.requiredAffinity = affinityTerms(*pod_, required(affinity->podAffinity), local);
  collect("requiredAffinityTerms", local);
  lists.requiredAntiAffinity = affinityTerms(*pod_, required(affinity->podAntiAffinity), local);
  collect("requiredAntiAffinityTerms", local);
  lists.preferredAffinity = weightedAffinityTerms(*pod_, preferred(affinity->podAffinity), local);
  collect("preferredAffinityTerms", local);
  lists.preferredAntiAffinity =
      weightedAffinityTerms(*pod_, preferred(affinity->podAntiAffinity), local);
  collect("preferredAntiAffinityTerms", local);
  if (!errors.empty()) lists.parseError = aggregate(errors);
  if (lists != AffinityTermLists{}) terms_ = std::make_shared<AffinityTermLists>(std::move(lists));
}

std::shared_ptr<const PodInfo> PodInfo::forCache(api::Pod pod, AffinityTermPool& pool) {
  auto owned = std::make_shared<api::Pod>(std::move(pod));
  auto info = std::make_shared<PodInfo>(owned);
  owned->spec.affinity.reset();  // the terms are parsed: nothing in them points into it
  owned->spec.schedulerName = std::string();
  if (info->terms_ != noTerms()) info->terms_ = pool.share(std::move(info->terms_));
  return info;
}

AffinityTermLists& PodInfo::ownTerms() {
  if (terms_.use_count() > 1) terms_ = std::make_shared<AffinityTermLists>(*terms_);
  return *terms_;
}

}  // namespace scheduling::framework
