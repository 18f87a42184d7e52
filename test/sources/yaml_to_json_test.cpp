#include "scheduling/sources/yaml_to_json.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <ostream>
#include <string>

namespace scheduling::sources {
namespace {

struct Case {
  std::string name;
  std::string yaml;
  std::string json;
};
std::ostream& operator<<(std::ostream& out, const Case& c) { return out << c.name; }

const std::vector<Case> kCases = {
    {"plain scalars take their core-schema type", "{a: 1, b: -7, c: true, d: null, e: ~, f: x}",
     R"({"a":1,"b":-7,"c":true,"d":null,"e":null,"f":"x"})"},
    {"quoted scalars stay strings", R"({a: "1", b: 'true', c: "null"})",
     R"({"a":"1","b":"true","c":"null"})"},
    {"floats and versions stay strings", "{a: 1.5, b: 1.31.0, c: 0x10}",
     R"({"a":"1.5","b":"1.31.0","c":"0x10"})"},
    {"block sequences and maps", "items:\n- kind: Pod\n  metadata:\n    labels: {app: web}\n- 3\n",
     R"({"items":[{"kind":"Pod","metadata":{"labels":{"app":"web"}}},3]})"},
    {"empty value is null", "a:\nb: []\n", R"({"a":null,"b":[]})"},
    {"special characters are escaped", R"(a: "quote \" and \\ backslash")",
     R"({"a":"quote \" and \\ backslash"})"},
};

BOOST_AUTO_TEST_SUITE(yaml_to_json)

BOOST_DATA_TEST_CASE(converts, boost::unit_test::data::make(kCases), c) {
  BOOST_TEST(yamlToJson(c.yaml) == c.json);
}

BOOST_AUTO_TEST_CASE(refuses_member_names_that_are_not_scalars) {
  for (const char* yaml : {"? [a]\n: 1\n", "items:\n- {? {b: 1} : 2}\n"}) {
    try {
      yamlToJson(yaml);
      BOOST_ERROR("accepted " << yaml);
    } catch (const std::runtime_error& e) {
      BOOST_TEST(std::string(e.what()).starts_with("a member name that is not a string at line"),
                 e.what());
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::sources
