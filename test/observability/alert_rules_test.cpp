// The chart's alert rules and the Grafana dashboard, checked by Prometheus' own tools: the
// rendered PrometheusRule passes `promtool check rules`; `promtool test rules` runs
// alert_rules_tests.yaml over it (for every alert, series that fire it, and a healthy
// extender's series that fire none); every dashboard query parses as PromQL; and every metric
// the rules and the dashboard name is one the extender exports (server/metrics.cpp).
#include <rapidjson/document.h>
#include <stdlib.h>
#include <yaml-cpp/yaml.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "test/manifests/chart_render.hpp"
#include "test/manifests/manifest_set.hpp"
#include "test/testing/files.hpp"
#include "test/testing/server_process.hpp"
#include "test/testing/temp_dir.hpp"

namespace observability {
namespace {

namespace fs = std::filesystem;
using manifests::at;
using manifests::text;

constexpr const char* kRelease = "sx";  // alert_rules_tests.yaml's series carry its job
constexpr const char* kNamespace = "scheduling";

using ::testing::readFile;

void writeFile(const fs::path& path, const std::string& content) {
  std::ofstream out(path);
  out << content;
  BOOST_TEST_REQUIRE(static_cast<bool>(out), "cannot write " << path);
}

// promtool on PATH. Missing, the suite fails: these checks are the only thing between a typo
// in a rule and an alert that never fires.
std::string promtool() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path candidate = fs::path(dir) / "promtool";
    if (!dir.empty() && fs::exists(candidate)) return candidate.string();
  }
  BOOST_TEST_REQUIRE(false,
                     "promtool is not installed: run scripts/install-deps.sh (Debian's "
                     "prometheus package)");
  return "";
}

using ::testing::TempDir;

// The PrometheusRule's spec (its `groups:`), as a Prometheus rule file.
std::string renderedRuleFile() {
  const auto result =
      manifests::renderChart({kRelease, kNamespace, {}, {"prometheusRule.enabled=true"}});
  BOOST_TEST_REQUIRE(result.exitCode == 0, result.error);
  const manifests::ManifestSet rendered(result.manifests);
  const auto rules = rendered.ofKind("PrometheusRule");
  BOOST_TEST_REQUIRE(rules.size() == 1u);
  YAML::Emitter out;
  out << at(rules.front(), {"spec"});
  return out.c_str();
}

testing::ProcessResult runPromtool(const std::vector<std::string>& args) {
  return testing::runProgram(promtool(), args);
}

const rapidjson::Document& dashboard() {
  static const rapidjson::Document document = [] {
    rapidjson::Document d;
    d.Parse(readFile(manifests::chartFile("dashboards/scheduler-extender.json")).c_str());
    return d;
  }();
  return document;
}

// Every PromQL query of the dashboard: its panels' targets.
std::vector<std::string> dashboardQueries() {
  std::vector<std::string> queries;
  for (const auto& panel : dashboard()["panels"].GetArray()) {
    if (!panel.HasMember("targets")) continue;
    for (const auto& target : panel["targets"].GetArray()) {
      queries.emplace_back(target["expr"].GetString());
    }
  }
  return queries;
}

// The scheduler_extender_* names a text mentions, histogram series suffixes dropped.
std::set<std::string> metricNames(const std::string& text, const std::set<std::string>& families) {
  static const std::regex name("scheduler_extender_[a-z_]+");
  std::set<std::string> names;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), name); it != std::sregex_iterator();
       ++it) {
    std::string metric = it->str();
    for (const std::string suffix : {"_bucket", "_sum", "_count"}) {
      const std::string base =
          metric.substr(0, metric.size() - std::min(metric.size(), suffix.size()));
      if (metric.ends_with(suffix) && families.contains(base)) metric = base;
    }
    names.insert(metric);
  }
  return names;
}

