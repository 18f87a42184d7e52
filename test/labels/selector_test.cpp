// Requirement and Selector semantics after apimachinery's labels/selector_test.go, and
// LabelSelectorAsSelector's validation messages, which reach users in "parsing pod: ..."
// statuses and must read as upstream's.
#include "scheduling/labels/selector.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "test/testing/wrappers.hpp"

namespace scheduling::labels {

// For Boost.Test's messages (found by argument-dependent lookup, so outside the unnamed
// namespace).
std::ostream& operator<<(std::ostream& os, const Requirement& r) {
  os << r.key << ' ' << static_cast<int>(r.op) << " [";
  for (const auto& v : r.values) os << v << ',';
  return os << ']';
}

namespace {

using ::testing::MakeLabelSelector;

struct MatchCase {
  std::string name;
  Requirement requirement;
  api::Labels labels;
  bool want;
};

std::ostream& operator<<(std::ostream& os, const MatchCase& c) { return os << c.name; }

const api::Labels kFooBar{{"foo", "bar"}};
const api::Labels kFooEmpty{{"foo", ""}};
const api::Labels kOther{{"other", "bar"}};

const MatchCase kMatchCases[] = {
    {"In, value in set", {"foo", Operator::In, {"bar", "baz"}}, kFooBar, true},
    {"In, value not in set", {"foo", Operator::In, {"baz"}}, kFooBar, false},
    {"In, key absent", {"foo", Operator::In, {"bar"}}, kOther, false},
    {"In, empty label set", {"foo", Operator::In, {"bar"}}, {}, false},
    {"In, empty value in set", {"foo", Operator::In, {""}}, kFooEmpty, true},
    {"In, empty value not in set", {"foo", Operator::In, {"bar"}}, kFooEmpty, false},
    {"NotIn, value in set", {"foo", Operator::NotIn, {"bar"}}, kFooBar, false},
    {"NotIn, value not in set", {"foo", Operator::NotIn, {"baz"}}, kFooBar, true},
    {"NotIn, key absent", {"foo", Operator::NotIn, {"bar"}}, kOther, true},
    {"NotIn, empty label set", {"foo", Operator::NotIn, {"bar"}}, {}, true},
    {"NotIn, empty value in set", {"foo", Operator::NotIn, {""}}, kFooEmpty, false},
    {"Exists, key present", {"foo", Operator::Exists, {}}, kFooBar, true},
    {"Exists, empty value", {"foo", Operator::Exists, {}}, kFooEmpty, true},
    {"Exists, key absent", {"foo", Operator::Exists, {}}, kOther, false},
    {"DoesNotExist, key present", {"foo", Operator::DoesNotExist, {}}, kFooBar, false},
    {"DoesNotExist, empty value", {"foo", Operator::DoesNotExist, {}}, kFooEmpty, false},
    {"DoesNotExist, key absent", {"foo", Operator::DoesNotExist, {}}, kOther, true},
    {"DoesNotExist, empty label set", {"foo", Operator::DoesNotExist, {}}, {}, true},
};

struct ErrorCase {
  std::string name;
  api::LabelSelector selector;
  std::vector<std::string> want;
};

std::ostream& operator<<(std::ostream& os, const ErrorCase& c) { return os << c.name; }

const std::string kNameRegexError =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
    "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const std::string kValueRegexError =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const std::string kSubdomainError =
    "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
    "'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const std::string k64 = std::string(64, 'a');

const ErrorCase kErrorCases[] = {
    {"unknown operator",
     MakeLabelSelector().expression("foo", "Seriously", {"a"}).obj(),
     {R"("Seriously" is not a valid label selector operator)"}},
    {"operators are case-sensitive",
     MakeLabelSelector().expression("foo", "in", {"a"}).obj(),
     {R"("in" is not a valid label selector operator)"}},
    {"In without values",
     MakeLabelSelector().in("foo", {}).obj(),
     {"values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be "
      "empty"}},
    {"NotIn without values",
     MakeLabelSelector().notIn("foo", {}).obj(),
     {"values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be "
      "empty"}},
    {"Exists with values",
     MakeLabelSelector().expression("foo", "Exists", {"a", "b"}).obj(),
     {R"(values: Invalid value: []string{"a", "b"}: values set must be empty for exists and does not exist)"}},
    {"DoesNotExist with a value",
     MakeLabelSelector().expression("foo", "DoesNotExist", {"a"}).obj(),
     {R"(values: Invalid value: []string{"a"}: values set must be empty for exists and does not exist)"}},
    {"key with a space",
     MakeLabelSelector().exists("a b").obj(),
     {R"(key: Invalid value: "a b": )" + kNameRegexError}},
    {"empty key",
     MakeLabelSelector().exists("").obj(),
     {R"(key: Invalid value: "": name part must be non-empty; )" + kNameRegexError}},
    {"key name too long",
     MakeLabelSelector().exists(k64).obj(),
     {"key: Invalid value: \"" + k64 + "\": name part must be no more than 63 characters"}},
    {"key with an empty prefix",
     MakeLabelSelector().exists("/a").obj(),
     {R"(key: Invalid value: "/a": prefix part must be non-empty)"}},
    {"key with a bad prefix",
     MakeLabelSelector().exists("Example.com/a").obj(),
     {R"(key: Invalid value: "Example.com/a": )" + kSubdomainError}},
    {"key with a prefix too long",
     MakeLabelSelector().exists(std::string(254, 'a') + "/a").obj(),
     {"key: Invalid value: \"" + std::string(254, 'a') +
      "/a\": prefix part must be no more than 253 characters"}},
    {"key with two slashes",
     MakeLabelSelector().exists("a/b/c").obj(),
     {R"(key: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName'))"}},
    {"invalid value",
     MakeLabelSelector().in("service", {"ok", "{{.bad-value.}}"}).obj(),
     {R"(values[1][service]: Invalid value: "{{.bad-value.}}": )" + kValueRegexError}},
    {"value too long",
     MakeLabelSelector().notIn("foo", {k64}).obj(),
     {"values[0][foo]: Invalid value: \"" + k64 + "\": must be no more than 63 characters"}},
    {"value ending in a dash",
     MakeLabelSelector().in("foo", {"a-"}).obj(),
     {R"(values[0][foo]: Invalid value: "a-": )" + kValueRegexError}},
    {"invalid matchLabels value",
     MakeLabelSelector().label("foo", "a b").obj(),
     {R"(values[0][foo]: Invalid value: "a b": )" + kValueRegexError}},
    {"invalid matchLabels key",
     MakeLabelSelector().label("a b", "x").obj(),
     {R"(key: Invalid value: "a b": )" + kNameRegexError}},
    {"every problem of one requirement",
     MakeLabelSelector().expression("a b", "In", {}).obj(),
     {R"(key: Invalid value: "a b": )" + kNameRegexError,
      "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be "
      "empty"}},
    {"a value and its key quoted as Go does",
     MakeLabelSelector().in("foo", {"tab\there\"\xff"}).obj(),
     {R"(values[0][foo]: Invalid value: "tab\there\"\xff": )" + kValueRegexError}},
    {"the first bad requirement only",
     MakeLabelSelector().in("first", {}).notIn("second", {}).obj(),
     {"values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be "
      "empty"}},
};

BOOST_AUTO_TEST_SUITE(labels_selector)

BOOST_DATA_TEST_CASE(RequirementMatches, boost::unit_test::data::make(kMatchCases), c) {
  BOOST_TEST(c.requirement.matches(c.labels) == c.want);
}

BOOST_AUTO_TEST_CASE(NothingAndEverything) {
  BOOST_TEST(!Selector::nothing().matches({}));
  BOOST_TEST(!Selector::nothing().matches(kFooBar));
  BOOST_TEST(Selector::everything().matches({}));
  BOOST_TEST(Selector::everything().matches(kFooBar));
  BOOST_TEST(Selector::everything().isEverything());
  BOOST_TEST(Selector::nothing().isNothing());
  // A selector without requirements is labels.Selector.Empty(): everything.
  BOOST_TEST(Selector::of({}).isEverything());
}

BOOST_AUTO_TEST_CASE(OfSortsByKeyAndAndsTheRequirements) {
  const Selector s = Selector::of({{"zone", Operator::In, {"z1"}}, {"app", Operator::Exists, {}}});
  BOOST_TEST_REQUIRE(s.requirements().size() == 2u);
  BOOST_TEST(s.requirements()[0].key == "app");
  BOOST_TEST(s.requirements()[1].key == "zone");
  BOOST_TEST(s.matches({{"app", "a"}, {"zone", "z1"}}));
  BOOST_TEST(!s.matches({{"app", "a"}, {"zone", "z2"}}));
  BOOST_TEST(!s.matches({{"zone", "z1"}}));
}

BOOST_AUTO_TEST_CASE(KeyTellsSelectorsApartAsEqualityDoes) {
  // Pairs that differ where a careless writing-out would run them together: kind, a value
  // moved to the next requirement, an operator, a value split in two.
  const Selector selectors[] = {
      Selector::nothing(),
      Selector::everything(),
      Selector::of({{"a", Operator::In, {"b"}}}),
      Selector::of({{"a", Operator::In, {"b", "c"}}}),
      Selector::of({{"a", Operator::In, {"bc"}}}),
      Selector::of({{"a", Operator::NotIn, {"b"}}}),
      Selector::of({{"a", Operator::Exists, {}}}),
      Selector::of({{"a", Operator::Exists, {}}, {"b", Operator::Exists, {}}}),
      Selector::of({{"ab", Operator::Exists, {}}}),
      Selector::of({{"a", Operator::In, {"b"}}, {"c", Operator::Exists, {}}}),
  };
  for (const auto& x : selectors) {
    for (const auto& y : selectors) {
      BOOST_TEST((x.key() == y.key()) == (x == y));
    }
  }
  // Written in another order, the same selector: Of sorts the requirements by key.
  BOOST_TEST(Selector::of({{"b", Operator::Exists, {}}, {"a", Operator::Exists, {}}}).key() ==
             selectors[7].key());
}

BOOST_AUTO_TEST_CASE(NilSelectorSelectsNothing) {
  std::vector<std::string> errors;
  const auto s = fromLabelSelector(std::nullopt, errors);
  BOOST_TEST_REQUIRE(s.has_value());
  BOOST_TEST(s->isNothing());
  BOOST_TEST(errors.empty());
}

BOOST_AUTO_TEST_CASE(EmptySelectorSelectsEverything) {
  std::vector<std::string> errors;
  const auto s = fromLabelSelector(api::LabelSelector{}, errors);
  BOOST_TEST_REQUIRE(s.has_value());
  BOOST_TEST(s->isEverything());
  BOOST_TEST(s->matches({}));
  BOOST_TEST(errors.empty());
}

BOOST_AUTO_TEST_CASE(ConvertsMatchLabelsAndExpressions) {
  std::vector<std::string> errors;
  const auto s = fromLabelSelector(MakeLabelSelector()
                                       .label("tier", "web")
                                       .notIn("zone", {"z2", "z1", "z2"})
                                       .exists("app")
                                       .notExist("canary")
                                       .obj(),
                                   errors);
  BOOST_TEST_REQUIRE(s.has_value());
  BOOST_TEST(errors.empty());
  const std::vector<Requirement> want = {
      {"app", Operator::Exists, {}},
      {"canary", Operator::DoesNotExist, {}},
      {"tier", Operator::In, {"web"}},
      {"zone", Operator::NotIn, {"z1", "z2"}},  // a set: sorted, unique
  };
  BOOST_TEST(s->requirements() == want, boost::test_tools::per_element());
  BOOST_TEST(s->matches({{"app", "x"}, {"tier", "web"}, {"zone", "z3"}}));
  BOOST_TEST(!s->matches({{"app", "x"}, {"tier", "web"}, {"zone", "z1"}}));
  BOOST_TEST(!s->matches({{"app", "x"}, {"tier", "web"}, {"canary", ""}}));
}

BOOST_AUTO_TEST_CASE(ValidKeysAndValues) {
  std::vector<std::string> errors;
  const auto s = fromLabelSelector(MakeLabelSelector()
                                       .in("kubernetes.io/hostname", {"node-1", "", "A_b.9"})
                                       .exists(std::string(253, 'a') + "/" + std::string(63, 'b'))
                                       .in("x", {std::string(63, 'v')})
                                       .obj(),
                                   errors);
  BOOST_TEST(s.has_value());
  BOOST_TEST(errors.empty(), (errors.empty() ? std::string() : errors.front()));
}

BOOST_DATA_TEST_CASE(RejectsAsUpstream, boost::unit_test::data::make(kErrorCases), c) {
  std::vector<std::string> errors;
  const auto s = fromLabelSelector(c.selector, errors);
  BOOST_TEST(!s.has_value());
  BOOST_TEST(errors == c.want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(AppendsToEarlierErrors) {
  std::vector<std::string> errors = {"earlier"};
  BOOST_TEST(!fromLabelSelector(MakeLabelSelector().in("k", {}).obj(), errors).has_value());
  BOOST_TEST(errors.size() == 2u);
  BOOST_TEST(errors.front() == "earlier");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::labels
