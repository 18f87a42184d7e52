#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "scheduling/framework/cycle_state.hpp"
#include "scheduling/framework/status.hpp"
#include "scheduling/framework/types.hpp"

// Extension-point interfaces, after pkg/scheduler/framework/interface.go. The incoming pod
// arrives as a PodInfo parsed once per request; a plugin that needs the parse error reads
// PodInfo::parseError().
namespace scheduling::framework {

inline constexpr std::int64_t kMaxNodeScore = 100;
inline constexpr std::int64_t kMinNodeScore = 0;

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view name() const = 0;
};

// Lets the runtime evaluate "what if this pod were also / no longer on the node" (nominated
// pods, preemption victims) by updating PreFilter state incrementally.
class PreFilterExtensions {
 public:
  virtual ~PreFilterExtensions() = default;
  virtual Status addPod(CycleState& state, const PodInfo& podToSchedule, const PodInfo& podToAdd,
                        const NodeInfo& node) const = 0;
  virtual Status removePod(CycleState& state, const PodInfo& podToSchedule,
                           const PodInfo& podToRemove, const NodeInfo& node) const = 0;
};

class PreFilterPlugin : public virtual Plugin {
 public:
  virtual Status preFilter(CycleState& state, const PodInfo& pod,
                           std::span<const NodeInfo* const> nodes) const = 0;
  // nullptr when the plugin has none.
  virtual const PreFilterExtensions* preFilterExtensions() const = 0;
};

class FilterPlugin : public virtual Plugin {
 public:
  virtual Status filter(const CycleState& state, const PodInfo& pod,
                        const NodeInfo& node) const = 0;
};

class PreScorePlugin : public virtual Plugin {
 public:
  virtual Status preScore(CycleState& state, const PodInfo& pod,
                          std::span<const NodeInfo* const> nodes) const = 0;
};

struct NodeScore {
  const NodeInfo* node;
  std::int64_t score;
};

class ScoreExtensions {
 public:
  virtual ~ScoreExtensions() = default;
  virtual Status normalizeScore(const CycleState& state, const PodInfo& pod,
                                std::span<NodeScore> scores) const = 0;
};

class ScorePlugin : public virtual Plugin {
 public:
  virtual Status score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                       std::int64_t& score) const = 0;
  // nullptr when the plugin does not normalise.
  virtual const ScoreExtensions* scoreExtensions() const = 0;
};

}  // namespace scheduling::framework
