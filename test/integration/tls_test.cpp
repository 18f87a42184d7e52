// HTTPS and mutual TLS on the real server object, with the PKI in test/data/pki.
#include <openssl/ssl.h>

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <ostream>

#include "server/http_server.hpp"
#include "server/tls_context.hpp"
#include "test/testing/example_cluster.hpp"
#include "test/testing/tls_client.hpp"

namespace {

using testing::pkiFile;
using testing::TlsClient;
using testing::TlsClientOptions;

// Serves every endpoint on one listener, or with `split` the scheduling verbs on the first and
// the probes and /metrics on a second that asks for no client certificate, as app.cpp sets
// them up for --metrics-listen.
struct TlsServer {
  testing::ExampleCluster cluster;
  std::shared_ptr<server::TlsContextProvider> tls;
  boost::asio::thread_pool compute{2};
  std::unique_ptr<server::HttpServer> http;

  explicit TlsServer(server::TlsFiles files, std::vector<std::string> allowedNames = {},
                     bool split = false)
      : tls(std::make_shared<server::TlsContextProvider>(files)) {
    server::HttpServerOptions options;
    options.maxBodyBytes = 1u << 20;
    options.listeners.push_back(
        {"--listen", "127.0.0.1", 0, split ? server::Served::SchedulingVerbs : server::Served::All,
         tls, server::CallerPolicy(tls->requiresClientCertificate(), std::move(allowedNames))});
    if (split) {
      files.clientCaFile.clear();
      options.listeners.push_back({"--metrics-listen",
                                   "127.0.0.1",
                                   0,
                                   server::Served::HealthAndMetrics,
                                   std::make_shared<server::TlsContextProvider>(files),
                                   {}});
    }
    http = std::make_unique<server::HttpServer>(options, cluster.routerContext(), compute);
    http->start();
  }

  std::uint16_t port() const { return http->localEndpoint(0).port(); }
  std::uint16_t metricsPort() const { return http->localEndpoint(1).port(); }
};

server::TlsFiles serverFiles(std::string clientCa = "") {
  return {pkiFile("server.crt"), pkiFile("server.key"), std::move(clientCa)};
}

TlsClientOptions trusting() { return {pkiFile("ca.crt"), "", "", {}, 0}; }

TlsClientOptions withCertificate(const std::string& name) {
  return {pkiFile("ca.crt"), pkiFile(name + ".crt"), pkiFile(name + ".key"), {}, 0};
}

std::string filterBody() { return testing::readSourceFile("examples/requests/filter-names.json"); }

}  // namespace

BOOST_AUTO_TEST_SUITE(tls)

BOOST_AUTO_TEST_CASE(serves_https) {
  TlsServer server(serverFiles());
  TlsClient client(server.port(), trusting());
  BOOST_TEST(client.serverCommonName() == "scheduler-extender");
  const auto reply = client.post("/filter", filterBody());
  BOOST_TEST(reply.status == 200u);
  BOOST_TEST(reply.body.find("\"node-b2\":\"node(s) didn't satisfy existing pods") !=
             std::string::npos);
  // Keep-alive over TLS: a second request on the same connection.
  BOOST_TEST(client.get("/healthz").status == 200u);
}

// kube-scheduler's Go client offers h2 first; the server must settle on HTTP/1.1.
BOOST_AUTO_TEST_CASE(alpn_answers_http_1_1_to_a_client_offering_h2) {
  TlsServer server(serverFiles());
  auto options = trusting();
  options.alpn = {"h2", "http/1.1"};
  TlsClient client(server.port(), options);
  BOOST_TEST(client.negotiatedProtocol() == "http/1.1");
  BOOST_TEST(client.get("/healthz").status == 200u);
}

BOOST_AUTO_TEST_CASE(refuses_tls_1_1) {
  TlsServer server(serverFiles());
  auto options = trusting();
  options.maxProtocolVersion = TLS1_1_VERSION;
  BOOST_CHECK_THROW(TlsClient(server.port(), options), boost::system::system_error);
}

struct MutualTlsCase {
  std::string name;
  std::string clientCertificate;  // empty: none
  std::string target;
  unsigned wantStatus;
};
std::ostream& operator<<(std::ostream& out, const MutualTlsCase& c) { return out << c.name; }

