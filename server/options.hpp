#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
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
inline constexpr std::size_t kDefaultMaxBodyBytes = 128u << 20;

struct Options {
  std::string listenHost = "0.0.0.0";
  std::uint16_t listenPort = 8888;
  std::string clusterState;       // --cluster-state
  std::string kubeconfig;         // --kubeconfig
  std::string config;             // --config
  std::string tlsCertFile;        // --tls-cert-file
  std::string tlsPrivateKeyFile;  // --tls-private-key-file
  std::string clientCaFile;       // --client-ca-file
  std::size_t maxBodyBytes = kDefaultMaxBodyBytes;
  int shutdownGraceSeconds = 10;      // --shutdown-grace
  std::size_t maxConnections = 4096;  // --max-connections
  // --in-flight-wait: the longest a request waits for a pod in flight (0: never).
  std::chrono::milliseconds inFlightWait{1000};
  // --assumed-pod-ttl: how long a pod bound through /bind counts unconfirmed by the watch.
  std::chrono::milliseconds assumedPodTtl{30000};
  int verbosity = 0;
  bool jsonLogs = false;     // --log-format=json
  bool checkConfig = false;  // validate --config, print the effective profile, exit
  bool help = false;
  bool version = false;
};

// Throws UsageError naming the flag.
Options parseOptions(const std::vector<std::string>& args);

// What --help prints.
std::string usage();

}  // namespace server
