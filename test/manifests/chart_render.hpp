#pragma once

#include <string>
#include <utility>
#include <vector>

namespace manifests {

// What one helm command is given about manifests/scheduler-extender: the release, its
// namespace, and the values laid over values.yaml.
struct RenderOptions {
  RenderOptions(std::string releaseName, std::string releaseNamespace,
                std::vector<std::string> files = {}, std::vector<std::string> setValues = {})
      : release(std::move(releaseName)),
        namespace_(std::move(releaseNamespace)),
        valuesFiles(std::move(files)),
        sets(std::move(setValues)) {}

  std::string release;
  std::string namespace_;
  std::vector<std::string> valuesFiles;  // paths, applied in order over values.yaml
  std::vector<std::string> sets;         // "a.b=c", applied after the files
  std::string kubeVersion;               // --kube-version; empty: helm's default, its client's
  bool skipSchemaValidation = false;     // --skip-schema-validation
};

struct RenderResult {
  int exitCode = -1;
  std::string manifests;  // the rendered documents, each after "---" and a "# Source:" comment
  std::string notes;      // the rendered NOTES.txt: dryRunInstall() only
  std::string error;      // stderr: helm's "Error: ..." when it refused
};

// `helm template`, with the helm that scripts/build-kubernetes.sh builds from upstream's
// module: the manifests `helm install` would apply, after values.schema.json accepted the
// values. Deterministic, no network, no cluster: helm reads the chart and the values files.
RenderResult renderChart(const RenderOptions& options);

// `helm install --dry-run=client`: the same render, with the NOTES.txt `helm install` prints
// after installing (which `helm template` leaves out). No cluster is contacted either.
RenderResult dryRunInstall(const RenderOptions& options);

// The chart's directory and the path of one of its files, e.g. chartFile("values.yaml").
std::string chartDir();
std::string chartFile(const std::string& relativePath);

// The chart's ci/*-values.yaml scenarios, by file name, sorted.
std::vector<std::string> ciScenarios();

}  // namespace manifests
