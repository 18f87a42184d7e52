// values.schema.json, which Helm checks values against on install and upgrade. chart-render
// does not read it, so the suite does: the schema is JSON, closes every object, describes
// exactly the keys of values.yaml, accepts values.yaml and every ci scenario, and rejects
// values that are misspelt, mistyped or out of range.
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/schema.h>
#include <rapidjson/stringbuffer.h>
#include <yaml-cpp/yaml.h>

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <stdexcept>

#include "scheduling/sources/yaml_to_json.hpp"
#include "test/manifests/chart_render.hpp"
#include "test/testing/files.hpp"

namespace manifests {
namespace {

namespace data = boost::unit_test::data;

using ::testing::readFile;

const rapidjson::Document& schema() {
  static const rapidjson::Document document = [] {
    rapidjson::Document d;
    d.Parse(readFile(chartFile("values.schema.json")).c_str());
    return d;
  }();
  return document;
}

// Follows "$ref": "#/definitions/<name>", the only kind of reference the schema uses.
const rapidjson::Value& resolved(const rapidjson::Value& node) {
  if (!node.IsObject() || !node.HasMember("$ref")) return node;
  const std::string ref = node["$ref"].GetString();
  const std::string prefix = "#/definitions/";
  BOOST_TEST_REQUIRE(ref.starts_with(prefix), ref);
  return resolved(schema()["definitions"][ref.substr(prefix.size()).c_str()]);
}

// An error message when the YAML text does not satisfy the schema, "" when it does.
std::string violation(const std::string& yamlText) {
  static const rapidjson::SchemaDocument compiled(schema());
  rapidjson::Document values;
  values.Parse(scheduling::sources::yamlToJson(yamlText).c_str());
  if (values.IsNull()) values.SetObject();  // an empty values file
  rapidjson::SchemaValidator validator(compiled);
  if (values.Accept(validator)) return "";
  rapidjson::StringBuffer where;
  validator.GetInvalidDocumentPointer().StringifyUriFragment(where);
  return std::string("value ") + where.GetString() + " breaks the schema's '" +
         validator.GetInvalidSchemaKeyword() + "'";
}

// Every object schema is closed: one with properties allows no others; a map (labels,
// annotations, node selectors) has no properties but types its values. The one exception is
// Helm's `global`, which a parent chart fills with values of its own when this chart is a
// dependency: closing it would make the chart unusable as one.
void checkClosed(const rapidjson::Value& node, const std::string& path) {
  if (!node.IsObject() || path == "#/properties/global") return;
  if (node.HasMember("type") && node["type"].IsString() &&
      std::string(node["type"].GetString()) == "object") {
    const bool hasProperties = node.HasMember("properties");
    const auto extra = node.FindMember("additionalProperties");
    BOOST_TEST_CONTEXT(path) {
      BOOST_TEST_REQUIRE((extra != node.MemberEnd()), "no additionalProperties");
      if (hasProperties) {
        BOOST_TEST((extra->value.IsBool() && !extra->value.GetBool()));
      } else {
        BOOST_TEST((extra->value.IsObject() && extra->value.HasMember("type")));
      }
    }
  }
  for (const auto& member : node.GetObject()) {
    checkClosed(member.value, path + "/" + member.name.GetString());
  }
}

// Whether a property is kept in the schema only so that old values files still install
// ("deprecated": true, an annotation draft-07 validators ignore).
bool deprecated(const rapidjson::Value& property) {
  return property.IsObject() && property.HasMember("deprecated") &&
         property["deprecated"].IsBool() && property["deprecated"].GetBool();
}

// Walks values.yaml and the schema side by side: every key has a schema, and every property
// of an object that values.yaml spells out has a default there, except a deprecated one, which
// must not. Kubernetes quantities are exempt from the second rule: a limit left out means none.
void checkSameKeys(const YAML::Node& values, const rapidjson::Value& schemaNode,
                   const std::string& path) {
  const rapidjson::Value& node = resolved(schemaNode);
  if (values.IsMap() && node.HasMember("properties")) {
    const rapidjson::Value& properties = node["properties"];
    for (const auto& entry : values) {
      const std::string key = entry.first.Scalar();
      BOOST_TEST_REQUIRE(properties.HasMember(key.c_str()), path + key + " is not in the schema");
      checkSameKeys(entry.second, properties[key.c_str()], path + key + ".");
    }
    const bool quantities =
        schemaNode.IsObject() && schemaNode.HasMember("$ref") &&
        std::string(schemaNode["$ref"].GetString()) == "#/definitions/quantities";
    if (quantities) return;
    for (const auto& property : properties.GetObject()) {
      const std::string key = property.name.GetString();
      if (deprecated(property.value)) {
        BOOST_TEST(!values[key].IsDefined(), path + key + " is deprecated, yet in values.yaml");
        continue;
      }
      BOOST_TEST(values[key].IsDefined(), path + key + " is in the schema, not in values.yaml");
    }
  } else if (values.IsSequence() && node.HasMember("items")) {
    for (const auto& item : values) checkSameKeys(item, node["items"], path + "[].");
  }
}

// The dotted paths of values.yaml down to its scalars, lists, maps of free keys, and
// Kubernetes resource requirements (documented as a whole).
void leafPaths(const YAML::Node& values, const std::string& prefix, std::vector<std::string>& out) {
  if (values.IsMap() && values.size() > 0 && !prefix.ends_with(".resources.")) {
    for (const auto& entry : values) {
      leafPaths(entry.second, prefix + entry.first.Scalar() + ".", out);
    }
    return;
  }
  out.push_back(prefix.substr(0, prefix.size() - 1));
}

struct InvalidCase {
  std::string name;
  std::string values;
  std::string wantKeyword;
};
std::ostream& operator<<(std::ostream& os, const InvalidCase& c) { return os << c.name; }

const std::vector<InvalidCase> kInvalid = {
    {"misspelt top-level key", "replica: 3", "additionalProperties"},
    {"misspelt nested key", "tls: {clientauth: {enabled: true}}", "additionalProperties"},
    {"quoted number", "replicas: \"3\"", "type"},
    {"no replicas", "replicas: 0", "minimum"},
    {"unknown mode", "mode: daemonset", "enum"},
    {"port out of range", "extender: {port: 70000}", "maximum"},
    {"body limit under the binary's minimum", "extender: {maxBodyBytes: 512}", "anyOf"},
    {"connections over the binary's maximum", "extender: {maxConnections: 2000000}", "maximum"},
    {"duration without a unit", "registration: {httpTimeout: \"30\"}", "pattern"},
    {"unknown plugin", "framework: {plugins: {score: [{name: NodeAffinity}]}}", "enum"},
    {"PodState has no Filter", "framework: {plugins: {filter: [{name: PodState}]}}", "enum"},
    {"misspelt plugin arg",
     "framework: {pluginConfig: [{name: InterPodAffinity, args: {hardPodAffinityWeigth: 2}}]}",
     "additionalProperties"},
    {"a verb the extender does not serve", "registration: {bindVerb: binding}", "enum"},
    {"exclusive that is not a boolean", "registration: {exclusiveInterPodAffinity: \"yes\"}",
     "type"},
    {"in-flight wait without a unit", "extender: {inFlightWait: \"1\"}", "pattern"},
    {"in-flight wait in a compound duration", "extender: {inFlightWait: 1m30s}", "pattern"},
    {"deprecated assumed-pod TTL that is not a string", "extender: {assumedPodTTL: 30}", "type"},
    {"metrics port out of range", "extender: {metricsPort: 0}", "minimum"},
    {"two client names", "tls: {clientAuth: {clientName: \"a,b\"}}", "pattern"},
    {"network policy that is not a boolean", "networkPolicy: {enabled: \"no\"}", "type"},
    {"metrics peers that are not a list", "networkPolicy: {metricsFrom: {podSelector: {}}}",
     "type"},
    {"misspelt metrics peer", "networkPolicy: {metricsFrom: [{namespaceSelektor: {}}]}",
     "additionalProperties"},
    {"empty metrics peer", "networkPolicy: {metricsFrom: [{}]}", "minProperties"},
    {"ipBlock without a CIDR", "networkPolicy: {metricsFrom: [{ipBlock: {except: []}}]}",
     "required"},
    {"unknown selector operator",
     "networkPolicy: {metricsFrom: [{podSelector: {matchExpressions: [{key: a, operator: Has}]}}]}",
     "enum"},
    {"resources beyond requests and limits", "extender: {resources: {claims: []}}",
     "additionalProperties"},
    {"non-string label", "serviceMonitor: {labels: {release: 1}}", "type"},
    {"global that is not a map", "global: 3", "type"},
    {"error share over 100 percent", "prometheusRule: {alerts: {errors: {percent: 500}}}",
     "maximum"},
    {"misspelt alert", "prometheusRule: {alerts: {watchIdel: {seconds: 60}}}",
     "additionalProperties"},
    {"alert for: without a unit", "prometheusRule: {alerts: {down: {for: \"5\"}}}", "pattern"},
    {"watch silence of no seconds", "prometheusRule: {alerts: {watchIdle: {seconds: 0}}}",
     "minimum"},
    {"dashboard label that is empty", "grafanaDashboard: {label: \"\"}", "minLength"},
};

struct ValidCase {
  std::string name;
  std::string values;
};
std::ostream& operator<<(std::ostream& os, const ValidCase& c) { return os << c.name; }

// Values a user may write that values.yaml does not spell out.
const std::vector<ValidCase> kValid = {
    {"a deprecated assumed-pod TTL, from a values file of an earlier chart",
     "extender: {assumedPodTTL: 30s}"},
    {"Prometheus by namespace and pod",
     "networkPolicy: {metricsFrom: [{namespaceSelector: {matchLabels: "
     "{kubernetes.io/metadata.name: monitoring}}, podSelector: {matchExpressions: "
     "[{key: app.kubernetes.io/name, operator: In, values: [prometheus]}]}}]}"},
    {"an IP block", "networkPolicy: {metricsFrom: [{ipBlock: {cidr: 10.0.0.0/8, except: []}}]}"},
    {"a named client", "tls: {clientAuth: {clientName: kube-scheduler.scheduling.svc}}"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(values_schema)

BOOST_AUTO_TEST_CASE(is_json_for_draft_07) {
  BOOST_TEST_REQUIRE(!schema().HasParseError(),
                     rapidjson::GetParseError_En(schema().GetParseError())
                         << " at offset " << schema().GetErrorOffset());
  BOOST_TEST(std::string(schema()["$schema"].GetString()) ==
             "http://json-schema.org/draft-07/schema#");
}

BOOST_AUTO_TEST_CASE(closes_every_object) { checkClosed(schema(), "#"); }

BOOST_AUTO_TEST_CASE(describes_exactly_the_keys_of_values_yaml) {
  checkSameKeys(YAML::LoadFile(chartFile("values.yaml")), schema(), "");
}

std::vector<std::string> valuesFiles() {
  std::vector<std::string> files = {"values.yaml"};
  for (const auto& scenario : ciScenarios()) files.push_back("ci/" + scenario);
  return files;
}

BOOST_DATA_TEST_CASE(accepts_the_chart_values, data::make(valuesFiles()), name) {
  BOOST_TEST(violation(readFile(chartFile(name))) == "");
}

BOOST_DATA_TEST_CASE(accepts_values_beyond_the_defaults, data::make(kValid), c) {
  BOOST_TEST(violation(c.values) == "");
}

BOOST_DATA_TEST_CASE(rejects_values_that_break_it, data::make(kInvalid), c) {
  const std::string message = violation(c.values);
  BOOST_TEST(message.find("'" + c.wantKeyword + "'") != std::string::npos, message);
}

BOOST_AUTO_TEST_CASE(every_value_is_documented_in_the_chart_readme) {
  const std::string readme = readFile(chartFile("README.md"));
  // A deprecated value too, as such, so that who still sets it learns why nothing happens.
  const rapidjson::Value& extender = schema()["properties"]["extender"]["properties"];
  BOOST_TEST_REQUIRE(deprecated(extender["assumedPodTTL"]));
  BOOST_TEST(readme.find("`extender.assumedPodTTL` | deprecated") != std::string::npos);
  std::vector<std::string> paths;
  leafPaths(YAML::LoadFile(chartFile("values.yaml")), "", paths);
  BOOST_TEST(paths.size() > 20u);
  for (const auto& path : paths) {
    BOOST_TEST(readme.find("`" + path + "`") != std::string::npos, path << " is not in README.md");
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace manifests
