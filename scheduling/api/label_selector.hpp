#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scheduling/api/labels.hpp"

namespace scheduling::api {

// metav1.LabelSelectorRequirement as written in the object. The operator is kept as text:
// an unknown operator is not a decoding error but a scheduling one ("parsing pod: ..."),
// exactly as upstream only notices it when converting the selector.
struct LabelSelectorRequirement {
  std::string key;
  std::string op;
  std::vector<std::string> values;
  bool operator==(const LabelSelectorRequirement&) const = default;
};

// metav1.LabelSelector as written in the object. nil and {} differ (nothing vs everything),
// so owners hold it in a std::optional.
struct LabelSelector {
  Labels matchLabels;
  std::vector<LabelSelectorRequirement> matchExpressions;
  bool operator==(const LabelSelector&) const = default;
};

}  // namespace scheduling::api
