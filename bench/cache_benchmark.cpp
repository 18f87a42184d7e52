// The cache: loading the cluster-state file (start-up), what one watch event costs once
// loaded (upsertPod of a changed pod, then publish() of the next snapshot, as the informers
// do per network read), and finding the NodeInfos of the nodes a request names.

#include <benchmark/benchmark.h>

#include <array>
#include <filesystem>
#include <map>
#include <memory>
#include <utility>

#include "bench/cold_caches.hpp"
#include "bench/registrations.hpp"
#include "bench/scenario.hpp"
#include "scheduling/cache/cache.hpp"
#include "scheduling/sources/file_source.hpp"

namespace bench {

namespace {

void loadClusterState(benchmark::State& state, const std::string& path) {
  for (auto _ : state) {
    auto cache = std::make_unique<scheduling::cache::Cache>();
    const auto counts = scheduling::sources::loadClusterState(path, *cache);
    benchmark::DoNotOptimize(counts);
    state.PauseTiming();  // freeing the cache is not part of loading it
    cache.reset();
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(std::filesystem::file_size(path)));
}

// A cache of its own (the event benchmarks change it), loaded once per scenario.
scheduling::cache::Cache& mutableCache(const std::string& scenario) {
  static std::map<std::string, std::unique_ptr<scheduling::cache::Cache>> caches;
  auto& cache = caches[scenario];
  if (!cache) {
    cache = std::make_unique<scheduling::cache::Cache>();
    scheduling::sources::loadClusterState(Scenario::get(scenario).path("cluster.json"), *cache);
  }
  return *cache;
}

// What the event benchmarks change: an assigned pod without or with pod (anti-)affinity, or
// a nominated pod (whose change rebuilds the nominated pods' index).
enum class PodKind { Plain, Affinity, Nominated };

scheduling::api::Pod podOfKind(scheduling::cache::Cache& cache, PodKind kind) {
  const auto snapshot = cache.snapshot();
  for (const auto* node : snapshot->nodeInfoList()) {
    if (kind == PodKind::Nominated) {
      const auto nominated = snapshot->nominatedPodsFor(*node);
      if (!nominated.empty()) return nominated.front().info->pod();
      continue;
    }
    for (const auto& pod : node->pods()) {
      if (pod->hasPodAffinityOrAntiAffinity() == (kind == PodKind::Affinity)) return pod->pod();
    }
  }
  throw std::runtime_error("no such pod in the scenario");
}

// A watch MODIFIED event for one pod (a label changes, so the pod indexes see it), applied
// and published.
void upsertPodAndPublish(benchmark::State& state, const std::string& scenario, PodKind kind) {
  scheduling::cache::Cache& cache = mutableCache(scenario);
  // Two versions of the pod, made once: setting the label again at every iteration would grow
  // the labels' buffer (Labels::set leaves an overwritten value's bytes behind), and with it
  // the pod copied, so that the time per iteration would depend on the number of iterations.
  std::array<scheduling::api::Pod, 2> versions{podOfKind(cache, kind), {}};
  versions[1] = versions[0];
  versions[0].metadata.labels.set("bench-revision", "0");
  versions[1].metadata.labels.set("bench-revision", "1");
  std::size_t revision = 0;
  for (auto _ : state) {
    cache.upsertPod(versions[++revision % 2]);
    cache.publish();
  }
}

// A nomination that changes what the nominated pods' index files: a pod alone in its
// namespace, with a required anti-affinity term no other pod has, nominated then deleted
// (two events, each published).
void nominateAndDelete(benchmark::State& state, const std::string& scenario) {
  scheduling::cache::Cache& cache = mutableCache(scenario);
  scheduling::api::Pod pod = podOfKind(cache, PodKind::Nominated);
  pod.metadata.uid = "bench-nomination";
  pod.metadata.ns = "bench-nomination";
  pod.metadata.labels.set("bench-nomination", "true");
  scheduling::api::PodAffinityTerm term;
  term.labelSelector.emplace().matchLabels.set("bench-nomination", "true");
  term.topologyKey = "kubernetes.io/hostname";
  pod.spec.affinity.emplace().podAntiAffinity.emplace()
      .requiredDuringSchedulingIgnoredDuringExecution.push_back(term);
  for (auto _ : state) {
    cache.upsertPod(pod);
    cache.publish();
    cache.deletePod(pod.metadata.uid);
    cache.publish();
  }
}

// The NodeInfos of every name of the scenario's NodeNames body, as a request resolves the
// nodes it is sent (getNodeInfos), or looked up one by one (getNodeInfo).
void resolveNodeNames(benchmark::State& state, Scenario& s, bool together, bool cold) {
  const auto snapshot = s.snapshot();
  const auto& names = *s.namesArgs().nodeNames;
  std::vector<const scheduling::framework::NodeInfo*> found(names.size());
  for (auto _ : state) {
    evictIfCold(state, cold);
    if (together) {
      snapshot->getNodeInfos(names, found);
    } else {
      for (std::size_t i = 0; i < names.size(); ++i) found[i] = snapshot->getNodeInfo(names[i]);
    }
    benchmark::DoNotOptimize(found.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * names.size()));
}

}  // namespace

void registerCacheBenchmarks(const std::string& scenario) {
  benchmark::RegisterBenchmark(("LoadClusterState/" + scenario).c_str(),
                               [scenario](benchmark::State& state) {
                                 loadClusterState(state,
                                                  Scenario::get(scenario).path("cluster.json"));
                               })
      ->Unit(benchmark::kMillisecond);
  for (const auto& [kind, name] :
       {std::pair{PodKind::Plain, "plain"}, std::pair{PodKind::Affinity, "affinity"},
        std::pair{PodKind::Nominated, "nominated"}}) {
    benchmark::RegisterBenchmark(
        ("UpsertPodAndPublish/" + scenario + "/" + name).c_str(),
        [scenario, kind](benchmark::State& state) { upsertPodAndPublish(state, scenario, kind); })
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::RegisterBenchmark(("NominateAndDelete/" + scenario).c_str(),
                               [scenario](benchmark::State& state) {
                                 nominateAndDelete(state, scenario);
                               })
      ->Unit(benchmark::kMicrosecond);
  for (const bool together : {true, false}) {
    for (const bool cold : {false, true}) {
      const std::string name =
          "ResolveNodeNames/" + scenario + (together ? "" : "/one-by-one") + (cold ? "/cold" : "");
      benchmark::RegisterBenchmark(name.c_str(), [scenario, together,
                                                  cold](benchmark::State& state) {
        resolveNodeNames(state, Scenario::get(scenario), together, cold);
      })->Unit(benchmark::kMicrosecond);
    }
  }
}

}  // namespace bench
