#include "scheduling/cache/namespace_directory.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

namespace scheduling::cache {

NamespaceDirectory::NamespaceDirectory(Labels namespaces) : namespaces_(std::move(namespaces)) {
  byPosition_.reserve(namespaces_.size());
  for (const auto& entry : namespaces_) {
    const auto position = static_cast<std::uint32_t>(byPosition_.size());
    byPosition_.push_back(&entry);
    for (const auto& [key, value] : entry.second) {
      Key& k = keys_[key];
      k.exists.push_back(position);
      k.values[value].push_back(position);
    }
  }
}

const api::Labels* NamespaceDirectory::labelsOf(std::string_view ns) const {
  auto it = namespaces_.find(ns);
  return it == namespaces_.end() ? nullptr : &it->second;
}

bool NamespaceDirectory::candidates(const labels::Selector& selector,
                                    std::vector<std::uint32_t>& out) const {
  // Requirements are ANDed: the smallest set one of them admits bounds the answer. Each
  // requirement's namespaces are gathered once; the smallest set is kept.
  bool any = false;
  std::vector<std::uint32_t> admitted;
  for (const auto& r : selector.requirements()) {
    if (r.op != labels::Operator::In && r.op != labels::Operator::Exists) continue;
    admitted.clear();
    if (auto k = keys_.find(std::string_view(r.key)); k != keys_.end()) {
      if (r.op == labels::Operator::Exists) {
        admitted = k->second.exists;
      } else {
        // A namespace has one value per key: the values' lists are disjoint.
        for (const auto& value : r.values) {
          auto v = k->second.values.find(std::string_view(value));
          if (v != k->second.values.end()) {
            admitted.insert(admitted.end(), v->second.begin(), v->second.end());
          }
        }
      }
    }
    if (!any || admitted.size() < out.size()) out.swap(admitted);
    any = true;
  }
  std::sort(out.begin(), out.end());
  return any;
}

std::vector<std::uint32_t> NamespaceDirectory::resolve(const labels::Selector& selector) const {
  std::vector<std::uint32_t> positions;
  if (selector.isNothing()) return positions;
  if (!candidates(selector, positions)) {
    positions.resize(byPosition_.size());
    std::iota(positions.begin(), positions.end(), 0);
  }
  std::erase_if(positions, [&](std::uint32_t position) {
    return !selector.matches(byPosition_[position]->second);
  });
  return positions;
}

std::size_t NamespaceDirectory::memoSize() const { return memo_.size(); }

void NamespaceDirectory::forEachMatching(
    const labels::Selector& selector,
    const std::function<void(const std::string& name)>& fn) const {
  std::string key = selector.key();
  auto positions = memo_.find(key);
  if (!positions) {
    // Two threads may both resolve a new selector; both store the same answer.
    positions = std::make_shared<const std::vector<std::uint32_t>>(resolve(selector));
    memo_.store(std::move(key), positions);
  }
  for (std::uint32_t position : *positions) fn(byPosition_[position]->first);
}

}  // namespace scheduling::cache
