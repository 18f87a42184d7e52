#include "server/options.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <functional>
#include <ostream>

BOOST_AUTO_TEST_SUITE(options)

struct ParseCase {
  std::string name;
  std::vector<std::string> args;
  std::function<bool(const server::Options&)> check;
};
std::ostream& operator<<(std::ostream& out, const ParseCase& c) { return out << c.name; }

const std::vector<ParseCase> kParseCases = {
    {"defaults",
     {},
     [](const server::Options& o) {
       return o.listen == server::ListenAddress{"0.0.0.0", 8888} && !o.metricsListen &&
              o.clusterState.empty() && o.maxBodyBytes == server::kDefaultMaxBodyBytes &&
              o.verbosity == 0 && !o.checkConfig;
     }},
    {"separate values",
     {"--listen", "127.0.0.1:9000", "--cluster-state", "c.json", "--config", "x.yaml"},
     [](const server::Options& o) {
       return o.listen == server::ListenAddress{"127.0.0.1", 9000} && o.clusterState == "c.json" &&
              o.config == "x.yaml";
     }},
    {"inline values",
     {"--listen=:0", "--max-body-bytes=2048", "--kubeconfig=/k"},
     [](const server::Options& o) {
       return o.listen == server::ListenAddress{"0.0.0.0", 0} && o.maxBodyBytes == 2048 &&
              o.kubeconfig == "/k";
     }},
    {"IPv6 literal",
     {"--listen", "[::1]:8443"},
     [](const server::Options& o) {
       return o.listen == server::ListenAddress{"::1", 8443};
     }},
    {"a second listener for probes and metrics",
     {"--listen=127.0.0.1:8888", "--metrics-listen", ":8889"},
     [](const server::Options& o) {
       return o.listen == server::ListenAddress{"127.0.0.1", 8888} &&
              o.metricsListen == server::ListenAddress{"0.0.0.0", 8889};
     }},
    {"allowed client names, listed and repeated",
     {"--tls-cert-file=c", "--tls-private-key-file=k", "--client-ca-file=ca",
      "--allowed-client-names=kube-scheduler,sched.example", "--allowed-client-names", "third"},
     [](const server::Options& o) {
       return o.allowedClientNames ==
              std::vector<std::string>{"kube-scheduler", "sched.example", "third"};
     }},
    {"scheduler names replace the default",
     {"--scheduler-names=web-scheduler,batch-scheduler"},
     [](const server::Options& o) {
       return o.schedulerNames == std::vector<std::string>{"web-scheduler", "batch-scheduler"};
     }},
    {"verbosity short", {"-v", "4"}, [](const server::Options& o) { return o.verbosity == 4; }},
    {"verbosity klog style", {"--v=2"}, [](const server::Options& o) { return o.verbosity == 2; }},
    {"TLS files",
     {"--tls-cert-file", "c.crt", "--tls-private-key-file", "c.key", "--client-ca-file", "ca.crt"},
     [](const server::Options& o) {
       return o.tlsCertFile == "c.crt" && o.tlsPrivateKeyFile == "c.key" &&
              o.clientCaFile == "ca.crt";
     }},
    {"shutdown grace with unit",
     {"--shutdown-grace=5s"},
     [](const server::Options& o) { return o.shutdownGraceSeconds == 5; }},
    {"JSON logs", {"--log-format=json"}, [](const server::Options& o) { return o.jsonLogs; }},
    {"connection cap",
     {"--max-connections", "100"},
     [](const server::Options& o) { return o.maxConnections == 100; }},
    {"shutdown grace default",
     {},
     [](const server::Options& o) { return o.shutdownGraceSeconds == 10; }},
    {"binding defaults",
     {},
     [](const server::Options& o) {
       return o.inFlightWait == std::chrono::seconds(1) &&
              o.schedulerNames == std::vector<std::string>{"default-scheduler"} &&
              o.allowedClientNames.empty() && o.deprecations.empty();
     }},
    {"durations in Go's units",
     {"--in-flight-wait=250ms"},
     [](const server::Options& o) { return o.inFlightWait == std::chrono::milliseconds(250); }},
    // Accepted so that manifests written for earlier versions still start, and said to do
    // nothing: assumptions no longer expire.
    {"the assumed-pod TTL is deprecated",
     {"--assumed-pod-ttl", "2m"},
     [](const server::Options& o) {
       return o.deprecations.size() == 1 &&
              o.deprecations[0].starts_with("--assumed-pod-ttl is deprecated and has no effect");
     }},
    {"no waiting at all",
     {"--in-flight-wait=0"},
     [](const server::Options& o) { return o.inFlightWait.count() == 0; }},
    {"switches",
     {"--check-config", "--help", "--version"},
     [](const server::Options& o) { return o.checkConfig && o.help && o.version; }},
};

