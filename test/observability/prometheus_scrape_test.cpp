// A real Prometheus (Debian's /usr/bin/prometheus) on loopback scraping the built extender
// while the test drives it against the API-server double, as kube-scheduler would: every
// query of the Grafana dashboard returns data, every alert of the chart's PrometheusRule
// parses and stays silent on the healthy run (not even pending), and the alert on the cache
// not hearing from the API server fires once the API server goes quiet.
#include <fcntl.h>
#include <rapidjson/document.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/test/unit_test.hpp>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test/manifests/chart_render.hpp"
#include "test/manifests/manifest_set.hpp"
#include "test/testing/burst_cluster.hpp"
#include "test/testing/files.hpp"
#include "test/testing/http_client.hpp"
#include "test/testing/temp_dir.hpp"

namespace prometheus_scrape_test {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

constexpr const char* kPrometheus = "/usr/bin/prometheus";
constexpr const char* kDashboard =
    "manifests/scheduler-extender/dashboards/scheduler-extender.json";
// The scrape job, and the rules' selector (prometheusRule.selector) that picks it.
constexpr const char* kJob = "scheduler-extender";
// prometheusRule.alerts.watchIdle.seconds for this run. A quiet watch is re-opened after the
// informers' idle timeout (10 s) and its answer counts as hearing, so a healthy extender's
// watch_idle_seconds stays below about 10 s: 12 lets the healthy run pass without the alert
// and the stall fire it within seconds. `for: 0s` fires it at the first evaluation above.
constexpr int kWatchIdleSeconds = 12;
// What the dashboard's Grafana variables stand for in this Prometheus.
constexpr const char* kRateInterval = "15s";

// Seconds since the epoch, as Prometheus timestamps samples.
double unixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Polls `predicate` every 100 ms until it holds or `limit` passes.
template <typename Predicate>
bool eventually(Predicate predicate, std::chrono::seconds limit = 30s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!predicate()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(100ms);
  }
  return true;
}

using ::testing::TempDir;

using ::testing::readFile;

// A port nobody listens on right now (the kernel's pick, let go at once): Prometheus cannot be
// told to take port 0 and report it, so a start that loses the port to someone else is retried.
std::uint16_t freePort() {
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::acceptor acceptor(
      ioc, {boost::asio::ip::make_address("127.0.0.1"), static_cast<std::uint16_t>(0)});
  return acceptor.local_endpoint().port();
}

// A child process with stdout and stderr in `log`, killed and reaped on every path out.
class Child {
 public:
  Child(const std::string& program, std::vector<std::string> args, const fs::path& log) {
    args.insert(args.begin(), program);
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("cannot create " + log.string());
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      execv(argv[0], argv.data());
      _exit(127);
    }
    ::close(fd);
  }
  ~Child() {
    if (!running()) return;
    // Prometheus flushes its head block on SIGTERM in well under a second; the temp dir goes
    // anyway, so a slow one is not waited for.
    kill(pid_, SIGTERM);
    for (int i = 0; i < 50 && running(); ++i) std::this_thread::sleep_for(20ms);
    if (running()) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  bool running() {
    if (exited_) return false;
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) exited_ = true;
    return !exited_;
  }

 private:
  pid_t pid_ = -1;
  bool exited_ = false;
};

// Prometheus scraping one extender every second and evaluating `rules` every second, its
// storage and log in `dir`.
class Prometheus {
 public:
  Prometheus(const fs::path& dir, std::uint16_t target, const fs::path& rules)
      : dir_(dir), log_(dir / "prometheus.log") {
    std::ofstream(dir / "prometheus.yml")
        << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        << "rule_files: [\"" << rules.string() << "\"]\n"
        << "scrape_configs:\n  - job_name: " << kJob << "\n    static_configs:\n"
        << "      - targets: [\"127.0.0.1:" << target << "\"]\n";
    for (int attempt = 0; attempt < 3 && !ready_; ++attempt) start();
    BOOST_REQUIRE_MESSAGE(ready_, "Prometheus did not become ready:\n" << log());
  }

  std::uint16_t port() const { return port_; }
  std::string log() const { return readFile(log_); }

  // GET `target` of the HTTP API: the JSON answer (an error answer's too, with its status).
  rapidjson::Document get(const std::string& target) {
    const auto reply = testing::HttpClient(port_).get(target);
    rapidjson::Document document;
    document.Parse(reply.body.c_str(), reply.body.size());
    BOOST_REQUIRE_MESSAGE(!document.HasParseError() && document.IsObject(),
                          "not a JSON answer from " << target << ": " << reply.body);
    return document;
  }
  // An instant query at the current time.
  rapidjson::Document query(const std::string& expr) {
    return get("/api/v1/query?query=" + escaped(expr));
  }

