#include "server/router.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <optional>

#include "scheduling/api/decode_error.hpp"
#include "scheduling/api/json/extender_codec.hpp"
#include "server/explain_json.hpp"
#include "server/logging.hpp"

namespace server {
namespace {

namespace json = scheduling::api::json;
using Streamed = json::ExtenderArgsStreamDecoder;

struct Answer {
  http::status status = http::status::ok;
  std::string body;
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

scheduling::api::ExtenderArgs extenderArgs(const Request& r, Streamed* streamed) {
  return streamed != nullptr ? streamed->finish(r.body()) : json::decodeExtenderArgs(r.body());
}

Answer filter(const RouterContext& c, const Request& r, Streamed* streamed) {
  const auto args = extenderArgs(r, streamed);
  return {http::status::ok, json::encode(c.scheduler.filter(args))};
}

Answer prioritize(const RouterContext& c, const Request& r, Streamed* streamed) {
  const auto args = extenderArgs(r, streamed);
  scheduling::api::HostPriorityList priorities;
  const auto status = c.scheduler.prioritize(args, priorities);
  if (!status.isSuccess())
    return errorAnswer(http::status::internal_server_error, status.message());
  return {http::status::ok, json::encode(priorities)};
}

Answer preempt(const RouterContext& c, const Request& r, Streamed*) {
  const auto args = json::decodeExtenderPreemptionArgs(r.body());
  return {http::status::ok, json::encode(c.scheduler.preempt(args))};
}

Answer explain(const RouterContext& c, const Request& r, Streamed* streamed) {
  const auto args = extenderArgs(r, streamed);
  return {http::status::ok, encodeExplanation(c.scheduler.explain(args))};
}

Answer healthz(const RouterContext&, const Request&, Streamed*) {
  return {http::status::ok, "ok", "text/plain; charset=utf-8"};
}

Answer readyz(const RouterContext& c, const Request&, Streamed*) {
  if (!c.synced()) return errorAnswer(http::status::service_unavailable, "cache not synced");
  if (c.draining()) return errorAnswer(http::status::service_unavailable, "shutting down");
  return {http::status::ok, "ok", "text/plain; charset=utf-8"};
}

Answer metrics(const RouterContext& c, const Request&, Streamed*) {
  const CacheSizes sizes{c.cache.numNodes(), c.cache.numAssignedPods()};
  return {http::status::ok, c.metrics.render(sizes), "text/plain; version=0.0.4; charset=utf-8"};
}

struct Route {
  std::string_view path;
  http::verb method;
  bool runsFramework;  // needs a synced cache; runs on the compute pool
  bool probe;          // kubelet calls it without a client certificate
  bool extenderArgs;   // its body is an ExtenderArgs
  Answer (*serve)(const RouterContext&, const Request&, Streamed*);
};

constexpr std::array kRoutes = {
    Route{"/filter", http::verb::post, true, false, true, &filter},
    Route{"/prioritize", http::verb::post, true, false, true, &prioritize},
    Route{"/preempt", http::verb::post, true, false, false, &preempt},
    Route{"/explain", http::verb::post, true, false, true, &explain},
    Route{"/healthz", http::verb::get, false, true, false, &healthz},
    Route{"/readyz", http::verb::get, false, true, false, &readyz},
    Route{"/metrics", http::verb::get, false, false, false, &metrics},
};

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

// Why the request is refused before its route serves it, if it is: known from the header.
std::optional<Answer> refusal(const RouterContext& context, const Route* route,
                              const Request& request, const Caller& caller) {
  if (context.requireClientCertificate && !caller.hasClientCertificate &&
      (route == nullptr || !route->probe)) {
    return errorAnswer(http::status::unauthorized,
                       "a client certificate signed by --client-ca-file is required");
  }
  if (route == nullptr) {
    return errorAnswer(http::status::not_found,
                       "no such endpoint: " + std::string(pathOf(request)));
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

Answer serve(const RouterContext& context, const Route* route, const Request& request,
             const Caller& caller, Streamed* streamed) {
  if (auto refused = refusal(context, route, request, caller)) return std::move(*refused);
  try {
    return route->serve(context, request, streamed);
  } catch (const scheduling::api::DecodeError& e) {
    return errorAnswer(http::status::bad_request, e.what());
  } catch (const std::bad_alloc&) {
    return errorAnswer(http::status::service_unavailable, "out of memory");
  }
}

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
  return route != nullptr && route->extenderArgs && !refusal(context_, route, request, caller);
}

Response Router::handle(const Request& request, const Caller& caller, Streamed* streamed) const {
  const auto start = std::chrono::steady_clock::now();
  const Route* route = findRoute(pathOf(request));
  Answer answer = serve(context_, route, request, caller, streamed);

  const std::string id = requestId(request);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  const std::string_view endpoint = route != nullptr ? route->path.substr(1) : "other";
  const auto code = static_cast<unsigned>(answer.status);
  context_.metrics.observeRequest(endpoint, code, elapsed.count());
  SX_LOG_V(2) << "request " << id << ": " << request.method_string() << " " << pathOf(request)
              << " " << code << " " << request.body().size() << "B in " << elapsed.count() * 1000
              << "ms"
              << (streamed != nullptr ? ", " + std::to_string(streamed->streamedNodes()) +
                                            " nodes decoded as they arrived"
                                      : "");
  // The answer itself (verdicts with reasons, scores) for following one pod at 3 a.m.
  SX_LOG_V(4) << "request " << id
              << " answer: " << std::string_view(answer.body).substr(0, kLoggedAnswerBytes);
  Response response = toResponse(std::move(answer), request.version(), request.keep_alive());
  response.set(kRequestIdHeader, id);
  if (response.result() == http::status::method_not_allowed) {
    response.set(http::field::allow, http::to_string(route->method));
  }
  return response;
}

}  // namespace server
