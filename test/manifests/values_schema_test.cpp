// values.schema.json, which helm checks values against before it renders: helm accepts
// values.yaml, every ci scenario and values a user may add, and refuses values that are
// misspelt, mistyped or out of range, naming the field. What helm does not check is checked
// here on the schema itself: it closes every object and describes exactly the keys of
// values.yaml, and README.md documents every value.
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <yaml-cpp/yaml.h>

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <fstream>
#include <sstream>

#include "test/manifests/chart_render.hpp"
#include "test/testing/files.hpp"
#include "test/testing/temp_dir.hpp"

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

// `helm template` with the YAML text as a values file over values.yaml.
RenderResult renderValues(const std::string& yamlText) {
  const ::testing::TempDir dir("sx-values");
  const auto file = dir.path() / "values.yaml";
  std::ofstream(file) << yamlText << "\n";
  return renderChart({"sx", "scheduling", {file.string()}, {}});
}

// helm's refusal of values that break the schema, one line per violation under a line that
// names the chart: "- at '<JSON pointer to the value>': <reason>". Empty when the error is not
// such a refusal. (helm may log before it, e.g. that it ignored a value while merging.)
std::vector<std::string> schemaViolations(const std::string& error) {
  const std::string header =
      "Error: values don't meet the specifications of the schema(s) in the following "
      "chart(s):\nscheduler-extender:\n";
  std::vector<std::string> violations;
  const auto at = error.find(header);
  if (at == std::string::npos || (at > 0 && error[at - 1] != '\n')) return violations;
  std::istringstream lines(error.substr(at + header.size()));
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("- at '")) violations.push_back(line);
  }
  return violations;
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
  std::string wantPath;    // where helm says the value is, a JSON pointer
  std::string wantReason;  // part of what it says is wrong there
};
std::ostream& operator<<(std::ostream& os, const InvalidCase& c) { return os << c.name; }

// An unknown key is reported at the object that has it, which names the key.
const std::vector<InvalidCase> kInvalid = {
    {"misspelt top-level key", "replica: 3", "", "additional properties 'replica' not allowed"},
    {"misspelt nested key", "tls: {clientauth: {enabled: true}}", "/tls",
     "additional properties 'clientauth' not allowed"},
    {"quoted number", "replicas: \"3\"", "/replicas", "got string, want integer"},
    {"no replicas", "replicas: 0", "/replicas", "minimum: got 0, want 1"},
    {"unknown mode", "mode: daemonset", "/mode", "value must be one of 'sidecar', 'service'"},
    {"port out of range", "extender: {port: 70000}", "/extender/port", "maximum"},
    {"body limit under the binary's minimum", "extender: {maxBodyBytes: 512}",
     "/extender/maxBodyBytes", "'anyOf' failed"},
    {"connections over the binary's maximum", "extender: {maxConnections: 2000000}",
     "/extender/maxConnections", "maximum"},
    {"duration without a unit", "registration: {httpTimeout: \"30\"}", "/registration/httpTimeout",
     "'30' does not match pattern"},
    {"unknown plugin", "framework: {plugins: {score: [{name: NodeAffinity}]}}",
     "/framework/plugins/score/0/name", "value must be one of 'InterPodAffinity', 'PodState'"},
    {"PodState has no Filter", "framework: {plugins: {filter: [{name: PodState}]}}",
     "/framework/plugins/filter/0/name", "value must be 'InterPodAffinity'"},
    {"misspelt plugin arg",
     "framework: {pluginConfig: [{name: InterPodAffinity, args: {hardPodAffinityWeigth: 2}}]}",
     "/framework/pluginConfig/0/args", "additional properties 'hardPodAffinityWeigth' not allowed"},
    {"a verb the extender does not serve", "registration: {bindVerb: binding}",
     "/registration/bindVerb", "value must be one of '', 'bind'"},
    {"exclusive that is not a boolean", "registration: {exclusiveInterPodAffinity: \"yes\"}",
     "/registration/exclusiveInterPodAffinity", "got string, want boolean"},
    {"in-flight wait without a unit", "extender: {inFlightWait: \"1\"}", "/extender/inFlightWait",
     "'1' does not match pattern"},
    {"in-flight wait in a compound duration", "extender: {inFlightWait: 1m30s}",
     "/extender/inFlightWait", "'1m30s' does not match pattern"},
    {"deprecated assumed-pod TTL that is not a string", "extender: {assumedPodTTL: 30}",
     "/extender/assumedPodTTL", "got number, want string"},
    {"metrics port out of range", "extender: {metricsPort: 0}", "/extender/metricsPort",
     "minimum: got 0, want 1"},
    {"two client names", "tls: {clientAuth: {clientName: \"a,b\"}}", "/tls/clientAuth/clientName",
     "'a,b' does not match pattern"},
    {"network policy that is not a boolean", "networkPolicy: {enabled: \"no\"}",
     "/networkPolicy/enabled", "got string, want boolean"},
    {"metrics peers that are not a list", "networkPolicy: {metricsFrom: {podSelector: {}}}",
     "/networkPolicy/metricsFrom", "got object, want array"},
    {"misspelt metrics peer", "networkPolicy: {metricsFrom: [{namespaceSelektor: {}}]}",
     "/networkPolicy/metricsFrom/0", "additional properties 'namespaceSelektor' not allowed"},
    {"empty metrics peer", "networkPolicy: {metricsFrom: [{}]}", "/networkPolicy/metricsFrom/0",
     "minProperties: got 0, want 1"},
    {"ipBlock without a CIDR", "networkPolicy: {metricsFrom: [{ipBlock: {except: []}}]}",
     "/networkPolicy/metricsFrom/0/ipBlock", "missing property 'cidr'"},
    {"unknown selector operator",
     "networkPolicy: {metricsFrom: [{podSelector: {matchExpressions: [{key: a, operator: Has}]}}]}",
     "/networkPolicy/metricsFrom/0/podSelector/matchExpressions/0/operator",
     "value must be one of 'In', 'NotIn', 'Exists', 'DoesNotExist'"},
    {"resources beyond requests and limits", "extender: {resources: {claims: []}}",
     "/extender/resources", "additional properties 'claims' not allowed"},
    {"non-string label", "serviceMonitor: {labels: {release: 1}}", "/serviceMonitor/labels/release",
     "got number, want string"},
    {"global that is not a map", "global: 3", "/global", "got number, want object"},
    {"error share over 100 percent", "prometheusRule: {alerts: {errors: {percent: 500}}}",
     "/prometheusRule/alerts/errors/percent", "maximum: got 500, want 100"},
    {"misspelt alert", "prometheusRule: {alerts: {watchIdel: {seconds: 60}}}",
     "/prometheusRule/alerts", "additional properties 'watchIdel' not allowed"},
    {"alert for: without a unit", "prometheusRule: {alerts: {down: {for: \"5\"}}}",
     "/prometheusRule/alerts/down/for", "'5' does not match pattern"},
    {"watch silence of no seconds", "prometheusRule: {alerts: {watchIdle: {seconds: 0}}}",
     "/prometheusRule/alerts/watchIdle/seconds", "minimum: got 0, want 1"},
    {"dashboard label that is empty", "grafanaDashboard: {label: \"\"}", "/grafanaDashboard/label",
     "minLength: got 0, want 1"},
};

