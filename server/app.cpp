#include "server/app.hpp"

#include <pthread.h>

#include <boost/system/system_error.hpp>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "plugins/registry.hpp"
#include "scheduling/binding/binder.hpp"
#include "scheduling/config/configuration.hpp"
#include "scheduling/framework/runtime/framework.hpp"
#include "scheduling/scheduler/in_flight_pods.hpp"
#include "scheduling/sources/api_source.hpp"
#include "scheduling/sources/file_source.hpp"
#include "server/binding_reporter.hpp"
#include "server/http_server.hpp"
#include "server/informer_reporter.hpp"
#include "server/logging.hpp"
#include "server/tls_context.hpp"

namespace server {
namespace {

using scheduling::framework::runtime::Framework;
namespace informers = scheduling::informers;

// A start-up failure: printed as one line, exit 1.
struct Fatal {
  std::string message;
};

std::shared_ptr<Framework> buildFramework(const Options& options) {
  try {
    const auto configuration = options.config.empty()
                                   ? scheduling::config::defaultConfiguration()
                                   : scheduling::config::loadConfiguration(options.config);
    return std::make_shared<Framework>(configuration, plugins::inTreeRegistry());
  } catch (const scheduling::config::ConfigError& e) {
    throw Fatal{"--config " + (options.config.empty() ? "(defaults)" : options.config) + ": " +
                e.what()};
  }
}

// One line: `filter [InterPodAffinity] score [InterPodAffinity:2 PodState:1]
// percentageOfNodesToScore 0 (adaptive)`.
std::string describeProfile(const Framework& framework) {
  std::ostringstream out;
  out << "filter [";
  const char* separator = "";
  for (const auto& entry : framework.filterPlugins()) {
    out << separator << entry.owner->name();
    separator = " ";
  }
  out << "] score [";
  separator = "";
  for (const auto& entry : framework.scorePlugins()) {
    out << separator << entry.owner->name() << ":" << entry.weight;
    separator = " ";
  }
  out << "] percentageOfNodesToScore " << framework.percentageOfNodesToScore();
  if (framework.percentageOfNodesToScore() == 0) out << " (adaptive)";
  return out.str();
}

std::map<std::string, std::string> environment() {
  std::map<std::string, std::string> variables;
  for (const char* name : {"KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"}) {
    if (const char* value = std::getenv(name)) variables.emplace(name, value);
  }
  return variables;
}

// The API server to list and watch, resolved as client-go does: --kubeconfig, else
// $KUBECONFIG, else the in-cluster configuration.
std::optional<informers::ClientConfig> apiServerConfig(const Options& options) {
  const auto env = environment();
  try {
    if (!options.kubeconfig.empty()) return informers::loadKubeconfig(options.kubeconfig);
    if (const auto it = env.find("KUBECONFIG"); it != env.end() && !it->second.empty()) {
      return informers::loadKubeconfig(it->second);
    }
    if (informers::runningInCluster(env)) {
      return informers::inClusterConfig(env, informers::kServiceAccountDir);
    }
  } catch (const std::runtime_error& e) {
    throw Fatal{(options.kubeconfig.empty() ? "" : "--kubeconfig: ") + std::string(e.what())};
  }
  return std::nullopt;
}

// Checks the cluster source before the port is bound: a typo in a path should not look
// like a slow start. Returns the API server's configuration when that is the source.
std::optional<informers::ClientConfig> checkClusterSource(const Options& options) {
  if (!options.clusterState.empty()) {
    if (!std::ifstream(options.clusterState)) {
      throw Fatal{"--cluster-state " + options.clusterState + ": cannot open file"};
    }
    return std::nullopt;
  }
  auto config = apiServerConfig(options);
  if (!config) {
    throw Fatal{
        "no cluster source: pass --cluster-state FILE or --kubeconfig FILE (or set "
        "KUBECONFIG, or run in a pod with a service account)"};
  }
  return config;
}

// The serving certificate, asking clients for one signed by `clientCaFile` unless it is empty;
// null without --tls-cert-file.
std::shared_ptr<TlsContextProvider> loadTls(const Options& options,
                                            const std::string& clientCaFile) {
  if (options.tlsCertFile.empty()) return nullptr;
  try {
    return std::make_shared<TlsContextProvider>(
        TlsFiles{options.tlsCertFile, options.tlsPrivateKeyFile, clientCaFile});
  } catch (const std::runtime_error& e) {
    throw Fatal{e.what()};
  }
}

// The listeners: --listen for every endpoint, or, with --metrics-listen, the scheduling verbs
// there and the probes and /metrics on their own address, with the same certificate but no
// client certificate asked for (kubelet and Prometheus present none).
HttpServerOptions serverOptions(const Options& options, int cpus) {
  HttpServerOptions server;
  server.maxBodyBytes = options.maxBodyBytes;
  server.computeThreads = cpus;
  server.maxConnections = options.maxConnections;
  server.listeners.push_back(
      {"--listen", options.listen.host, options.listen.port,
       options.metricsListen ? Served::SchedulingVerbs : Served::All,
       loadTls(options, options.clientCaFile),
       CallerPolicy(!options.clientCaFile.empty(), options.allowedClientNames)});
  if (options.metricsListen) {
    server.listeners.push_back({"--metrics-listen", options.metricsListen->host,
                                options.metricsListen->port, Served::HealthAndMetrics,
                                loadTls(options, ""), CallerPolicy()});
  }
  return server;
}

// `https://0.0.0.0:8888 (mutual TLS, 1 allowed client name)`, for the start-up line.
std::string describeListener(const ListenerOptions& listener,
                             const boost::asio::ip::tcp::endpoint& endpoint) {
  const bool mutualTls = listener.tls && listener.tls->requiresClientCertificate();
  std::string text = std::string(listener.tls ? "https://" : "http://") +
                     endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  if (mutualTls) text += " (mutual TLS)";
  switch (listener.served) {
    case Served::All:
      return text;
    case Served::SchedulingVerbs:
      return text + " for the scheduling verbs";
    case Served::HealthAndMetrics:
      return text + " for /healthz, /readyz and /metrics";
  }
  return text;
}

// Blocks SIGTERM and SIGINT in this thread and every thread started after, so that the
// main thread alone takes them, with sigwait, once start-up is done.
sigset_t blockTerminationSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

void loadClusterState(const Options& options, scheduling::cache::Cache& cache) {
  const auto start = std::chrono::steady_clock::now();
  try {
    const auto counts = scheduling::sources::loadClusterState(options.clusterState, cache);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    SX_LOG_INFO << "loaded cluster state from " << options.clusterState << " in " << took.count()
                << "s: " << counts.nodes << " nodes, " << counts.namespaces << " namespaces, "
                << counts.pods << " pods (" << counts.assigned << " assigned, " << counts.nominated
                << " nominated, " << counts.terminating << " terminating, " << counts.terminal
                << " terminal and ignored), " << counts.podDisruptionBudgets
                << " PodDisruptionBudgets";
  } catch (const std::runtime_error& e) {  // api::DecodeError included: it names the path
    throw Fatal{"--cluster-state " + options.clusterState + ": " + e.what()};
  }
}

// The live cluster's side of the process: the informers that feed the cache and the binder
// of /bind. Built before the server starts (readiness asks the informers), started once it
// serves, stopped after the drain.
struct ApiServerSide {
  std::unique_ptr<scheduling::sources::ApiSource> source;
  std::unique_ptr<scheduling::binding::Binder> binder;

