#include "scheduling/cache/namespace_pod_index.hpp"

#include <algorithm>
#include <unordered_map>

namespace scheduling::cache {

namespace {

// Orders by length first, so that most comparisons of distinct values never reach memcmp.
// Any strict total order works for the binary searches as long as they use the same one.
bool shortlexLess(std::string_view a, std::string_view b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

}  // namespace

NamespacePodIndex::NamespacePodIndex(std::string ns, std::vector<Entry> pods)
    : ns_(std::move(ns)), pods_(std::move(pods)) {
  // Keys are few and shared by most pods: number them once so the sort below compares
  // integers instead of equal key strings.
  std::unordered_map<std::string_view, std::uint32_t> keyIds;
  std::vector<std::string_view> keyNames;
  struct Posting {
    std::uint32_t key;
    std::uint32_t pod;
    std::string_view value;
  };
  std::size_t total = 0;
  for (const Entry& e : pods_) total += e.pod->pod().metadata.labels.size();
  std::vector<Posting> all;
  all.reserve(total);
  for (std::uint32_t i = 0; i < pods_.size(); ++i) {
    for (const auto& [key, value] : pods_[i].pod->pod().metadata.labels) {
      auto [it, inserted] = keyIds.try_emplace(key, static_cast<std::uint32_t>(keyNames.size()));
      if (inserted) keyNames.push_back(key);
      all.push_back({it->second, i, value});
    }
  }
  // Renumber keys in key order, which findKey's binary search needs.
  std::vector<std::uint32_t> order(keyNames.size());
  for (std::uint32_t id = 0; id < order.size(); ++id) order[id] = id;
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t a, std::uint32_t b) { return keyNames[a] < keyNames[b]; });
  std::vector<std::uint32_t> rank(order.size());
  for (std::uint32_t r = 0; r < order.size(); ++r) rank[order[r]] = r;
  for (Posting& p : all) p.key = rank[p.key];

  std::sort(all.begin(), all.end(), [](const Posting& a, const Posting& b) {
    if (a.key != b.key) return a.key < b.key;
    if (a.value != b.value) return shortlexLess(a.value, b.value);
    return a.pod < b.pod;
  });

  keys_.reserve(order.size());
  postings_.reserve(all.size());
  for (std::uint32_t i = 0; i < all.size(); ++i) {
    postings_.push_back(all[i].pod);
    if (keys_.size() != all[i].key + 1) {
      keys_.push_back(
          {{keyNames[order[all[i].key]], i, i}, static_cast<std::uint32_t>(valueRuns_.size()), 0});
    }
    KeyRuns& key = keys_.back();
    if (valueRuns_.size() == key.firstValue || valueRuns_.back().label != all[i].value) {
      valueRuns_.push_back({all[i].value, i, i});
    }
    ++key.key.end;
    ++valueRuns_.back().end;
    key.lastValue = static_cast<std::uint32_t>(valueRuns_.size());
  }
}

const NamespacePodIndex::KeyRuns* NamespacePodIndex::findKey(std::string_view key) const {
  auto it = std::lower_bound(keys_.begin(), keys_.end(), key,
                             [](const KeyRuns& k, std::string_view v) { return k.key.label < v; });
  return it != keys_.end() && it->key.label == key ? &*it : nullptr;
}

const NamespacePodIndex::Run* NamespacePodIndex::findValue(const KeyRuns& key,
                                                           std::string_view value) const {
  auto first = valueRuns_.begin() + key.firstValue;
  auto last = valueRuns_.begin() + key.lastValue;
  auto it = std::lower_bound(first, last, value, [](const Run& r, std::string_view v) {
    return shortlexLess(r.label, v);
  });
  return it != last && it->label == value ? &*it : nullptr;
}

NamespacePodIndex::Plan NamespacePodIndex::plan(const labels::Selector& selector) const {
  Plan best;
  if (selector.isNothing()) {
    best.none = true;
    return best;
  }
  std::size_t bestSize = pods_.size();
  for (const auto& r : selector.requirements()) {
    if (r.op != labels::Operator::In && r.op != labels::Operator::Exists) continue;
    const KeyRuns* key = findKey(r.key);
    std::size_t size = 0;
    if (key != nullptr) {
      if (r.op == labels::Operator::Exists) {
        size = key->key.size();
      } else {
        for (const auto& value : r.values) {
          if (const Run* run = findValue(*key, value)) size += run->size();
        }
      }
    }
    if (size == 0) {
      best.none = true;
      return best;
    }
    if (size < bestSize) {
      bestSize = size;
      best.all = false;
      best.key = key;
      best.in = r.op == labels::Operator::In ? &r : nullptr;
    }
  }
  return best;
}

}  // namespace scheduling::cache