const std::vector<MutualTlsCase> kMutualTlsCases = {
    {"client certificate reaches filter", "client", "/filter", 200},
    {"client certificate reaches metrics", "client", "/metrics", 200},
    {"no certificate gets 401 on filter", "", "/filter", 401},
    {"no certificate gets 401 on explain", "", "/explain", 401},
    {"no certificate gets 401 on metrics", "", "/metrics", 401},
    {"no certificate gets 401 on an unknown path", "", "/nope", 401},
    {"kubelet's liveness probe needs no certificate", "", "/healthz", 200},
    {"kubelet's readiness probe needs no certificate", "", "/readyz", 200},
};

BOOST_DATA_TEST_CASE(mutual_tls, boost::unit_test::data::make(kMutualTlsCases), c) {
  TlsServer server(serverFiles(pkiFile("ca.crt")));
  TlsClient client(server.port(),
                   c.clientCertificate.empty() ? trusting() : withCertificate(c.clientCertificate));
  const auto reply = c.target == "/filter" || c.target == "/explain"
                         ? client.post(c.target, filterBody())
                         : client.get(c.target);
  BOOST_TEST(reply.status == c.wantStatus);
  if (c.wantStatus == 401u) {
    BOOST_TEST(reply.body ==
               R"({"error":"a client certificate signed by --client-ca-file is required"})");
  }
}

BOOST_AUTO_TEST_CASE(mutual_tls_refuses_a_foreign_client_certificate) {
  TlsServer server(serverFiles(pkiFile("ca.crt")));
  // TLS 1.3 reports the refusal on the first read rather than in the handshake.
  const auto attempt = [&] {
    TlsClient client(server.port(), withCertificate("foreign-client"));
    return client.get("/healthz");
  };
  BOOST_CHECK_THROW(attempt(), boost::system::system_error);
}

struct AllowedNamesCase {
  std::string name;
  std::string clientCertificate;  // test/data/pki/<name>.crt; empty: none
  std::string target;
  unsigned wantStatus;
  std::string wantError;  // the JSON error of a refusal
};
std::ostream& operator<<(std::ostream& out, const AllowedNamesCase& c) { return out << c.name; }

const std::string kOtherWorkloadRefused =
    R"({"error":"client certificate CN=other-workload is not in --allowed-client-names"})";
const std::vector<AllowedNamesCase> kAllowedNamesCases = {
    {"the allowed CN filters", "client", "/filter", 200, ""},
    {"the allowed CN binds", "client", "/bind", 200, ""},
    {"an allowed DNS SAN filters", "san-client", "/filter", 200, ""},
    {"another name from the same CA may not filter", "other-client", "/filter", 403,
     kOtherWorkloadRefused},
    {"another name from the same CA may not bind", "other-client", "/bind", 403,
     kOtherWorkloadRefused},
    {"another name from the same CA may not explain", "other-client", "/explain", 403,
     kOtherWorkloadRefused},
    {"another name from the same CA may not preempt", "other-client", "/preempt", 403,
     kOtherWorkloadRefused},
    {"another name from the same CA may scrape metrics", "other-client", "/metrics", 200, ""},
    {"another name from the same CA may probe", "other-client", "/readyz", 200, ""},
    {"no certificate may not bind", "", "/bind", 401,
     R"({"error":"a client certificate signed by --client-ca-file is required"})"},
    {"no certificate may probe", "", "/healthz", 200, ""},
};

// --allowed-client-names: kube-scheduler's certificate, by CN or DNS SAN, and nobody else's,
// on the scheduling verbs; probes and metrics do not check names. (/bind, with no API server
// behind the example cluster, answers 200 with an Error: it got past the caller check.)
BOOST_DATA_TEST_CASE(allowed_client_names, boost::unit_test::data::make(kAllowedNamesCases), c) {
  TlsServer server(serverFiles(pkiFile("ca.crt")),
                   {"kube-scheduler", "kube-scheduler.scheduling.svc"});
  TlsClient client(server.port(),
                   c.clientCertificate.empty() ? trusting() : withCertificate(c.clientCertificate));
  const auto reply =
      c.target == "/bind"
          ? client.post(c.target, R"({"PodName":"p","PodNamespace":"d","PodUID":"u","Node":"n"})")
      : c.target == "/preempt"
          ? client.post(c.target, testing::readSourceFile("examples/requests/preempt-meta.json"))
      : c.target == "/filter" || c.target == "/explain" ? client.post(c.target, filterBody())
                                                        : client.get(c.target);
  BOOST_TEST(reply.status == c.wantStatus, reply.body);
  if (!c.wantError.empty()) BOOST_TEST(reply.body == c.wantError);
}

