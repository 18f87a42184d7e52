#include "test/manifests/manifest_set.hpp"

#include <stdexcept>

namespace manifests {

ManifestSet::ManifestSet(const std::string& rendered) {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(rendered);
  } catch (const YAML::Exception& e) {
    throw std::runtime_error("rendered manifests are not YAML: " + std::string(e.what()));
  }
  for (const auto& document : documents) {
    if (document.IsNull()) continue;  // an empty document between two "---"
    if (text(document["apiVersion"]).empty() || text(document["kind"]).empty() ||
        text(at(document, {"metadata", "name"})).empty()) {
      throw std::runtime_error("a rendered document is not a Kubernetes object:\n" +
                               YAML::Dump(document));
    }
    objects_.push_back(document);
  }
}

std::vector<YAML::Node> ManifestSet::ofKind(const std::string& kind) const {
  std::vector<YAML::Node> found;
  for (const auto& object : objects_) {
    if (text(object["kind"]) == kind) found.push_back(object);
  }
  return found;
}

YAML::Node ManifestSet::find(const std::string& kind, const std::string& name) const {
  for (const auto& object : objects_) {
    if (text(object["kind"]) == kind && text(object["metadata"]["name"]) == name) return object;
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

YAML::Node at(const YAML::Node& node, std::initializer_list<PathStep> path) {
  YAML::Node current = node;
  for (const auto& step : path) {
    const YAML::Node& here = current;
    const bool found = step.index < 0 ? here.IsMap() && here[step.key].IsDefined()
                                      : here.IsSequence() && step.index < int(here.size());
    if (!found) return YAML::Node(YAML::NodeType::Undefined);
    current.reset(step.index < 0 ? here[step.key] : here[step.index]);
  }
  return current;
}

std::string text(const YAML::Node& node) {
  return node.IsDefined() && node.IsScalar() ? node.Scalar() : std::string();
}

std::string describe(const YAML::Node& object) {
  const YAML::Node& metadata = object["metadata"];
  const std::string ns = text(metadata["namespace"]);
  return text(object["kind"]) + " " + (ns.empty() ? "" : ns + "/") + text(metadata["name"]);
}

std::string flagValue(const YAML::Node& arguments, const std::string& flag) {
  if (!arguments.IsSequence()) return "";
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string argument = text(arguments[i]);
    if (argument.starts_with(flag + "=")) return argument.substr(flag.size() + 1);
    if (argument == flag && i + 1 < arguments.size()) return text(arguments[i + 1]);
  }
  return "";
}

bool selects(const YAML::Node& matchLabels, const YAML::Node& labels) {
  if (!matchLabels.IsMap() || matchLabels.size() == 0) return false;
  for (const auto& entry : matchLabels) {
    if (!labels.IsMap() || text(labels[entry.first.Scalar()]) != entry.second.Scalar()) {
      return false;
    }
  }
  return true;
}

int containerPort(const YAML::Node& container, const YAML::Node& port) {
  const std::string wanted = text(port);
  for (const auto& declared : container["ports"]) {
    if (text(declared["name"]) == wanted || text(declared["containerPort"]) == wanted) {
      return declared["containerPort"].as<int>();
    }
  }
  return 0;
}

MountedFile mountedFile(const YAML::Node& podSpec, const YAML::Node& container,
                        const std::string& path) {
  for (const auto& mount : container["volumeMounts"]) {
    const std::string dir = text(mount["mountPath"]);
    if (!path.starts_with(dir + "/")) continue;
    const std::string relative = path.substr(dir.size() + 1);
    for (const auto& volume : podSpec["volumes"]) {
      if (text(volume["name"]) != text(mount["name"])) continue;
      const bool isConfigMap = volume["configMap"].IsDefined();
      if (!isConfigMap && !volume["secret"].IsDefined()) return {};
      const YAML::Node source = isConfigMap ? volume["configMap"] : volume["secret"];
      MountedFile file;
      file.source = isConfigMap ? "configMap" : "secret";
      file.name = text(isConfigMap ? source["name"] : source["secretName"]);
      file.readOnly = text(mount["readOnly"]) == "true";
      // With items, only the listed keys appear, each at its path; without, every key.
      if (!source["items"].IsDefined()) {
        file.key = relative;
        return file;
      }
      for (const auto& item : source["items"]) {
        if (text(item["path"]) == relative) {
          file.key = text(item["key"]);
          return file;
        }
      }
      return {};
    }
  }
  return {};
}

}  // namespace manifests
