// Each scenario's extender container run for real: the built binary started with the
// container's own arguments (the mounted files replaced by files from the source tree, the
// cluster from examples/ instead of the API server), then asked what kubelet's probes and
// kube-scheduler ask, with the scheme, client certificate and node form the manifests give them.
#include <rapidjson/document.h>

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <csignal>
#include <map>
#include <memory>

#include "test/manifests/chart_render.hpp"
#include "test/manifests/scenario.hpp"
#include "test/testing/http_client.hpp"
#include "test/testing/server_process.hpp"
#include "test/testing/tls_client.hpp"

namespace manifests {
namespace {

namespace data = boost::unit_test::data;

const std::vector<std::string> kScenarios = ciScenarios();

// The binary's arguments for a container's: each mounted file replaced by a stand-in, the
// listen address left to ServerProcess (loopback, a free port), the cluster from a file.
std::vector<std::string> localArguments(const Scenario& s, const std::string& configPath) {
  const std::map<std::string, std::string> standIns = {
      {"--config", configPath},
      {"--tls-cert-file", testing::pkiFile("server.crt")},
      {"--tls-private-key-file", testing::pkiFile("server.key")},
      {"--client-ca-file", testing::pkiFile("ca.crt")},
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

// One connection as kubelet (no client certificate) or kube-scheduler (its tlsConfig) opens it.
class Caller {
 public:
  Caller(std::uint16_t port, bool tls, bool clientCertificate) {
    if (!tls) {
      plain_ = std::make_unique<testing::HttpClient>(port);
      return;
    }
    testing::TlsClientOptions options{testing::pkiFile("ca.crt"), "", "", {}, 0};
    if (clientCertificate) {
      options.certFile = testing::pkiFile("client.crt");
      options.keyFile = testing::pkiFile("client.key");
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

BOOST_DATA_TEST_CASE(kubelet_and_kube_scheduler_get_their_answers, data::make(kScenarios), name) {
  const Scenario& s = scenario(name);
  const std::string configPath = testing::writeTempFile("config.yaml", s.frameworkConfig);
  const bool json = flagValue(s.extenderContainer["args"], "--log-format") == "json";
  testing::ServerProcess server(localArguments(s, configPath),
                                json ? "\"msg\":\"ready\"" : "] ready");
  {
    Caller kubelet(server.port(), s.tls(), false);
    for (const auto* probe : {"startupProbe", "readinessProbe", "livenessProbe"}) {
      const std::string path = text(at(s.extenderContainer, {probe, "httpGet", "path"}));
      BOOST_TEST(kubelet.get(path).status == 200u, probe << " " << path);
    }

    // kube-scheduler sends node names with nodeCacheCapable, full Node objects without, and
    // reads the answer in the same form.
    const bool names = text(s.extenderCall["nodeCacheCapable"]) == "true";
    const std::string form = names ? "names" : "nodes";
    const std::map<std::string, std::string> bodies = {
        {"filterVerb", "examples/requests/filter-" + form + ".json"},
        {"prioritizeVerb", "examples/requests/prioritize-" + form + ".json"},
        {"preemptVerb", "examples/requests/preempt-meta.json"},
    };
    Caller scheduler(server.port(), s.tls(), s.mutualTls());
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
    BOOST_TEST(scheduler.get("/metrics").status == 200u);

    // Mutual TLS is really on: the probes' kind of client may not schedule.
    if (s.mutualTls()) {
      BOOST_TEST(kubelet.post("/" + text(s.extenderCall["filterVerb"]), "{}").status == 401u);
    }
  }
  BOOST_TEST(server.stop(SIGTERM) == 0, server.log());
  std::remove(configPath.c_str());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace manifests
