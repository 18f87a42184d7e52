#pragma once

#include <boost/beast/http.hpp>
#include <functional>
#include <memory>
#include <string_view>

#include "scheduling/binding/binder.hpp"
#include "scheduling/cache/cache.hpp"
#include "scheduling/scheduler/in_flight_pods.hpp"
#include "scheduling/scheduler/scheduler.hpp"
#include "server/answer_body.hpp"
#include "server/caller_policy.hpp"
#include "server/metrics.hpp"
#include "server/streamed_args.hpp"

namespace scheduling::sources {
class ApiSource;
}  // namespace scheduling::sources

namespace server {

namespace http = boost::beast::http;
using Request = http::request<http::string_body>;
using Response = http::response<AnswerBody>;

// What the routes need from the rest of the process.
struct RouterContext {
  scheduling::Scheduler& scheduler;
  const scheduling::cache::Cache& cache;
  Metrics& metrics;
  // True once the cluster source has synced: the scheduling endpoints answer 503 before.
  std::function<bool()> synced;
  // Why the cluster source has not synced, when something failed (a refused list); /readyz
  // says it. Empty, or no function, when nothing did.
  std::function<std::string()> unsyncedReason;
  // True once a drain has begun: /readyz answers 503 so that traffic moves elsewhere, while
  // the requests still arriving are answered.
  std::function<bool()> draining;
  // Binds for /bind; null without an API server (--cluster-state), when /bind answers an
  // error.
  scheduling::binding::Binder* binder = nullptr;
  // The pods in flight, for the gauges; null when none are tracked.
  const scheduling::InFlightPods* inFlight = nullptr;
  // The informers, for how long each has not heard from the API server; null with a
  // cluster-state file.
  const scheduling::sources::ApiSource* source = nullptr;
};

// Which endpoints a listener serves: all of them on the one --listen, or, with
// --metrics-listen, the scheduling verbs on one and the probes and /metrics on the other, so
// that kubelet and Prometheus never need to reach the port that can place pods.
enum class Served {
  All,
  SchedulingVerbs,
  HealthAndMetrics,
};

// Maps one request to one response, with no sockets involved, so every endpoint is
// testable as a function. Bad input becomes a 4xx with `{"error": "..."}` here, in one place,
// and so does a caller the listener's policy refuses. One router per listener.
class Router {
 public:
  using Respond = std::function<void(Response)>;
  using Streamed = StreamedArgs;

  explicit Router(RouterContext context, Served served = Served::All, CallerPolicy callers = {})
      : context_(std::move(context)), served_(served), callers_(std::move(callers)) {}

  // Answers through `respond`, exactly once: within this call for most requests; later, from
  // another thread, for one held for a pod in flight (on the scheduler's executor) or waiting
  // for the API server (/bind). `streamed`, when the session decoded the body while it
  // arrived (an ExtenderArgs endpoint), finishes decoding it.
  void handle(std::shared_ptr<const Request> request, const Caller& caller,
              std::shared_ptr<Streamed> streamed, Respond respond) const;
  // The same, waiting for the answer (tests).
  Response handle(const Request& request, const Caller& caller = {}) const;

  // Whether the request runs the framework, and so belongs on the compute pool rather than
  // on an I/O thread.
  static bool runsFramework(const Request& request);
  // Whether the request, known from its header alone, is one whose ExtenderArgs body the
  // route will decode (not one it refuses first): worth decoding while the body arrives.
  bool decodesExtenderArgs(const Request& request, const Caller& caller) const;

 private:
  RouterContext context_;
  Served served_;
  CallerPolicy callers_;
};

// `{"error": message}` for failures found before routing (broken HTTP, oversize bodies, a
// full compute queue); a 503 carries Retry-After, as the router's own do.
Response errorResponse(http::status status, std::string_view message, unsigned version,
                       bool keepAlive);

}  // namespace server
