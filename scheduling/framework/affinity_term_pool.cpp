#include "scheduling/framework/affinity_term_pool.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "scheduling/framework/string_table.hpp"

namespace scheduling::framework {

namespace {

// Hashes every field operator== compares, so that unequal lists rarely share a bucket.
class ListsHash {
 public:
  std::size_t of(const AffinityTermLists& lists) {
    add(lists.requiredAffinity);
    add(lists.requiredAntiAffinity);
    add(lists.preferredAffinity);
    add(lists.preferredAntiAffinity);
    return static_cast<std::size_t>(h_);
  }

 private:
  void mix(std::uint64_t v) { h_ = (h_ ^ v) * 0x9e3779b97f4a7c15ULL; }
  void add(std::string_view s) { mix(hashString(s)); }
  void add(const labels::Selector& selector) {
    mix(selector.isNothing() ? 1 : selector.isEverything() ? 2 : 3);
    for (const auto& r : selector.requirements()) {
      add(r.key);
      mix(static_cast<std::uint64_t>(r.op));
      for (const auto& v : r.values) add(v);
      mix(r.values.size());
    }
  }
  void add(const AffinityTerm& term) {
    add(term.selector);
    for (const auto& ns : term.namespaces) add(ns);
    mix(term.namespaces.size());
    add(term.namespaceSelector);
    add(term.topologyKey);
  }
  void add(const std::vector<AffinityTerm>& terms) {
    mix(terms.size());
    for (const auto& t : terms) add(t);
  }
  void add(const std::vector<WeightedAffinityTerm>& terms) {
    mix(terms.size());
    for (const auto& w : terms) {
      add(w.term);
      mix(static_cast<std::uint64_t>(w.weight));
    }
  }

  std::uint64_t h_ = 0;
};

}  // namespace

std::shared_ptr<AffinityTermLists> AffinityTermPool::share(
    std::shared_ptr<AffinityTermLists> lists) {
  auto& bucket = byHash_[ListsHash().of(*lists)];
  for (const auto& entry : bucket) {
    if (auto live = entry.lock(); live && *live == *lists) return live;
  }
  bucket.push_back(lists);
  if (++size_ >= sweepAt_) sweep();
  return lists;
}

// Drops the entries of lists no pod holds any more; the next sweep comes when the pool has
// doubled again, so sweeping costs O(1) per share() amortised.
void AffinityTermPool::sweep() {
  size_ = 0;
  for (auto it = byHash_.begin(); it != byHash_.end();) {
    std::erase_if(it->second, [](const auto& entry) { return entry.expired(); });
    size_ += it->second.size();
    it = it->second.empty() ? byHash_.erase(it) : std::next(it);
  }
  sweepAt_ = std::max<std::size_t>(1024, 2 * size_);
}

}  // namespace scheduling::framework
