#include "server/router.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <future>
#include <optional>

#include "scheduling/api/decode_error.hpp"
#include "scheduling/api/json/extender_codec.hpp"
#include "scheduling/sources/api_source.hpp"
#include "server/explain_json.hpp"
#include "server/logging.hpp"

namespace server {
namespace {

namespace json = scheduling::api::json;
using Streamed = Router::Streamed;
using scheduling::Verb;

struct Answer {
  http::status status = http::status::ok;
  AnswerBody::value_type body;
  std::string_view contentType = "application/json";
};

Answer errorAnswer(http::status status, std::string_view message) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  writer.Key("error");
  writer.String(message.data(), static_cast<rapidjson::SizeType>(message.size()));
  writer.EndObject();
  return {status, std::string(buffer.GetString(), buffer.GetSize())};
}

// Runs `fn`, turning what bad input throws into its 4xx: the one place a DecodeError becomes
// an answer, for routes answering at once and for those that answer later alike.
template <typename Fn>
void guarded(const std::function<void(Answer)>& answer, Fn&& fn) {
  try {
    fn();
  } catch (const scheduling::api::DecodeError& e) {
    answer(errorAnswer(http::status::bad_request, e.what()));
  } catch (const std::bad_alloc&) {
    answer(errorAnswer(http::status::service_unavailable, "out of memory"));
  }
}

// One request on its way to its answer. Shared by the continuations of a held request, so
// the body (which decoded arguments point into) lives as long as they do.
struct Exchange {
  std::shared_ptr<const Request> request;
  std::shared_ptr<Streamed> streamed;
  std::function<void(Answer)> answer;  // exactly once
};
using ExchangePtr = std::shared_ptr<const Exchange>;

scheduling::api::ExtenderArgs extenderArgs(const Exchange& ex) {
  return ex.streamed != nullptr ? ex.streamed->finish(ex.request->body())
                                : json::decodeExtenderArgs(ex.request->body());
}

// Runs `then` once the scheduler lets the request go on, counting it if it was held.
scheduling::InFlightPods::Proceed counted(const RouterContext& c, std::string_view endpoint,
                                          const ExchangePtr& ex, std::function<void()> then) {
  using Victims = scheduling::InFlightWait::Victims;
  return
      [&metrics = c.metrics, endpoint, ex, then = std::move(then)](scheduling::InFlightWait wait) {
        if (wait.held) {
          metrics.observeInFlightWait(endpoint, wait.timedOut ? "timeout" : "settled",
                                      wait.waited.count());
        }
        if (wait.victims != Victims::NotAwaited) {
          metrics.countPreemptionWait(wait.victims == Victims::Gone ? "evicted" : "timeout");
        }
        guarded(ex->answer, then);
      };
}

// Runs `then` once no pod in flight can change this verb's answer for `pod` (at once nearly
// always), counting the requests that were held.
void afterInFlight(const RouterContext& c, Verb verb, std::string_view endpoint,
                   const scheduling::api::Pod& pod, const ExchangePtr& ex,
                   std::function<void()> then) {
  c.scheduler.whenInFlightSettled(verb, pod, counted(c, endpoint, ex, std::move(then)));
}

// The answer to full Nodes echoes the feasible ones from the request's bytes, which the
// answer keeps until it is written (AnswerBody).
AnswerBody::value_type filterAnswer(const scheduling::api::ExtenderFilterResult& result,
                                    const ExchangePtr& ex) {
  if (!result.nodes) return json::encode(result);
  json::FilterAnswerParts parts = json::encodeEchoing(result);
  AnswerBody::value_type body;
  const std::string_view text = parts.text;
  body.append(text.substr(0, parts.itemsAt));
  for (std::size_t i = 0; i < parts.runs.size(); ++i) {
    if (i > 0) body.append(",");
    body.appendBorrowed(parts.runs[i]);
  }
  body.append(text.substr(parts.itemsAt));
  body.keep(ex->request);
  return body;
}

std::size_t candidateCount(const scheduling::api::ExtenderArgs& args) {
  if (args.nodes) return args.nodes->size();
  return args.nodeNames ? args.nodeNames->size() : 0;
}

void filter(const RouterContext& c, const ExchangePtr& ex) {
  auto args = std::make_shared<const scheduling::api::ExtenderArgs>(extenderArgs(*ex));
  c.metrics.observeRequestNodes("filter", candidateCount(*args));
  // Held as the other verbs are, and while the nodes sent still show victims of the pod's
  // preemption in progress.
  c.scheduler.whenInFlightSettled(*args, counted(c, "filter", ex, [&c, ex, args] {
    ex->answer({http::status::ok, filterAnswer(c.scheduler.filter(*args), ex)});
  }));
}

void prioritize(const RouterContext& c, const ExchangePtr& ex) {
  auto args = std::make_shared<const scheduling::api::ExtenderArgs>(extenderArgs(*ex));
  c.metrics.observeRequestNodes("prioritize", candidateCount(*args));
  afterInFlight(c, Verb::Prioritize, "prioritize", args->pod, ex, [&c, ex, args] {
    scheduling::api::HostPriorityList priorities;
    const auto status = c.scheduler.prioritize(*args, priorities);
    if (!status.isSuccess()) {
      return ex->answer(errorAnswer(http::status::internal_server_error, status.message()));
    }
    ex->answer({http::status::ok, json::encode(priorities)});
  });
}

void preempt(const RouterContext& c, const ExchangePtr& ex) {
  auto args = std::make_shared<const scheduling::api::ExtenderPreemptionArgs>(
      json::decodeExtenderPreemptionArgs(ex->request->body()));
  afterInFlight(c, Verb::Preempt, "preempt", args->pod, ex, [&c, ex, args] {
    const scheduling::PreemptionResult result = c.scheduler.preempt(*args);
    c.metrics.countPreemptionCandidates(result.outcomes);
    ex->answer({http::status::ok, json::encode(result.answer)});
  });
}

// A dry run for people: it neither waits for pods in flight nor puts its pod in flight.
void explain(const RouterContext& c, const ExchangePtr& ex) {
  const auto args = extenderArgs(*ex);
  ex->answer({http::status::ok, encodeExplanation(c.scheduler.explain(args))});
}

void bind(const RouterContext& c, const ExchangePtr& ex) {
  auto args = json::decodeExtenderBindingArgs(ex->request->body());
  if (c.binder == nullptr) {
    c.metrics.countBinding("no_api_server");
    const std::string error = "binding pod " + args.podNamespace + "/" + args.podName +
                              " to node " + args.node +
                              ": no API server to bind through (the extender was started with "
                              "--cluster-state)";
    return ex->answer(
        {http::status::ok, json::encode(scheduling::api::ExtenderBindingResult{error})});
  }
  c.binder->bind(std::move(args), [ex](scheduling::api::ExtenderBindingResult result) {
    ex->answer({http::status::ok, json::encode(result)});
  });
}

void healthz(const RouterContext&, const ExchangePtr& ex) {
  ex->answer({http::status::ok, "ok", "text/plain; charset=utf-8"});
}

void readyz(const RouterContext& c, const ExchangePtr& ex) {
  if (!c.synced()) {
    const std::string reason = c.unsyncedReason ? c.unsyncedReason() : std::string();
    return ex->answer(
        errorAnswer(http::status::service_unavailable,
                    reason.empty() ? "cache not synced" : "cache not synced: " + reason));
  }
  if (c.draining())
    return ex->answer(errorAnswer(http::status::service_unavailable, "shutting down"));
  ex->answer({http::status::ok, "ok", "text/plain; charset=utf-8"});
}

void metrics(const RouterContext& c, const ExchangePtr& ex) {
  CacheSizes sizes{c.cache.numNodes(), c.cache.numAssignedPods(), c.cache.numAssumedPods()};
  if (const auto oldest = c.cache.oldestAssumedPod()) {
    sizes.oldestAssumedPodSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - *oldest).count();
  }
  if (c.inFlight != nullptr) {
    sizes.inFlightPods = c.inFlight->numInFlight();
    sizes.waitingRequests = c.inFlight->numWaiting();
    sizes.preemptionsInProgress = c.inFlight->numPreemptions();
  }
  if (c.binder != nullptr) sizes.bindRequests = c.binder->numPending();
  if (c.source != nullptr) {
    const auto now = std::chrono::steady_clock::now();
    for (const auto& watch : c.source->watchStatus()) {
      sizes.watches.push_back({std::string(watch.resource),
                               std::chrono::duration<double>(now - watch.lastHeard).count(),
                               watch.backlogBytes});
    }
  }
  ex->answer(
      {http::status::ok, c.metrics.render(sizes), "text/plain; version=0.0.4; charset=utf-8"});
}

