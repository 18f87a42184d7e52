#include "scheduling/cache/term_selector_index.hpp"

namespace scheduling::cache {

namespace {

// The requirement a term is filed under: the `In` with the fewest values, else the first
// `Exists`; null when there is neither.
const labels::Requirement* filingRequirement(const labels::Selector& selector) {
  const labels::Requirement* best = nullptr;
  for (const auto& r : selector.requirements()) {
    if (r.op == labels::Operator::In) {
      if (best == nullptr || best->op != labels::Operator::In ||
          r.values.size() < best->values.size()) {
        best = &r;
      }
    } else if (r.op == labels::Operator::Exists && best == nullptr) {
      best = &r;
    }
  }
  return best;
}

}  // namespace

void TermSelectorIndex::Filed::add(std::uint32_t position, const labels::Selector& selector) {
  const labels::Requirement* r = filingRequirement(selector);
  if (r == nullptr) {
    always.push_back(position);
  } else if (r->op == labels::Operator::Exists) {
    keys[r->key].exists.push_back(position);
  } else {
    Key& key = keys[r->key];
    for (const auto& value : r->values) key.values[value].push_back(position);
  }
}

TermSelectorIndex::TermSelectorIndex(std::span<const framework::AffinityTerm* const> terms) {
  for (std::uint32_t position = 0; position < terms.size(); ++position) {
    const framework::AffinityTerm& term = *terms[position];
    if (term.selector.isNothing()) continue;
    if (!term.namespaceSelector.isNothing()) {
      anyNamespace_.add(position, term.selector);
      continue;
    }
    // A pod has one namespace, and AffinityTerm lists each once: found at most once.
    for (const std::string& ns : term.namespaces) byNamespace_[ns].add(position, term.selector);
  }
}

}  // namespace scheduling::cache
