// The built binary as an operator runs it: flags, start-up errors, serving, SIGTERM.
#include <atomic>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <csignal>
#include <ostream>
#include <thread>

#include "test/testing/http_client.hpp"
#include "test/testing/server_process.hpp"

namespace {

const std::string kExamplesDir = std::string(SX_SOURCE_DIR) + "/examples/";

struct StartupErrorCase {
  std::string name;
  std::vector<std::string> args;
  int wantExitCode;
  std::string wantError;  // a substring of the single line on stderr
};
std::ostream& operator<<(std::ostream& out, const StartupErrorCase& c) { return out << c.name; }

const std::vector<StartupErrorCase> kStartupErrors = {
    {"unknown flag", {"--cluster-sate", "x"}, 2, "unknown flag --cluster-sate"},
    {"no cluster source", {}, 1, "no cluster source: pass --cluster-state FILE"},
    {"missing kubeconfig",
     {"--kubeconfig", "/nonexistent/kubeconfig"},
     1,
     "--kubeconfig: kubeconfig /nonexistent/kubeconfig: no such file"},
    {"missing cluster-state file",
     {"--cluster-state", "/nonexistent/cluster.json", "--listen", "127.0.0.1:0"},
     1,
     "--cluster-state /nonexistent/cluster.json: "},
    {"missing config file",
     {"--cluster-state", kExamplesDir + "cluster-state.json", "--config", "/nonexistent.yaml",
      "--listen", "127.0.0.1:0"},
     1,
     "--config /nonexistent.yaml: cannot read configuration file /nonexistent.yaml"},
    {"unreadable certificate is named",
     {"--cluster-state", kExamplesDir + "cluster-state.json", "--tls-cert-file", "/nonexistent.crt",
      "--tls-private-key-file", "/nonexistent.key"},
     1,
     "--tls-cert-file /nonexistent.crt: "},
    {"unusable listen address is named",
     {"--cluster-state", kExamplesDir + "cluster-state.json", "--listen", "203.0.113.7:80"},
     1,
     "--listen 203.0.113.7:80: "},
    {"unusable metrics address is named",
     {"--cluster-state", kExamplesDir + "cluster-state.json", "--listen", "127.0.0.1:0",
      "--metrics-listen", "203.0.113.7:80"},
     1,
     "--metrics-listen 203.0.113.7:80: "},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(binary)

BOOST_AUTO_TEST_CASE(help_and_version) {
  const auto help = testing::runBinary({"--help"});
  BOOST_TEST(help.exitCode == 0);
  BOOST_TEST(help.out.find("--cluster-state FILE") != std::string::npos);
  const auto version = testing::runBinary({"--version"});
  BOOST_TEST(version.exitCode == 0);
  BOOST_TEST(version.out == "scheduler-extender " SX_VERSION "\n");
}

BOOST_DATA_TEST_CASE(startup_errors_are_one_line, boost::unit_test::data::make(kStartupErrors), c) {
  const auto result = testing::runBinary(c.args);
  BOOST_TEST(result.exitCode == c.wantExitCode);
  BOOST_TEST(result.err.find(c.wantError) != std::string::npos, result.err);
  BOOST_TEST(std::count(result.err.begin(), result.err.end(), '\n') == 1, result.err);
}

BOOST_AUTO_TEST_CASE(json_logs_are_one_object_per_line) {
  const auto result = testing::runBinary({"--log-format", "json"});
  BOOST_TEST(result.exitCode == 1);
  BOOST_TEST(result.err.starts_with("{\"ts\":"), result.err);
  BOOST_TEST(result.err.find(R"("level":"error","caller":"app.cpp:)") != std::string::npos,
             result.err);
  BOOST_TEST(result.err.find(R"("msg":"no cluster source: pass --cluster-state FILE)") !=
                 std::string::npos,
             result.err);
}

BOOST_AUTO_TEST_CASE(check_config_accepts_the_example_and_names_a_bad_field) {
  const auto good =
      testing::runBinary({"--check-config", "--config", kExamplesDir + "config.yaml"});
  BOOST_TEST(good.exitCode == 0);
  BOOST_TEST(good.out ==
             "configuration OK: filter [InterPodAffinity] score [InterPodAffinity:2 PodState:1] "
             "percentageOfNodesToScore 100\n");

  const auto path = testing::writeTempFile("bad.yaml",
                                           "plugins:\n  score:\n    - name: PodState\n"
                                           "      weight: -3\n");
  const auto bad = testing::runBinary({"--check-config", "--config", path});
  BOOST_TEST(bad.exitCode == 1);
  BOOST_TEST(bad.err.find("plugins.score[0].weight") != std::string::npos, bad.err);
  std::remove(path.c_str());
}

BOOST_AUTO_TEST_CASE(serves_the_example_cluster_and_drains_on_sigterm) {
  testing::ServerProcess process({"--cluster-state", kExamplesDir + "cluster-state.json",
                                  "--config", kExamplesDir + "config.yaml"});
  {
    testing::HttpClient client(process.port());
    BOOST_TEST(client.get("/readyz").status == 200u);
    const auto reply =
        client.post("/filter", testing::readSourceFile("examples/requests/filter-names.json"));
    BOOST_TEST(reply.status == 200u);
    BOOST_TEST(reply.body.find("\"node-b2\":\"node(s) didn't satisfy existing pods "
                               "anti-affinity rules\"") != std::string::npos);
  }
  BOOST_TEST(process.stop(SIGTERM) == 0);
  BOOST_TEST(process.log().find("loaded cluster state from") != std::string::npos);
  BOOST_TEST(process.log().find("received SIGTERM, draining") != std::string::npos);
}

// --metrics-listen: kubelet's probes and Prometheus on one port, kube-scheduler's verbs on the
// other, each refusing the other's endpoints with a pointer to where they are.
BOOST_AUTO_TEST_CASE(metrics_listen_splits_the_endpoints_between_two_ports) {
  testing::ServerProcess process(
      {"--cluster-state", kExamplesDir + "cluster-state.json", "--metrics-listen", "127.0.0.1:0"});
  BOOST_TEST_REQUIRE(process.metricsPort() != 0, process.log());
  BOOST_TEST(process.metricsPort() != process.port());
  testing::HttpClient scheduling(process.port());
  testing::HttpClient monitoring(process.metricsPort());
  const std::string filter = testing::readSourceFile("examples/requests/filter-names.json");
  BOOST_TEST(scheduling.post("/filter", filter).status == 200u);
  BOOST_TEST(monitoring.post("/filter", filter).status == 404u);
  for (const char* path : {"/healthz", "/readyz", "/metrics"}) {
    BOOST_TEST(monitoring.get(path).status == 200u, path);
    BOOST_TEST(scheduling.get(path).status == 404u, path);
  }
  BOOST_TEST(
      monitoring.get("/metrics")
          .body.find("scheduler_extender_requests_total{endpoint=\"filter\",code=\"200\"} 1\n") !=
      std::string::npos);
  BOOST_TEST(process.stop(SIGTERM) == 0);
  BOOST_TEST(process.log().find("for the scheduling verbs and http://127.0.0.1:") !=
             std::string::npos);
}

// Manifests written for earlier versions pass --assumed-pod-ttl: they still start, and the log
// says the flag does nothing now.
BOOST_AUTO_TEST_CASE(the_deprecated_assumed_pod_ttl_starts_with_a_warning) {
  testing::ServerProcess process(
      {"--cluster-state", kExamplesDir + "cluster-state.json", "--assumed-pod-ttl=30s"});
  BOOST_TEST(process.stop(SIGTERM) == 0);
  BOOST_TEST(process.log().find("--assumed-pod-ttl is deprecated and has no effect") !=
             std::string::npos);
}

// SIGTERM while clients keep four connections busy: every request the server read is
// answered (200) before it exits 0; clients only ever see connections closed between answers.
BOOST_AUTO_TEST_CASE(sigterm_under_load_answers_every_request_it_read) {
  testing::ServerProcess process({"--cluster-state", kExamplesDir + "cluster-state.json",
                                  "--config", kExamplesDir + "config.yaml"});
  const std::string body = testing::readSourceFile("examples/requests/prioritize-names.json");
  std::atomic<int> answered{0};
  std::atomic<int> failed{0};
  std::atomic<int> ended{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 4; ++c) {
    clients.emplace_back([&] {
      try {
        testing::HttpClient client(process.port());
        for (;;) {
          const auto reply = client.post("/prioritize", body);
          (reply.status == 200u ? answered : failed).fetch_add(1);
        }
      } catch (const boost::system::system_error&) {
        // The drain closed the connection after an answer, or the listener was gone: the
        // request that met it was never read, so it was never accepted.
      }
      ended.fetch_add(1);
    });
  }
  while (answered.load() < 200 && ended.load() == 0) std::this_thread::yield();
  BOOST_REQUIRE_MESSAGE(ended.load() == 0, "a client stopped before the SIGTERM");
  BOOST_TEST(process.stop(SIGTERM) == 0);
  for (auto& t : clients) t.join();
  BOOST_TEST(failed.load() == 0);
  BOOST_TEST(process.log().find("unanswered") == std::string::npos, process.log());
  BOOST_TEST(process.log().find("] stopped") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
