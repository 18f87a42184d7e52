#include "plugins/interpodaffinity/args.hpp"

#include "scheduling/config/configuration.hpp"
#include "scheduling/config/yaml_fields.hpp"

namespace plugins::interpodaffinity {

namespace {

using scheduling::config::ConfigError;
using scheduling::config::describe;
using scheduling::config::readBool;
using scheduling::config::readInt32;
using scheduling::config::readKey;

inline constexpr std::int32_t kMinHardPodAffinityWeight = 0;
inline constexpr std::int32_t kMaxHardPodAffinityWeight = 100;

}  // namespace

void validateArgs(const InterPodAffinityArgs& args, const std::string& argsPath) {
  if (args.hardPodAffinityWeight < kMinHardPodAffinityWeight ||
      args.hardPodAffinityWeight > kMaxHardPodAffinityWeight) {
    throw ConfigError(argsPath + ".hardPodAffinityWeight", "not in valid range [0-100]");
  }
}

InterPodAffinityArgs decodeArgs(const YAML::Node& args, const std::string& argsPath) {
  InterPodAffinityArgs decoded;
  if (!args.IsDefined() || args.IsNull()) return decoded;
  if (!args.IsMap()) throw ConfigError(argsPath, "expected an object, got " + describe(args));
  for (const auto& entry : args) {
    const std::string key = readKey(entry.first, argsPath);
    const std::string path = argsPath + "." + key;
    const YAML::Node& value = entry.second;
    if (key == "hardPodAffinityWeight") {
      // A null field is an unset pointer upstream: it keeps the default.
      if (!value.IsNull()) decoded.hardPodAffinityWeight = readInt32(value, path);
    } else if (key == "ignorePreferredTermsOfExistingPods") {
      if (!value.IsNull()) decoded.ignorePreferredTermsOfExistingPods = readBool(value, path);
    } else if (key == "kind") {
      // Typed args as written in a KubeSchedulerConfiguration carry their kind.
      if (!value.IsScalar() || value.Scalar() != "InterPodAffinityArgs") {
        throw ConfigError(path, "expected \"InterPodAffinityArgs\", got " + describe(value));
      }
    } else if (key == "apiVersion") {
      if (!value.IsScalar()) throw ConfigError(path, "expected a string, got " + describe(value));
    } else {
      throw ConfigError(path, "unknown field");
    }
  }
  validateArgs(decoded, argsPath);
  return decoded;
}

}  // namespace plugins::interpodaffinity