// --metrics-listen under mutual TLS: kubelet and Prometheus reach the probes and /metrics
// there with no client certificate; the scheduling port serves neither, and still wants one.
BOOST_AUTO_TEST_CASE(the_metrics_listener_asks_for_no_client_certificate) {
  TlsServer server(serverFiles(pkiFile("ca.crt")), {"kube-scheduler"}, /*split=*/true);
  TlsClient anonymous(server.metricsPort(), trusting());
  BOOST_TEST(anonymous.get("/metrics").status == 200u);
  BOOST_TEST(anonymous.get("/readyz").status == 200u);
  const auto filter = anonymous.post("/filter", filterBody());
  BOOST_TEST(filter.status == 404u);
  BOOST_TEST(filter.body ==
             R"({"error":"/filter is served on the --listen address, not on this one"})");

  TlsClient scheduler(server.port(), withCertificate("client"));
  BOOST_TEST(scheduler.post("/filter", filterBody()).status == 200u);
  const auto metrics = scheduler.get("/metrics");
  BOOST_TEST(metrics.status == 404u);
  BOOST_TEST(metrics.body ==
             R"({"error":"/metrics is served on the --metrics-listen address, not on this one"})");
  TlsClient withoutCertificate(server.port(), trusting());
  BOOST_TEST(withoutCertificate.post("/filter", filterBody()).status == 401u);
}

// cert-manager rewrites the files in place; new connections get the new certificate, open
// ones keep theirs.
BOOST_AUTO_TEST_CASE(reloads_a_rotated_certificate) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("sx-tls-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto install = [&](const std::string& name) {
    for (const char* ext : {".crt", ".key"}) {
      const auto target = dir / (std::string("tls") + ext);
      std::filesystem::copy_file(pkiFile(name + ext), target,
                                 std::filesystem::copy_options::overwrite_existing);
    }
  };
  install("server");
  TlsServer server({(dir / "tls.crt").string(), (dir / "tls.key").string(), ""});
  TlsClient before(server.port(), trusting());
  BOOST_TEST(before.serverCommonName() == "scheduler-extender");

  BOOST_TEST(!server.tls->reloadIfChanged());
  install("server-rotated");
  // The modification time must move even on a coarse clock.
  for (const char* ext : {".crt", ".key"}) {
    const auto file = dir / (std::string("tls") + ext);
    std::filesystem::last_write_time(
        file, std::filesystem::last_write_time(file) + std::chrono::seconds(5));
  }
  BOOST_TEST(server.tls->reloadIfChanged());

  TlsClient after(server.port(), trusting());
  BOOST_TEST(after.serverCommonName() == "scheduler-extender rotated");
  BOOST_TEST(before.get("/healthz").status == 200u);
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(startup_errors_name_the_flag_and_file) {
  const auto message = [](server::TlsFiles files) -> std::string {
    try {
      server::TlsContextProvider provider(std::move(files));
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "accepted";
  };
  BOOST_TEST(message({"/nonexistent.crt", pkiFile("server.key"), ""})
                 .starts_with("--tls-cert-file /nonexistent.crt: "));
  BOOST_TEST(message({pkiFile("server.crt"), pkiFile("client.key"), ""}) ==
             "--tls-private-key-file " + pkiFile("client.key") +
                 ": key values mismatch (x509 certificate routines)");
  BOOST_TEST(message({pkiFile("server.crt"), pkiFile("server.key"), "/nonexistent-ca.crt"})
                 .starts_with("--client-ca-file /nonexistent-ca.crt: "));
}

BOOST_AUTO_TEST_SUITE_END()