 private:
  void start() {
    port_ = freePort();
    fs::remove_all(dir_ / "data");
    process_.reset();  // a failed attempt's process is gone before the next starts
    process_ = std::make_unique<Child>(
        kPrometheus,
        std::vector<std::string>{"--config.file=" + (dir_ / "prometheus.yml").string(),
                                 "--storage.tsdb.path=" + (dir_ / "data").string(),
                                 "--web.listen-address=127.0.0.1:" + std::to_string(port_),
                                 "--log.level=warn"},
        log_);
    ready_ = eventually(
        [&] {
          if (!process_->running()) return true;  // gave up: perhaps the port was taken
          try {
            return testing::HttpClient(port_).get("/-/ready").status == 200;
          } catch (const std::exception&) {
            return false;  // not listening yet
          }
        },
        30s);
    ready_ = ready_ && process_->running();
  }

  static std::string escaped(std::string_view text) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (const unsigned char c : text) {
      if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
        out.push_back(static_cast<char>(c));
      } else {
        out.push_back('%');
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 15]);
      }
    }
    return out;
  }

  fs::path dir_;
  fs::path log_;
  std::uint16_t port_ = 0;
  std::unique_ptr<Child> process_;
  bool ready_ = false;
};

bool succeeded(const rapidjson::Document& answer) {
  return answer.HasMember("status") && answer["status"] == "success";
}

// The result of a successful query: an instant vector's (or a matrix's) series.
const rapidjson::Value& resultOf(const rapidjson::Document& answer) {
  static const rapidjson::Value kNone(rapidjson::kArrayType);
  if (!succeeded(answer) || !answer["data"].HasMember("result")) return kNone;
  return answer["data"]["result"];
}

std::string errorOf(const rapidjson::Document& answer) {
  return answer.HasMember("error") && answer["error"].IsString() ? answer["error"].GetString()
                                                                 : "(no error given)";
}

// An alert of the chart's rules.
struct AlertRule {
  std::string name;
  std::string expr;
};

// The chart's PrometheusRule, rendered with prometheusRule.enabled and `sets`, written to
// `path` as a Prometheus rules file (its spec.groups); returns its alerting rules.
std::vector<AlertRule> writeRules(const fs::path& path, std::vector<std::string> sets) {
  sets.insert(sets.begin(), "prometheusRule.enabled=true");
  const auto rendered = manifests::renderChart({"sx", "scheduling", {}, sets});
  BOOST_REQUIRE_MESSAGE(rendered.exitCode == 0, "helm template failed: " << rendered.error);
  const manifests::ManifestSet objects(rendered.manifests);
  const auto rules = objects.ofKind("PrometheusRule");
  BOOST_REQUIRE_MESSAGE(rules.size() == 1, "the chart rendered "
                                               << rules.size()
                                               << " PrometheusRules with prometheusRule.enabled="
                                                  "true, want 1 (templates/prometheusrule.yaml)");
  const YAML::Node groups = manifests::at(rules.front(), {"spec", "groups"});
  BOOST_REQUIRE_MESSAGE(groups.IsSequence() && groups.size() > 0,
                        "the PrometheusRule has no spec.groups");
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "groups" << YAML::Value << groups << YAML::EndMap;
  std::ofstream(path) << out.c_str() << "\n";

  std::vector<AlertRule> alerts;
  for (const auto& group : groups) {
    for (const auto& rule : group["rules"]) {
      if (rule["alert"])
        alerts.push_back({rule["alert"].as<std::string>(), rule["expr"].as<std::string>()});
    }
  }
  BOOST_REQUIRE_MESSAGE(!alerts.empty(), "the PrometheusRule has no alerting rule");
  return alerts;
}

// One query of a dashboard panel.
struct PanelQuery {
  std::string panel;
  std::string expr;
};

void collectQueries(const rapidjson::Value& panels, std::vector<PanelQuery>& out) {
  for (const auto& panel : panels.GetArray()) {
    const std::string title = panel.HasMember("title") && panel["title"].IsString()
                                  ? panel["title"].GetString()
                                  : "(untitled)";
    if (panel.HasMember("targets") && panel["targets"].IsArray()) {
      for (const auto& target : panel["targets"].GetArray()) {
        if (target.HasMember("expr") && target["expr"].IsString()) {
          out.push_back({title, target["expr"].GetString()});
        }
      }
    }
    // A collapsed row holds its panels.
    if (panel.HasMember("panels") && panel["panels"].IsArray()) {
      collectQueries(panel["panels"], out);
    }
  }
}