  void start(const informers::ClientConfig& apiServer, const Options& options,
             const scheduling::binding::BindingPolicy& policy) {
    SX_LOG_INFO << "watching the API server at " << (apiServer.https ? "https://" : "http://")
                << apiServer.host << ":" << apiServer.port << " (" << apiServer.origin
                << "); ready once namespaces, nodes, pods and PodDisruptionBudgets are listed";
    source->start();
    binder->start();
    SX_LOG_INFO << "binding through the API server for /bind, pods of scheduler(s) "
                << policy.schedulerNames() << " only; a request waits at most "
                << options.inFlightWait.count()
                << "ms for a pod in flight that can change its answer";
  }
  void stop() {
    source->stop();
    binder->stop();
  }
};

ApiServerSide followApiServer(const informers::ClientConfig& apiServer,
                              scheduling::cache::Cache& cache, scheduling::InFlightPods& inFlight,
                              const scheduling::binding::BindingPolicy& policy,
                              InformerReporter& informerReporter,
                              BindingReporter& bindingReporter) {
  try {
    ApiServerSide side;
    side.source = std::make_unique<scheduling::sources::ApiSource>(
        apiServer, cache, informerReporter, informers::ReflectorOptions{},
        [] { SX_LOG_INFO << "ready: namespaces, nodes, pods and PodDisruptionBudgets listed"; });
    side.binder = std::make_unique<scheduling::binding::Binder>(apiServer, cache, inFlight, policy,
                                                                bindingReporter);
    return side;
  } catch (const std::runtime_error& e) {
    throw Fatal{e.what()};
  }
}

// Binds every listener; one line saying where each serves what.
void startServing(HttpServer& server, const HttpServerOptions& listening,
                  const Framework& framework) {
  try {
    server.start();
  } catch (const std::runtime_error& e) {
    throw Fatal{e.what()};
  }
  std::string serving;
  for (std::size_t i = 0; i < listening.listeners.size(); ++i) {
    serving +=
        (i == 0 ? "" : " and ") + describeListener(listening.listeners[i], server.localEndpoint(i));
  }
  SX_LOG_INFO << "scheduler-extender " << SX_VERSION << " serving on " << serving << "; "
              << describeProfile(framework);
}

int serve(const Options& options) {
  // Before anything starts a thread (the framework's parallelizer does), or a SIGTERM could
  // land on a thread that does not block it and kill the process outright.
  const sigset_t signals = blockTerminationSignals();
  logging::setVerbosity(options.verbosity);
  logging::setFormat(options.jsonLogs ? logging::Format::Json : logging::Format::Text);
  for (const auto& deprecation : options.deprecations) SX_LOG_WARNING << deprecation;
  auto framework = buildFramework(options);
  if (options.checkConfig) {
    std::cout << "configuration OK: " << describeProfile(*framework) << "\n";
    return 0;
  }
  const auto apiServer = checkClusterSource(options);

  auto cache = std::make_shared<scheduling::cache::Cache>();
  const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // Framework work, and held requests when they go on; the server joins it when it stops.
  boost::asio::thread_pool compute(static_cast<std::size_t>(cpus));
  // Only a live cluster can tell where a pod in flight went: with a file nothing is held.
  scheduling::InFlightPods inFlight(
      compute.get_executor(), apiServer ? options.inFlightWait : std::chrono::milliseconds(0));
  if (apiServer) cache->setPlacementObserver(&inFlight);
  Metrics metrics;  // outlives the scheduler, whose plugins report to it
  framework->setMetricsRecorder(metrics);
  cache->setPublishObserver(&metrics.publishDuration());
  scheduling::Scheduler scheduler(framework, cache, apiServer ? &inFlight : nullptr);
  const scheduling::binding::BindingPolicy bindingPolicy(options.schedulerNames, *cache, scheduler);
  InformerReporter informerReporter(metrics);
  BindingReporter bindingReporter(metrics);
  std::optional<ApiServerSide> live;
  if (apiServer) {
    live = followApiServer(*apiServer, *cache, inFlight, bindingPolicy, informerReporter,
                           bindingReporter);
  }
  std::atomic<bool> fileLoaded{false};
  std::atomic<bool> draining{false};

  const HttpServerOptions listening = serverOptions(options, cpus);
  HttpServer server(
      listening,
      RouterContext{scheduler, *cache, metrics,
                    [&] { return live ? live->source->synced() : fileLoaded.load(); },
                    [&informerReporter] { return informerReporter.unsyncedReason(); },
                    [&draining] { return draining.load(); }, live ? live->binder.get() : nullptr,
                    &inFlight, live ? live->source.get() : nullptr},
      compute);
  startServing(server, listening, *framework);

  // Serving first, loading second: /healthz answers and /readyz says 503 meanwhile.
  if (live) {
    live->start(*apiServer, options, bindingPolicy);
  } else {
    loadClusterState(options, *cache);
    fileLoaded.store(true);
    SX_LOG_INFO << "ready";
  }

  int signal = 0;
  sigwait(&signals, &signal);
  SX_LOG_INFO << "received " << (signal == SIGTERM ? "SIGTERM" : "SIGINT")
              << ", draining in-flight requests";
  draining.store(true);
  inFlight.releaseAll();  // held requests answer now, with what the cache knows
  const std::size_t unanswered = server.drain(std::chrono::seconds(options.shutdownGraceSeconds));
  if (unanswered > 0) {
    SX_LOG_WARNING << unanswered << " request(s) unanswered when the grace period ran out";
  }
  if (live) live->stop();
  cache->setPlacementObserver(nullptr);
  cache->setPublishObserver(nullptr);
  SX_LOG_INFO << "stopped";
  return 0;
}

}  // namespace

int run(const Options& options) {
  try {
    return serve(options);
  } catch (const Fatal& fatal) {
    SX_LOG_ERROR << fatal.message;
    return 1;
  }
}

}  // namespace server
