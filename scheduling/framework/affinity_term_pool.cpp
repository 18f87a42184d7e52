#include "scheduling/framework/affinity_term_pool.hpp"

#include <string_view>
#include <utility>

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
  const std::size_t hash = ListsHash().of(*lists);
  return pool_.share(std::move(lists), hash);
}

}  // namespace scheduling::framework