struct ValidCase {
  std::string name;
  std::string values;
};
std::ostream& operator<<(std::ostream& os, const ValidCase& c) { return os << c.name; }

// Values a user may write that values.yaml does not spell out, each with what the templates
// need beside it.
const std::vector<ValidCase> kValid = {
    {"a deprecated assumed-pod TTL, from a values file of an earlier chart",
     "extender: {assumedPodTTL: 30s}"},
    {"Prometheus by namespace and pod",
     "networkPolicy: {metricsFrom: [{namespaceSelector: {matchLabels: "
     "{kubernetes.io/metadata.name: monitoring}}, podSelector: {matchExpressions: "
     "[{key: app.kubernetes.io/name, operator: In, values: [prometheus]}]}}]}"},
    {"an IP block", "networkPolicy: {metricsFrom: [{ipBlock: {cidr: 10.0.0.0/8, except: []}}]}"},
    {"a named client",
     "tls: {enabled: true, serverSecretName: s, clientAuth: {enabled: true, clientSecretName: c, "
     "clientName: kube-scheduler.scheduling.svc}}"},
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
  const auto result = renderChart({"sx", "scheduling", {chartFile(name)}, {}});
  BOOST_TEST(result.exitCode == 0, result.error);
}

BOOST_DATA_TEST_CASE(accepts_values_beyond_the_defaults, data::make(kValid), c) {
  const auto result = renderValues(c.values);
  BOOST_TEST(result.exitCode == 0, result.error);
}

// Each case breaks one rule, so helm reports one value: the one the case means.
BOOST_DATA_TEST_CASE(rejects_values_that_break_it, data::make(kInvalid), c) {
  const auto result = renderValues(c.values);
  BOOST_TEST(result.exitCode != 0);
  const auto violations = schemaViolations(result.error);
  BOOST_TEST_REQUIRE(violations.size() == 1u, result.error);
  BOOST_TEST(violations.front().starts_with("- at '" + c.wantPath + "': "), result.error);
  BOOST_TEST(violations.front().find(c.wantReason) != std::string::npos, result.error);
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
