// The extender following a large cluster's API server while pods churn: the built binary
// against the test suite's API-server double, loaded with a scenario of the benchmark kit.
// It measures, in one run:
//  - the API-server path: time to ready on paged lists, the extender's CPU and RSS;
//  - request latency, idle: /filter and /prioritize of `--names` random names (in node
//    order), alternating, `--request-rate` per second on one keep-alive connection;
//  - the same while the double changes `--rate` pods per second: creates, bindings (the pod
//    gets spec.nodeName), label changes, deletes, in equal shares, of pods that copy an
//    existing pod's namespace, labels and affinity, as new replicas do;
//  - what the extender says of it on /metrics: events applied, publishes and their
//    durations, the watch backlog (sampled every 100 ms), and how long after the last change
//    every event had been applied.
//
//   churn --data /tmp/bench/s4 [--rate 1000] [--seconds 30] [--idle-seconds 20]
//         [--names 2500] [--request-rate 50]
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench/kit_cluster.hpp"
#include "test/testing/api_server_double.hpp"
#include "test/testing/burst_cluster.hpp"
#include "test/testing/http_client.hpp"
#include "test/testing/server_process.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

std::string flag(int argc, char** argv, const std::string& name, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (argv[i] == name) return argv[i + 1];
  }
  return fallback;
}

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot be read");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// VmRSS, VmHWM (MiB) and user + system CPU seconds of a process.
struct ProcessReading {
  double rssMiB = 0;
  double peakMiB = 0;
  double cpuSeconds = 0;
};
ProcessReading readProcess(pid_t pid) {
  ProcessReading reading;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) reading.rssMiB = std::stod(line.substr(6)) / 1024;
    if (line.rfind("VmHWM:", 0) == 0) reading.peakMiB = std::stod(line.substr(6)) / 1024;
  }
  std::string stat = readFile("/proc/" + std::to_string(pid) + "/stat");
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::vector<std::string> values{std::istream_iterator<std::string>(fields), {}};
  reading.cpuSeconds = (std::stod(values.at(11)) + std::stod(values.at(12))) /
                       static_cast<double>(sysconf(_SC_CLK_TCK));
  return reading;
}

// Request bodies: the scenario's pod with `count` random names each, in node order.
std::vector<std::string> requestBodies(const std::string& scenario, std::size_t count,
                                       std::size_t variants) {
  rapidjson::Document args;
  args.Parse(readFile(scenario + "/args-names.json").c_str());
  if (args.HasParseError() || !args.HasMember("Pod") || !args["Pod"].IsObject()) {
    throw std::runtime_error(scenario + "/args-names.json: no Pod");
  }
  const auto& names = args["NodeNames"].GetArray();
  std::vector<std::size_t> order(names.Size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937 random(7);
  std::vector<std::string> bodies;
  for (std::size_t v = 0; v < variants; ++v) {
    std::shuffle(order.begin(), order.end(), random);
    std::vector<std::size_t> picked(
        order.begin(), order.begin() + static_cast<std::ptrdiff_t>(std::min(count, order.size())));
    std::sort(picked.begin(), picked.end());
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
    w.StartObject();
    w.Key("Pod");
    args["Pod"].Accept(w);
    w.Key("NodeNames");
    w.StartArray();
    for (const std::size_t i : picked)
      w.String(names[static_cast<rapidjson::SizeType>(i)].GetString());
    w.EndArray();
    w.EndObject();
    bodies.emplace_back(buffer.GetString(), buffer.GetSize());
  }
  return bodies;
}

struct Latencies {
  std::vector<double> filter, prioritize;  // milliseconds
};

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<std::size_t>(q * values.size()))];
}

