// What the chart gives Prometheus and Grafana besides the ServiceMonitor: the PrometheusRule
// (prometheusRule.*) and the dashboard ConfigMap (grafanaDashboard.*), each rendered exactly
// when enabled, labelled as asked, aimed at this release's extenders, and pointing each alert
// at a section of docs/troubleshooting.md that exists. test/observability runs the rules and
// the dashboard's queries through promtool.
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>

#include "test/manifests/chart_render.hpp"
#include "test/manifests/manifest_set.hpp"
#include "test/manifests/scenario.hpp"
#include "test/testing/files.hpp"

namespace manifests {
namespace {

namespace data = boost::unit_test::data;

using ::testing::readFile;

ManifestSet renderSets(const std::vector<std::string>& sets) {
  const auto result = renderChart({Scenario::kRelease, Scenario::kNamespace, {}, sets});
  BOOST_TEST_REQUIRE(result.exitCode == 0, result.error);
  return ManifestSet(result.manifests);
}

// The dashboard ConfigMaps of a render: those carrying a *.json key.
std::vector<YAML::Node> dashboardConfigMaps(const ManifestSet& manifests) {
  std::vector<YAML::Node> found;
  for (const auto& configMap : manifests.ofKind("ConfigMap")) {
    const YAML::Node& dataNode = configMap["data"];
    for (const auto& entry : dataNode) {
      if (entry.first.Scalar().ends_with(".json")) {
        found.push_back(configMap);
        break;
      }
    }
  }
  return found;
}

// Every rule of a PrometheusRule, across its groups.
std::vector<YAML::Node> rulesOf(const YAML::Node& prometheusRule) {
  std::vector<YAML::Node> rules;
  for (const auto& group : at(prometheusRule, {"spec", "groups"})) {
    for (const auto& rule : group["rules"]) rules.push_back(rule);
  }
  return rules;
}

// GitHub's anchor of a Markdown heading: lower case, spaces to '-', punctuation dropped.
std::set<std::string> headingAnchors(const std::string& markdown) {
  std::set<std::string> anchors;
  std::istringstream lines(markdown);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("#")) continue;
    const std::string title = line.substr(line.find_first_not_of('#'));
    std::string anchor;
    for (const char c : title) {
      if (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_') {
        anchor += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      } else if (c == ' ' && !anchor.empty()) {
        anchor += '-';
      }
    }
    anchors.insert(anchor);
  }
  return anchors;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct EnableCase {
  std::string name;
  std::vector<std::string> sets;
  bool rule;
  bool dashboard;
};
std::ostream& operator<<(std::ostream& os, const EnableCase& c) { return os << c.name; }

const std::vector<EnableCase> kEnableCases = {
    {"neither by default", {}, false, false},
    {"the rule alone", {"prometheusRule.enabled=true"}, true, false},
    {"the dashboard alone", {"grafanaDashboard.enabled=true"}, false, true},
    {"both", {"prometheusRule.enabled=true", "grafanaDashboard.enabled=true"}, true, true},
    {"both, in service mode",
     {"mode=service", "prometheusRule.enabled=true", "grafanaDashboard.enabled=true"},
     true,
     true},
};

struct LatencyCase {
  std::string httpTimeout;
  std::string threshold;  // as the rule prints it
};
std::ostream& operator<<(std::ostream& os, const LatencyCase& c) { return os << c.httpTimeout; }

// 0.8 of kube-scheduler's timeout, capped at the last latency bucket (5 s).
const std::vector<LatencyCase> kLatencyCases = {
    {"5s", "4"}, {"2s", "1.6"}, {"500ms", "0.4"}, {"1s500ms", "1.2"}, {"1m", "5"}, {"1h", "5"},
};

YAML::Node findAlert(const YAML::Node& prometheusRule, const std::string& name) {
  for (const auto& rule : rulesOf(prometheusRule)) {
    if (text(rule["alert"]) == name) return rule;
  }
  return {};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(chart_monitoring)

BOOST_DATA_TEST_CASE(the_rule_and_the_dashboard_render_exactly_when_enabled,
                     data::make(kEnableCases), c) {
  const ManifestSet manifests = renderSets(c.sets);
  BOOST_TEST(manifests.ofKind("PrometheusRule").size() == (c.rule ? 1u : 0u));
  BOOST_TEST(dashboardConfigMaps(manifests).size() == (c.dashboard ? 1u : 0u));
}

BOOST_AUTO_TEST_CASE(the_rule_carries_its_labels_and_each_alert_what_an_operator_needs) {
  const ManifestSet manifests =
      renderSets({"prometheusRule.enabled=true", "prometheusRule.labels.release=prometheus",
                  "prometheusRule.runbookBaseURL=https://example.com/troubleshooting"});
  const auto rules = manifests.ofKind("PrometheusRule");
  BOOST_TEST_REQUIRE(rules.size() == 1u);
  const YAML::Node& rule = rules.front();
  BOOST_TEST(text(rule["apiVersion"]) == "monitoring.coreos.com/v1");
  BOOST_TEST(text(at(rule, {"metadata", "labels", "release"})) == "prometheus");
  BOOST_TEST(text(at(rule, {"metadata", "labels", "app.kubernetes.io/instance"})) ==
             Scenario::kRelease);
  BOOST_TEST(text(at(rule, {"metadata", "namespace"})) == Scenario::kNamespace);

  const std::set<std::string> anchors =
      headingAnchors(readFile(SX_SOURCE_DIR "/docs/troubleshooting.md"));
  std::set<std::string> alerts;
  for (const auto& alert : rulesOf(rule)) {
    const std::string name = text(alert["alert"]);
    BOOST_TEST_CONTEXT(name) {
      BOOST_TEST_REQUIRE(!name.empty(), "a recording rule where alerts were expected");
      BOOST_TEST(alerts.insert(name).second, "two alerts named " << name);
      BOOST_TEST(name.starts_with("SchedulerExtender"));
      BOOST_TEST(!text(alert["expr"]).empty());
      BOOST_TEST(std::regex_match(text(alert["for"]), std::regex("([0-9]+(ms|s|m|h))+")));
      const std::string severity = text(at(alert, {"labels", "severity"}));
      BOOST_TEST((severity == "warning" || severity == "critical"), severity);
      BOOST_TEST(!text(at(alert, {"annotations", "summary"})).empty());
      // The numbers: the value that fired it or the labels that say where.
      const std::string description = text(at(alert, {"annotations", "description"}));
      BOOST_TEST((description.find("{{ $value") != std::string::npos ||
                  description.find("{{ $labels") != std::string::npos ||
                  description.find("job=") != std::string::npos),
                 description);
      const std::string runbook = text(at(alert, {"annotations", "runbook_url"}));
      BOOST_TEST(runbook == "https://example.com/troubleshooting#" + lower(name));
      BOOST_TEST(anchors.contains(lower(name)), "docs/troubleshooting.md has no section " << name);
    }
  }
  for (const auto* want :
       {"SchedulerExtenderDown", "SchedulerExtenderErrors", "SchedulerExtenderSlow",
        "SchedulerExtenderBindingsFailing", "SchedulerExtenderAssumedPodsUnconfirmed",
        "SchedulerExtenderInFlightTimeouts", "SchedulerExtenderWatchRestarting",
        "SchedulerExtenderWatchSilent"}) {
    BOOST_TEST(alerts.contains(want), want);
  }
}

// By default the alerts select the job the ServiceMonitor's targets get, which the Prometheus
// Operator names after the Service it found them through; a selector value replaces it.
BOOST_AUTO_TEST_CASE(the_alerts_select_the_service_monitors_job_unless_told_otherwise) {
  const ManifestSet manifests =
      renderSets({"serviceMonitor.enabled=true", "prometheusRule.enabled=true"});
  const auto monitors = manifests.ofKind("ServiceMonitor");
  BOOST_TEST_REQUIRE(monitors.size() == 1u);
  std::string serviceName;
  for (const auto& service : manifests.ofKind("Service")) {
    if (selects(at(monitors.front(), {"spec", "selector", "matchLabels"}),
                service["metadata"]["labels"])) {
      serviceName = text(service["metadata"]["name"]);
    }
  }
  BOOST_TEST_REQUIRE(!serviceName.empty());
  const std::string want = "job=\"" + serviceName + "\",namespace=\"" + Scenario::kNamespace + "\"";
  for (const auto& alert : rulesOf(manifests.ofKind("PrometheusRule").front())) {
    BOOST_TEST(text(alert["expr"]).find(want) != std::string::npos, text(alert["alert"]));
  }

  const ManifestSet custom = renderSets(
      {"prometheusRule.enabled=true", "prometheusRule.selector=job=\"scheduler-extender\""});
  for (const auto& alert : rulesOf(custom.ofKind("PrometheusRule").front())) {
    const std::string expr = text(alert["expr"]);
    BOOST_TEST(expr.find("{job=\"scheduler-extender\"") != std::string::npos, expr);
    BOOST_TEST(expr.find(serviceName) == std::string::npos, expr);
  }
}

BOOST_DATA_TEST_CASE(the_latency_alert_follows_the_http_timeout, data::make(kLatencyCases), c) {
  const ManifestSet manifests =
      renderSets({"prometheusRule.enabled=true", "registration.httpTimeout=" + c.httpTimeout});
  const YAML::Node slow =
      findAlert(manifests.ofKind("PrometheusRule").front(), "SchedulerExtenderSlow");
  BOOST_TEST_REQUIRE(slow.IsDefined());
  const std::string expr = text(slow["expr"]);
  BOOST_TEST(expr.ends_with(">= " + c.threshold), expr);
}

// helm leaves out of .Files what .helmignore matches, as `helm package` leaves it out of the
// chart: were the dashboard among them, the ConfigMap would hold nothing.
BOOST_AUTO_TEST_CASE(the_dashboard_config_map_holds_the_json_file_with_the_sidecars_label) {
  const std::string json = readFile(chartFile("dashboards/scheduler-extender.json"));
  const ManifestSet manifests = renderSets({"grafanaDashboard.enabled=true"});
  const auto configMaps = dashboardConfigMaps(manifests);
  BOOST_TEST_REQUIRE(configMaps.size() == 1u);
  const YAML::Node& configMap = configMaps.front();
  BOOST_TEST(text(at(configMap, {"metadata", "labels", "grafana_dashboard"})) == "1");
  BOOST_TEST(text(at(configMap, {"data", "scheduler-extender.json"})) == json);

  const ManifestSet custom =
      renderSets({"grafanaDashboard.enabled=true", "grafanaDashboard.label=dashboards",
                  "grafanaDashboard.labelValue=scheduling", "grafanaDashboard.labels.team=platform",
                  "grafanaDashboard.annotations.grafana_folder=Scheduling"});
  const auto customMaps = dashboardConfigMaps(custom);
  BOOST_TEST_REQUIRE(customMaps.size() == 1u);
  const YAML::Node& labels = at(customMaps.front(), {"metadata", "labels"});
  BOOST_TEST(text(labels["dashboards"]) == "scheduling");
  BOOST_TEST(!labels["grafana_dashboard"].IsDefined());
  BOOST_TEST(text(labels["team"]) == "platform");
  BOOST_TEST(text(at(customMaps.front(), {"metadata", "annotations", "grafana_folder"})) ==
             "Scheduling");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace manifests
