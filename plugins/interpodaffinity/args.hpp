#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>

namespace plugins::interpodaffinity {

// config.InterPodAffinityArgs with its v1 defaults (SetDefaults_InterPodAffinityArgs).
struct InterPodAffinityArgs {
  // Weight of an existing pod's REQUIRED affinity term that the incoming pod satisfies, in
  // PreScore's symmetric scoring. Valid range [0, 100]; 0 turns that contribution off.
  std::int32_t hardPodAffinityWeight = 1;
  // Skip PreScore entirely when the incoming pod has no preferred (anti-)affinity terms,
  // which also drops the hardPodAffinityWeight contribution (#114393).
  bool ignorePreferredTermsOfExistingPods = false;

  bool operator==(const InterPodAffinityArgs&) const = default;
};

// Decodes the plugin's `args` (an undefined or null node means all defaults) and validates
// them as ValidateInterPodAffinityArgs does. Unknown keys are rejected. Throws
// scheduling::config::ConfigError with a path under `argsPath`, e.g.
// `pluginConfig[0].args.hardPodAffinityWeight: not in valid range [0-100]`.
InterPodAffinityArgs decodeArgs(const YAML::Node& args, const std::string& argsPath);

// ValidateInterPodAffinityArgs alone; throws ConfigError like decodeArgs.
void validateArgs(const InterPodAffinityArgs& args, const std::string& argsPath);

}  // namespace plugins::interpodaffinity