// Alternating /filter and /prioritize at `rate` per second for `seconds`, each sent at its
// time or, when the previous answer came late, at once.
Latencies sendRequests(std::uint16_t port, const std::vector<std::string>& bodies, double rate,
                       double seconds) {
  testing::HttpClient client(port);
  Latencies out;
  const auto start = Clock::now();
  for (std::size_t i = 0;; ++i) {
    const auto due = start + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(i / rate));
    if (due - start > std::chrono::duration<double>(seconds)) break;
    std::this_thread::sleep_until(due);
    const bool filter = i % 2 == 0;
    const auto sent = Clock::now();
    const char* verb = filter ? "/filter" : "/prioritize";
    const auto reply = client.post(verb, bodies[i % bodies.size()]);
    const double ms = secondsSince(sent) * 1000;
    if (reply.status != 200) {
      throw std::runtime_error(std::string(verb) + " answered " + std::to_string(reply.status) +
                               ": " + reply.body.substr(0, 200));
    }
    (filter ? out.filter : out.prioritize).push_back(ms);
  }
  return out;
}

// The pods' life in the double: round r creates pod r, binds pod r-L, changes a label of pod
// r-2L and deletes pod r-3L, so that at full pace the four kinds of change are equal shares
// and about 3L pods of churn are alive.
class Churn {
 public:
  // Keeps copies of up to 10,000 of the cluster's running pods as templates, and the nodes'
  // names: the cluster itself goes to the double.
  Churn(testing::ApiServerDouble& server, const bench::KitCluster& cluster, std::size_t lag)
      : server_(server), lag_(lag), ring_(4 * lag) {
    const std::size_t every = std::max<std::size_t>(1, cluster.pods.size() / 10000);
    for (std::size_t i = 0; i < cluster.pods.size(); i += every) {
      const auto& pod = cluster.pods[i];
      if (!pod.nodeName.empty() && pod.phase == "Running") templates_.push_back(pod);
    }
    for (const auto& node : cluster.nodes) nodes_.push_back(node.name);
  }

  // Changes at `rate` per second until `stop`; returns how many it made.
  std::size_t run(double rate, const std::atomic<bool>& stop) {
    std::mt19937 random(11);
    const auto start = Clock::now();
    std::size_t changes = 0;
    for (std::size_t round = 0; !stop.load(); ++round) {
      std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(
                                                std::chrono::duration<double>(4.0 * round / rate)));
      testing::ApiObject& created = ring_[round % ring_.size()];
      created = templates_[random() % templates_.size()];
      created.name = "churn-" + std::to_string(round);
      created.nodeName.clear();
      created.phase = "Pending";
      server_.put("pods", created);
      ++changes;
      if (round >= lag_) {
        testing::ApiObject& bound = ring_[(round - lag_) % ring_.size()];
        bound.nodeName = nodes_[random() % nodes_.size()];
        bound.phase = "Running";
        server_.put("pods", bound);
        ++changes;
      }
      if (round >= 2 * lag_) {
        testing::ApiObject& relabelled = ring_[(round - 2 * lag_) % ring_.size()];
        relabelled.labels["churn-revision"] = std::to_string(round);
        server_.put("pods", relabelled);
        ++changes;
      }
      if (round >= 3 * lag_) {
        const testing::ApiObject& gone = ring_[(round - 3 * lag_) % ring_.size()];
        server_.remove("pods", gone.ns + "/" + gone.name);
        ++changes;
      }
    }
    return changes;
  }

 private:
  testing::ApiServerDouble& server_;
  std::size_t lag_;
  std::vector<testing::ApiObject> ring_;
  std::vector<testing::ApiObject> templates_;
  std::vector<std::string> nodes_;
};

// The sum of a metric's series whose line starts with `prefix` (name and any labels).
double metricSum(const std::string& text, const std::string& prefix) {
  double sum = 0;
  for (std::size_t at = text.find("\n" + prefix); at != std::string::npos;
       at = text.find("\n" + prefix, at + 1)) {
    const auto space = text.find(' ', at + 1);
    sum += std::stod(text.substr(space + 1));
  }
  return sum;
}

