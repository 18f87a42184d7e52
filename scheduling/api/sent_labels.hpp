#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/api/labels.hpp"

namespace scheduling::api {

// The labels of a Node sent in a request, with the semantics of Labels (sorted by key, a later
// duplicate wins) but held in one buffer per node: a 5000-node NodeList carries ~100k labels,
// and two heap strings per label made allocating and freeing them a quarter of a request's
// cost. Requests only compare them with the cached node's labels, and copy them into Labels
// when they differ.
class SentLabels {
 public:
  void set(std::string_view key, std::string_view value);

  Labels toLabels() const;

  // The same entries; the layout of the buffer does not matter.
  bool operator==(const Labels& labels) const;
  bool operator==(const SentLabels& other) const;

 private:
  struct Entry {
    std::uint32_t keyAt, keySize, valueAt, valueSize;  // ranges of bytes_
  };

  std::string_view key(const Entry& e) const { return {bytes_.data() + e.keyAt, e.keySize}; }
  std::string_view value(const Entry& e) const { return {bytes_.data() + e.valueAt, e.valueSize}; }
  Entry store(std::string_view key, std::string_view value);

  std::string bytes_;
  std::vector<Entry> entries_;  // sorted by key
};

}  // namespace scheduling::api
