#pragma once

#include <cstdio>
#include <functional>
#include <string>

#include "scheduling/api/namespace.hpp"
#include "scheduling/api/node.hpp"
#include "scheduling/api/pod.hpp"
#include "scheduling/api/pod_disruption_budget.hpp"

namespace scheduling::api::json {

// Receives the objects of a `v1` List one at a time, in file order.
struct ListVisitor {
  std::function<void(Node&&)> node;
  std::function<void(Pod&&)> pod;
  std::function<void(Namespace&&)> ns;
  std::function<void(PodDisruptionBudget&&)> pdb;
};

// Streams a `kubectl get nodes,pods,namespaces,poddisruptionbudgets -A -o json` List from
// `file` without holding the whole document: each item is decoded, handed to the visitor and
// dropped. Items of other kinds are skipped. Throws api::DecodeError naming the path
// (`items[12].metadata`); `source` (a file name) prefixes it.
void readList(std::FILE* file, const std::string& source, const ListVisitor& visitor);

}  // namespace scheduling::api::json
