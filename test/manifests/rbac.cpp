#include "test/manifests/rbac.hpp"

namespace manifests {
namespace {

bool listHas(const YAML::Node& list, const std::string& value) {
  for (const auto& item : list) {
    if (text(item) == value || text(item) == "*") return true;
  }
  return false;
}

bool ruleAllows(const YAML::Node& rule, const ResourceRequest& request) {
  if (!listHas(rule["apiGroups"], request.apiGroup) ||
      !listHas(rule["resources"], request.resource) || !listHas(rule["verbs"], request.verb)) {
    return false;
  }
  const YAML::Node& names = rule["resourceNames"];
  if (!names.IsDefined() || names.size() == 0) return true;
  return !request.resourceName.empty() && listHas(names, request.resourceName);
}

bool bindsAccount(const YAML::Node& binding, const ServiceAccount& account) {
  for (const auto& subject : binding["subjects"]) {
    if (text(subject["kind"]) == "ServiceAccount" && text(subject["name"]) == account.name &&
        text(subject["namespace"]) == account.namespace_) {
      return true;
    }
  }
  return false;
}

bool roleAllows(const YAML::Node& role, const ResourceRequest& request) {
  if (!role.IsDefined()) return false;
  for (const auto& rule : role["rules"]) {
    if (ruleAllows(rule, request)) return true;
  }
  return false;
}

}  // namespace

bool allows(const ManifestSet& set, const ServiceAccount& account, const ResourceRequest& request) {
  for (const auto& binding : set.ofKind("ClusterRoleBinding")) {
    if (bindsAccount(binding, account) &&
        roleAllows(set.find("ClusterRole", text(binding["roleRef"]["name"])), request)) {
      return true;
    }
  }
  for (const auto& binding : set.ofKind("RoleBinding")) {
    const std::string bindingNamespace = text(binding["metadata"]["namespace"]);
    if (!bindsAccount(binding, account) || request.namespace_ != bindingNamespace) continue;
    const std::string kind = text(binding["roleRef"]["kind"]);
    const YAML::Node role = set.find(kind, text(binding["roleRef"]["name"]));
    // A Role only exists in the binding's namespace; a ClusterRole is cluster-wide.
    if (kind == "Role" && text(at(role, {"metadata", "namespace"})) != bindingNamespace) continue;
    if (roleAllows(role, request)) return true;
  }
  return false;
}

std::vector<std::string> boundRoles(const ManifestSet& set, const ServiceAccount& account) {
  std::vector<std::string> roles;
  for (const auto& binding : set.ofKind("ClusterRoleBinding")) {
    if (bindsAccount(binding, account)) {
      roles.push_back(text(binding["roleRef"]["kind"]) + " " + text(binding["roleRef"]["name"]));
    }
  }
  for (const auto& binding : set.ofKind("RoleBinding")) {
    if (bindsAccount(binding, account)) {
      roles.push_back(text(binding["metadata"]["namespace"]) + "/" +
                      text(binding["roleRef"]["kind"]) + " " + text(binding["roleRef"]["name"]));
    }
  }
  return roles;
}

}  // namespace manifests