// Grafana's variables in `expr` ($name, ${name}, ${name:format}, [[name]]) replaced by
// `values`; a variable without a value is left as it is, and the query then fails to parse.
std::string substitute(const std::string& expr, const std::map<std::string, std::string>& values) {
  const auto isName = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  std::string out;
  for (std::size_t i = 0; i < expr.size();) {
    std::size_t end = i;
    std::string name;
    if (expr.compare(i, 2, "${") == 0) {
      end = expr.find('}', i);
      if (end != std::string::npos) {
        name = expr.substr(i + 2, end - i - 2);
        name = name.substr(0, name.find(':'));
        ++end;
      }
    } else if (expr.compare(i, 2, "[[") == 0) {
      end = expr.find("]]", i);
      if (end != std::string::npos) {
        name = expr.substr(i + 2, end - i - 2);
        end += 2;
      }
    } else if (expr[i] == '$') {
      end = i + 1;
      while (end < expr.size() && isName(expr[end])) ++end;
      name = expr.substr(i + 1, end - i - 1);
    }
    const auto value = name.empty() ? values.end() : values.find(name);
    if (value == values.end()) {
      out.push_back(expr[i++]);
    } else {
      out += value->second;
      i = end;
    }
  }
  return out;
}

std::vector<PanelQuery> dashboardQueries(const std::string& instance) {
  const std::string text = testing::readSourceFile(kDashboard);
  rapidjson::Document dashboard;
  dashboard.Parse(text.c_str(), text.size());
  BOOST_REQUIRE_MESSAGE(!dashboard.HasParseError() && dashboard.IsObject() &&
                            dashboard.HasMember("panels") && dashboard["panels"].IsArray(),
                        kDashboard << " is not a dashboard with panels");
  std::vector<PanelQuery> queries;
  collectQueries(dashboard["panels"], queries);
  BOOST_REQUIRE_MESSAGE(!queries.empty(), kDashboard << " has no queries");
  const std::map<std::string, std::string> values = {{"instance", instance},
                                                     {"job", kJob},
                                                     {"__rate_interval", kRateInterval},
                                                     {"__interval", "5s"},
                                                     {"__range", "1m"}};
  for (auto& query : queries) query.expr = substitute(query.expr, values);
  return queries;
}

// The alerts Prometheus holds now, "name state" each.
std::vector<std::string> activeAlerts(Prometheus& prometheus) {
  const auto answer = prometheus.get("/api/v1/alerts");
  BOOST_REQUIRE_MESSAGE(succeeded(answer), "/api/v1/alerts: " << errorOf(answer));
  std::vector<std::string> alerts;
  for (const auto& alert : answer["data"]["alerts"].GetArray()) {
    alerts.push_back(std::string(alert["labels"]["alertname"].GetString()) + " " +
                     alert["state"].GetString());
  }
  return alerts;
}

// The newest sample time of the extender's `up`, in seconds since the epoch; 0 before any.
double lastScrape(Prometheus& prometheus) {
  const auto answer = prometheus.query(std::string("timestamp(up{job=\"") + kJob + "\"} == 1)");
  const auto& result = resultOf(answer);
  if (result.Empty()) return 0;
  return std::stod(result[0]["value"][1].GetString());
}

std::string bindArgs(const std::string& name, const std::string& uid, const std::string& node) {
  return R"({"PodName":")" + name + R"(","PodNamespace":"shop","PodUID":")" + uid +
         R"(","Node":")" + node + R"("})";
}

// The Error of an ExtenderBindingResult; "(not one)" for anything else.
std::string bindError(const std::string& body) {
  rapidjson::Document result;
  result.Parse(body.c_str(), body.size());
  if (result.HasParseError() || !result.IsObject() || !result.HasMember("Error") ||
      !result["Error"].IsString()) {
    return "(not one)";
  }
  return result["Error"].GetString();
}