double podEventsApplied(const std::string& metrics) {
  return metricSum(metrics,
                   "scheduler_extender_watch_events_total{resource=\"pods\",type=\"ADDED\"") +
         metricSum(metrics,
                   "scheduler_extender_watch_events_total{resource=\"pods\",type=\"MODIFIED\"") +
         metricSum(metrics,
                   "scheduler_extender_watch_events_total{resource=\"pods\",type=\"DELETED\"");
}

const char* kPublish = "scheduler_extender_cache_publish_duration_seconds";

void printLatencies(const char* phase, const Latencies& l) {
  std::printf(
      "%-28s /filter p50 %6.2f p99 %6.2f ms   /prioritize p50 %6.2f p99 %6.2f ms   (%zu + %zu)\n",
      phase, quantile(l.filter, 0.5), quantile(l.filter, 0.99), quantile(l.prioritize, 0.5),
      quantile(l.prioritize, 0.99), l.filter.size(), l.prioritize.size());
}

}  // namespace

int runChurn(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each phase's line as it ends, even into a file
  const std::string scenario = flag(argc, argv, "--data", "");
  if (scenario.empty()) {
    std::fprintf(stderr,
                 "usage: churn --data SCENARIO_DIR [--rate N] [--seconds S] "
                 "[--idle-seconds S] [--names N] [--request-rate N]\n");
    return 2;
  }
  const double rate = std::stod(flag(argc, argv, "--rate", "1000"));
  const double churnSeconds = std::stod(flag(argc, argv, "--seconds", "30"));
  const double idleSeconds = std::stod(flag(argc, argv, "--idle-seconds", "20"));
  const auto names = static_cast<std::size_t>(std::stoul(flag(argc, argv, "--names", "2500")));
  const double requestRate = std::stod(flag(argc, argv, "--request-rate", "50"));

  auto start = Clock::now();
  bench::KitCluster cluster = bench::readKitCluster(scenario + "/cluster.json");
  std::printf("%s: %zu namespaces, %zu nodes, %zu pods, read in %.1f s\n", scenario.c_str(),
              cluster.namespaces.size(), cluster.nodes.size(), cluster.pods.size(),
              secondsSince(start));
  testing::ApiServerDouble server({});
  Churn churn(server, cluster, static_cast<std::size_t>(std::max(1.0, rate / 4)));
  server.preload("namespaces", std::move(cluster.namespaces));
  server.preload("nodes", std::move(cluster.nodes));
  server.preload("pods", std::move(cluster.pods));

  const auto kubeconfig = std::filesystem::temp_directory_path() /
                          ("sx-churn-kubeconfig-" + std::to_string(::getpid()));
  std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                               "contexts: [{name: c, context: {cluster: d, user: u}}]\n"
                               "clusters: [{name: d, cluster: {server: \""
                            << server.url() << "\"}}]\nusers: [{name: u, user: {token: x}}]\n";
  start = Clock::now();
  testing::ServerProcess extender({"--kubeconfig", kubeconfig.string(), "--config",
                                   scenario + "/config.json", "--metrics-listen", "127.0.0.1:0"},
                                  "serving on");
  testing::HttpClient probe(extender.metricsPort());
  while (probe.get("/readyz").status != 200) std::this_thread::sleep_for(50ms);
  const double ready = secondsSince(start);
  const ProcessReading loaded = readProcess(extender.pid());
  std::printf("ready from the API server in %.2f s: CPU %.2f s, RSS %.0f MiB, peak %.0f MiB\n",
              ready, loaded.cpuSeconds, loaded.rssMiB, loaded.peakMiB);

  const auto bodies = requestBodies(scenario, names, 8);
  sendRequests(extender.port(), bodies, requestRate, 2);  // warm-up
  const Latencies idle = sendRequests(extender.port(), bodies, requestRate, idleSeconds);
  printLatencies("idle", idle);

  const std::string before = probe.get("/metrics").body;
  std::atomic<bool> stop{false};
  std::size_t changes = 0;
  const auto churnStart = Clock::now();
  const ProcessReading extenderBefore = readProcess(extender.pid());
  const ProcessReading benchBefore = readProcess(::getpid());
  std::thread driver([&] { changes = churn.run(rate, stop); });
  double maxBacklog = 0;
  std::thread sampler([&] {
    testing::HttpClient client(extender.metricsPort());
    while (!stop.load()) {
      maxBacklog = std::max(maxBacklog, metricSum(client.get("/metrics").body,
                                                  "scheduler_extender_watch_backlog_bytes{"));
      std::this_thread::sleep_for(100ms);
    }
  });
  const Latencies churning = sendRequests(extender.port(), bodies, requestRate, churnSeconds);
  stop.store(true);
  driver.join();
  sampler.join();
  const double churned = secondsSince(churnStart);
  // On this machine the double, the driver and the client share the extender's cores: how
  // much of them each had while pods churned.
  const double extenderCores =
      (readProcess(extender.pid()).cpuSeconds - extenderBefore.cpuSeconds) / churned;
  const double benchCores = (readProcess(::getpid()).cpuSeconds - benchBefore.cpuSeconds) / churned;
  const auto ended = Clock::now();
  const double wanted = podEventsApplied(before) + static_cast<double>(changes);
  std::string after;
  const bool applied = testing::eventually(
      [&] {
        after = probe.get("/metrics").body;
        return podEventsApplied(after) >= wanted;
      },
      60s);
  const double caughtUp = secondsSince(ended);
  if (!applied) {
    std::fprintf(stderr, "churn: 60 s after the churn, %.0f of %.0f pod events applied\n",
                 podEventsApplied(after), wanted);
    return 1;
  }
  printLatencies("while pods churn", churning);
  std::printf("p99 churn / idle: /filter %.2fx, /prioritize %.2fx\n",
              quantile(churning.filter, 0.99) / quantile(idle.filter, 0.99),
              quantile(churning.prioritize, 0.99) / quantile(idle.prioritize, 0.99));

  const double changesApplied = podEventsApplied(after) - podEventsApplied(before);
  const double publishes = metricSum(after, std::string(kPublish) + "_count") -
                           metricSum(before, std::string(kPublish) + "_count");
  const double publishSeconds = metricSum(after, std::string(kPublish) + "_sum") -
                                metricSum(before, std::string(kPublish) + "_sum");
  const auto within = [&](const char* le) {
    const std::string series = std::string(kPublish) + "_bucket{le=\"" + le + "\"}";
    return metricSum(after, series) - metricSum(before, series);
  };
  const ProcessReading done = readProcess(extender.pid());
  std::printf(
      "pod changes made: %zu in %.1f s (%.0f/s); applied: %.0f, the last %.3f s after "
      "the churn ended\n",
      changes, churned, static_cast<double>(changes) / churned, changesApplied, caughtUp);
  std::printf("publishes: %.0f, mean %.3f ms, within 1 ms %.1f %%, within 2.5 ms %.1f %%\n",
              publishes, publishes > 0 ? publishSeconds / publishes * 1000 : 0,
              publishes > 0 ? within("0.001") / publishes * 100 : 0,
              publishes > 0 ? within("0.0025") / publishes * 100 : 0);
  std::printf("watch backlog: at most %.0f bytes; extender RSS %.0f MiB (ready: %.0f)\n",
              maxBacklog, done.rssMiB, loaded.rssMiB);
  std::printf(
      "CPU while pods churned, in cores: the extender %.2f; the double, the driver and the "
      "client %.2f\n",
      extenderCores, benchCores);
  std::filesystem::remove(kubeconfig);
  return 0;
}

int main(int argc, char** argv) {
  try {
    return runChurn(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "churn: %s\n", e.what());
    return 1;
  }
}
