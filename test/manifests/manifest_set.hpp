#pragma once

#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace manifests {

// The objects of one render, parsed from helm's multi-document YAML. Read them through
// const references: yaml-cpp's non-const operator[] inserts what it does not find.
class ManifestSet {
 public:
  ManifestSet() = default;
  // Throws std::runtime_error when a document is not YAML or not a Kubernetes object.
  explicit ManifestSet(const std::string& rendered);

  const std::vector<YAML::Node>& objects() const { return objects_; }
  std::vector<YAML::Node> ofKind(const std::string& kind) const;
  // The object of that kind and name; an undefined node when there is none.
  YAML::Node find(const std::string& kind, const std::string& name) const;

 private:
  std::vector<YAML::Node> objects_;
};

// One step of a path into a document: a map key or a list index.
struct PathStep {
  PathStep(const char* name) : key(name) {}    // NOLINT: implicit, so that paths read as lists
  PathStep(int position) : index(position) {}  // NOLINT
  std::string key;
  int index = -1;
};

// The node at a path, or an undefined node when any step is missing: yaml-cpp throws when a
// missing node is indexed further, and a check should fail with its own message instead.
YAML::Node at(const YAML::Node& node, std::initializer_list<PathStep> path);

// A scalar's text, or "" when the node is missing or not a scalar.
std::string text(const YAML::Node& node);

// "kind namespace/name" (or "kind name" for cluster objects), for messages.
std::string describe(const YAML::Node& object);

// `--flag=value` or `--flag value` in a container's command or args: the value, "" if absent.
std::string flagValue(const YAML::Node& arguments, const std::string& flag);

// Whether every key=value of a matchLabels-style map is among the labels.
bool selects(const YAML::Node& matchLabels, const YAML::Node& labels);

// A container port given by name or number, as a probe or a Service's targetPort names it:
// the number, or 0 when the container declares no such port.
int containerPort(const YAML::Node& container, const YAML::Node& port);

// What a container finds at a path, following its volumeMounts to the pod's volumes and
// their items, as kubelet lays the files out.
struct MountedFile {
  std::string source;  // "configMap", "secret", or "" when nothing is mounted there
  std::string name;    // the ConfigMap's or Secret's name
  std::string key;     // the key whose content the file holds
  bool readOnly = false;
};
MountedFile mountedFile(const YAML::Node& podSpec, const YAML::Node& container,
                        const std::string& path);

}  // namespace manifests
