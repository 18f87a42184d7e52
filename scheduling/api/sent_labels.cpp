#include "scheduling/api/sent_labels.hpp"

#include <algorithm>

namespace scheduling::api {

namespace {

// Room for the labels of a typical cloud node (about 15, under 1 KB), so that one allocation
// per node is the rule.
constexpr std::size_t kInitialBytes = 1024;
constexpr std::size_t kInitialEntries = 16;

}  // namespace

SentLabels::Entry SentLabels::store(std::string_view key, std::string_view value) {
  if (bytes_.capacity() < kInitialBytes) bytes_.reserve(kInitialBytes);
  const auto at = static_cast<std::uint32_t>(bytes_.size());
  bytes_.append(key).append(value);
  return {at, static_cast<std::uint32_t>(key.size()), static_cast<std::uint32_t>(at + key.size()),
          static_cast<std::uint32_t>(value.size())};
}

void SentLabels::set(std::string_view key, std::string_view value) {
  if (entries_.empty()) entries_.reserve(kInitialEntries);
  // Sent in key order as the API server writes them (Go marshals maps sorted), labels are
  // mostly appended, as in Labels::set.
  if (entries_.empty() || this->key(entries_.back()) < key) {
    entries_.push_back(store(key, value));
    return;
  }
  const auto it =
      std::lower_bound(entries_.begin(), entries_.end(), key,
                       [this](const Entry& e, std::string_view k) { return this->key(e) < k; });
  const Entry entry = store(key, value);
  if (it != entries_.end() && this->key(*it) == key) {
    *it = entry;
  } else {
    entries_.insert(it, entry);
  }
}

Labels SentLabels::toLabels() const {
  Labels labels;
  for (const Entry& e : entries_) labels.set(std::string(key(e)), std::string(value(e)));
  return labels;
}

bool SentLabels::operator==(const Labels& labels) const {
  return std::equal(entries_.begin(), entries_.end(), labels.begin(), labels.end(),
                    [this](const Entry& e, const Labels::Entry& l) {
                      return key(e) == l.first && value(e) == l.second;
                    });
}

bool SentLabels::operator==(const SentLabels& other) const {
  return std::equal(entries_.begin(), entries_.end(), other.entries_.begin(), other.entries_.end(),
                    [this, &other](const Entry& a, const Entry& b) {
                      return key(a) == other.key(b) && value(a) == other.value(b);
                    });
}

}  // namespace scheduling::api
