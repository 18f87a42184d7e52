#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scheduling/api/labels.hpp"
#include "scheduling/cache/bounded_memo.hpp"
#include "scheduling/labels/selector.hpp"

namespace scheduling::cache {

// The cluster's namespaces with their labels, and an inverted index over those labels, so
// that a namespaceSelector is resolved by looking up what it requires instead of testing
// every namespace: at 1,500 namespaces, testing each one's labels was a tenth of a
// /prioritize whose pod prefers pods of the namespaces labelled `team: shop`. Immutable
// but for a memo of its answers; the Cache builds one when a namespace changes and
// snapshots share it, on every request thread.
class NamespaceDirectory {
 public:
  using Labels = std::map<std::string, api::Labels, std::less<>>;

  explicit NamespaceDirectory(Labels namespaces);
  NamespaceDirectory(const NamespaceDirectory&) = delete;
  NamespaceDirectory& operator=(const NamespaceDirectory&) = delete;

  // The namespace's labels; null for an unknown namespace.
  const api::Labels* labelsOf(std::string_view ns) const;
  const Labels& all() const { return namespaces_; }

  // Calls fn(name) for every namespace whose labels `selector` matches, in name order.
  // Answers are remembered by selector: a workload's pods carry the same namespaceSelector
  // request after request, and `team: shop` admits 190 of 1,500 namespaces, each a walk
  // of its labels, where the memo's answer is one lookup and a list of positions.
  void forEachMatching(const labels::Selector& selector,
                       const std::function<void(const std::string& name)>& fn) const;

  // Remembered selectors; a bounded number, so a stream of distinct selectors costs at most
  // that many answers.
  std::size_t memoSize() const;
  static constexpr std::size_t kMaxMemoEntries = 512;

 private:
  struct Key {
    std::vector<std::uint32_t> exists;  // positions of the namespaces with the key
    std::unordered_map<std::string_view, std::vector<std::uint32_t>> values;
  };

  // The positions the selector's most selective `In` or `Exists` requirement admits, sorted;
  // false when it has neither (every namespace is a candidate).
  bool candidates(const labels::Selector& selector, std::vector<std::uint32_t>& out) const;
  // The positions of the namespaces `selector` matches, ascending.
  std::vector<std::uint32_t> resolve(const labels::Selector& selector) const;

  Labels namespaces_;
  std::vector<const Labels::value_type*> byPosition_;  // name order
  std::unordered_map<std::string_view, Key> keys_;

  mutable BoundedMemo<std::vector<std::uint32_t>> memo_{kMaxMemoEntries};  // by Selector::key()
};

}  // namespace scheduling::cache
