#include "plugins/interpodaffinity/plugin.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "plugins/names.hpp"

namespace plugins::interpodaffinity {

std::string_view InterPodAffinity::name() const { return names::kInterPodAffinity; }

void mergeAffinityTermNamespacesIfNotEmpty(scheduling::framework::AffinityTerm& term,
                                           const scheduling::framework::SharedLister& lister) {
  // labels.Selector.Empty() is true only for Everything: such a term spans all namespaces.
  if (term.namespaceSelector.isEverything()) return;
  // Nothing lists no namespace; the selector is already what the merge would leave.
  if (term.namespaceSelector.isNothing()) return;
  std::vector<std::string>& namespaces = term.namespaces;
  const auto listed = static_cast<std::ptrdiff_t>(namespaces.size());
  lister.forEachNamespaceMatching(term.namespaceSelector,
                                  [&](const std::string& name) { namespaces.push_back(name); });
  // AffinityTerm keeps its namespaces sorted and unique (a set upstream). Both the listed
  // ones and the lister's (in name order) are: a merge, not a sort of the 190 namespaces
  // `team: shop` may admit.
  std::inplace_merge(namespaces.begin(), namespaces.begin() + listed, namespaces.end());
  namespaces.erase(std::unique(namespaces.begin(), namespaces.end()), namespaces.end());
  term.namespaceSelector = scheduling::labels::Selector::nothing();
}

}  // namespace plugins::interpodaffinity
