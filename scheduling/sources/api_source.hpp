#pragma once

#include <array>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string_view>
#include <thread>

#include "scheduling/cache/cache.hpp"
#include "scheduling/informers/client_config.hpp"
#include "scheduling/informers/informer_observer.hpp"
#include "scheduling/informers/publish_throttle.hpp"
#include "scheduling/informers/reflector.hpp"

namespace scheduling::sources {

// The cluster source for a live cluster: informers for namespaces, nodes, pods and
// PodDisruptionBudgets (one reflector and one API server connection each) that list and then
// watch, feeding the cache. They run on one thread of their own, so decoding and applying watch
// events never occupies a thread that serves requests; requests read published snapshots and never
// wait for the cache's writers.
class ApiSource {
 public:
  // `onSynced` runs once, on the informers' thread, when every informer has applied its
  // first list. Throws std::runtime_error when the TLS configuration does not load.
  ApiSource(informers::ClientConfig config, cache::Cache& cache,
            informers::InformerObserver& observer, informers::ReflectorOptions options = {},
            std::function<void()> onSynced = {});
  ~ApiSource();
  ApiSource(const ApiSource&) = delete;
  ApiSource& operator=(const ApiSource&) = delete;

  // Starts the informers' thread.
  void start();
  // Stops the informers and joins their thread. Idempotent.
  void stop();

  // Whether every informer has applied its first full list (readiness).
  bool synced() const;

  // Per informer (namespaces, nodes, pods, poddisruptionbudgets): when it last heard from the API
  // server (Reflector::lastHeard) and how much it had left unread (Reflector::backlogBytes). Safe
  // to call from any thread.
  struct WatchStatus {
    std::string_view resource;
    std::chrono::steady_clock::time_point lastHeard;
    std::size_t backlogBytes = 0;
  };
  std::array<WatchStatus, 4> watchStatus() const;

 private:
  template <typename T>
  struct Informer;
  // Passes reports on, and notices the moment the last first list completes.
  class SyncNotifier;

  informers::ClientConfig config_;
  std::unique_ptr<SyncNotifier> notifier_;
  boost::asio::io_context io_;
  informers::PublishThrottle publisher_;  // shared by the informers: one snapshot per burst
  std::unique_ptr<informers::TokenSource> tokens_;
  std::shared_ptr<boost::asio::ssl::context> tls_;
  std::unique_ptr<Informer<api::Namespace>> namespaces_;
  std::unique_ptr<Informer<api::Node>> nodes_;
  std::unique_ptr<Informer<api::Pod>> pods_;
  std::unique_ptr<Informer<api::PodDisruptionBudget>> podDisruptionBudgets_;
  std::thread thread_;
};

}  // namespace scheduling::sources
