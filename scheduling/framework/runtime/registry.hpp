#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "scheduling/framework/interface.hpp"

namespace scheduling::framework::runtime {

// Builds a plugin from its `pluginConfig` args (an undefined node when none were given).
// Throws config::ConfigError naming the field under `argsPath`.
using PluginFactory =
    std::function<std::shared_ptr<Plugin>(const YAML::Node& args, const std::string& argsPath)>;

// runtime.Registry: plugin name → factory, filled explicitly (plugins/registry.cpp).
class Registry {
 public:
  // Throws std::invalid_argument when the name is already registered.
  void add(const std::string& name, PluginFactory factory) {
    if (!factories_.emplace(name, std::move(factory)).second) {
      throw std::invalid_argument("a plugin named \"" + name + "\" already exists");
    }
  }
  const PluginFactory* find(const std::string& name) const {
    auto it = factories_.find(name);
    return it == factories_.end() ? nullptr : &it->second;
  }
  const std::map<std::string, PluginFactory>& factories() const { return factories_; }

 private:
  std::map<std::string, PluginFactory> factories_;
};

}  // namespace scheduling::framework::runtime
