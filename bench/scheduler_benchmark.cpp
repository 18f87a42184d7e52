// Whole requests without the HTTP edge: decode the body, run the scheduler on the
// scenario's cache, encode the answer, as the router does for /filter and /prioritize.
//
// BindingPolicy is what /bind checks before it writes, the filter plugins run again on one node
// included: the scenario's pod on the first node /filter finds feasible for it.
//
// UnmatchedPod shows what a pod whose selectors match nothing costs: the same number of
// nodes sent (the first 1,000 of the node list) on every scenario, so the figures of S2
// and S3 differ only by the size of the cluster behind them.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/cold_caches.hpp"
#include "bench/registrations.hpp"
#include "bench/scenario.hpp"
#include "scheduling/api/json/extender_codec.hpp"
#include "scheduling/binding/binding_policy.hpp"
#include "scheduling/scheduler/scheduler.hpp"

namespace bench {

namespace {

namespace json = scheduling::api::json;

scheduling::Scheduler& schedulerOf(Scenario& s) {
  static std::map<std::string, std::unique_ptr<scheduling::Scheduler>> schedulers;
  auto& scheduler = schedulers[s.name()];
  if (!scheduler) scheduler = std::make_unique<scheduling::Scheduler>(s.framework(), s.cache());
  return *scheduler;
}

void filterRequest(benchmark::State& state, Scenario& s, const std::string& body, bool cold) {
  auto& scheduler = schedulerOf(s);
  for (auto _ : state) {
    evictIfCold(state, cold);
    const auto args = json::decodeExtenderArgs(body);
    benchmark::DoNotOptimize(json::encode(scheduler.filter(args)));
  }
}

void prioritizeRequest(benchmark::State& state, Scenario& s, const std::string& body, bool cold) {
  auto& scheduler = schedulerOf(s);
  for (auto _ : state) {
    evictIfCold(state, cold);
    const auto args = json::decodeExtenderArgs(body);
    scheduling::api::HostPriorityList priorities;
    if (!scheduler.prioritize(args, priorities).isSuccess()) {
      state.SkipWithError("prioritize failed");
      return;
    }
    benchmark::DoNotOptimize(json::encode(priorities));
  }
}

// A replica of a workload nothing else runs: its required anti-affinity and preferred
// (anti-)affinity select an app no pod has, in its own namespace.
scheduling::api::Pod unmatchedPodObject(Scenario& s) {
  const auto& ns = s.namesArgs().pod.metadata.ns;
  const std::string body = R"({"Pod":{"metadata":{"name":"lonely-0","namespace":")" + ns +
                           R"(","uid":"lonely-0","labels":{"app":"lonely"}},"spec":{"affinity":{)"
                           R"("podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":)"
                           R"([{"labelSelector":{"matchLabels":{"app":"no-such-app"}},)"
                           R"("topologyKey":"kubernetes.io/hostname"}],)"
                           R"("preferredDuringSchedulingIgnoredDuringExecution":[{"weight":50,)"
                           R"("podAffinityTerm":{"labelSelector":{"matchExpressions":[{"key":)"
                           R"("app","operator":"In","values":["no-such-app"]}]},)"
                           R"("topologyKey":"topology.kubernetes.io/zone"}}]},)"
                           R"("podAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":)"
                           R"([{"weight":10,"podAffinityTerm":{"labelSelector":{"matchLabels":)"
                           R"({"app":"no-such-cache"}},"topologyKey":)"
                           R"("topology.kubernetes.io/zone"}}]}}}},"NodeNames":[]})";
  return json::decodeExtenderArgs(body).pod;
}

constexpr std::size_t kUnmatchedNodes = 1000;

void unmatchedPod(benchmark::State& state, Scenario& s) {
  auto& scheduler = schedulerOf(s);
  scheduling::api::ExtenderArgs args;
  args.pod = unmatchedPodObject(s);
  args.nodeNames.emplace();
  const auto nodes = s.snapshot()->nodeInfoList();
  if (nodes.size() < kUnmatchedNodes) {
    state.SkipWithError("fewer than 1,000 nodes");
    return;
  }
  for (std::size_t i = 0; i < kUnmatchedNodes; ++i) args.copyNodeName(nodes[i]->name());
  for (auto _ : state) {
    const auto filtered = scheduler.filter(args);
    if (filtered.nodeNames->size() != kUnmatchedNodes) {
      state.SkipWithError("the unmatched pod was rejected somewhere");
      return;
    }
    scheduling::api::HostPriorityList priorities;
    scheduler.prioritize(args, priorities);
    benchmark::DoNotOptimize(priorities);
  }
}

void bindingPolicy(benchmark::State& state, Scenario& s) {
  auto& scheduler = schedulerOf(s);
  const auto args = json::decodeExtenderArgs(s.namesBody());
  const auto feasible = scheduler.filter(args).nodeNames;
  if (!feasible || feasible->empty()) {
    state.SkipWithError("no feasible node for the scenario's pod");
    return;
  }
  const std::string node(feasible->front());
  const scheduling::binding::BindingPolicy policy({"default-scheduler"}, *s.cache(), scheduler);
  const scheduling::api::ExtenderBindingArgs bind{args.pod.metadata.name, args.pod.metadata.ns,
                                                  args.pod.metadata.uid, node};
  for (auto _ : state) {
    if (policy.checkTarget(bind) || policy.checkPod(args.pod, node)) {
      state.SkipWithError("the policy refused a feasible node");
      return;
    }
  }
}

}  // namespace

