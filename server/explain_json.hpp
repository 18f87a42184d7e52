#pragma once

#include <string>

#include "scheduling/scheduler/scheduler.hpp"

namespace server {

// The /explain answer of CONTRACT §3: per node, each filter plugin's verdict and, for
// feasible nodes, each score plugin's raw, normalized and weighted contribution.
std::string encodeExplanation(const scheduling::Explanation& explanation);

}  // namespace server