// The families the extender declares: each is a string literal in server/metrics.cpp, the one
// table of them.
std::set<std::string> exportedFamilies() {
  const std::string source = readFile(fs::path(SX_SOURCE_DIR) / "server/metrics.cpp");
  static const std::regex literal("\"(scheduler_extender_[a-z_]+)\"");
  std::set<std::string> families;
  for (auto it = std::sregex_iterator(source.begin(), source.end(), literal);
       it != std::sregex_iterator(); ++it) {
    families.insert((*it)[1].str());
  }
  return families;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(alert_rules)

BOOST_AUTO_TEST_CASE(the_rendered_rules_pass_promtool_check_rules) {
  const TempDir dir("sx-alert-rules");
  writeFile(dir.path() / "rules.yaml", renderedRuleFile());
  const auto check = runPromtool({"check", "rules", (dir.path() / "rules.yaml").string()});
  BOOST_TEST(check.exitCode == 0, check.out << check.err);
  BOOST_TEST(check.out.find("SUCCESS") != std::string::npos, check.out);
}

BOOST_AUTO_TEST_CASE(every_alert_fires_on_its_series_and_none_on_a_healthy_extender) {
  const TempDir dir("sx-alert-rules");
  const std::string rules = renderedRuleFile();
  writeFile(dir.path() / "rules.yaml", rules);
  const fs::path tests = fs::path(SX_SOURCE_DIR) / "test/observability/alert_rules_tests.yaml";
  fs::copy_file(tests, dir.path() / "alert_rules_tests.yaml");

  // The unit tests cover every alert: each fires in some test, and none in the healthy one.
  std::set<std::string> alerts;
  for (const auto& group : YAML::Load(rules)["groups"]) {
    for (const auto& rule : group["rules"]) alerts.insert(rule["alert"].as<std::string>());
  }
  BOOST_TEST_REQUIRE(alerts.size() >= 8u);
  std::set<std::string> fired;
  std::set<std::string> quietWhenHealthy;
  for (const auto& test : YAML::LoadFile(tests.string())["tests"]) {
    const bool healthy = test["name"].as<std::string>() == "healthy";
    for (const auto& check : test["alert_rule_test"]) {
      const std::string name = check["alertname"].as<std::string>();
      if (healthy && check["exp_alerts"].size() == 0) quietWhenHealthy.insert(name);
      if (check["exp_alerts"].size() > 0) fired.insert(name);
    }
  }
  for (const auto& alert : alerts) {
    BOOST_TEST(fired.contains(alert), alert << " fires in no test of " << tests.filename());
    BOOST_TEST(quietWhenHealthy.contains(alert),
               alert << " is not checked quiet in the healthy test");
  }

  const auto run = runPromtool({"test", "rules", (dir.path() / "alert_rules_tests.yaml").string()});
  BOOST_TEST(run.exitCode == 0, run.out << run.err);
}

// Each query goes through Prometheus' own parser as a recording rule, with Grafana's variables
// replaced by what they stand for.
BOOST_AUTO_TEST_CASE(every_dashboard_query_parses) {
  const auto queries = dashboardQueries();
  BOOST_TEST_REQUIRE(queries.size() >= 15u);
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "groups" << YAML::Value << YAML::BeginSeq;
  out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "dashboard";
  out << YAML::Key << "rules" << YAML::Value << YAML::BeginSeq;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const std::string expr =
        std::regex_replace(std::regex_replace(queries[i], std::regex("\\$__rate_interval"), "1m"),
                           std::regex("\\$instance"), ".*");
    out << YAML::BeginMap << YAML::Key << "record" << YAML::Value
        << "dashboard:query_" + std::to_string(i) << YAML::Key << "expr" << YAML::Value << expr
        << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap << YAML::EndSeq << YAML::EndMap;
  const TempDir dir("sx-alert-rules");
  writeFile(dir.path() / "dashboard.yaml", out.c_str());
  const auto check = runPromtool({"check", "rules", (dir.path() / "dashboard.yaml").string()});
  BOOST_TEST(check.exitCode == 0, check.out << check.err);
}

BOOST_AUTO_TEST_CASE(every_panel_has_a_unit_a_description_and_the_instance_filter) {
  const rapidjson::Document& d = dashboard();
  BOOST_TEST_REQUIRE(!d.HasParseError());
  std::set<std::string> variables;
  for (const auto& variable : d["templating"]["list"].GetArray()) {
    variables.insert(variable["name"].GetString());
    if (std::string(variable["name"].GetString()) == "instance") {
      BOOST_TEST(std::string(variable["definition"].GetString()) ==
                 "label_values(scheduler_extender_build_info, instance)");
    }
  }
  BOOST_TEST(variables.contains("datasource"));
  BOOST_TEST(variables.contains("instance"));
  static const std::regex selector("scheduler_extender_[a-z_]+(\\{[^}]*\\})?");
  for (const auto& panel : d["panels"].GetArray()) {
    if (std::string(panel["type"].GetString()) == "row") continue;
    const std::string title = panel["title"].GetString();
    BOOST_TEST_CONTEXT(title) {
      BOOST_TEST((panel.HasMember("description") &&
                  std::string(panel["description"].GetString()).size() > 20u));
      BOOST_TEST((panel["fieldConfig"]["defaults"].HasMember("unit") &&
                  !std::string(panel["fieldConfig"]["defaults"]["unit"].GetString()).empty()));
      BOOST_TEST_REQUIRE(panel.HasMember("targets"));
      for (const auto& target : panel["targets"].GetArray()) {
        const std::string expr = target["expr"].GetString();
        // Every selector of the extender's metrics is narrowed to the chosen instances.
        for (auto it = std::sregex_iterator(expr.begin(), expr.end(), selector);
             it != std::sregex_iterator(); ++it) {
          BOOST_TEST(it->str().find("instance=~\"$instance\"") != std::string::npos, expr);
        }
        if (expr.find("rate(") != std::string::npos) {
          BOOST_TEST(expr.find("[$__rate_interval]") != std::string::npos, expr);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(rules_and_dashboard_query_only_metrics_the_extender_exports) {
  const std::set<std::string> families = exportedFamilies();
  // The declarations this check relies on: if metrics.cpp stops spelling names as literals,
  // the check must be rewritten, not pass on an empty set.
  BOOST_TEST_REQUIRE(families.contains("scheduler_extender_requests_total"));
  BOOST_TEST_REQUIRE(families.contains("scheduler_extender_request_duration_seconds"));
  BOOST_TEST_REQUIRE(families.size() >= 15u);

  std::string dashboardText;
  for (const auto& query : dashboardQueries()) dashboardText += query + "\n";
  dashboardText += "label_values(scheduler_extender_build_info, instance)\n";
  for (const auto& [what, text] : std::vector<std::pair<std::string, std::string>>{
           {"the alert rules", renderedRuleFile()}, {"the dashboard", dashboardText}}) {
    const auto used = metricNames(text, families);
    BOOST_TEST(used.size() >= 6u, what);
    for (const auto& metric : used) {
      BOOST_TEST(families.contains(metric),
                 what << " query " << metric << ", which server/metrics.cpp does not declare");
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace observability