// The extender driven as kube-scheduler drives it, with every kind of answer the dashboard
// shows: placements, in-flight waits, failed bindings, a bad request, restarted watches.
void drive(testing::BurstCluster& cluster) {
  // A dropped connection: every watch restarts once, and is back.
  cluster.server.dropWatches();
  BOOST_REQUIRE(eventually([&] { return cluster.server.openWatches() == 4; }));
  // kube-scheduler's loop with bindVerb: /filter, /prioritize over the feasible nodes, /bind;
  // each /bind after the next pod's /filter, which waits for it (an in-flight wait, settled).
  const auto pods = cluster.pending("web-", 50, "web", testing::kWebAntiAffinity);
  for (const auto& outcome : cluster.schedule(pods, testing::BindOrder::AfterNextFilter)) {
    BOOST_TEST_CONTEXT(outcome.name) {
      BOOST_TEST(outcome.bindStatus == 200u);
      BOOST_TEST(outcome.bindError == "");
    }
  }
  // Bindings that fail: one the API server refuses (another pod's UID: 409) and one the
  // extender refuses itself (a node it does not know); and a request that is not JSON (400).
  // Two failures in 52 stay under the rules' 5 % of bindings failing.
  testing::HttpClient client(cluster.process->port());
  const auto stray = cluster.pending("stray-", 2, "batch", "");
  BOOST_TEST(bindError(client.post("/bind", bindArgs("stray-00", "u-other", "node-a0")).body) !=
             "");
  BOOST_TEST(bindError(client.post("/bind", bindArgs("stray-01", stray[1].uid, "node-z9")).body) !=
             "");
  BOOST_TEST(client.post("/filter", "not json").status == 400u);
  // A preemption whose candidates kube-scheduler sent without victims: a replica of higher
  // priority, which every node running a replica refuses until that one goes.
  std::string candidates;
  for (const auto& node : cluster.nodeNames) {
    candidates += (candidates.empty() ? "" : ",") + ("\"" + node + "\":{\"Pods\":[]}");
  }
  const auto preempted = client.post(
      "/preempt", R"({"Pod":{"metadata":{"name":"web-urgent","namespace":"shop","uid":"u-urgent",)"
                  R"("labels":{"app":"web"}},"spec":{"priority":1000,"affinity":)" +
                      testing::kWebAntiAffinity + R"(}},"NodeNameToMetaVictims":{)" + candidates +
                      "}}");
  BOOST_TEST(preempted.status == 200u, preempted.body);

  const std::string text = cluster.metrics();
  const auto metric = [&](const std::string& series) { return testing::metricValue(text, series); };
  BOOST_TEST(metric(R"(scheduler_extender_bindings_total{result="bound"})") == 50);
  BOOST_TEST(metric(R"(scheduler_extender_bindings_total{result="conflict"})") == 1);
  BOOST_TEST(metric(R"(scheduler_extender_bindings_total{result="refused"})") == 1);
  BOOST_TEST(
      metric(R"(scheduler_extender_in_flight_waits_total{endpoint="filter",outcome="settled"})") >
      0);
  BOOST_TEST(metric(R"(scheduler_extender_preemption_candidates_total{outcome="extended"})") == 50);
  BOOST_TEST(metric(R"(scheduler_extender_preemption_candidates_total{outcome="kept"})") == 10);
}

// Every query of the dashboard parses and returns data.
void checkDashboard(Prometheus& prometheus, const std::string& instance) {
  for (const auto& query : dashboardQueries(instance)) {
    BOOST_TEST_CONTEXT(query.panel << ": " << query.expr) {
      const auto answer = prometheus.query(query.expr);
      BOOST_TEST(succeeded(answer), errorOf(answer));
      BOOST_TEST(!resultOf(answer).Empty(), "no data");
    }
  }
}

// Every alert parses, its condition does not hold, it is healthy in Prometheus' rule manager,
// and none fired or was pending at any evaluation since `since` (seconds since the epoch).
void checkAlertsQuiet(Prometheus& prometheus, const std::vector<AlertRule>& alerts, double since) {
  for (const auto& alert : alerts) {
    BOOST_TEST_CONTEXT(alert.name << ": " << alert.expr) {
      const auto answer = prometheus.query(alert.expr);
      BOOST_TEST(succeeded(answer), errorOf(answer));
      BOOST_TEST(resultOf(answer).Empty(), "the condition holds on a healthy run");
    }
  }
  const auto rules = prometheus.get("/api/v1/rules");
  BOOST_REQUIRE(succeeded(rules));
  for (const auto& group : rules["data"]["groups"].GetArray()) {
    for (const auto& rule : group["rules"].GetArray()) {
      BOOST_TEST_CONTEXT(rule["name"].GetString()) {
        BOOST_TEST(std::string(rule["health"].GetString()) == "ok");
      }
    }
  }
  BOOST_TEST(activeAlerts(prometheus).empty());
  // ALERTS has a sample for every evaluation that found an alert pending or firing; the
  // window is cut to whole seconds after `since`, so that earlier alerts stay out of it.
  const auto window = std::to_string(static_cast<int>(unixNow() - since)) + "s";
  const auto history = prometheus.query(
      "count by (alertname, alertstate) (count_over_time(ALERTS[" + window + "]))");
  BOOST_TEST(succeeded(history), errorOf(history));
  for (const auto& series : resultOf(history).GetArray()) {
    BOOST_ERROR("alert during the healthy run: " << series["metric"]["alertname"].GetString() << " "
                                                 << series["metric"]["alertstate"].GetString());
  }
}

