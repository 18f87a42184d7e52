#include "scheduling/labels/selector.hpp"

#include <algorithm>
#include <string_view>

#include "scheduling/labels/validation.hpp"

namespace scheduling::labels {

namespace {

std::optional<Operator> parseOperator(std::string_view op) {
  // metav1.LabelSelectorOperator values; the match is case-sensitive upstream too.
  if (op == "In") return Operator::In;
  if (op == "NotIn") return Operator::NotIn;
  if (op == "Exists") return Operator::Exists;
  if (op == "DoesNotExist") return Operator::DoesNotExist;
  return std::nullopt;
}

// fmt's %#v of a []string, as field.Invalid prints the values of a bad value count.
// LabelSelectorAsSelector copies the values with append([]string(nil), ...), so an empty
// list is a nil slice.
std::string goSliceLiteral(const std::vector<std::string>& values) {
  if (values.empty()) return "[]string(nil)";
  std::string out = "[]string{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += goQuote(values[i]);
  }
  out += "}";
  return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& part : parts) {
    if (!out.empty()) out += sep;
    out += part;
  }
  return out;
}

// labels.NewRequirement: validates key, value count and values, and reports every problem
// as field.Invalid formats it ("<path>: Invalid value: <value>: <detail>"). The errors are
// de-duplicated as field.ErrorList.ToAggregate does.
std::optional<Requirement> newRequirement(const std::string& key, Operator op,
                                          std::vector<std::string> values,
                                          std::vector<std::string>& errors) {
  std::vector<std::string> errs;
  if (auto keyErrs = isQualifiedName(key); !keyErrs.empty()) {
    errs.push_back("key: Invalid value: " + goQuote(key) + ": " + join(keyErrs, "; "));
  }
  switch (op) {
    case Operator::In:
    case Operator::NotIn:
      if (values.empty()) {
        errs.push_back("values: Invalid value: " + goSliceLiteral(values) +
                       ": for 'in', 'notin' operators, values set can't be empty");
      }
      break;
    case Operator::Exists:
    case Operator::DoesNotExist:
      if (!values.empty()) {
        errs.push_back("values: Invalid value: " + goSliceLiteral(values) +
                       ": values set must be empty for exists and does not exist");
      }
      break;
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (auto valueErrs = isValidLabelValue(values[i]); !valueErrs.empty()) {
      errs.push_back("values[" + std::to_string(i) + "][" + key +
                     "]: Invalid value: " + goQuote(values[i]) + ": " + join(valueErrs, "; "));
    }
  }
  if (!errs.empty()) {
    const auto first = errors.size();
    for (auto& e : errs) {
      if (std::find(errors.begin() + static_cast<std::ptrdiff_t>(first), errors.end(), e) ==
          errors.end()) {
        errors.push_back(std::move(e));
      }
    }
    return std::nullopt;
  }
  // Sorted and unique: a value set, so equal requirements compare and hash equal.
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return Requirement{key, op, std::move(values)};
}

}  // namespace

bool Requirement::matches(const api::Labels& labels) const {
  const auto value = labels.get(key);
  switch (op) {
    case Operator::In:
      return value.has_value() && std::binary_search(values.begin(), values.end(), *value);
    case Operator::NotIn:
      return !value || !std::binary_search(values.begin(), values.end(), *value);
    case Operator::Exists:
      return value.has_value();
    case Operator::DoesNotExist:
      return !value;
  }
  return false;
}

Selector Selector::of(std::vector<Requirement> requirements) {
  // An internalSelector without requirements is Empty(): it selects everything.
  if (requirements.empty()) return everything();
  // labels.Selector.Add sorts by key; stable keeps equal keys in the order given.
  std::stable_sort(requirements.begin(), requirements.end(),
                   [](const Requirement& a, const Requirement& b) { return a.key < b.key; });
  return Selector(Kind::Requirements, std::move(requirements));
}

bool Selector::matches(const api::Labels& labels) const {
  switch (kind_) {
    case Kind::Nothing:
      return false;
    case Kind::Everything:
      return true;
    case Kind::Requirements:
      break;
  }
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [&](const Requirement& r) { return r.matches(labels); });
}

// Separators no label key or value can hold: validation admits neither '\0' nor '\1'.
std::string Selector::key() const {
  std::string key(1, kind_ == Kind::Nothing ? 'N' : kind_ == Kind::Everything ? 'E' : 'R');
  for (const auto& r : requirements_) {
    key += r.key;
    key += '\1';
    key += static_cast<char>('0' + static_cast<int>(r.op));
    for (const auto& value : r.values) {
      key += '\1';
      key += value;
    }
    key += '\0';
  }
  return key;
}

std::optional<Selector> fromLabelSelector(const std::optional<api::LabelSelector>& selector,
                                          std::vector<std::string>& errors) {
  if (!selector) return Selector::nothing();
  if (selector->matchLabels.empty() && selector->matchExpressions.empty()) {
    return Selector::everything();
  }
  std::vector<Requirement> requirements;
  requirements.reserve(selector->matchLabels.size() + selector->matchExpressions.size());
  // Upstream returns at the first bad requirement; matchLabels come first (a Go map, so in
  // no particular order there; here in key order).
  for (const auto& [key, value] : selector->matchLabels) {
    auto r = newRequirement(std::string(key), Operator::In, {std::string(value)}, errors);
    if (!r) return std::nullopt;
    requirements.push_back(std::move(*r));
  }
  for (const auto& expr : selector->matchExpressions) {
    const auto op = parseOperator(expr.op);
    if (!op) {
      errors.push_back(goQuote(expr.op) + " is not a valid label selector operator");
      return std::nullopt;
    }
    auto r = newRequirement(expr.key, *op, expr.values, errors);
    if (!r) return std::nullopt;
    requirements.push_back(std::move(*r));
  }
  return Selector::of(std::move(requirements));
}

}  // namespace scheduling::labels
