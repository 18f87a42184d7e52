#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http/status.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace server {

// What an endpoint is for, which decides who may call it and which listener serves it.
enum class RouteGroup : std::uint8_t {
  Scheduling,  // /filter /prioritize /preempt /bind /explain: kube-scheduler's verbs
  Probe,       // /healthz /readyz: kubelet, which presents no client certificate
  Metrics,     // /metrics: Prometheus
};

// The client certificate a TLS connection presented, which the handshake verified against
// --client-ca-file.
struct ClientCertificate {
  std::string commonName;
  std::vector<std::string> dnsNames;  // subjectAltName DNS entries

  // `CN=kube-scheduler, DNS:scheduler.kube-system.svc`, for answers and logs.
  std::string describe() const;
};

// Who sent a request, as far as the transport knows. Per connection: copied into each of its
// requests.
struct Caller {
  std::shared_ptr<const ClientCertificate> certificate;  // null: none presented
  boost::asio::ip::tcp::endpoint address;                // the peer, for logs
};

// Who may call the endpoints of one listener. An extender's only caller credential is the
// client certificate of kube-scheduler's extender tlsConfig, so this is kube-apiserver's
// --client-ca-file with --requestheader-allowed-names, for one caller:
//   - probes answer anyone: kubelet presents no certificate;
//   - with a client CA, every other endpoint wants a certificate (401 without one; one the CA
//     did not sign never gets past the handshake);
//   - with allowed names, the scheduling verbs also want the certificate's CN or one of its
//     DNS SANs on the list (403 otherwise): another workload holding a certificate from the
//     same CA must not place pods. /metrics does not check names.
class CallerPolicy {
 public:
  struct Refusal {
    boost::beast::http::status status;
    std::string message;
  };

  CallerPolicy() = default;  // anyone may call anything
  CallerPolicy(bool requireClientCertificate, std::vector<std::string> allowedNames);

  // Why `caller` may not call an endpoint of `group`; nullopt when it may.
  std::optional<Refusal> refusal(RouteGroup group, const Caller& caller) const;

 private:
  bool allowed(const ClientCertificate& certificate) const;

  bool requireClientCertificate_ = false;
  std::vector<std::string> allowedNames_;
};

}  // namespace server
