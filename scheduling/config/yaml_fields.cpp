#include "scheduling/config/yaml_fields.hpp"

#include <limits>

#include "scheduling/config/configuration.hpp"

namespace scheduling::config {

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "an object";
    case YAML::NodeType::Null:
      return "null";
    default:
      return "\"" + node.Scalar() + "\"";
  }
}

void requireMap(const YAML::Node& node, const std::string& path) {
  if (!node.IsMap()) throw ConfigError(path, "expected an object, got " + describe(node));
}

std::string readKey(const YAML::Node& key, const std::string& path) {
  if (!key.IsScalar()) {
    throw ConfigError(path, "expected member names, got " + describe(key) + " at line " +
                                std::to_string(key.Mark().line + 1) + ", column " +
                                std::to_string(key.Mark().column + 1));
  }
  return key.Scalar();
}

std::int32_t readInt32(const YAML::Node& node, const std::string& path) {
  long long value = 0;
  if (!node.IsScalar() || !YAML::convert<long long>::decode(node, value) ||
      value < std::numeric_limits<std::int32_t>::min() ||
      value > std::numeric_limits<std::int32_t>::max()) {
    throw ConfigError(path, "expected a 32-bit integer, got " + describe(node));
  }
  return static_cast<std::int32_t>(value);
}

bool readBool(const YAML::Node& node, const std::string& path) {
  bool value = false;
  if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value)) {
    throw ConfigError(path, "expected a boolean, got " + describe(node));
  }
  return value;
}

}  // namespace scheduling::config
