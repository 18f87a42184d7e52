#include "test/manifests/chart_render.hpp"

#include <algorithm>
#include <filesystem>

#include "test/testing/server_process.hpp"

namespace manifests {

RenderResult renderChart(const RenderOptions& options) {
  std::vector<std::string> args = {options.chart.empty() ? chartDir() : options.chart,
                                   "--release", options.release, "--namespace",
                                   options.namespace_};
  for (const auto& file : options.valuesFiles) args.insert(args.end(), {"--values", file});
  for (const auto& set : options.sets) args.insert(args.end(), {"--set", set});
  testing::ProcessResult run = testing::runProgram(SX_CHART_RENDER, args);
  return {run.exitCode, std::move(run.out), std::move(run.err)};
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
