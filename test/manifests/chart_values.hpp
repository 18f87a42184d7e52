#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace manifests {

// The values a render sees: the chart's values.yaml with a scenario's file laid over it, as
// Helm coalesces them (maps merge key by key, anything else replaces, null deletes). With an
// empty path, values.yaml alone.
YAML::Node chartValues(const std::string& valuesFile = "");

// The values with each "a.b=c" of `sets` laid over them, as `helm --set` lays them (dotted map
// keys only; no list indexes or escapes). Each lands as a plain scalar, which value(), flag()
// and number() read as Helm types it.
YAML::Node withSets(const YAML::Node& values, const std::vector<std::string>& sets);

// A value by dotted path ("tls.clientAuth.enabled"); throws when values.yaml lacks it, so that
// a renamed value fails the test that reads it instead of reading as empty.
std::string value(const YAML::Node& values, const std::string& path);
bool flag(const YAML::Node& values, const std::string& path);
int number(const YAML::Node& values, const std::string& path);

}  // namespace manifests