void registerSchedulerBenchmarks(const std::string& scenario) {
  const auto add = [&](const std::string& name, auto fn) {
    benchmark::RegisterBenchmark(
        name.c_str(),
        [scenario, fn](benchmark::State& state) { fn(state, Scenario::get(scenario)); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  };
  add("FilterRequest/" + scenario + "/names",
      [](benchmark::State& st, Scenario& s) { filterRequest(st, s, s.namesBody(), false); });
  add("FilterRequest/" + scenario + "/names/cold",
      [](benchmark::State& st, Scenario& s) { filterRequest(st, s, s.namesBody(), true); });
  add("FilterRequest/" + scenario + "/nodes",
      [](benchmark::State& st, Scenario& s) { filterRequest(st, s, s.nodesBody(), false); });
  add("PrioritizeRequest/" + scenario + "/names",
      [](benchmark::State& st, Scenario& s) { prioritizeRequest(st, s, s.namesBody(), false); });
  add("PrioritizeRequest/" + scenario + "/names/cold",
      [](benchmark::State& st, Scenario& s) { prioritizeRequest(st, s, s.namesBody(), true); });
  add("PrioritizeRequest/" + scenario + "/nodes",
      [](benchmark::State& st, Scenario& s) { prioritizeRequest(st, s, s.nodesBody(), false); });
  // What adaptive sampling sends at 50,000 nodes (5%) and at 10,000 (its 5% floor is 500).
  for (const std::size_t count : {std::size_t{2500}, std::size_t{500}}) {
    const std::string suffix = "/" + scenario + "/names-" + std::to_string(count);
    add("FilterRequest" + suffix, [count](benchmark::State& st, Scenario& s) {
      filterRequest(st, s, s.sampledNamesBody(count), false);
    });
    add("PrioritizeRequest" + suffix, [count](benchmark::State& st, Scenario& s) {
      prioritizeRequest(st, s, s.sampledNamesBody(count), false);
    });
    add("FilterRequest" + suffix + "/cold", [count](benchmark::State& st, Scenario& s) {
      filterRequest(st, s, s.sampledNamesBody(count), true);
    });
    add("PrioritizeRequest" + suffix + "/cold", [count](benchmark::State& st, Scenario& s) {
      prioritizeRequest(st, s, s.sampledNamesBody(count), true);
    });
  }
  // The same sample with terms that match as many pods in every scenario: what is left of
  // S5 / S4 here is the cluster's size itself (bench/equal_matches.hpp).
  for (const std::size_t count : {std::size_t{2500}, std::size_t{500}}) {
    const std::string suffix = "/" + scenario + "/equal-matches-" + std::to_string(count);
    const auto request = [count](benchmark::State& st, Scenario& s) -> const std::string* {
      try {
        return &s.equalMatchesBody(count);
      } catch (const std::runtime_error& e) {
        st.SkipWithError(e.what());
        return nullptr;
      }
    };
    for (const bool cold : {false, true}) {
      const std::string temperature = cold ? "/cold" : "";
      add("FilterRequest" + suffix + temperature,
          [request, cold](benchmark::State& st, Scenario& s) {
            if (const std::string* body = request(st, s)) filterRequest(st, s, *body, cold);
          });
      add("PrioritizeRequest" + suffix + temperature,
          [request, cold](benchmark::State& st, Scenario& s) {
            if (const std::string* body = request(st, s)) prioritizeRequest(st, s, *body, cold);
          });
    }
  }
  add("UnmatchedPod/" + scenario, [](benchmark::State& st, Scenario& s) { unmatchedPod(st, s); });
  add("BindingPolicy/" + scenario, [](benchmark::State& st, Scenario& s) { bindingPolicy(st, s); });
}

}  // namespace bench
