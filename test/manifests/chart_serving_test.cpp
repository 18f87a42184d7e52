// Each scenario's extender container run for real: the built binary started with the
// container's own arguments (the mounted files replaced by files from the source tree, the
// cluster from examples/ instead of the API server, both listeners on loopback ports the kernel
// picks), then asked what kubelet's probes and kube-scheduler ask, each on the listener the
// manifests point it at, with the scheme, client certificate and node form they give them; and
// asked on the other listener, which must not serve it.
#include <rapidjson/document.h>

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <csignal>
#include <map>
#include <memory>

#include "test/manifests/chart_render.hpp"
#include "test/manifests/chart_values.hpp"
#include "test/manifests/scenario.hpp"
#include "test/testing/http_client.hpp"
#include "test/testing/server_process.hpp"
#include "test/testing/tls_client.hpp"

namespace manifests {
namespace {

namespace data = boost::unit_test::data;

// The binary's arguments for a container's: each mounted file replaced by a stand-in, the
// listen address left to ServerProcess (loopback, a free port), the metrics listener on
// loopback and a free port too, the cluster from a file.
std::vector<std::string> localArguments(const Scenario& s, const std::string& configPath) {
  const std::map<std::string, std::string> standIns = {
      {"--config", configPath},
      {"--tls-cert-file", testing::pkiFile("server.crt")},
      {"--tls-private-key-file", testing::pkiFile("server.key")},
      {"--client-ca-file", testing::pkiFile("ca.crt")},
      {"--metrics-listen", "127.0.0.1:0"},
  };
  std::vector<std::string> args;
  for (const auto& arg : s.extenderContainer["args"]) {
    const std::string a = text(arg);
    const std::string flag = a.substr(0, a.find('='));
    if (flag == "--listen") continue;
    const auto standIn = standIns.find(flag);
    args.push_back(standIn == standIns.end() ? a : flag + "=" + standIn->second);
  }
  args.insert(args.end(), {"--cluster-state", sourcePath("examples/cluster-state.json")});
  return args;
}

// The test PKI's stand-in for the client certificate a scenario mounts into kube-scheduler,
// by the name tls.clientAuth.clientName gives it: client.crt has CN kube-scheduler,
// san-client.crt the DNS SAN kube-scheduler.scheduling.svc (test/data/pki/generate.sh). No name
// (any certificate the CA signed is allowed): client.crt. "" when the PKI holds none.
std::string clientCertificateNamed(const std::string& name) {
  static const std::map<std::string, std::string> byName = {
      {"", "client"},
      {"kube-scheduler", "client"},
      {"kube-scheduler.scheduling.svc", "san-client"},
  };
  const auto found = byName.find(name);
  return found == byName.end() ? "" : found->second;
}

// One connection as kubelet or Prometheus (no client certificate) or kube-scheduler (its
// tlsConfig: the certificate named `certificate` of the test PKI) opens it.
class Caller {
 public:
  Caller(std::uint16_t port, bool tls, const std::string& certificate = "") {
    if (!tls) {
      plain_ = std::make_unique<testing::HttpClient>(port);
      return;
    }
    testing::TlsClientOptions options{testing::pkiFile("ca.crt"), "", "", {}, 0};
    if (!certificate.empty()) {
      options.certFile = testing::pkiFile(certificate + ".crt");
      options.keyFile = testing::pkiFile(certificate + ".key");
    }
    tls_ = std::make_unique<testing::TlsClient>(port, options);
  }
  testing::HttpReply get(const std::string& path) {
    return plain_ ? plain_->get(path) : tls_->get(path);
  }
  testing::HttpReply post(const std::string& path, const std::string& body) {
    return plain_ ? plain_->post(path, body) : tls_->post(path, body);
  }

