#include "scheduling/cache/namespace_pod_index.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <tuple>
#include <unordered_map>

#include "scheduling/framework/string_table.hpp"

namespace scheduling::cache {

namespace {

std::uint64_t nextSerial() {
  static std::atomic<std::uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

// The element of [first, last) whose run is labelled `label`, else last; `hash` is
// framework::hashString(label) and the range is ordered by (hash, label). Found by the hash,
// so that the search reads the runs' array and, once, the label's bytes, instead of the
// bytes of a label at every step (they lie in the pods, a cache miss each).
template <typename It, typename RunOf>
It findRun(It first, It last, std::string_view label, std::uint64_t hash, RunOf runOf) {
  auto it = std::lower_bound(first, last, hash,
                             [&](const auto& e, std::uint64_t h) { return runOf(e).hash < h; });
  for (; it != last && runOf(*it).hash == hash; ++it) {
    if (runOf(*it).label == label) return it;
  }
  return last;
}

}  // namespace

NamespacePodIndex::NamespacePodIndex(std::string ns, std::vector<Entry> pods)
    : ns_(std::move(ns)), serial_(nextSerial()), pods_(std::move(pods)) {
  // Keys are few and shared by most pods: number them once so the sort below compares
  // integers instead of equal key strings.
  std::unordered_map<std::string_view, std::uint32_t> keyIds;
  std::vector<std::string_view> keyNames;
  struct Posting {
    std::uint32_t key;
    std::uint32_t pod;
    std::uint64_t valueHash;
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
      all.push_back({it->second, i, framework::hashString(value), value});
    }
  }
  // The keys are copied next to each other, so that findKey's final comparison reads this
  // index rather than some pod's labels.
  std::size_t keyBytes = 0;
  for (std::string_view key : keyNames) keyBytes += key.size();
  keyText_.reserve(keyBytes);
  for (std::string_view& key : keyNames) {
    const std::size_t at = keyText_.size();
    keyText_.append(key);
    key = std::string_view(keyText_).substr(at, key.size());
  }
  // Renumber keys in (hash, key) order, which findKey's binary search needs.
  std::vector<std::uint64_t> keyHashes(keyNames.size());
  for (std::uint32_t id = 0; id < keyNames.size(); ++id) {
    keyHashes[id] = framework::hashString(keyNames[id]);
  }
  std::vector<std::uint32_t> order(keyNames.size());
  for (std::uint32_t id = 0; id < order.size(); ++id) order[id] = id;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::tie(keyHashes[a], keyNames[a]) < std::tie(keyHashes[b], keyNames[b]);
  });
  std::vector<std::uint32_t> rank(order.size());
  for (std::uint32_t r = 0; r < order.size(); ++r) rank[order[r]] = r;
  for (Posting& p : all) p.key = rank[p.key];

  std::sort(all.begin(), all.end(), [](const Posting& a, const Posting& b) {
    return std::tie(a.key, a.valueHash, a.value, a.pod) <
           std::tie(b.key, b.valueHash, b.value, b.pod);
  });

  keys_.reserve(order.size());
  postings_.reserve(all.size());
  for (std::uint32_t i = 0; i < all.size(); ++i) {
    postings_.push_back(all[i].pod);
    if (keys_.size() != all[i].key + 1) {
      const std::uint32_t id = order[all[i].key];
      keys_.push_back(
          {{keyNames[id], keyHashes[id], i, i}, static_cast<std::uint32_t>(valueRuns_.size()), 0});
    }
    KeyRuns& key = keys_.back();
    if (valueRuns_.size() == key.firstValue || valueRuns_.back().label != all[i].value) {
      valueRuns_.push_back({all[i].value, all[i].valueHash, i, i});
    }
    ++key.key.end;
    ++valueRuns_.back().end;
    key.lastValue = static_cast<std::uint32_t>(valueRuns_.size());
  }

  fingerprints_.assign(std::bit_ceil(2 * (keys_.size() + valueRuns_.size()) + 1), 0);
  for (const KeyRuns& key : keys_) {
    addFingerprint(keyFingerprint(key.key.hash));
    for (std::uint32_t v = key.firstValue; v < key.lastValue; ++v) {
      addFingerprint(pairFingerprint(key.key.hash, valueRuns_[v].hash));
    }
  }
}

