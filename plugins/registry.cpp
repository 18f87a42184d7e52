#include "plugins/registry.hpp"

#include <memory>
#include <string>

#include "plugins/interpodaffinity/args.hpp"
#include "plugins/interpodaffinity/plugin.hpp"
#include "plugins/names.hpp"
#include "plugins/podstate/pod_state.hpp"

namespace plugins {

scheduling::framework::runtime::Registry inTreeRegistry() {
  scheduling::framework::runtime::Registry registry;
  registry.add(std::string(names::kInterPodAffinity),
               [](const YAML::Node& args, const std::string& argsPath) {
                 return std::make_shared<interpodaffinity::InterPodAffinity>(
                     interpodaffinity::decodeArgs(args, argsPath));
               });
  registry.add(std::string(names::kPodState),
               [](const YAML::Node& args, const std::string& argsPath) {
                 podstate::PodState::validateArgs(args, argsPath);
                 return std::make_shared<podstate::PodState>();
               });
  return registry;
}

}  // namespace plugins
