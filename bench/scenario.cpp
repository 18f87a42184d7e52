#include "bench/scenario.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "bench/equal_matches.hpp"
#include "plugins/registry.hpp"
#include "scheduling/api/json/extender_codec.hpp"
#include "scheduling/config/configuration.hpp"
#include "scheduling/sources/file_source.hpp"

namespace bench {

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream out;
  out << in.rdbuf();
  return std::move(out).str();
}

std::string& directoryOverride() {
  static std::string directory;
  return directory;
}

}  // namespace

void setDataDirectory(std::string directory) { directoryOverride() = std::move(directory); }

const std::string& dataDirectory() {
  static const std::string fromEnvironment = [] {
    const char* env = std::getenv("SX_BENCH_DATA");
    return std::string(env != nullptr && *env != '\0' ? env : "/tmp/bench");
  }();
  return directoryOverride().empty() ? fromEnvironment : directoryOverride();
}

std::vector<std::string> availableScenarios() {
  std::vector<std::string> found;
  for (std::string_view name : kScenarioNames) {
    const std::filesystem::path dir = std::filesystem::path(dataDirectory()) / name;
    if (std::filesystem::exists(dir / "cluster.json") &&
        std::filesystem::exists(dir / "args-names.json")) {
      found.emplace_back(name);
    }
  }
  return found;
}

Scenario& Scenario::get(std::string_view name) {
  // Benchmarks run one at a time on the main thread: no lock needed.
  static std::map<std::string, std::unique_ptr<Scenario>, std::less<>> loaded;
  auto it = loaded.find(name);
  if (it == loaded.end()) {
    it = loaded
             .emplace(std::string(name), std::unique_ptr<Scenario>(new Scenario(std::string(name))))
             .first;
  }
  return *it->second;
}

Scenario::Scenario(std::string name)
    : name_(std::move(name)), directory_(dataDirectory() + "/" + name_) {}

const std::string& Scenario::namesBody() {
  if (namesBody_.empty()) namesBody_ = readFile(path("args-names.json"));
  return namesBody_;
}

const std::string& Scenario::nodesBody() {
  if (nodesBody_.empty()) nodesBody_ = readFile(path("args-nodes.json"));
  return nodesBody_;
}

const std::string& Scenario::sampledNamesBody(std::size_t count) {
  std::string& body = sampledBodies_[count];
  if (!body.empty()) return body;
  // gen_cluster.py writes the names last, as one array of plain strings: replace it.
  const std::string& all = namesBody();
  const std::size_t key = all.find("\"NodeNames\"");
  const std::size_t open = all.find('[', key);
  const std::size_t close = all.find(']', open);
  if (key == std::string::npos || open == std::string::npos || close == std::string::npos) {
    throw std::runtime_error(path("args-names.json") + ": no NodeNames array");
  }
  const auto& names = *namesArgs().nodeNames;
  std::vector<std::string_view> chosen;
  std::sample(names.begin(), names.end(), std::back_inserter(chosen), count, std::mt19937(7));
  body = all.substr(0, open + 1);
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    if (i != 0) body += ',';
    body.append("\"").append(chosen[i]).append("\"");
  }
  body += all.substr(close);
  return body;
}

const std::string& Scenario::equalMatchesBody(std::size_t count) {
  std::string& body = equalMatchesBodies_[count];
  if (body.empty()) {
    EqualMatchesRequest request = equalMatchesRequest(sampledNamesBody(count), *snapshot());
    std::cerr << name_ << " equal matches: " << request.description << "\n";
    body = std::move(request.body);
  }
  return body;
}

const std::shared_ptr<scheduling::cache::Cache>& Scenario::cache() {
  if (!cache_) {
    cache_ = std::make_shared<scheduling::cache::Cache>();
    scheduling::sources::loadClusterState(path("cluster.json"), *cache_);
  }
  return cache_;
}

const std::shared_ptr<scheduling::framework::runtime::Framework>& Scenario::framework() {
  if (!framework_) {
    framework_ = std::make_shared<scheduling::framework::runtime::Framework>(
        scheduling::config::loadConfiguration(path("config.json")), plugins::inTreeRegistry());
  }
  return framework_;
}

const scheduling::api::ExtenderArgs& Scenario::namesArgs() {
  if (!namesArgs_) {
    namesArgs_ = std::make_unique<scheduling::api::ExtenderArgs>(
        scheduling::api::json::decodeExtenderArgs(namesBody()));
  }
  return *namesArgs_;
}

const scheduling::framework::PodInfo& Scenario::incomingPod() {
  if (!incomingPod_) {
    incomingPod_ = std::make_unique<scheduling::framework::PodInfo>(
        std::make_shared<const scheduling::api::Pod>(namesArgs().pod));
  }
  return *incomingPod_;
}

const std::vector<const scheduling::framework::NodeInfo*>& Scenario::sentNodes() {
  if (sentNodes_.empty()) {
    const auto snap = snapshot();
    for (const auto& name : *namesArgs().nodeNames) {
      if (const auto* info = snap->getNodeInfo(name)) sentNodes_.push_back(info);
    }
    // The per-node benchmarks would time an empty loop.
    if (sentNodes_.empty()) {
      throw std::runtime_error(path("args-names.json") + " names no node of cluster.json");
    }
  }
  return sentNodes_;
}

}  // namespace bench
