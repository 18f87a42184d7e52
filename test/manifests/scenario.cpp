#include "test/manifests/scenario.hpp"

#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>

#include "test/manifests/chart_render.hpp"
#include "test/manifests/chart_values.hpp"

namespace manifests {
namespace {

ManifestSet render(const std::string& name, const std::vector<std::string>& files,
                   const std::vector<std::string>& sets) {
  const auto result = renderChart({Scenario::kRelease, Scenario::kNamespace, files, sets});
  if (result.exitCode != 0) {
    throw std::runtime_error("helm template failed for " + name + ": " + result.error);
  }
  return ManifestSet(result.manifests);
}

// The Deployment and container whose container matches; throws when none or several do.
std::pair<YAML::Node, YAML::Node> findContainer(
    const ManifestSet& manifests, const std::string& what,
    const std::function<bool(const YAML::Node&)>& matches) {
  std::vector<std::pair<YAML::Node, YAML::Node>> found;
  for (const auto& deployment : manifests.ofKind("Deployment")) {
    for (const auto& container : podSpecOf(deployment)["containers"]) {
      if (matches(container)) found.emplace_back(deployment, container);
    }
  }
  if (found.size() != 1) {
    throw std::runtime_error("want one " + what + " container, found " +
                             std::to_string(found.size()));
  }
  return found.front();
}

// A ci scenario by file name, or (with an empty valuesFile) values.yaml with the sets.
Scenario load(const std::string& name, const std::string& valuesFile,
              const std::vector<std::string>& sets) {
  Scenario s{};
  s.name = name;
  s.values = withSets(chartValues(valuesFile), sets);
  s.manifests =
      render(name, valuesFile.empty() ? std::vector<std::string>{} : std::vector{valuesFile}, sets);
  std::tie(s.schedulerDeployment, s.schedulerContainer) =
      findContainer(s.manifests, "kube-scheduler", [](const YAML::Node& container) {
        return text(at(container, {"command", 0})) == "kube-scheduler";
      });
  const std::string extenderImage = value(s.values, "extender.image.repository") + ":";
  std::tie(s.extenderDeployment, s.extenderContainer) =
      findContainer(s.manifests, "extender", [&](const YAML::Node& container) {
        return text(container["image"]).starts_with(extenderImage);
      });
  s.schedulerConfig =
      YAML::Load(configMapFile(s.manifests, s.schedulerDeployment, s.schedulerContainer,
                               flagValue(s.schedulerContainer["command"], "--config")));
  const YAML::Node& config = s.schedulerConfig;
  if (!config["extenders"].IsSequence() || config["extenders"].size() != 1) {
    throw std::runtime_error(name + ": want exactly one entry in the scheduler's extenders");
  }
  s.extenderCall = config["extenders"][0];
  s.frameworkConfig = configMapFile(s.manifests, s.extenderDeployment, s.extenderContainer,
                                    flagValue(s.extenderContainer["args"], "--config"));
  return s;
}

}  // namespace

bool Scenario::serviceMode() const { return value(values, "mode") == "service"; }
bool Scenario::tls() const { return flag(values, "tls.enabled"); }
bool Scenario::mutualTls() const { return flag(values, "tls.clientAuth.enabled"); }

const Scenario& scenario(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, Scenario> rendered;
  const std::lock_guard lock(mutex);
  auto it = rendered.find(name);
  if (it == rendered.end()) {
    it = rendered.emplace(name, load(name, chartFile("ci/" + name), {})).first;
  }
  return it->second;
}

Scenario renderWith(const std::vector<std::string>& sets) {
  std::string name = "--set";
  for (const auto& set : sets) name += " " + set;
  return load(name, "", sets);
}

YAML::Node podSpecOf(const YAML::Node& deployment) {
  const YAML::Node& constDeployment = deployment;
  return constDeployment["spec"]["template"]["spec"];
}

std::string configMapFile(const ManifestSet& manifests, const YAML::Node& deployment,
                          const YAML::Node& container, const std::string& path) {
  const MountedFile file = mountedFile(podSpecOf(deployment), container, path);
  if (file.source != "configMap") {
    throw std::runtime_error(path + " is not a file from a mounted ConfigMap");
  }
  const YAML::Node configMap = manifests.find("ConfigMap", file.name);
  const YAML::Node& constConfigMap = configMap;
  const YAML::Node data = constConfigMap["data"][file.key];
  if (!data.IsDefined()) {
    throw std::runtime_error(path + ": ConfigMap " + file.name + " key " + file.key +
                             " is not rendered");
  }
  return data.as<std::string>();
}

std::string sourcePath(const std::string& relative) {
  return std::string(SX_SOURCE_DIR) + "/" + relative;
}

}  // namespace manifests
