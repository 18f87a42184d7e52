#pragma once

#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "scheduling/api/extender_types.hpp"
#include "scheduling/binding/binding_client.hpp"
#include "scheduling/binding/binding_policy.hpp"
#include "scheduling/cache/cache.hpp"
#include "scheduling/informers/client_config.hpp"
#include "scheduling/scheduler/in_flight_pods.hpp"

namespace scheduling::binding {

// How a binding ended, for metrics (`result` label) and logs.
enum class BindResult {
  Bound,        // the API server created the Binding
  Refused,      // BindingPolicy refused it: nothing was asked of the API server
  Conflict,     // 409: already assigned, being deleted, or another UID under that name
  NotFound,     // 404: no such pod
  Rejected,     // any other answer: 4xx, 5xx
  Unreachable,  // no answer: connection refused or reset, TLS, timeout
};
std::string_view resultName(BindResult result);

struct BindOutcome {
  BindResult result = BindResult::Bound;
  std::optional<RefusalReason> refusal;  // set when result is Refused
  std::string error;                     // what /bind answers: empty when bound
};

// Hears of each binding (the server's metrics and logs).
class BindingObserver {
 public:
  virtual ~BindingObserver() = default;
  virtual void bindingDone(const api::ExtenderBindingArgs& args, const BindOutcome& outcome,
                           std::chrono::duration<double> took) = 0;
};

struct BinderOptions {
  // The longest an API server request may take; below kube-scheduler's httpTimeout (5 s by
  // default), so that a slow API server gets an answer to /bind rather than a timeout.
  std::chrono::seconds requestTimeout{4};
};

// The binding cycle of /bind (schedule_one.go's assume → bind → finish or forget, with
// DefaultBinder's API call), on a thread of its own so that neither a slow API server nor the
// informers' work delays it:
//
//   /bind ──▶ BindingPolicy: the node known, the pod not placed ── else refused ──▶ answer
//          ──▶ the pod: in flight (its /filter or /prioritize), else GET from the API server
//          ──▶ BindingPolicy: our scheduler's, not placed, fits the node now ── else refused
//          ──▶ assume it on the node, publish ── requests from now on count it; held ones go on
//          ──▶ POST pods/{name}/binding (metadata.uid as precondition)
//                 201 ──▶ finish: the assumption lasts until the watch or a relist speaks
//                 else ─▶ forget it, publish ──▶ answer the error
//
// The pod is assumed before the API server answers, as kube-scheduler assumes before it
// binds: a request that arrives meanwhile already counts it. The policy's last check and the
// assumption run with no suspension between them on this one thread, so two /binds can never
// both pass the check on a snapshot that has neither. Concurrent /binds of one pod to the same
// node share one API request and its answer.
class Binder {
 public:
  using Done = std::function<void(api::ExtenderBindingResult)>;

  // Throws std::runtime_error when the TLS configuration does not load.
  Binder(informers::ClientConfig config, cache::Cache& cache, InFlightPods& inFlight,
         const BindingPolicy& policy, BindingObserver& observer, BinderOptions options = {});
  ~Binder();
  Binder(const Binder&) = delete;
  Binder& operator=(const Binder&) = delete;

  void start();
  void stop();  // idempotent

  // Binds the pod; `done` runs once, on the binder's thread, with the answer for /bind.
  // Thread-safe.
  void bind(api::ExtenderBindingArgs args, Done done);
  // /binds the binder has taken up and not answered yet (a gauge): two for one pod wait for
  // one binding.
  std::size_t numPending() const { return pending_.load(); }

 private:
  struct Binding {
    std::string node;
    std::vector<Done> waiting;
  };
  void begin(api::ExtenderBindingArgs args, Done done);
  boost::asio::awaitable<void> run(api::ExtenderBindingArgs args);
  boost::asio::awaitable<BindOutcome> bindPod(const api::ExtenderBindingArgs& args);
  boost::asio::awaitable<BindOutcome> podToAssume(const api::ExtenderBindingArgs& args,
                                                  api::Pod& pod);

  informers::ClientConfig config_;
  cache::Cache& cache_;
  InFlightPods& inFlight_;
  const BindingPolicy& policy_;
  BindingObserver& observer_;
  BinderOptions options_;
  boost::asio::io_context io_;
  // Keeps the thread running while no binding is under way.
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> idle_;
  std::unique_ptr<informers::TokenSource> tokens_;
  std::unique_ptr<BindingClient> client_;
  std::map<std::string, Binding> inProgress_;  // by namespace/name
  std::atomic<std::size_t> pending_{0};
  std::thread thread_;
};

}  // namespace scheduling::binding
