#pragma once

#include <string>
#include <vector>

#include "test/manifests/manifest_set.hpp"

namespace manifests {

struct ServiceAccount {
  std::string name;
  std::string namespace_;
};

// One API request as the authorizer sees it. An empty namespace_ is a cluster-wide request
// (list or watch across all namespaces); an empty resourceName one that names no object
// (list, watch, create).
struct ResourceRequest {
  std::string apiGroup;
  std::string resource;
  std::string verb;
  std::string namespace_;
  std::string resourceName;
};

// Whether the Roles and ClusterRoles defined in the render, through its RoleBindings and
// ClusterRoleBindings, allow the request (RBAC's rules: a RoleBinding grants only in its own
// namespace; a rule with resourceNames matches only requests naming one of them). Roles the
// render binds but does not define (built-in ones) grant nothing here: see boundRoles.
bool allows(const ManifestSet& set, const ServiceAccount& account, const ResourceRequest& request);

// The roles bound to the account, defined in the render or not, as "ClusterRole name" for a
// ClusterRoleBinding and "RoleBinding-namespace/Role name" for a RoleBinding.
std::vector<std::string> boundRoles(const ManifestSet& set, const ServiceAccount& account);

}  // namespace manifests