// The alert whose expression reads `metric`; "" when none does.
std::string alertOn(const std::vector<AlertRule>& alerts, const std::string& metric) {
  for (const auto& alert : alerts) {
    if (alert.expr.find(metric) != std::string::npos) return alert.name;
  }
  return "";
}

}  // namespace prometheus_scrape_test

using namespace prometheus_scrape_test;

BOOST_AUTO_TEST_SUITE(prometheus_scrape)

BOOST_AUTO_TEST_CASE(dashboard_queries_return_data_and_alerts_fire_only_on_a_stall) {
  BOOST_REQUIRE_MESSAGE(fs::exists(kPrometheus),
                        kPrometheus << " is missing: install Debian's prometheus package "
                                       "(scripts/install-deps.sh does)");
  TempDir dir("sx-prometheus");
  const auto alerts =
      writeRules(dir.path() / "rules.yaml",
                 {std::string("prometheusRule.selector=job=\"") + kJob + "\"",
                  "prometheusRule.alerts.watchIdle.seconds=" + std::to_string(kWatchIdleSeconds),
                  "prometheusRule.alerts.watchIdle.for=0s"});
  const std::string silentAlert = alertOn(alerts, "scheduler_extender_watch_idle_seconds");
  BOOST_REQUIRE_MESSAGE(!silentAlert.empty(),
                        "no alert of the PrometheusRule reads scheduler_extender_watch_idle_"
                        "seconds");

  // The extender as the chart runs it: scheduling verbs on one port, /metrics on another; a
  // long --in-flight-wait, so that a held request settles rather than times out however slow
  // the machine (a sanitized build).
  testing::BurstCluster cluster({}, {"--metrics-listen", "127.0.0.1:0", "--in-flight-wait=20s"});
  const std::uint16_t metricsPort = cluster.process->metricsPort();
  BOOST_REQUIRE(metricsPort != 0);
  Prometheus prometheus(dir.path(), metricsPort, dir.path() / "rules.yaml");
  // Scraped, and no alert left from before the first scrape (an absent `up` reads as the
  // extender being down).
  BOOST_REQUIRE_MESSAGE(eventually([&] { return lastScrape(prometheus) > 0; }),
                        "Prometheus never scraped the extender:\n"
                            << prometheus.log());
  BOOST_REQUIRE_MESSAGE(eventually([&] { return activeAlerts(prometheus).empty(); }),
                        "alerts before the drive began");

  const double driveStart = unixNow();
  drive(cluster);
  // Scrapes after the drive, and evaluations of the rules on them.
  const double driveEnd = unixNow();
  BOOST_REQUIRE_MESSAGE(eventually([&] { return lastScrape(prometheus) >= driveEnd + 3; }),
                        "Prometheus stopped scraping:\n"
                            << prometheus.log());
  checkDashboard(prometheus, "127.0.0.1:" + std::to_string(metricsPort));
  checkAlertsQuiet(prometheus, alerts, driveStart);

  // The API server goes quiet: open watches send nothing, and a new request (the re-watch
  // after the idle timeout) has its connection closed unanswered. A stall of the open watches
  // alone is not silence: the re-watch is answered, as a quiet resource's is.
  cluster.server.stallWatches(true);
  cluster.server.failNextRequests(1 << 30, 0);
  std::vector<std::string> seen;
  const bool fired = eventually(
      [&] {
        seen = activeAlerts(prometheus);
        return std::find(seen.begin(), seen.end(), silentAlert + " firing") != seen.end();
      },
      60s);
  std::ostringstream active;
  for (const auto& alert : seen) active << " [" << alert << "]";
  BOOST_CHECK_MESSAGE(fired, silentAlert << " did not fire after the API server went quiet; "
                                         << "active:" << active.str());
  cluster.server.failNextRequests(0, 0);
  cluster.server.stallWatches(false);
}

BOOST_AUTO_TEST_SUITE_END()