BOOST_DATA_TEST_CASE(parses, boost::unit_test::data::make(kParseCases), c) {
  BOOST_TEST(c.check(server::parseOptions(c.args)));
}

struct ErrorCase {
  std::string name;
  std::vector<std::string> args;
  std::string wantMessage;
};
std::ostream& operator<<(std::ostream& out, const ErrorCase& c) { return out << c.name; }

const std::vector<ErrorCase> kErrorCases = {
    {"unknown flag", {"--nope"}, "unknown flag --nope (see --help)"},
    {"positional argument", {"cluster.json"}, "unexpected argument \"cluster.json\" (see --help)"},
    {"missing value", {"--cluster-state"}, "--cluster-state: missing value"},
    {"listen without port",
     {"--listen", "localhost"},
     "--listen: invalid value \"localhost\": want HOST:PORT"},
    {"port out of range",
     {"--listen", ":70000"},
     "--listen port: invalid value \"70000\": want an integer in [0, 65535]"},
    {"body limit not a number",
     {"--max-body-bytes", "10MB"},
     "--max-body-bytes: invalid value \"10MB\": want an integer in [1024, 4294967296]"},
    {"verbosity negative", {"-v", "-1"}, "-v: invalid value \"-1\": want an integer in [0, 10]"},
    {"switch with value", {"--help=yes"}, "--help: takes no value"},
    {"certificate without key",
     {"--tls-cert-file", "c.crt"},
     "--tls-cert-file and --tls-private-key-file: set both or neither"},
    {"client CA without TLS",
     {"--client-ca-file", "ca.crt"},
     "--client-ca-file: needs --tls-cert-file and --tls-private-key-file"},
    {"shutdown grace not a duration",
     {"--shutdown-grace", "soon"},
     "--shutdown-grace: invalid value \"soon\": want an integer in [0, 3600]"},
    {"in-flight wait not a duration",
     {"--in-flight-wait", "soon"},
     "--in-flight-wait: invalid value \"soon\": want a duration such as 500ms, 2s or 1m, at most "
     "60000ms"},
    {"in-flight wait too long",
     {"--in-flight-wait=2m"},
     "--in-flight-wait: invalid value \"2m\": want a duration such as 500ms, 2s or 1m, at most "
     "60000ms"},
    {"deprecated, but still a duration",
     {"--assumed-pod-ttl=soon"},
     "--assumed-pod-ttl: invalid value \"soon\": want a duration such as 500ms, 2s or 1m, at "
     "most 3600000ms"},
    {"metrics listener without a port",
     {"--metrics-listen", "0.0.0.0"},
     "--metrics-listen: invalid value \"0.0.0.0\": want HOST:PORT"},
    {"metrics listener on the scheduling address",
     {"--listen=0.0.0.0:8888", "--metrics-listen=:8888"},
     "--metrics-listen: the same address as --listen; choose another port"},
    {"allowed names without mutual TLS",
     {"--allowed-client-names=kube-scheduler"},
     "--allowed-client-names: needs --client-ca-file (the names are read from client "
     "certificates that CA verified)"},
    {"an empty scheduler name",
     {"--scheduler-names=a,,b"},
     "--scheduler-names: invalid value \"a,,b\": want NAME[,NAME...] with no empty name"},
    {"no scheduler name at all",
     {"--scheduler-names="},
     "--scheduler-names: invalid value \"\": want NAME[,NAME...] with no empty name"},
    {"unknown log format",
     {"--log-format", "xml"},
     "--log-format: invalid value \"xml\": want text or json"},
    {"two cluster sources",
     {"--cluster-state", "a", "--kubeconfig", "b"},
     "--cluster-state and --kubeconfig: choose one cluster source"},
};

BOOST_DATA_TEST_CASE(rejects, boost::unit_test::data::make(kErrorCases), c) {
  try {
    server::parseOptions(c.args);
    BOOST_FAIL("accepted");
  } catch (const server::UsageError& e) {
    BOOST_TEST(std::string(e.what()) == c.wantMessage);
  }
}

BOOST_AUTO_TEST_CASE(usage_lists_every_flag) {
  const std::string text = server::usage();
  for (const char* flag : {"--listen",
                           "--cluster-state",
                           "--kubeconfig",
                           "--config",
                           "--max-body-bytes",
                           "--check-config",
                           "-v N",
                           "--version",
                           "--help",
                           "--tls-cert-file",
                           "--tls-private-key-file",
                           "--client-ca-file",
                           "--shutdown-grace",
                           "--max-connections",
                           "--log-format",
                           "--metrics-listen",
                           "--allowed-client-names",
                           "--scheduler-names",
                           "--in-flight-wait",
                           "--assumed-pod-ttl"}) {
    BOOST_TEST_CONTEXT(flag) { BOOST_TEST(text.find(flag) != std::string::npos); }
  }
}

BOOST_AUTO_TEST_SUITE_END()
