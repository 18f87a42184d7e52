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

TermSelectorIndex::TermSelectorIndex(std::span<const framework::AffinityTerm* const> terms) {
  for (std::uint32_t position = 0; position < terms.size(); ++position) {
    const labels::Selector& selector = terms[position]->selector;
    if (selector.isNothing()) continue;
    const labels::Requirement* r = filingRequirement(selector);
    if (r == nullptr) {
      always_.push_back(position);
    } else if (r->op == labels::Operator::Exists) {
      keys_[r->key].exists.push_back(position);
    } else {
      Key& key = keys_[r->key];
      for (const auto& value : r->values) key.values[value].push_back(position);
    }
  }
}

}  // namespace scheduling::cache
