#include "test/manifests/network_policy.hpp"

#include <algorithm>

namespace manifests {
namespace {

bool requirementHolds(const YAML::Node& requirement, const YAML::Node& labels) {
  const std::string key = text(requirement["key"]);
  const std::string op = text(requirement["operator"]);
  const bool has = labels.IsMap() && labels[key].IsDefined();
  const std::string value = has ? text(labels[key]) : "";
  bool listed = false;
  for (const auto& v : requirement["values"]) listed = listed || text(v) == value;
  if (op == "Exists") return has;
  if (op == "DoesNotExist") return !has;
  if (op == "In") return has && listed;
  if (op == "NotIn") return !has || !listed;
  return false;  // an operator the API server would reject selects nothing
}

// A port of the pod by name or number, as a NetworkPolicyPort names it.
int resolvePort(const YAML::Node& podSpec, const YAML::Node& port) {
  for (const auto& container : podSpec["containers"]) {
    if (const int number = containerPort(container, port)) return number;
  }
  // A number the pod declares no port for still names that port.
  const std::string wanted = text(port);
  const bool numeric = !wanted.empty() && std::all_of(wanted.begin(), wanted.end(),
                                                      [](char c) { return c >= '0' && c <= '9'; });
  return numeric ? std::stoi(wanted) : 0;
}

bool portMatches(const YAML::Node& ports, const YAML::Node& podSpec, int port) {
  if (!ports.IsDefined() || ports.IsNull() || ports.size() == 0) return true;
  for (const auto& entry : ports) {
    const std::string protocol = text(entry["protocol"]);
    if (!protocol.empty() && protocol != "TCP") continue;
    if (!entry["port"].IsDefined()) return true;  // every port of that protocol
    const int from = resolvePort(podSpec, entry["port"]);
    const int to = entry["endPort"].IsDefined() ? entry["endPort"].as<int>() : from;
    if (from != 0 && port >= from && port <= to) return true;
  }
  return false;
}

bool peerMatches(const YAML::Node& peer, const std::string& policyNamespace,
                 const Connection& connection) {
  if (peer["ipBlock"].IsDefined()) return true;  // see admits()
  const YAML::Node& pods = peer["podSelector"];
  const YAML::Node& namespaces = peer["namespaceSelector"];
  if (!pods.IsDefined() && !namespaces.IsDefined()) return false;
  // Without a namespaceSelector, a podSelector selects pods of the policy's own namespace.
  const bool namespaceOk = namespaces.IsDefined()
                               ? selectorMatches(namespaces, connection.namespaceLabels)
                               : connection.namespace_ == policyNamespace;
  const bool podOk = !pods.IsDefined() || selectorMatches(pods, connection.podLabels);
  return namespaceOk && podOk;
}

}  // namespace

bool selectorMatches(const YAML::Node& selector, const YAML::Node& labels) {
  if (!selector.IsDefined() || selector.IsNull()) return true;
  // Unlike a Service's selector, an empty LabelSelector selects everything.
  const YAML::Node& matchLabels = selector["matchLabels"];
  if (matchLabels.IsMap() && matchLabels.size() > 0 && !selects(matchLabels, labels)) return false;
  for (const auto& requirement : selector["matchExpressions"]) {
    if (!requirementHolds(requirement, labels)) return false;
  }
  return true;
}

std::vector<YAML::Node> isolatingPolicies(const ManifestSet& set, const YAML::Node& podLabels,
                                          const std::string& podNamespace) {
  std::vector<YAML::Node> found;
  for (const auto& policy : set.ofKind("NetworkPolicy")) {
    const YAML::Node& spec = policy["spec"];
    if (text(policy["metadata"]["namespace"]) != podNamespace) continue;
    if (!selectorMatches(spec["podSelector"], podLabels)) continue;
    // policyTypes left out means Ingress (and Egress too when there are egress rules).
    bool ingress = !spec["policyTypes"].IsDefined();
    for (const auto& type : spec["policyTypes"]) ingress = ingress || text(type) == "Ingress";
    if (ingress) found.push_back(policy);
  }
  return found;
}

bool admits(const ManifestSet& set, const YAML::Node& podTemplate, const std::string& podNamespace,
            const Connection& connection) {
  const YAML::Node& pod = podTemplate;
  const auto policies = isolatingPolicies(set, pod["metadata"]["labels"], podNamespace);
  if (policies.empty()) return true;
  for (const auto& policy : policies) {
    for (const auto& rule : policy["spec"]["ingress"]) {
      if (!portMatches(rule["ports"], pod["spec"], connection.port)) continue;
      const YAML::Node& from = rule["from"];
      if (!from.IsDefined() || from.IsNull() || from.size() == 0) return true;
      for (const auto& peer : from) {
        if (peerMatches(peer, podNamespace, connection)) return true;
      }
    }
  }
  return false;
}

}  // namespace manifests
