#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "test/manifests/manifest_set.hpp"

namespace manifests {

// A TCP connection as a NetworkPolicy judges it: from a pod (its labels, its namespace and that
// namespace's labels) to a port of another pod.
struct Connection {
  YAML::Node podLabels;
  std::string namespace_;
  YAML::Node namespaceLabels;
  int port = 0;
};

// A label selector's verdict on a set of labels, as the API server gives it: matchLabels and
// matchExpressions (In, NotIn, Exists, DoesNotExist) all hold; an empty selector selects all.
bool selectorMatches(const YAML::Node& selector, const YAML::Node& labels);

// The render's NetworkPolicies that isolate a pod for ingress: in its namespace, their
// podSelector selecting its labels, Ingress among their policyTypes (or implied by them).
std::vector<YAML::Node> isolatingPolicies(const ManifestSet& set, const YAML::Node& podLabels,
                                          const std::string& podNamespace);

// Whether the render's NetworkPolicies admit the connection to the pod whose template is
// `podTemplate` (its labels select the policies, its containers resolve named ports), in
// `podNamespace`: a pod that no policy isolates admits everything; an isolated one what at
// least one ingress rule admits (the rule's ports match, none meaning all, and one of its
// peers matches, none meaning all sources). An ipBlock peer is taken to admit every pod, since
// pod IPs are not known here: that errs towards admitting, which is the safe side for checks
// that something is closed.
bool admits(const ManifestSet& set, const YAML::Node& podTemplate, const std::string& podNamespace,
            const Connection& connection);

}  // namespace manifests
