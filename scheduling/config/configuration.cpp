#include "scheduling/config/configuration.hpp"

#include <fstream>
#include <set>
#include <sstream>

#include "scheduling/config/yaml_fields.hpp"

namespace scheduling::config {

namespace {

// Rejects keys the schema does not know, so a typo never silently falls back to a default.
void requireKnownKeys(const YAML::Node& node, const std::string& path,
                      const std::set<std::string>& known) {
  for (const auto& entry : node) {
    const std::string key = readKey(entry.first, path);
    if (!known.contains(key)) {
      throw ConfigError(path.empty() ? key : path + "." + key, "unknown field");
    }
  }
}

std::string readName(const YAML::Node& node, const std::string& path) {
  const YAML::Node name = node["name"];
  if (!name || !name.IsScalar() || name.Scalar().empty()) {
    throw ConfigError(path + ".name", "required");
  }
  return name.Scalar();
}

std::vector<PluginRef> readPluginList(const YAML::Node& node, const std::string& path,
                                      bool weighted) {
  std::vector<PluginRef> refs;
  if (node.IsNull()) return refs;
  if (!node.IsSequence()) throw ConfigError(path, "expected a list, got " + describe(node));
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string itemPath = path + "[" + std::to_string(i) + "]";
    const YAML::Node item = node[i];
    requireMap(item, itemPath);
    if (weighted) {
      requireKnownKeys(item, itemPath, {"name", "weight"});
    } else {
      requireKnownKeys(item, itemPath, {"name"});
    }
    PluginRef ref{readName(item, itemPath), 0};
    if (const YAML::Node weight = item["weight"])
      ref.weight = readInt32(weight, itemPath + ".weight");
    refs.push_back(std::move(ref));
  }
  return refs;
}

}  // namespace

Configuration defaultConfiguration() {
  Configuration c;
  c.filter = {{"InterPodAffinity", 0}};
  c.score = {{"InterPodAffinity", 2}, {"PodState", 1}};
  return c;
}

Configuration parseConfiguration(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(source, "not valid YAML or JSON: " + e.msg + " at line " +
                                  std::to_string(e.mark.line + 1) + ", column " +
                                  std::to_string(e.mark.column + 1));
  }
  // What the file leaves out keeps its default; a plugin list that is present replaces the
  // default list (`filter: []` disables filtering).
  Configuration c = defaultConfiguration();
  if (root.IsNull()) return c;
  requireMap(root, "");
  requireKnownKeys(root, "",
                   {"percentageOfNodesToScore", "parallelism", "plugins", "pluginConfig"});

  if (const YAML::Node n = root["percentageOfNodesToScore"]) {
    c.percentageOfNodesToScore = readInt32(n, "percentageOfNodesToScore");
  }
  if (const YAML::Node n = root["parallelism"]) c.parallelism = readInt32(n, "parallelism");
  if (const YAML::Node plugins = root["plugins"]; plugins && !plugins.IsNull()) {
    requireMap(plugins, "plugins");
    requireKnownKeys(plugins, "plugins", {"filter", "score"});
    if (const YAML::Node f = plugins["filter"])
      c.filter = readPluginList(f, "plugins.filter", false);
    if (const YAML::Node s = plugins["score"]) c.score = readPluginList(s, "plugins.score", true);
  }
  if (const YAML::Node list = root["pluginConfig"]; list && !list.IsNull()) {
    if (!list.IsSequence())
      throw ConfigError("pluginConfig", "expected a list, got " + describe(list));
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string path = "pluginConfig[" + std::to_string(i) + "]";
      requireMap(list[i], path);
      requireKnownKeys(list[i], path, {"name", "args"});
      // A missing member of a const node is an invalid node that throws when assigned, so an
      // absent `args` is stored as an empty one.
      const YAML::Node args = list[i]["args"];
      c.pluginConfig.push_back({readName(list[i], path), args.IsDefined() ? args : YAML::Node()});
    }
  }
  return c;
}

Configuration loadConfiguration(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError("", "cannot read configuration file " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return parseConfiguration(text.str(), path);
}

}  // namespace scheduling::config