struct Route {
  std::string_view path;
  http::verb method;
  RouteGroup group;
  bool runsFramework;  // needs a synced cache; runs on the compute pool
  bool extenderArgs;   // its body is an ExtenderArgs
  void (*serve)(const RouterContext&, const ExchangePtr&);
};

// /bind needs no synced cache (the API server decides) and no compute: its work is the
// binder's.
constexpr std::array kRoutes = {
    Route{"/filter", http::verb::post, RouteGroup::Scheduling, true, true, &filter},
    Route{"/prioritize", http::verb::post, RouteGroup::Scheduling, true, true, &prioritize},
    Route{"/preempt", http::verb::post, RouteGroup::Scheduling, true, false, &preempt},
    Route{"/explain", http::verb::post, RouteGroup::Scheduling, true, true, &explain},
    Route{"/bind", http::verb::post, RouteGroup::Scheduling, false, false, &bind},
    Route{"/healthz", http::verb::get, RouteGroup::Probe, false, false, &healthz},
    Route{"/readyz", http::verb::get, RouteGroup::Probe, false, false, &readyz},
    Route{"/metrics", http::verb::get, RouteGroup::Metrics, false, false, &metrics},
};

bool serves(Served served, RouteGroup group) {
  switch (served) {
    case Served::All:
      return true;
    case Served::SchedulingVerbs:
      return group == RouteGroup::Scheduling;
    case Served::HealthAndMetrics:
      return group != RouteGroup::Scheduling;
  }
  return false;
}

