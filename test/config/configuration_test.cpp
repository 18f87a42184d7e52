#include "scheduling/config/configuration.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <ostream>
#include <string>

namespace scheduling::config {
namespace {

struct BadCase {
  std::string name;
  std::string text;
  std::string wantError;
};

std::ostream& operator<<(std::ostream& os, const BadCase& c) { return os << c.name; }

const BadCase kBad[] = {
    {"unknown top-level field", "percentageOfNodes: 10", "percentageOfNodes: unknown field"},
    {"percentage not an integer", "percentageOfNodesToScore: ten",
     "percentageOfNodesToScore: expected a 32-bit integer, got \"ten\""},
    {"parallelism too large", "parallelism: 99999999999",
     "parallelism: expected a 32-bit integer, got \"99999999999\""},
    {"plugins not an object", "plugins: [a]", "plugins: expected an object, got a list"},
    {"unknown extension point", "plugins: {bind: []}", "plugins.bind: unknown field"},
    {"plugin without name", "plugins: {score: [{weight: 1}]}", "plugins.score[0].name: required"},
    {"weight on a filter plugin", "plugins: {filter: [{name: X, weight: 1}]}",
     "plugins.filter[0].weight: unknown field"},
    {"bad weight", "plugins: {score: [{name: PodState, weight: heavy}]}",
     "plugins.score[0].weight: expected a 32-bit integer, got \"heavy\""},
    {"pluginConfig not a list", "pluginConfig: {name: x}",
     "pluginConfig: expected a list, got an object"},
    {"pluginConfig unknown key", "pluginConfig: [{name: InterPodAffinity, arg: {}}]",
     "pluginConfig[0].arg: unknown field"},
    {"member name that is a list", "? [a]\n: 1", "expected member names, got a list"},
    {"plugin entry with an object as a name", "plugins: {score: [{? {a: 1} : x}]}",
     "plugins.score[0]: expected member names, got an object"},
    {"syntax error", "plugins: {filter: [", "cfg.yaml: not valid YAML or JSON"},
};

BOOST_AUTO_TEST_SUITE(configuration)

BOOST_AUTO_TEST_CASE(DefaultsMatchTheContract) {
  const Configuration c = defaultConfiguration();
  BOOST_TEST(c.percentageOfNodesToScore == 0);
  BOOST_TEST(c.parallelism == 16);
  BOOST_TEST_REQUIRE(c.filter.size() == 1u);
  BOOST_TEST(c.filter[0].name == "InterPodAffinity");
  BOOST_TEST_REQUIRE(c.score.size() == 2u);
  BOOST_TEST(c.score[0].name == "InterPodAffinity");
  BOOST_TEST(c.score[0].weight == 2);
  BOOST_TEST(c.score[1].name == "PodState");
  BOOST_TEST(c.score[1].weight == 1);
}

BOOST_AUTO_TEST_CASE(ParsesTheContractExample) {
  const Configuration c = parseConfiguration(R"(
percentageOfNodesToScore: 40
parallelism: 4
plugins:
  filter:  [{name: InterPodAffinity}]
  score:   [{name: InterPodAffinity, weight: 3}, {name: PodState, weight: 1}]
pluginConfig:
  - name: InterPodAffinity
    args: {hardPodAffinityWeight: 5, ignorePreferredTermsOfExistingPods: true}
)",
                                             "cfg.yaml");
  BOOST_TEST(c.percentageOfNodesToScore == 40);
  BOOST_TEST(c.parallelism == 4);
  BOOST_TEST(c.score[0].weight == 3);
  BOOST_TEST_REQUIRE(c.pluginConfig.size() == 1u);
  BOOST_TEST(c.pluginConfig[0].args["hardPodAffinityWeight"].as<int>() == 5);
}

BOOST_AUTO_TEST_CASE(ParsesJson) {
  const Configuration c = parseConfiguration(
      R"({"percentageOfNodesToScore": 100, "plugins": {"filter": [], "score": [{"name": "PodState"}]}})",
      "cfg.json");
  BOOST_TEST(c.percentageOfNodesToScore == 100);
  BOOST_TEST(c.filter.empty());
  BOOST_TEST_REQUIRE(c.score.size() == 1u);
  BOOST_TEST(c.score[0].weight == 0);  // unset; the framework makes it 1
}

BOOST_AUTO_TEST_CASE(AnAbsentListKeepsItsDefault) {
  const Configuration c = parseConfiguration("plugins: {score: []}", "cfg.yaml");
  BOOST_TEST(c.filter.size() == 1u);
  BOOST_TEST(c.score.empty());
  BOOST_TEST(parseConfiguration("", "empty.yaml").score.size() == 2u);
}

BOOST_DATA_TEST_CASE(RejectsWithTheFieldPath, boost::unit_test::data::make(kBad), c) {
  try {
    parseConfiguration(c.text, "cfg.yaml");
    BOOST_FAIL("accepted invalid configuration");
  } catch (const ConfigError& e) {
    BOOST_TEST(std::string(e.what()).starts_with(c.wantError), e.what());
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::config
