#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

// The extender's framework configuration (CONTRACT §5), shaped after
// KubeSchedulerConfiguration so operators recognise it.
namespace scheduling::config {

// A start-up error naming the bad field, e.g. `plugins.score[1].weight: must be positive`.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(const std::string& path, const std::string& message)
      : std::runtime_error(path.empty() ? message : path + ": " + message) {}
};

struct PluginRef {
  std::string name;
  std::int32_t weight = 0;  // score plugins only; unset means 1
};

struct PluginConfig {
  std::string name;
  YAML::Node args;  // null when absent; decoded by the plugin's factory
};

inline constexpr std::int32_t kDefaultParallelism = 16;

struct Configuration {
  // 0 means kube-scheduler's adaptive formula.
  std::int32_t percentageOfNodesToScore = 0;
  std::int32_t parallelism = kDefaultParallelism;
  // A plugin named under `filter` also runs its PreFilter (with AddPod/RemovePod); one
  // under `score` also runs its PreScore and NormalizeScore.
  std::vector<PluginRef> filter;
  std::vector<PluginRef> score;
  std::vector<PluginConfig> pluginConfig;
};

// The configuration used without --config: InterPodAffinity filters and scores (weight 2,
// its v1 default), PodState scores (weight 1), adaptive sampling, parallelism 16.
Configuration defaultConfiguration();

// Parses YAML or JSON text over the defaults; throws ConfigError naming the field. `source`
// (a file name) names the file in the message of a syntax error.
Configuration parseConfiguration(const std::string& text, const std::string& source);
Configuration loadConfiguration(const std::string& path);

}  // namespace scheduling::config
