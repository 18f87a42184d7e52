#pragma once

#include <cstdint>

namespace scheduling {

inline constexpr std::int32_t kMinFeasibleNodesToFind = 100;
inline constexpr std::int32_t kMinFeasibleNodesPercentageToFind = 5;

// numFeasibleNodesToFind (schedule_one.go): how many feasible nodes filtering looks for
// before it stops. Below 100 nodes, all of them; otherwise the profile percentage, or
// when it is 0 the adaptive 50% − n/125 (at least 5%), and never fewer than 100 nodes.
std::int32_t numFeasibleNodesToFind(std::int32_t percentageOfNodesToScore,
                                    std::int32_t numAllNodes);

}  // namespace scheduling
