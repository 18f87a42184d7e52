#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>

// Typed readers for configuration fields, shared by the configuration and the plugins' args
// decoders. Each throws ConfigError at `path` naming what it got instead.
namespace scheduling::config {

// How a value reads in an error: `a list`, `an object`, `null` or the quoted scalar.
std::string describe(const YAML::Node& node);

void requireMap(const YAML::Node& node, const std::string& path);
// The name of a member of the object at `path`. YAML allows any value as a key (`? [a]: b`);
// a configuration only has names.
std::string readKey(const YAML::Node& key, const std::string& path);
std::int32_t readInt32(const YAML::Node& node, const std::string& path);
bool readBool(const YAML::Node& node, const std::string& path);

}  // namespace scheduling::config
