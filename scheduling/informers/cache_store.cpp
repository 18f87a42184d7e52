#include "scheduling/informers/cache_store.hpp"

#include <vector>

namespace scheduling::informers {

namespace {

// The key an object is held under: what its delete is addressed by.
std::string keyOf(const api::Pod& pod) { return pod.cacheKey(); }
std::string keyOf(const api::Node& node) { return node.name; }
std::string keyOf(const api::Namespace& ns) { return ns.name; }
std::string keyOf(const api::PodDisruptionBudget& pdb) { return pdb.cacheKey(); }

// Returns whether a pod got a node.
bool upsertInto(cache::Cache& cache, api::Pod&& pod) { return cache.upsertPod(std::move(pod)); }
bool upsertInto(cache::Cache& cache, api::Node&& node) {
  cache.upsertNode(std::move(node));
  return false;
}
bool upsertInto(cache::Cache& cache, api::Namespace&& ns) {
  cache.upsertNamespace(std::move(ns));
  return false;
}
bool upsertInto(cache::Cache& cache, api::PodDisruptionBudget&& pdb) {
  cache.upsertPodDisruptionBudget(pdb);
  return false;
}

template <typename T>
void removeFrom(cache::Cache& cache, const std::string& key);
template <>
void removeFrom<api::Pod>(cache::Cache& cache, const std::string& key) {
  cache.deletePod(key);
}
template <>
void removeFrom<api::Node>(cache::Cache& cache, const std::string& key) {
  cache.deleteNode(key);
}
template <>
void removeFrom<api::Namespace>(cache::Cache& cache, const std::string& key) {
  cache.deleteNamespace(key);
}
template <>
void removeFrom<api::PodDisruptionBudget>(cache::Cache& cache, const std::string& key) {
  cache.deletePodDisruptionBudget(key);
}

}  // namespace

template <typename T>
void CacheStore<T>::upsert(T&& object) {
  if constexpr (kKeepsKeys) keys_.insert(keyOf(object));
  if (upsertInto(cache_, std::move(object))) placed_ = true;
}

template <typename T>
void CacheStore<T>::remove(const std::string& key) {
  if constexpr (kKeepsKeys) keys_.erase(key);
  removeFrom<T>(cache_, key);
}

template <typename T>
void CacheStore<T>::finishFiling() {
  if (!filing_) return;
  // Reset first: a failure of the filing thread is rethrown once, and the next list starts
  // a filing of its own.
  const auto filing = std::move(filing_);
  if (filing->finish()) placed_ = true;
}

template <typename T>
void CacheStore<T>::beginReplace() {
  listStarted_ = std::chrono::steady_clock::now();
  if constexpr (kKeepsKeys) {
    listed_.clear();
  } else {
    finishFiling();  // a list cut short: its pods count as the API server showed them
    cache_.beginPodRelist();
    filing_ = std::make_unique<PodFiling>(cache_);
  }
}

template <typename T>
void CacheStore<T>::replaceItem(std::string_view text, std::size_t index) {
  if constexpr (kKeepsKeys) {
    T object = api::json::decodeListItem<T>(text, index);
    listed_.insert(keyOf(object));
    upsert(std::move(object));
  } else {
    filing_->add(text, index);  // decoded on a thread of the filing's own
  }
}

template <typename T>
std::size_t CacheStore<T>::endReplace() {
  if constexpr (!kKeepsKeys) {
    finishFiling();
    return cache_.endPodRelist(listStarted_);
  } else {
    std::vector<std::string> gone;
    for (const auto& key : keys_) {
      if (!listed_.contains(key)) gone.push_back(key);
    }
    for (const auto& key : gone) remove(key);
    listed_.clear();
    return gone.size();
  }
}

template <typename T>
void CacheStore<T>::apply(api::json::WatchEventType type, T&& object) {
  using api::json::WatchEventType;
  finishFiling();  // an event is newer than every listed pod: it applies after them
  switch (type) {
    case WatchEventType::Added:
    case WatchEventType::Modified:
      upsert(std::move(object));
      break;
    case WatchEventType::Deleted:
      remove(keyOf(object));
      break;
    case WatchEventType::Bookmark:
    case WatchEventType::Error:
      break;
  }
}

template class CacheStore<api::Pod>;
template class CacheStore<api::Node>;
template class CacheStore<api::Namespace>;
template class CacheStore<api::PodDisruptionBudget>;

}  // namespace scheduling::informers
