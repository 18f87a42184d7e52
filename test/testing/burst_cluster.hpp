#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "test/testing/api_server_double.hpp"
#include "test/testing/scheduler_loop.hpp"
#include "test/testing/server_process.hpp"

namespace testing {

// A Deployment's affinity: one replica per node, spread over zones as a preference.
extern const std::string kWebAntiAffinity;
// A pod that must share a zone with app=cache, one replica per node.
extern const std::string kWebNextToCache;

// 60 nodes in 3 zones (node-a0 … node-c19, labelled with hostname and zone) and the namespace
// "shop" in an API-server double, and the built binary following it with `flags`: the
// cluster of the burst tests and of bench/bind_bursts.
struct BurstCluster {
  explicit BurstCluster(ApiServerDouble::Options options = {}, std::vector<std::string> flags = {});
  ~BurstCluster();
  BurstCluster(const BurstCluster&) = delete;
  BurstCluster& operator=(const BurstCluster&) = delete;

  // `count` pending pods `<prefix>00`, `<prefix>01`, … with app=`app`, in the double.
  std::vector<LoopPod> pending(const std::string& prefix, int count, const std::string& app,
                               const std::string& affinity);
  // kube-scheduler's loop over them; `apiBinds`: it binds them itself (no bindVerb);
  // `maxAttempts`: a pod whose /bind fails is scheduled again, up to this many times in all.
  std::vector<PodOutcome> schedule(const std::vector<LoopPod>& pods, BindOrder order,
                                   bool apiBinds = false, int maxAttempts = 1);
  // The extender's /metrics (on its --metrics-listen port when `flags` asked for one).
  std::string metrics();

  ApiServerDouble server;
  std::filesystem::path kubeconfig;
  std::vector<std::string> nodeNames;
  NodeLabels nodeLabels;
  std::unique_ptr<ServerProcess> process;
};

// The value of one series in a /metrics text; -1 when absent.
double metricValue(const std::string& text, const std::string& series);

// Polls `predicate` every 20 ms for up to `limit`: true once it held.
bool eventually(const std::function<bool()>& predicate,
                std::chrono::seconds limit = std::chrono::seconds(30));

}  // namespace testing
