#include "scheduling/cache/namespace_pod_index.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <span>
#include <tuple>
#include <unordered_map>

#include "scheduling/api/labels.hpp"
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

// The distinct labels of a namespace's pods, numbered: keys, and (key, value) pairs. The
// replicas of a ReplicaSet share one label set (LabelsPool), so a set is numbered at its
// first pod and its other pods reuse the numbers: hashing and comparing label bytes for
// every pod's every label, then sorting all of them, was most of building the index of a
// namespace, and a million pods' indexes are built before the extender is ready.
class LabelNumbering {
 public:
  struct Pair {
    std::uint32_t key;        // index into keys()
    std::uint64_t valueHash;  // framework::hashString(value)
    std::string_view value;
  };
  // A label set's pairs: setPairs()[first, first + size), in the set's key order.
  struct Range {
    std::uint32_t first;
    std::uint32_t size;
  };

  Range number(const api::Labels& labels) {
    if (labels.empty()) return {0, 0};
    auto [set, inserted] = sets_.try_emplace(labels.bufferId());
    if (!inserted) return set->second;
    set->second = {static_cast<std::uint32_t>(setPairs_.size()),
                   static_cast<std::uint32_t>(labels.size())};
    for (const auto& [key, value] : labels) setPairs_.push_back(pairId(keyId(key), value));
    return set->second;
  }

  std::span<const std::uint32_t> setPairs(Range range) const {
    return std::span<const std::uint32_t>(setPairs_).subspan(range.first, range.size);
  }
  const std::vector<std::string_view>& keys() const { return keys_; }
  const std::vector<Pair>& pairs() const { return pairs_; }

 private:
  std::uint32_t keyId(std::string_view key) {
    auto [it, inserted] = keyIds_.try_emplace(key, static_cast<std::uint32_t>(keys_.size()));
    if (inserted) keys_.push_back(key);
    return it->second;
  }

  std::uint32_t pairId(std::uint32_t key, std::string_view value) {
    const Pair pair{key, framework::hashString(value), value};
    auto [it, inserted] = pairIds_.try_emplace(pair, static_cast<std::uint32_t>(pairs_.size()));
    if (inserted) pairs_.push_back(pair);
    return it->second;
  }

  struct PairHash {
    std::size_t operator()(const Pair& p) const {
      return p.valueHash ^ (p.key * 0x9e3779b97f4a7c15ULL);
    }
  };
  struct PairEqual {
    bool operator()(const Pair& a, const Pair& b) const {
      return a.key == b.key && a.valueHash == b.valueHash && a.value == b.value;
    }
  };

  std::unordered_map<const void*, Range> sets_;  // by Labels::bufferId()
  std::vector<std::uint32_t> setPairs_;
  std::unordered_map<std::string_view, std::uint32_t> keyIds_;
  std::vector<std::string_view> keys_;
  std::unordered_map<Pair, std::uint32_t, PairHash, PairEqual> pairIds_;
  std::vector<Pair> pairs_;
};

}  // namespace

NamespacePodIndex::NamespacePodIndex(std::string ns, std::vector<Entry> pods)
    : ns_(std::move(ns)), serial_(nextSerial()), pods_(std::move(pods)) {
  LabelNumbering numbering;
  // Each pod's pairs, as a range of numbering.setPairs(), and how many pods have each pair.
  std::vector<LabelNumbering::Range> podPairs;
  podPairs.reserve(pods_.size());
  for (const Entry& e : pods_) podPairs.push_back(numbering.number(e.pod->pod().metadata.labels));
  std::vector<std::uint32_t> podsWithPair(numbering.pairs().size(), 0);
  for (const LabelNumbering::Range& range : podPairs) {
    for (const std::uint32_t pair : numbering.setPairs(range)) ++podsWithPair[pair];
  }

  // The keys are copied next to each other, so that findKey's final comparison reads this
  // index rather than some pod's labels.
  std::vector<std::string_view> keyNames = numbering.keys();
  std::size_t keyBytes = 0;
  for (std::string_view key : keyNames) keyBytes += key.size();
  keyText_.reserve(keyBytes);
  for (std::string_view& key : keyNames) {
    const std::size_t at = keyText_.size();
    keyText_.append(key);
    key = std::string_view(keyText_).substr(at, key.size());
  }
  // Runs in the order the binary searches need: keys by (hash, key), a key's values by
  // (hash, value). Label bytes are compared only where hashes tie.
  std::vector<std::uint64_t> keyHashes(keyNames.size());
  for (std::uint32_t id = 0; id < keyNames.size(); ++id) {
    keyHashes[id] = framework::hashString(keyNames[id]);
  }
  std::vector<std::uint32_t> keyRank(keyNames.size());
  {
    std::vector<std::uint32_t> order(keyNames.size());
    for (std::uint32_t id = 0; id < order.size(); ++id) order[id] = id;
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return std::tie(keyHashes[a], keyNames[a]) < std::tie(keyHashes[b], keyNames[b]);
    });
    for (std::uint32_t r = 0; r < order.size(); ++r) keyRank[order[r]] = r;
  }
  const auto& pairs = numbering.pairs();
  std::vector<std::uint32_t> pairOrder(pairs.size());
  for (std::uint32_t id = 0; id < pairOrder.size(); ++id) pairOrder[id] = id;
  std::sort(pairOrder.begin(), pairOrder.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::tie(keyRank[pairs[a].key], pairs[a].valueHash, pairs[a].value) <
           std::tie(keyRank[pairs[b].key], pairs[b].valueHash, pairs[b].value);
  });

  // The runs, laid out from the counts; nextPosting[pair]: where its next pod goes.
  std::vector<std::uint32_t> nextPosting(pairs.size());
  std::uint32_t at = 0;
  keys_.reserve(keyNames.size());
  valueRuns_.reserve(pairs.size());
  for (std::size_t i = 0; i < pairOrder.size(); ++i) {
    const std::uint32_t id = pairOrder[i];
    const LabelNumbering::Pair& pair = pairs[id];
    if (i == 0 || pairs[pairOrder[i - 1]].key != pair.key) {
      keys_.push_back({{keyNames[pair.key], keyHashes[pair.key], at, at},
                       static_cast<std::uint32_t>(valueRuns_.size()),
                       0});
    }
    nextPosting[id] = at;
    at += podsWithPair[id];
    valueRuns_.push_back({pair.value, pair.valueHash, nextPosting[id], at});
    keys_.back().key.end = at;
    keys_.back().lastValue = static_cast<std::uint32_t>(valueRuns_.size());
  }
  // Pods in index order within each run, as the walks visit them.
  postings_.resize(at);
  for (std::uint32_t i = 0; i < pods_.size(); ++i) {
    for (const std::uint32_t pair : numbering.setPairs(podPairs[i])) {
      postings_[nextPosting[pair]++] = i;
    }
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
