#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scheduling/api/label_selector.hpp"
#include "scheduling/api/labels.hpp"

// A parsed label selector, after k8s.io/apimachinery/pkg/labels (Selector, Requirement)
// and metav1.LabelSelectorAsSelector.
namespace scheduling::labels {

enum class Operator { In, NotIn, Exists, DoesNotExist };

struct Requirement {
  std::string key;
  Operator op = Operator::In;
  std::vector<std::string> values;  // sorted, unique

  bool matches(const api::Labels& labels) const;
  bool operator==(const Requirement&) const = default;
};

// Nothing matches no label set; Everything matches every set (even an empty one); otherwise
// the AND of the requirements, sorted by key.
class Selector {
 public:
  static Selector nothing() { return Selector(Kind::Nothing, {}); }
  static Selector everything() { return Selector(Kind::Everything, {}); }
  static Selector of(std::vector<Requirement> requirements);

  bool matches(const api::Labels& labels) const;
  // labels.Selector.Empty(): true only for Everything.
  bool isEverything() const { return kind_ == Kind::Everything; }
  bool isNothing() const { return kind_ == Kind::Nothing; }
  const std::vector<Requirement>& requirements() const { return requirements_; }
  bool operator==(const Selector&) const = default;
  // The selector written out, for memos keyed by it: equal selectors give equal keys, and
  // a key is never a prefix of another's (it ends with a separator no label can hold).
  std::string key() const;

 private:
  enum class Kind { Nothing, Everything, Requirements };
  Selector(Kind kind, std::vector<Requirement> requirements)
      : kind_(kind), requirements_(std::move(requirements)) {}

  Kind kind_;
  std::vector<Requirement> requirements_;
};

// metav1.LabelSelectorAsSelector: nil → Nothing, {} → Everything, else the requirements of
// matchLabels and matchExpressions, validated as labels.NewRequirement does (label keys and
// values, operator, value counts). On failure returns nullopt and appends upstream's error
// messages to `errors`, one per problem (callers aggregate them as utilerrors does).
std::optional<Selector> fromLabelSelector(const std::optional<api::LabelSelector>& selector,
                                          std::vector<std::string>& errors);

}  // namespace scheduling::labels