constexpr std::string_view kRequestIdHeader = "X-Request-Id";
constexpr std::size_t kLoggedAnswerBytes = 4096;

// The caller's X-Request-Id (bounded, printable), or a process-wide sequence number, so a
// log line and the answer that carries the same id can be matched.
std::string requestId(const Request& request) {
  static std::atomic<std::uint64_t> sequence{0};
  const std::string_view given = request[kRequestIdHeader];
  const bool usable =
      !given.empty() && given.size() <= 64 && std::all_of(given.begin(), given.end(), [](char c) {
        return c > ' ' && c < 0x7f && c != '"' && c != '\\';
      });
  return usable ? std::string(given) : std::to_string(++sequence);
}

std::string_view pathOf(const Request& request) {
  const std::string_view target = request.target();
  return target.substr(0, target.find('?'));
}

const Route* findRoute(std::string_view path) {
  for (const Route& route : kRoutes) {
    if (route.path == path) return &route;
  }
  return nullptr;
}

// What the router of one listener refuses before a route serves the request: known from the
// header and the connection.
struct Gate {
  const RouterContext& context;
  Served served;
  const CallerPolicy& callers;

  // The caller first, so that one without a certificate learns nothing of the paths: an
  // unknown path is guarded as /metrics is.
  std::optional<CallerPolicy::Refusal> callerRefusal(const Route* route,
                                                     const Caller& caller) const {
    return callers.refusal(route != nullptr ? route->group : RouteGroup::Metrics, caller);
  }

  std::optional<Answer> requestRefusal(const Route* route, const Request& request) const {
    const std::string_view path = pathOf(request);
    if (route == nullptr) {
      return errorAnswer(http::status::not_found, "no such endpoint: " + std::string(path));
    }
    // An endpoint of the other listener is not found here either, but the answer says where it
    // is, for whoever points a probe or a scrape at the wrong port.
    if (!serves(served, route->group)) {
      return errorAnswer(http::status::not_found,
                         std::string(path) + " is served on the " +
                             (served == Served::SchedulingVerbs ? "--metrics-listen" : "--listen") +
                             " address, not on this one");
    }
    if (request.method() != route->method) {
      return errorAnswer(http::status::method_not_allowed,
                         std::string(route->path) + " accepts " +
                             std::string(http::to_string(route->method)) + " only");
    }
    if (route->runsFramework && !context.synced()) {
      return errorAnswer(http::status::service_unavailable, "cluster state not synced yet");
    }
    return std::nullopt;
  }

