#include "test/manifests/chart_values.hpp"

#include <sstream>
#include <stdexcept>

#include "test/manifests/chart_render.hpp"

namespace manifests {
namespace {

YAML::Node merged(const YAML::Node& base, const YAML::Node& overlay) {
  if (!base.IsMap() || !overlay.IsMap()) return YAML::Clone(overlay);
  YAML::Node result(YAML::NodeType::Map);
  for (const auto& entry : base) {
    const std::string key = entry.first.Scalar();
    const YAML::Node over = overlay[key];
    if (!over.IsDefined()) {
      result[key] = YAML::Clone(entry.second);
    } else if (!over.IsNull()) {
      result[key] = merged(entry.second, over);
    }
  }
  for (const auto& entry : overlay) {
    const std::string key = entry.first.Scalar();
    if (!base[key].IsDefined() && !entry.second.IsNull()) result[key] = YAML::Clone(entry.second);
  }
  return result;
}

YAML::Node valueAt(const YAML::Node& values, const std::string& path) {
  std::istringstream keys(path);
  std::string key;
  YAML::Node node = values;  // reset() below rebinds it; values is not changed
  while (std::getline(keys, key, '.')) {
    const YAML::Node& current = node;
    const YAML::Node next = current[key];
    if (!next.IsDefined()) throw std::runtime_error("no value " + path + " in the chart");
    node.reset(next);
  }
  return node;
}

}  // namespace

YAML::Node chartValues(const std::string& valuesFile) {
  const YAML::Node defaults = YAML::LoadFile(chartFile("values.yaml"));
  if (valuesFile.empty()) return defaults;
  return merged(defaults, YAML::LoadFile(valuesFile));
}

YAML::Node withSets(const YAML::Node& values, const std::vector<std::string>& sets) {
  YAML::Node result = YAML::Clone(values);
  for (const auto& set : sets) {
    const auto equals = set.find('=');
    if (equals == std::string::npos) throw std::runtime_error("--set " + set + ": no '='");
    std::istringstream keys(set.substr(0, equals));
    std::vector<std::string> path;
    for (std::string key; std::getline(keys, key, '.');) path.push_back(key);
    YAML::Node node = result;  // reset() below walks down; operator[] adds what is missing
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
      YAML::Node next = node[path[i]];
      node.reset(next);
    }
    node[path.back()] = set.substr(equals + 1);
  }
  return result;
}

std::string value(const YAML::Node& values, const std::string& path) {
  return valueAt(values, path).as<std::string>();
}

bool flag(const YAML::Node& values, const std::string& path) {
  return valueAt(values, path).as<bool>();
}

int number(const YAML::Node& values, const std::string& path) {
  return valueAt(values, path).as<int>();
}

}  // namespace manifests
