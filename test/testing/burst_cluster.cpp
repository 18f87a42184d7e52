#include "test/testing/burst_cluster.hpp"

#include <fstream>
#include <thread>

#include "test/testing/http_client.hpp"

namespace testing {

using namespace std::chrono_literals;

const std::string kWebAntiAffinity =
    R"({"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":)"
    R"({"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"}],)"
    R"("preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,"podAffinityTerm":{)"
    R"("labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"topology.kubernetes.io/zone"}}]}})";

const std::string kWebNextToCache =
    R"({"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":)"
    R"({"matchLabels":{"app":"cache"}},"topologyKey":"topology.kubernetes.io/zone"}]},)"
    R"("podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":)"
    R"({"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"}]}})";

BurstCluster::BurstCluster(ApiServerDouble::Options options, std::vector<std::string> flags)
    : server(options),
      kubeconfig(std::filesystem::temp_directory_path() /
                 ("sx-burst-kubeconfig-" + std::to_string(::getpid()))) {
  ApiObject ns;
  ns.name = "shop";
  server.put("namespaces", ns);
  for (int i = 0; i < 20; ++i) {
    for (const char* zone : {"a", "b", "c"}) {
      ApiObject node;
      node.name = "node-" + std::string(zone) + std::to_string(i);
      node.labels = {{"kubernetes.io/hostname", node.name},
                     {"topology.kubernetes.io/zone", std::string("zone-") + zone}};
      server.put("nodes", node);
      nodeNames.push_back(node.name);
      nodeLabels[node.name] = node.labels;
    }
  }
  std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\ncurrent-context: t\n"
                               "contexts: [{name: t, context: {cluster: d, user: u}}]\n"
                               "clusters: [{name: d, cluster: {server: \""
                            << server.url() << "\"}}]\nusers: [{name: u, user: {token: x}}]\n";
  flags.insert(flags.begin(), {"--kubeconfig", kubeconfig.string()});
  process = std::make_unique<ServerProcess>(flags);
}

BurstCluster::~BurstCluster() { std::filesystem::remove(kubeconfig); }

std::vector<LoopPod> BurstCluster::pending(const std::string& prefix, int count,
                                           const std::string& app, const std::string& affinity) {
  std::vector<LoopPod> pods;
  for (int i = 0; i < count; ++i) {
    ApiObject pod;
    pod.name = prefix + (i < 10 ? "0" : "") + std::to_string(i);
    pod.ns = "shop";
    pod.labels = {{"app", app}};
    pod.affinityJson = affinity;
    pod.phase = "Pending";
    server.put("pods", pod);
    pods.push_back({pod, server.uid("pods", "shop/" + pod.name)});
  }
  return pods;
}

std::vector<PodOutcome> BurstCluster::schedule(const std::vector<LoopPod>& pods, BindOrder order,
                                               bool apiBinds, int maxAttempts) {
  SchedulerLoop::Options options{process->port(), nodeNames, order};
  if (apiBinds) options.apiServerPort = server.port();
  options.maxAttempts = maxAttempts;
  options.metricsPort = process->metricsPort();
  return SchedulerLoop(options).run(pods);
}

std::string BurstCluster::metrics() {
  const std::uint16_t port = process->metricsPort() != 0 ? process->metricsPort() : process->port();
  return HttpClient(port).get("/metrics").body;
}

double metricValue(const std::string& text, const std::string& series) {
  const auto at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

bool eventually(const std::function<bool()>& predicate, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!predicate()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

}  // namespace testing
