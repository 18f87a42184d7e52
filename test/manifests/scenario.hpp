#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "test/manifests/manifest_set.hpp"

namespace manifests {

// One ci/*-values.yaml scenario rendered, with the objects the checks keep coming back to,
// found the way a reader of the manifests finds them: kube-scheduler is the container that
// runs `kube-scheduler`, the extender the one that runs the extender image, and each one's
// configuration is the ConfigMap key mounted where its --config flag points.
struct Scenario {
  static constexpr const char* kRelease = "sx";
  static constexpr const char* kNamespace = "scheduling";

  std::string name;   // the file name under ci/
  YAML::Node values;  // values.yaml with the scenario's file over it
  ManifestSet manifests;

  YAML::Node schedulerDeployment;
  YAML::Node schedulerContainer;
  YAML::Node extenderDeployment;  // the scheduler's own Deployment in sidecar mode
  YAML::Node extenderContainer;
  YAML::Node schedulerConfig;   // the KubeSchedulerConfiguration, parsed
  YAML::Node extenderCall;      // its extenders[0]
  std::string frameworkConfig;  // the text of the extender's --config file

  bool serviceMode() const;
  bool tls() const;
  bool mutualTls() const;
};

// Rendered once per scenario and kept: every check of a scenario reads the same render.
const Scenario& scenario(const std::string& name);

// values.yaml with `sets` ("a.b=c", as `helm --set` takes them) laid over it, rendered: for a
// combination of values no ci scenario holds. Rendered at each call; `name` is "--set" and the
// sets. Throws, as scenario() does, when the chart refuses to render.
Scenario renderWith(const std::vector<std::string>& sets);

// A pod template's spec, of a Deployment.
YAML::Node podSpecOf(const YAML::Node& deployment);

// The text a container reads at `path` from a mounted ConfigMap; throws when nothing or a
// Secret is mounted there, or the ConfigMap or its key is not in the render.
std::string configMapFile(const ManifestSet& manifests, const YAML::Node& deployment,
                          const YAML::Node& container, const std::string& path);

// The file, under test/data or examples, that stands in for a mounted file when the test
// runs the real binary with a container's arguments.
std::string sourcePath(const std::string& relative);

}  // namespace manifests
