// How right the extender stays while kube-scheduler places pods faster than the watch reports
// them, and what that costs: bursts of one Deployment (required hostname anti-affinity,
// preferred zone anti-affinity; 60 nodes in 3 zones) driven by kube-scheduler's loop against the
// built binary and the API-server double, the extender the only judge of inter-pod affinity,
// with and without bindVerb and in-flight holding. A pod whose /bind is refused is scheduled
// again, as kube-scheduler's binding-error path does (up to 10 attempts). Prints, per mode, the
// required anti-affinity violations, zone skew and /bind refusals of each burst, pods left
// unbound, and the time per pod.
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
// kube-scheduler schedules a pod whose binding failed again, with backoff, indefinitely; a
// bound on the attempts keeps a broken run from looping.
constexpr int kMaxAttempts = 10;

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
    std::string violations, skews, refusals;
    std::size_t unbound = 0;
    double seconds = 0;
    for (int b = 0; b < bursts; ++b) {
      const std::string app = "web" + std::to_string(b);
      std::string affinity = testing::kWebAntiAffinity;
      for (std::size_t at; (at = affinity.find("\"web\"")) != std::string::npos;) {
        affinity.replace(at, 5, "\"" + app + "\"");
      }
      const auto pods = cluster.pending(app + "-", replicas, app, affinity);
      const auto start = Clock::now();
      const auto outcomes =
          cluster.schedule(pods, testing::BindOrder::Alternate, !mode.bindVerb, kMaxAttempts);
      seconds += std::chrono::duration<double>(Clock::now() - start).count();
      std::size_t retried = 0;
      for (const auto& outcome : outcomes) {
        retried += outcome.retriedBindErrors.size();
        if (outcome.node.empty() || !outcome.bindError.empty()) ++unbound;
      }
      refusals += " " + std::to_string(retried);
      // Let the watch catch up before counting and before the next burst.
      testing::eventually([&] {
        return testing::metricValue(cluster.metrics(), "scheduler_extender_cache_pods") ==
               static_cast<double>((b + 1) * replicas - static_cast<int>(unbound));
      });
      const auto placed = cluster.server.objects("pods");
      violations +=
          " " + std::to_string(testing::antiAffinityViolations(
                    placed, cluster.nodeLabels, {{"app", app}}, "kubernetes.io/hostname"));
      skews +=
          " " + std::to_string(testing::topologySkew(placed, cluster.nodeLabels, {{"app", app}},
                                                     "topology.kubernetes.io/zone"));
    }
    std::printf(
        "%-44s violations:%s  zone skew:%s  refused /binds:%s  unbound: %zu  %.2f ms per pod\n",
        mode.name, violations.c_str(), skews.c_str(), refusals.c_str(), unbound,
        seconds * 1000 / (bursts * replicas));
  }
  return 0;
}
