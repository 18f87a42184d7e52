#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

// The command line of CONTRACT §2, parsed GNU style: `--flag value` and `--flag=value`;
// `-v N`, `-v=N` and klog's `--v=N` for the verbosity.
namespace server {

// A bad command line: the message names the flag. main() prints it and exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Large enough for a 5000-node NodeList of full Node objects (about 52 MB).
inline constexpr std::size_t kDefaultMaxBodyBytes = std::size_t{1} << 30;

// Where a listener binds: HOST:PORT, port 0 for one the kernel picks.
struct ListenAddress {
  std::string host = "0.0.0.0";
  std::uint16_t port = 8888;

  bool operator==(const ListenAddress&) const = default;
};

struct Options {
  // --listen: the scheduling verbs, and the probes and /metrics unless metricsListen is set.
  ListenAddress listen;
  // --metrics-listen: /healthz, /readyz and /metrics on an address of their own.
  std::optional<ListenAddress> metricsListen;
  std::string clusterState;       // --cluster-state
  std::string kubeconfig;         // --kubeconfig
  std::string config;             // --config
  std::string tlsCertFile;        // --tls-cert-file
  std::string tlsPrivateKeyFile;  // --tls-private-key-file
  std::string clientCaFile;       // --client-ca-file
  // --allowed-client-names: the client certificate names (CN or DNS SAN) the scheduling verbs
  // answer; empty: any certificate --client-ca-file signed.
  std::vector<std::string> allowedClientNames;
  std::size_t maxBodyBytes = kDefaultMaxBodyBytes;
  int shutdownGraceSeconds = 10;      // --shutdown-grace
  std::size_t maxConnections = 4096;  // --max-connections
  // --in-flight-wait: the longest a request waits for a pod in flight (0: never).
  std::chrono::milliseconds inFlightWait{1000};
  // --scheduler-names: /bind binds only pods whose spec.schedulerName is one of these.
  std::vector<std::string> schedulerNames{"default-scheduler"};
  int verbosity = 0;
  bool jsonLogs = false;     // --log-format=json
  bool checkConfig = false;  // validate --config, print the effective profile, exit
  bool help = false;
  bool version = false;
  // Deprecated flags that were given, each with what to do instead: logged at start-up.
  std::vector<std::string> deprecations;
};

// Throws UsageError naming the flag.
Options parseOptions(const std::vector<std::string>& args);

// What --help prints.
std::string usage();

}  // namespace server
