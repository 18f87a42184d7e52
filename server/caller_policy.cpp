#include "server/caller_policy.hpp"

#include <algorithm>

namespace server {

std::string ClientCertificate::describe() const {
  std::string text = "CN=" + commonName;
  for (const auto& name : dnsNames) text += ", DNS:" + name;
  return text;
}

CallerPolicy::CallerPolicy(bool requireClientCertificate, std::vector<std::string> allowedNames)
    : requireClientCertificate_(requireClientCertificate), allowedNames_(std::move(allowedNames)) {}

bool CallerPolicy::allowed(const ClientCertificate& certificate) const {
  const auto listed = [&](const std::string& name) {
    return std::find(allowedNames_.begin(), allowedNames_.end(), name) != allowedNames_.end();
  };
  return listed(certificate.commonName) ||
         std::any_of(certificate.dnsNames.begin(), certificate.dnsNames.end(), listed);
}

std::optional<CallerPolicy::Refusal> CallerPolicy::refusal(RouteGroup group,
                                                           const Caller& caller) const {
  namespace http = boost::beast::http;
  if (group == RouteGroup::Probe || !requireClientCertificate_) return std::nullopt;
  if (caller.certificate == nullptr) {
    return Refusal{http::status::unauthorized,
                   "a client certificate signed by --client-ca-file is required"};
  }
  if (group == RouteGroup::Scheduling && !allowedNames_.empty() && !allowed(*caller.certificate)) {
    return Refusal{http::status::forbidden, "client certificate " + caller.certificate->describe() +
                                                " is not in --allowed-client-names"};
  }
  return std::nullopt;
}

}  // namespace server
