#pragma once

#include <string>
#include <vector>

#include "test/testing/api_server_double.hpp"

namespace bench {

// The benchmark kit's cluster.json as the API-server double's objects: what the extender
// reads of them (names, namespaces, labels, spec.nodeName and schedulerName, spec.affinity,
// status.phase and nominatedNodeName, whether a deletion began) as fields the double's
// churn can change, and every other member as it is, so that the double serves objects as
// large as the file's. The file is read item by item, never held whole as text or as a
// document.
struct KitCluster {
  std::vector<testing::ApiObject> namespaces;
  std::vector<testing::ApiObject> nodes;
  std::vector<testing::ApiObject> pods;
};

// Throws std::runtime_error naming the file and the item that could not be read.
KitCluster readKitCluster(const std::string& path);

}  // namespace bench