std::uint32_t NamespacePodIndex::keyFingerprint(std::uint64_t keyHash) {
  return static_cast<std::uint32_t>(keyHash >> 32) | 1u;  // never 0, the empty slot
}

std::uint32_t NamespacePodIndex::pairFingerprint(std::uint64_t keyHash, std::uint64_t valueHash) {
  // Any mix will do that keeps (k, v) apart from (v, k) and from the key's own fingerprint.
  const std::uint64_t mixed = (keyHash ^ std::rotl(valueHash, 23)) * 0x9e3779b97f4a7c15ULL;
  return static_cast<std::uint32_t>(mixed >> 32) | 1u;
}

void NamespacePodIndex::addFingerprint(std::uint32_t fingerprint) {
  const std::size_t mask = fingerprints_.size() - 1;
  for (std::size_t i = fingerprint & mask;; i = (i + 1) & mask) {
    if (fingerprints_[i] == fingerprint) return;
    if (fingerprints_[i] == 0) {
      fingerprints_[i] = fingerprint;
      return;
    }
  }
}

bool NamespacePodIndex::mayHave(std::uint32_t fingerprint) const {
  const std::size_t mask = fingerprints_.size() - 1;
  for (std::size_t i = fingerprint & mask;; i = (i + 1) & mask) {
    if (fingerprints_[i] == fingerprint) return true;
    if (fingerprints_[i] == 0) return false;
  }
}

const NamespacePodIndex::KeyRuns* NamespacePodIndex::findKey(std::string_view key,
                                                             std::uint64_t keyHash) const {
  auto it = findRun(keys_.begin(), keys_.end(), key, keyHash,
                    [](const KeyRuns& k) -> const Run& { return k.key; });
  return it != keys_.end() ? &*it : nullptr;
}

const NamespacePodIndex::Run* NamespacePodIndex::findValue(const KeyRuns& key,
                                                           std::string_view value) const {
  auto first = valueRuns_.begin() + key.firstValue;
  auto last = valueRuns_.begin() + key.lastValue;
  auto it = findRun(first, last, value, framework::hashString(value),
                    [](const Run& r) -> const Run& { return r; });
  return it != last ? &*it : nullptr;
}

std::optional<NamespacePodIndex::Plan> NamespacePodIndex::plan(const labels::Selector& selector,
                                                               std::vector<Range>& ranges) const {
  if (selector.isNothing()) return std::nullopt;
  // The smallest candidate set: every pod, else a key's postings (Exists) or the union of
  // some of its value runs (In).
  const KeyRuns* bestKey = nullptr;
  const labels::Requirement* bestIn = nullptr;
  std::size_t bestSize = pods_.size();
  for (const auto& r : selector.requirements()) {
    if (r.op != labels::Operator::In && r.op != labels::Operator::Exists) continue;
    const std::uint64_t keyHash = framework::hashString(r.key);
    const bool absent =
        r.op == labels::Operator::Exists
            ? !mayHave(keyFingerprint(keyHash))
            : std::none_of(r.values.begin(), r.values.end(), [&](const std::string& value) {
                return mayHave(pairFingerprint(keyHash, framework::hashString(value)));
              });
    if (absent) return std::nullopt;
    const KeyRuns* key = findKey(r.key, keyHash);
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
    if (size == 0) return std::nullopt;
    if (size < bestSize) {
      bestSize = size;
      bestKey = key;
      bestIn = r.op == labels::Operator::In ? &r : nullptr;
    }
  }

  Plan p;
  p.all = bestKey == nullptr;
  p.checked = p.all || selector.requirements().size() != 1;
  p.firstRange = p.endRange = static_cast<std::uint32_t>(ranges.size());
  if (p.all) return p;
  if (bestIn == nullptr) {
    ranges.push_back({bestKey->key.begin, bestKey->key.end});
  } else {
    // A pod has one value per key, so the runs of distinct values are disjoint.
    for (const std::string& value : bestIn->values) {
      if (const Run* run = findValue(*bestKey, value)) ranges.push_back({run->begin, run->end});
    }
  }
  p.endRange = static_cast<std::uint32_t>(ranges.size());
  return p;
}

}  // namespace scheduling::cache
