#include "scheduling/cache/namespace_directory.hpp"

#include <algorithm>
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

void NamespaceDirectory::forEachMatching(
    const labels::Selector& selector,
    const std::function<void(const std::string& name)>& fn) const {
  if (selector.isNothing()) return;
  std::vector<std::uint32_t> positions;
  if (!candidates(selector, positions)) {
    for (const auto* entry : byPosition_) {
      if (selector.matches(entry->second)) fn(entry->first);
    }
    return;
  }
  for (std::uint32_t position : positions) {
    const auto* entry = byPosition_[position];
    if (selector.matches(entry->second)) fn(entry->first);
  }
}

}  // namespace scheduling::cache
