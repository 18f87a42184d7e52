#include "scheduling/scheduler/sampling.hpp"

namespace scheduling {

std::int32_t numFeasibleNodesToFind(std::int32_t percentageOfNodesToScore,
                                    std::int32_t numAllNodes) {
  if (numAllNodes < kMinFeasibleNodesToFind) return numAllNodes;
  std::int32_t percentage = percentageOfNodesToScore;
  if (percentage == 0) {
    percentage = 50 - numAllNodes / 125;
    if (percentage < kMinFeasibleNodesPercentageToFind) {
      percentage = kMinFeasibleNodesPercentageToFind;
    }
  }
  // int32 arithmetic as upstream: numAllNodes * percentage stays below 2^31 for any real
  // cluster (5000 nodes × 100).
  const std::int32_t numNodes = numAllNodes * percentage / 100;
  return numNodes < kMinFeasibleNodesToFind ? kMinFeasibleNodesToFind : numNodes;
}

}  // namespace scheduling
