#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "test/testing/wrappers.hpp"

// What the InterPodAffinity suites share: the fixtures of upstream's filtering_test.go and
// scoring_test.go, and the printing of topology counts for their failure messages.
namespace testing {

// (topology key, value) → count, as the plugin's topologyToMatchedTermCount holds it.
using TopologyCounts = std::map<std::pair<std::string, std::string>, std::int64_t>;

inline std::string show(const TopologyCounts& counts) {
  std::string out = "{";
  for (const auto& [pair, n] : counts) {
    if (out.size() > 1) out += ", ";
    out += pair.first + "=" + pair.second + ": " + std::to_string(n);
  }
  return out + "}";
}

// The namespaces of scoring_test.go, also used by TestRequiredAffinitySingleNode.
inline std::vector<api::Namespace> teamNamespaces() {
  return {makeNamespace("subteam1.team1", {{"team", "team1"}}),
          makeNamespace("subteam2.team1", {{"team", "team1"}}),
          makeNamespace("subteam1.team2", {{"team", "team2"}}),
          makeNamespace("subteam2.team2", {{"team", "team2"}})};
}

// A required term as the Go tables write it inline.
inline api::PodAffinityTerm term(const api::LabelSelector& selector, const std::string& topologyKey,
                                 std::vector<std::string> namespaces = {},
                                 std::optional<api::LabelSelector> namespaceSelector = {}) {
  return affinityTerm(selector, topologyKey, std::move(namespaces), std::move(namespaceSelector));
}

}  // namespace testing