  bool refuses(const Route* route, const Request& request, const Caller& caller) const {
    return callerRefusal(route, caller) || requestRefusal(route, request);
  }

  void serve(const Route* route, const Caller& caller, const ExchangePtr& ex) const {
    if (auto refused = callerRefusal(route, caller)) {
      SX_LOG_WARNING << "refused " << ex->request->method_string() << " " << pathOf(*ex->request)
                     << " from " << caller.address << ": " << refused->message;
      return ex->answer(errorAnswer(refused->status, refused->message));
    }
    if (auto refused = requestRefusal(route, *ex->request)) {
      return ex->answer(std::move(*refused));
    }
    guarded(ex->answer, [&] { route->serve(context, ex); });
  }
};

// Every response, routed or not, is built here: one place sets the content type, keep-alive,
// and the Retry-After that a 503 promises.
Response toResponse(Answer answer, unsigned version, bool keepAlive) {
  Response response{answer.status, version};
  response.set(http::field::content_type, answer.contentType);
  if (answer.status == http::status::service_unavailable) {
    response.set(http::field::retry_after, "1");
  }
  response.keep_alive(keepAlive);
  response.body() = std::move(answer.body);
  response.prepare_payload();
  return response;
}

}  // namespace

Response errorResponse(http::status status, std::string_view message, unsigned version,
                       bool keepAlive) {
  return toResponse(errorAnswer(status, message), version, keepAlive);
}

bool Router::runsFramework(const Request& request) {
  const Route* route = findRoute(pathOf(request));
  return route != nullptr && route->runsFramework;
}

bool Router::decodesExtenderArgs(const Request& request, const Caller& caller) const {
  const Route* route = findRoute(pathOf(request));
  return route != nullptr && route->extenderArgs &&
         !Gate{context_, served_, callers_}.refuses(route, request, caller);
}

void Router::handle(std::shared_ptr<const Request> request, const Caller& caller,
                    std::shared_ptr<Streamed> streamed, Respond respond) const {
  const auto start = std::chrono::steady_clock::now();
  const Route* route = findRoute(pathOf(*request));
  const std::size_t streamedNodes = streamed != nullptr ? streamed->streamedNodes() : 0;
  auto ex = std::make_shared<Exchange>();
  ex->request = request;
  ex->streamed = std::move(streamed);
  // The answer's bookkeeping. It holds the request but not the exchange, which holds it.
  ex->answer = [this, start, route, request, streamedNodes,
                respond = std::move(respond)](Answer answer) {
    const std::string id = requestId(*request);
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    const std::string_view endpoint = route != nullptr ? route->path.substr(1) : "other";
    const auto code = static_cast<unsigned>(answer.status);
    context_.metrics.observeRequest(endpoint, code, elapsed.count());
    SX_LOG_V(2) << "request " << id << ": " << request->method_string() << " " << pathOf(*request)
                << " " << code << " " << request->body().size() << "B in " << elapsed.count() * 1000
                << "ms"
                << (streamedNodes > 0
                        ? ", " + std::to_string(streamedNodes) + " nodes decoded as they arrived"
                        : "");
    // The answer itself (verdicts with reasons, scores) for following one pod at 3 a.m.
    SX_LOG_V(4) << "request " << id << " answer: " << answer.body.flat(kLoggedAnswerBytes);
    Response response = toResponse(std::move(answer), request->version(), request->keep_alive());
    response.set(kRequestIdHeader, id);
    if (response.result() == http::status::method_not_allowed) {
      response.set(http::field::allow, http::to_string(route->method));
    }
    respond(std::move(response));
  };
  Gate{context_, served_, callers_}.serve(route, caller, ex);
}

Response Router::handle(const Request& request, const Caller& caller) const {
  std::promise<Response> answered;
  auto future = answered.get_future();
  handle(std::make_shared<const Request>(request), caller, nullptr,
         [&answered](Response response) { answered.set_value(std::move(response)); });
  return future.get();
}

}  // namespace server
