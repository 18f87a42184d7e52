#pragma once

#include <string>
#include <utility>
#include <vector>

namespace manifests {

// One `helm template` of manifests/scheduler-extender, done by test/tools/chart-render.
struct RenderOptions {
  RenderOptions(std::string releaseName, std::string releaseNamespace,
                std::vector<std::string> files = {}, std::vector<std::string> setValues = {},
                std::string chartDirectory = "")
      : release(std::move(releaseName)),
        namespace_(std::move(releaseNamespace)),
        valuesFiles(std::move(files)),
        sets(std::move(setValues)),
        chart(std::move(chartDirectory)) {}

  std::string release;
  std::string namespace_;
  std::vector<std::string> valuesFiles;  // paths, applied in order over values.yaml
  std::vector<std::string> sets;         // "a.b=c", applied after the files
  std::string chart;                     // the chart's directory; empty: chartDir()
};

struct RenderResult {
  int exitCode = -1;
  std::string manifests;  // stdout: the rendered documents
  std::string error;      // stderr: why rendering failed
};

// Runs chart-render to completion. Deterministic, no network: it reads the chart only.
RenderResult renderChart(const RenderOptions& options);

// The chart's directory and the path of one of its files, e.g. chartFile("values.yaml").
std::string chartDir();
std::string chartFile(const std::string& relativePath);

// The chart's ci/*-values.yaml scenarios, by file name, sorted.
std::vector<std::string> ciScenarios();

}  // namespace manifests
