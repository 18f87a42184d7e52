// How right the extender stays while kube-scheduler places pods faster than the watch reports
// them, and what that costs: bursts of one Deployment (required hostname anti-affinity,
// preferred zone anti-affinity; 60 nodes in 3 zones) driven by kube-scheduler's loop against the
// built binary and the API-server double, the extender the only judge of inter-pod affinity,
// with and without bindVerb and in-flight holding. Prints, per mode, the required
// anti-affinity violations and zone skew of each burst and the time per pod.
//
//   bind_bursts [--bursts N] [--replicas N] [--watch-delay-max MS] [--binding-delay MS]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "test/testing/burst_cluster.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Mode {
  const char* name;
  bool bindVerb;
  const char* inFlightWait;
};

int flag(int argc, char** argv, const std::string& name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (argv[i] == name) return std::atoi(argv[i + 1]);
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const int bursts = flag(argc, argv, "--bursts", 5);
  const int replicas = flag(argc, argv, "--replicas", 40);
  const int watchDelayMax = flag(argc, argv, "--watch-delay-max", 50);
  const int bindingDelay = flag(argc, argv, "--binding-delay", 10);
  const Mode modes[] = {
      {"bindVerb, holding (default)", true, "1s"},
      {"bindVerb, no holding (--in-flight-wait=0)", true, "0"},
      {"kube-scheduler binds, holding (default)", false, "1s"},
      {"kube-scheduler binds, no holding", false, "0"},
  };
  std::printf("%d bursts of %d replicas, watch 0-%d ms late, bindings %d ms\n", bursts, replicas,
              watchDelayMax, bindingDelay);
  for (const Mode& mode : modes) {
    testing::ApiServerDouble::Options options;
    options.bindingDelay = std::chrono::milliseconds(bindingDelay);
    testing::BurstCluster cluster(options, {std::string("--in-flight-wait=") + mode.inFlightWait});
    cluster.server.setWatchDelay(std::chrono::milliseconds(0),
                                 std::chrono::milliseconds(watchDelayMax), 42);
    std::string violations, skews;
    double seconds = 0;
    for (int b = 0; b < bursts; ++b) {
      const std::string app = "web" + std::to_string(b);
      std::string affinity = testing::kWebAntiAffinity;
      for (std::size_t at; (at = affinity.find("\"web\"")) != std::string::npos;) {
        affinity.replace(at, 5, "\"" + app + "\"");
      }
      const auto pods = cluster.pending(app + "-", replicas, app, affinity);
      const auto start = Clock::now();
      cluster.schedule(pods, testing::BindOrder::Alternate, !mode.bindVerb);
      seconds += std::chrono::duration<double>(Clock::now() - start).count();
      // Let the watch catch up before counting and before the next burst.
      testing::eventually([&] {
        return testing::metricValue(cluster.metrics(), "scheduler_extender_cache_pods") ==
               (b + 1) * replicas;
      });
      const auto placed = cluster.server.objects("pods");
      violations +=
          " " + std::to_string(testing::antiAffinityViolations(
                    placed, cluster.nodeLabels, {{"app", app}}, "kubernetes.io/hostname"));
      skews +=
          " " + std::to_string(testing::topologySkew(placed, cluster.nodeLabels, {{"app", app}},
                                                     "topology.kubernetes.io/zone"));
    }
    std::printf("%-44s violations:%s  zone skew:%s  %.2f ms per pod\n", mode.name,
                violations.c_str(), skews.c_str(), seconds * 1000 / (bursts * replicas));
  }
  return 0;
}
