#pragma once

#include <map>
#include <string>

namespace scheduling::informers {

// How to reach and authenticate to the API server, resolved as client-go resolves it
// (tools/clientcmd for a kubeconfig, rest.InClusterConfig inside a pod). Certificates and
// keys are held as PEM text, whichever way the configuration gave them.
struct ClientConfig {
  std::string host;  // server URL host, no brackets for IPv6
  std::string port;  // explicit, or the scheme's default
  bool https = true;
  std::string basePath;  // server URL path, e.g. "/k8s/clusters/c-1" behind a proxy

  std::string caPem;  // empty: the system's trust store
  bool insecureSkipTlsVerify = false;
  std::string tlsServerName;  // name checked in the server's certificate; default: host

  std::string bearerToken;
  std::string tokenFile;  // re-read periodically: bound service-account tokens rotate
  std::string clientCertPem;
  std::string clientKeyPem;

  std::string origin;  // where this came from, for logs: "kubeconfig FILE, context NAME"
};

// Loads a kubeconfig: current-context, its cluster (server, certificate-authority[-data],
// insecure-skip-tls-verify, tls-server-name) and user (token, tokenFile,
// client-certificate[-data], client-key[-data]). `paths` is one file or, as $KUBECONFIG, a
// colon-separated list merged the way kubectl merges it: the first file that sets
// current-context or defines a named entry wins. Relative file references resolve against
// the directory of the file that holds them. Throws std::runtime_error naming the file and
// field.
ClientConfig loadKubeconfig(const std::string& paths);

// The in-cluster configuration: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT from
// `environment`, the service account's token file and CA from `serviceAccountDir`
// (normally /var/run/secrets/kubernetes.io/serviceaccount). Throws std::runtime_error
// naming what is missing.
ClientConfig inClusterConfig(const std::map<std::string, std::string>& environment,
                             const std::string& serviceAccountDir);

inline constexpr const char* kServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

// Whether `environment` looks like a pod's: KUBERNETES_SERVICE_HOST is set.
bool runningInCluster(const std::map<std::string, std::string>& environment);

}  // namespace scheduling::informers
