#include "scheduling/cache/spanning_selector_memo.hpp"

#include <algorithm>
#include <utility>

namespace scheduling::cache {

namespace {

void slotsOfMatches(const NamespacePodIndex& index, const NamespacePodIndex::Plan& plan,
                    std::span<const NamespacePodIndex::Range> ranges,
                    const labels::Selector& selector, std::vector<std::uint32_t>& out) {
  index.forEachMatching(plan, ranges, selector,
                        [&](const NamespacePodIndex::Entry& e) { out.push_back(e.slot); });
}

}  // namespace

std::size_t SpanningSelectorMemo::size() const { return entries_.size(); }

// The selector's key, then the namespaces, written out with a separator no namespace name
// can hold (validation admits no '\2').
std::string SpanningSelectorMemo::keyOf(const labels::Selector& selector,
                                        const std::vector<std::string>* namespaces) {
  std::string key = selector.key();
  if (namespaces != nullptr) {
    key += '\2';
    for (const std::string& ns : *namespaces) {
      key += ns;
      key += '\1';
    }
  }
  return key;
}

template <typename Fill>
void SpanningSelectorMemo::addCandidate(Entry& entry, Candidate candidate, Fill&& fill) {
  candidate.firstSlot = static_cast<std::uint32_t>(entry.slots.size());
  if (entry.slotsKept) {
    fill(entry.slots);
    entry.slotsKept = entry.slots.size() <= kMaxSlotsPerEntry;
  }
  candidate.endSlot = static_cast<std::uint32_t>(entry.slots.size());
  entry.candidates.push_back(candidate);
}

std::shared_ptr<const SpanningSelectorMemo::Entry> SpanningSelectorMemo::refresh(
    const Entry* previous, const labels::Selector& selector,
    const std::vector<std::string>* namespaces, std::span<const NamespacePodIndex* const> indexes,
    std::span<const std::uint64_t> serials) {
  auto entry = std::make_shared<Entry>();
  entry->serials.assign(serials.begin(), serials.end());
  // A position whose index is the one probed before keeps its verdict and plan. Serials are
  // unique, so this holds even after namespaces came or went and positions moved.
  const std::size_t known = previous != nullptr ? previous->serials.size() : 0;
  std::size_t before = 0;  // into previous->candidates, ascending like i
  for (std::uint32_t i = 0; i < indexes.size(); ++i) {
    if (i < known && previous->serials[i] == serials[i]) {
      while (before < previous->candidates.size() && previous->candidates[before].position < i) {
        ++before;
      }
      if (before == previous->candidates.size() || previous->candidates[before].position != i) {
        continue;
      }
      const Candidate& kept = previous->candidates[before];
      NamespacePodIndex::Plan plan = kept.plan;
      const auto ranges =
          std::span(previous->ranges).subspan(plan.firstRange, plan.endRange - plan.firstRange);
      plan.firstRange = static_cast<std::uint32_t>(entry->ranges.size());
      entry->ranges.insert(entry->ranges.end(), ranges.begin(), ranges.end());
      plan.endRange = static_cast<std::uint32_t>(entry->ranges.size());
      addCandidate(*entry, {i, plan}, [&](std::vector<std::uint32_t>& slots) {
        if (previous->slotsKept) {
          slots.insert(slots.end(), previous->slots.begin() + kept.firstSlot,
                       previous->slots.begin() + kept.endSlot);
        } else {
          slotsOfMatches(*indexes[i], plan, entry->ranges, selector, slots);
        }
      });
    } else if (indexes[i]->size() != 0 &&
               (namespaces == nullptr ||
                std::binary_search(namespaces->begin(), namespaces->end(), indexes[i]->ns()))) {
      if (const auto plan = indexes[i]->plan(selector, entry->ranges)) {
        addCandidate(*entry, {i, *plan}, [&](std::vector<std::uint32_t>& slots) {
          slotsOfMatches(*indexes[i], *plan, entry->ranges, selector, slots);
        });
      }
    }
  }
  if (!entry->slotsKept) {
    entry->slots = {};
    for (Candidate& c : entry->candidates) c.firstSlot = c.endSlot = 0;
  }
  return entry;
}

}  // namespace scheduling::cache
