#include "scheduling/sources/file_source.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <thread>
#include <variant>

#include "scheduling/api/json/list_reader.hpp"
#include "scheduling/framework/runtime/batch_channel.hpp"
#include "scheduling/sources/heap_prefaulter.hpp"
#include "scheduling/sources/yaml_to_json.hpp"

namespace scheduling::sources {

namespace {

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

bool isYaml(const std::string& path) { return path.ends_with(".yaml") || path.ends_with(".yml"); }

// The file itself for JSON; for YAML, its JSON translation held in `json`.
File openAsJson(const std::string& path, std::string& json) {
  File file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) {
    throw std::runtime_error("cannot open cluster state file " + path + ": " +
                             std::strerror(errno));
  }
  if (!isYaml(path)) return file;
  std::string yaml;
  char chunk[1 << 16];
  for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, file.get())) > 0;) {
    yaml.append(chunk, n);
  }
  json = yamlToJson(yaml);
  File memory(fmemopen(json.data(), json.size(), "rb"), &std::fclose);
  if (!memory) throw std::runtime_error("cannot buffer " + path + ": " + std::strerror(errno));
  return memory;
}

// How long the JSON the decoder reads is: the file's size, or its YAML's translation's; 0 when
// the file says nothing of its size (a pipe).
std::size_t jsonBytes(std::FILE* file, const std::string& json) {
  if (!json.empty()) return json.size();
  struct stat status {};
  if (fstat(fileno(file), &status) != 0 || !S_ISREG(status.st_mode)) return 0;
  return static_cast<std::size_t>(status.st_size);
}

// A Succeeded or Failed pod, which the cache would drop: only counted.
struct TerminalPod {};

// Pods come made ready for the cache (Cache::preparePod) by the thread that decoded them.
using DecodedObject = std::variant<api::Node, framework::PodInfoPtr, TerminalPod, api::Namespace,
                                   api::PodDisruptionBudget>;
using DecodedObjects = framework::runtime::BatchChannel<DecodedObject>;

// Objects per batch, and batches in flight: enough that the two threads rarely wait on each
// other, little enough that the objects waiting are a few MiB, whatever the file's size.
constexpr std::size_t kBatchObjects = 512;
constexpr std::size_t kBatchesInFlight = 8;

// Thrown through the decoder when the thread filing objects has stopped taking them.
struct NoLongerTaken {};

// The decoding thread: reads the List and hands its objects on in batches.
void decodeList(std::FILE* file, const std::string& path, const cache::Cache& cache,
                DecodedObjects& channel) {
  DecodedObjects::Batch batch;
  batch.reserve(kBatchObjects);
  const auto add = [&](auto&& object) {
    batch.emplace_back(std::move(object));
    if (batch.size() < kBatchObjects) return;
    if (!channel.push(std::move(batch))) throw NoLongerTaken{};
    batch = {};
    batch.reserve(kBatchObjects);
  };
  api::json::ListVisitor visitor;
  visitor.node = add;
  visitor.pod = [&](api::Pod&& pod) {
    if (pod.isTerminal()) {
      add(TerminalPod{});
      return;
    }
    add(cache.preparePod(std::move(pod)));
  };
  visitor.ns = add;
  visitor.pdb = add;
  try {
    api::json::readList(file, path, visitor);
    if (!batch.empty() && !channel.push(std::move(batch))) return;
    channel.close();
  } catch (const NoLongerTaken&) {
  } catch (...) {
    channel.close(std::current_exception());
  }
}

// Files one decoded object in the cache, counting what it was.
class Filer {
 public:
  explicit Filer(cache::Cache& cache) : cache_(cache) {}

  void operator()(api::Node&& node) {
    ++counts.nodes;
    cache_.upsertNode(std::move(node));
  }

  void operator()(framework::PodInfoPtr&& info) {
    ++counts.pods;
    const api::Pod& pod = info->pod();
    if (pod.isTerminating()) ++counts.terminating;
    if (!pod.spec.nodeName.empty()) {
      ++counts.assigned;
    } else if (!pod.status.nominatedNodeName.empty()) {
      ++counts.nominated;
    }
    cache_.upsertPod(std::move(info));
  }

  void operator()(TerminalPod) {
    ++counts.pods;
    ++counts.terminal;
  }

  void operator()(api::Namespace&& ns) {
    ++counts.namespaces;
    cache_.upsertNamespace(std::move(ns));
  }

  void operator()(api::PodDisruptionBudget&& pdb) {
    ++counts.podDisruptionBudgets;
    cache_.upsertPodDisruptionBudget(pdb);
  }

  ClusterStateCounts counts;

 private:
  cache::Cache& cache_;
};

}  // namespace

ClusterStateCounts loadClusterState(const std::string& path, cache::Cache& cache) {
  std::string json;
  File file = openAsJson(path, json);

  // Decoding is two thirds of loading's CPU and filing objects in the cache the rest (perf,
  // S5): on two threads they overlap, and decoding sets the pace. It runs on this thread, the
  // process's main one, so that what it allocates (the pods above all, a gigabyte at S5)
  // comes from the main malloc arena, whose pages the prefaulter faults in on the other core
  // before the decoder reaches them. Objects are filed in file order, on the other thread.
  DecodedObjects channel(kBatchesInFlight);
  Filer filer(cache);
  std::exception_ptr failure;
  std::jthread filing([&] {
    try {
      while (auto batch = channel.pop()) {
        for (DecodedObject& object : *batch) std::visit(filer, std::move(object));
      }
    } catch (...) {
      // The decoder's own error (after the objects before it), or the cache's.
      failure = std::current_exception();
      channel.abandon();  // the decoder stops at its next batch
    }
  });
  {
    HeapPrefaulter prefaulter(jsonBytes(file.get(), json));
    decodeList(file.get(), path, cache, channel);
  }
  filing.join();
  if (failure) std::rethrow_exception(failure);
  cache.publish();
  return filer.counts;
}

}  // namespace scheduling::sources