 private:
  std::unique_ptr<testing::HttpClient> plain_;
  std::unique_ptr<testing::TlsClient> tls_;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(chart_serving)

BOOST_DATA_TEST_CASE(kubelet_and_kube_scheduler_get_their_answers, data::make(ciScenarios()),
                     name) {
  const Scenario& s = scenario(name);
  const std::string clientName = value(s.values, "tls.clientAuth.clientName");
  const std::string certificate = s.mutualTls() ? clientCertificateNamed(clientName) : "";
  BOOST_TEST_REQUIRE((!s.mutualTls() || !certificate.empty()),
                     "test/data/pki has no client certificate named " << clientName);
  const std::string configPath = testing::writeTempFile("config.yaml", s.frameworkConfig);
  const bool json = flagValue(s.extenderContainer["args"], "--log-format") == "json";
  testing::ServerProcess server(localArguments(s, configPath),
                                json ? "\"msg\":\"ready\"" : "] ready");
  BOOST_TEST_REQUIRE(server.metricsPort() != 0, server.log());
  BOOST_TEST_REQUIRE(server.metricsPort() != server.port());
  {
    // kubelet probes the metrics listener, with no client certificate, under mutual TLS too.
    Caller kubelet(server.metricsPort(), s.tls());
    for (const auto* probe : {"startupProbe", "readinessProbe", "livenessProbe"}) {
      const std::string path = text(at(s.extenderContainer, {probe, "httpGet", "path"}));
      BOOST_TEST(kubelet.get(path).status == 200u, probe << " " << path);
    }
    // Prometheus too, with what the ServiceMonitor gives it: no client certificate.
    BOOST_TEST(kubelet.get("/metrics").status == 200u);
    // The metrics listener serves no scheduling verb, whoever asks.
    BOOST_TEST(kubelet.post("/" + text(s.extenderCall["filterVerb"]), "{}").status == 404u);

    // kube-scheduler sends node names with nodeCacheCapable, full Node objects without, and
    // reads the answer in the same form.
    const bool names = text(s.extenderCall["nodeCacheCapable"]) == "true";
    const std::string form = names ? "names" : "nodes";
    const std::map<std::string, std::string> bodies = {
        {"filterVerb", "examples/requests/filter-" + form + ".json"},
        {"prioritizeVerb", "examples/requests/prioritize-" + form + ".json"},
        {"preemptVerb", "examples/requests/preempt-meta.json"},
    };
    Caller scheduler(server.port(), s.tls(), certificate);
    for (const auto& [verb, body] : bodies) {
      const std::string path = "/" + text(s.extenderCall[verb]);
      if (path == "/") continue;
      const auto reply = scheduler.post(path, testing::readSourceFile(body));
      BOOST_TEST(reply.status == 200u, path << ": " << reply.body);
      if (verb == "filterVerb") {
        BOOST_TEST(reply.body.find(names ? "\"NodeNames\":[" : "\"Nodes\":{") != std::string::npos,
                   reply.body);
      }
    }
    // Run from a file, the extender has no API server to create a Binding with: /bind answers
    // 200 with an Error, which kube-scheduler takes as a failed binding and retries the pod.
    const std::string bindPath = "/" + text(s.extenderCall["bindVerb"]);
    if (bindPath != "/") {
      const auto reply = scheduler.post(
          bindPath, R"({"PodName":"web-0","PodNamespace":"default",)"
                    R"("PodUID":"5d0c1f3e-8a2b-4c7d-9e6f-0a1b2c3d4e5f","Node":"node-a1"})");
      BOOST_TEST(reply.status == 200u, bindPath << ": " << reply.body);
      rapidjson::Document result;
      result.Parse(reply.body.c_str());
      BOOST_TEST((result.IsObject() && result.HasMember("Error") && result["Error"].IsString() &&
                  result["Error"].GetStringLength() > 0),
                 reply.body);
    }
    // The scheduling listener serves no probe and no /metrics: a probe pointed at it fails.
    BOOST_TEST(scheduler.get("/metrics").status == 404u);
    Caller misdirectedKubelet(server.port(), s.tls());
    BOOST_TEST(misdirectedKubelet.get("/readyz").status == 404u);

    if (s.mutualTls()) {
      // Mutual TLS is really on: the probes' kind of client may not schedule.
      BOOST_TEST(
          Caller(server.port(), true).post("/" + text(s.extenderCall["filterVerb"]), "{}").status ==
          401u);
      // Another workload's certificate from the same CA schedules exactly when no name is set.
      Caller other(server.port(), true, "other-client");
      const auto reply = other.post("/" + text(s.extenderCall["filterVerb"]),
                                    testing::readSourceFile(bodies.at("filterVerb")));
      BOOST_TEST(reply.status == (clientName.empty() ? 200u : 403u), reply.body);
    }
  }
  BOOST_TEST(server.stop(SIGTERM) == 0, server.log());
  std::remove(configPath.c_str());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace manifests
