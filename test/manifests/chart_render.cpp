#include "test/manifests/chart_render.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "test/testing/server_process.hpp"

namespace manifests {
namespace {

// helm's whole environment. Its cache, configuration and data (repositories, registry logins,
// plugins) are directories of the build tree's, and so is its home: even `helm template` reads
// $HOME/.kube/config, and none of the user's helm or kubeconfig settings (HELM_NAMESPACE,
// KUBECONFIG, a plugin) may change what renders. helm only looks there; nothing needs to exist.
std::vector<std::string> helmEnvironment() {
  const std::string home = SX_HELM_HOME;
  return {"HOME=" + home, "HELM_CACHE_HOME=" + home + "/cache",
          "HELM_CONFIG_HOME=" + home + "/config", "HELM_DATA_HOME=" + home + "/data"};
}

// The chart, the release and the values, as both commands take them.
std::vector<std::string> arguments(std::vector<std::string> command, const RenderOptions& options) {
  command.insert(command.end(), {options.release, chartDir(), "--namespace", options.namespace_});
  for (const auto& file : options.valuesFiles) command.insert(command.end(), {"--values", file});
  for (const auto& set : options.sets) command.insert(command.end(), {"--set", set});
  if (!options.kubeVersion.empty()) {
    command.insert(command.end(), {"--kube-version", options.kubeVersion});
  }
  if (options.skipSchemaValidation) command.push_back("--skip-schema-validation");
  return command;
}

}  // namespace

RenderResult renderChart(const RenderOptions& options) {
  testing::ProcessResult run =
      testing::runProgram(SX_HELM, arguments({"template"}, options), helmEnvironment());
  return {run.exitCode, std::move(run.out), "", std::move(run.err)};
}

RenderResult dryRunInstall(const RenderOptions& options) {
  testing::ProcessResult run = testing::runProgram(
      SX_HELM, arguments({"install", "--dry-run=client", "--output=json"}, options),
      helmEnvironment());
  if (run.exitCode != 0) return {run.exitCode, "", "", std::move(run.err)};
  // The release helm would have stored: {"manifest": "...", "info": {"notes": "..."}, ...}.
  rapidjson::Document release;
  release.Parse(run.out.c_str());
  if (!release.IsObject() || !release.HasMember("manifest") || !release["manifest"].IsString() ||
      !release.HasMember("info") || !release["info"].IsObject() ||
      !release["info"].HasMember("notes") || !release["info"]["notes"].IsString()) {
    throw std::runtime_error("helm install --dry-run=client printed no release:\n" + run.out);
  }
  return {run.exitCode, release["manifest"].GetString(), release["info"]["notes"].GetString(),
          std::move(run.err)};
}

std::string chartDir() { return SX_CHART_DIR; }

std::string chartFile(const std::string& relativePath) { return chartDir() + "/" + relativePath; }

std::vector<std::string> ciScenarios() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(chartFile("ci"))) {
    const auto name = entry.path().filename().string();
    if (name.ends_with("-values.yaml")) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace manifests
