#include "server/metrics.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "scheduling/framework/runtime/framework.hpp"
#include "scheduling/informers/reflector.hpp"

namespace server {
namespace {

using scheduling::framework::runtime::Framework;
using scheduling::informers::ReflectorOptions;

// %g keeps bucket bounds readable (0.00025, not 0.00025000000000000001) and sums precise to
// the microsecond.
void appendNumber(std::string& out, double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.12g", value);
  out += buffer;
}

void appendHeader(std::string& out, std::string_view name, std::string_view type,
                  std::string_view help) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

void appendGauge(std::string& out, std::string_view name, std::string_view help,
                 std::size_t value) {
  appendHeader(out, name, "gauge", help);
  out.append(name).append(" ").append(std::to_string(value)).append("\n");
}

// A counter family with one label: `name{label="value"} count` per value.
void appendCounters(std::string& out, std::string_view name, std::string_view help,
                    std::string_view label,
                    const std::map<std::string, std::uint64_t, std::less<>>& counts) {
  appendHeader(out, name, "counter", help);
  for (const auto& [value, count] : counts) {
    out.append(name).append("{").append(label).append("=\"").append(value).append("\"} ");
    out.append(std::to_string(count)).append("\n");
  }
}

}  // namespace

void Histogram::observe(double value) {
  for (std::size_t i = 0; i < bounds_.size(); ++i) {
    if (value <= bounds_[i]) {
      buckets_[i].fetch_add(1, std::memory_order_relaxed);
      break;
    }
  }
  count_.fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(static_cast<std::uint64_t>(value * sumScale_), std::memory_order_relaxed);
}

void Histogram::render(std::string& out, std::string_view name, std::string_view labels) const {
  // Read once: a scrape racing with observations may be off by the few in flight, never
  // inconsistent within itself (+Inf equals the count rendered).
  const std::uint64_t count = count_.load(std::memory_order_relaxed);
  const std::string_view comma = labels.empty() ? "" : ",";
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < bounds_.size(); ++i) {
    cumulative += buckets_[i].load(std::memory_order_relaxed);
    out.append(name).append("_bucket{").append(labels).append(comma).append("le=\"");
    appendNumber(out, bounds_[i]);
    out.append("\"} ").append(std::to_string(std::min(cumulative, count))).append("\n");
  }
  out.append(name).append("_bucket{").append(labels).append(comma).append("le=\"+Inf\"} ");
  out.append(std::to_string(count)).append("\n");
  const auto series = [&](std::string_view suffix) -> std::string& {
    out.append(name).append(suffix);
    if (!labels.empty()) out.append("{").append(labels).append("}");
    return out.append(" ");
  };
  appendNumber(series("_sum"),
               static_cast<double>(sum_.load(std::memory_order_relaxed)) / sumScale_);
  out.append("\n");
  series("_count").append(std::to_string(count)).append("\n");
}

void Metrics::observeRequest(std::string_view endpoint, unsigned code, double seconds) {
  Histogram* histogram = nullptr;
  {
    std::lock_guard lock(mutex_);
    ++requests_[{std::string(endpoint), code}];
    auto it = requestDurations_.find(endpoint);
    if (it == requestDurations_.end()) {
      it = requestDurations_.emplace(std::string(endpoint), std::make_unique<Histogram>()).first;
    }
    histogram = it->second.get();
  }
  histogram->observe(seconds);
}

void Metrics::observeRequestNodes(std::string_view endpoint, std::size_t nodes) {
  Histogram* histogram = nullptr;
  {
    std::lock_guard lock(mutex_);
    auto it = requestNodes_.find(endpoint);
    if (it == requestNodes_.end()) {
      it = requestNodes_
               .emplace(std::string(endpoint), std::make_unique<Histogram>(kNodeCountBuckets, 1.0))
               .first;
    }
    histogram = it->second.get();
  }
  histogram->observe(static_cast<double>(nodes));
}

scheduling::framework::runtime::DurationObserver& Metrics::pluginDuration(
    std::string_view plugin, std::string_view extensionPoint) {
  std::lock_guard lock(mutex_);
  auto& histogram = pluginDurations_[{std::string(plugin), std::string(extensionPoint)}];
  if (!histogram) histogram = std::make_unique<Histogram>();
  return *histogram;
}

void Metrics::countWatchEvent(std::string_view resource, std::string_view type) {
  std::lock_guard lock(mutex_);
  ++watchEvents_[{std::string(resource), std::string(type)}];
}

void Metrics::countWatchRestart(std::string_view resource, std::string_view reason) {
  std::lock_guard lock(mutex_);
  ++watchRestarts_[{std::string(resource), std::string(reason)}];
}

void Metrics::countBinding(std::string_view result) {
  std::lock_guard lock(mutex_);
  ++bindings_[std::string(result)];
}

void Metrics::countBindRefusal(std::string_view reason) {
  std::lock_guard lock(mutex_);
  ++bindRefusals_[std::string(reason)];
}

void Metrics::countPreemptionCandidates(std::span<const scheduling::preemption::Outcome> outcomes) {
  using scheduling::preemption::Outcome;
  std::lock_guard lock(mutex_);
  for (const Outcome outcome : {Outcome::Kept, Outcome::Extended, Outcome::Rejected}) {
    const auto n =
        static_cast<std::uint64_t>(std::count(outcomes.begin(), outcomes.end(), outcome));
    if (n > 0) preemptionCandidates_[std::string(outcomeName(outcome))] += n;
  }
}

void Metrics::observeInFlightWait(std::string_view endpoint, std::string_view outcome,
                                  double seconds) {
  Histogram* histogram = nullptr;
  {
    std::lock_guard lock(mutex_);
    ++inFlightWaits_[{std::string(endpoint), std::string(outcome)}];
    auto& slot = inFlightWaitDurations_[std::string(endpoint)];
    if (!slot) slot = std::make_unique<Histogram>();
    histogram = slot.get();
  }
  histogram->observe(seconds);
}

void Metrics::countPreemptionWait(std::string_view outcome) {
  std::lock_guard lock(mutex_);
  ++preemptionWaits_[std::string(outcome)];
}

std::string Metrics::render(const CacheSizes& cache) const {
  std::string out;
  appendHeader(out, "scheduler_extender_build_info", "gauge",
               "A metric with a constant '1' value labeled by the extender's version.");
  out.append("scheduler_extender_build_info{version=\"" SX_VERSION "\"} 1\n");
  appendGauge(out, "scheduler_extender_cache_nodes", "Nodes in the cache.", cache.nodes);
  appendGauge(out, "scheduler_extender_cache_pods",
              "Pods that count on a node: assigned and neither Succeeded nor Failed.", cache.pods);
  appendGauge(out, "scheduler_extender_assumed_pods",
              "Pods bound through /bind and counted on their node before the watch confirmed "
              "the binding.",
              cache.assumedPods);
  appendHeader(out, "scheduler_extender_assumed_pods_oldest_age_seconds", "gauge",
               "Age of the oldest pod bound through /bind that the watch has not yet shown bound "
               "(0 when none): assumptions never expire, so this grows while the watch lags or "
               "is stuck.");
  out.append("scheduler_extender_assumed_pods_oldest_age_seconds ");
  appendNumber(out, cache.oldestAssumedPodSeconds);
  out.append("\n");
  appendGauge(out, "scheduler_extender_in_flight_pods",
              "Pods answered by /filter or /prioritize whose placement is not known yet.",
              cache.inFlightPods);
  appendGauge(out, "scheduler_extender_in_flight_waiting_requests",
              "Requests held until a pod in flight that can change their answer is placed, or "
              "until the victims of their pod's preemption are gone.",
              cache.waitingRequests);
  appendGauge(out, "scheduler_extender_preemptions_in_progress",
              "Preemptors whose victims, as /preempt last answered, are remembered until the "
              "preemptor is bound or deleted.",
              cache.preemptionsInProgress);
  appendGauge(out, "scheduler_extender_bind_requests_in_flight",
              "/bind requests waiting for the API server's answer.", cache.bindRequests);

  std::lock_guard lock(mutex_);
  appendHeader(out, "scheduler_extender_requests_total", "counter",
               "HTTP requests answered, by endpoint and status code.");
  for (const auto& [key, count] : requests_) {
    out.append("scheduler_extender_requests_total{endpoint=\"").append(key.first);
    out.append("\",code=\"").append(std::to_string(key.second)).append("\"} ");
    out.append(std::to_string(count)).append("\n");
  }
  appendHeader(out, "scheduler_extender_request_duration_seconds", "histogram",
               "Time from a request's last byte read to its answer, by endpoint.");
  for (const auto& [endpoint, histogram] : requestDurations_) {
    histogram->render(out, "scheduler_extender_request_duration_seconds",
                      "endpoint=\"" + endpoint + "\"");
  }
  appendHeader(out, "scheduler_extender_request_nodes", "histogram",
               "Candidate nodes sent in one /filter or /prioritize (Nodes or NodeNames), by "
               "endpoint.");
  for (const auto& [endpoint, histogram] : requestNodes_) {
    histogram->render(out, "scheduler_extender_request_nodes", "endpoint=\"" + endpoint + "\"");
  }
  appendHeader(out, "scheduler_extender_plugin_duration_seconds", "histogram",
               "Duration of one plugin call, by plugin and extension point, in one "
               "scheduling cycle out of " +
                   std::to_string(Framework::kPluginMetricsSampleEvery) +
                   " (Filter and Score, called once per node, on one node in " +
                   std::to_string(Framework::kPluginMetricsNodeSampleEvery) + ").");
  for (const auto& [key, histogram] : pluginDurations_) {
    histogram->render(out, "scheduler_extender_plugin_duration_seconds",
                      "plugin=\"" + key.first + "\",extension_point=\"" + key.second + "\"");
  }
  // With a cluster-state file there are no watches: the families are declared without
  // series, so dashboards and alerts work against either source.
  appendHeader(out, "scheduler_extender_cache_publish_duration_seconds", "histogram",
               "Time to publish the cache's changes as a new snapshot, which requests then "
               "read: once per burst of watch events (at most every 10 ms), per /bind, and "
               "after a list.");
  publishDurations_.render(out, "scheduler_extender_cache_publish_duration_seconds", "");
  appendHeader(out, "scheduler_extender_watch_events_total", "counter",
               "Watch events applied to the cache, by resource and event type.");
  for (const auto& [key, count] : watchEvents_) {
    out.append("scheduler_extender_watch_events_total{resource=\"").append(key.first);
    out.append("\",type=\"").append(key.second).append("\"} ");
    out.append(std::to_string(count)).append("\n");
  }
  appendHeader(out, "scheduler_extender_watch_restarts_total", "counter",
               "Watches and lists started over, by resource and reason (closed: the API "
               "server ended the watch as asked; idle: silent for " +
                   std::to_string(ReflectorOptions{}.idleTimeout.count()) +
                   " s, watched again; gone/expired/too_large/decode: relisted).");
  for (const auto& [key, count] : watchRestarts_) {
    out.append("scheduler_extender_watch_restarts_total{resource=\"").append(key.first);
    out.append("\",reason=\"").append(key.second).append("\"} ");
    out.append(std::to_string(count)).append("\n");
  }
  appendHeader(out, "scheduler_extender_watch_idle_seconds", "gauge",
               "Seconds since the API server last sent anything on the resource's list or "
               "watch (an object, an event, a bookmark, or a successful answer's headers), by "
               "resource; a quiet watch is re-opened every " +
                   std::to_string(ReflectorOptions{}.idleTimeout.count()) +
                   " s, so more than that means the API server does not answer.");
  for (const auto& watch : cache.watches) {
    out.append("scheduler_extender_watch_idle_seconds{resource=\"").append(watch.resource);
    out.append("\"} ");
    appendNumber(out, watch.idleSeconds);
    out.append("\n");
  }
  appendHeader(out, "scheduler_extender_watch_backlog_bytes", "gauge",
               "Bytes the API server had sent on the resource's list or watch that the "
               "informer had not read yet when it last read, by resource: near 0 while the "
               "cache keeps up with the events. The socket's receive buffer bounds it; beyond "
               "that the API server holds events back, and ends a watch that stays too slow.");
  for (const auto& watch : cache.watches) {
    out.append("scheduler_extender_watch_backlog_bytes{resource=\"").append(watch.resource);
    out.append("\"} ").append(std::to_string(watch.backlogBytes)).append("\n");
  }
  appendCounters(out, "scheduler_extender_bindings_total",
                 "Bindings asked for by /bind, by result (bound, refused, conflict, not_found, "
                 "rejected, unreachable, no_api_server).",
                 "result", bindings_);
  appendCounters(out, "scheduler_extender_bind_refusals_total",
                 "/bind calls refused before any API call, by reason (scheduler_name, "
                 "unknown_node, already_assigned, node_no_longer_fits).",
                 "reason", bindRefusals_);
  appendCounters(out, "scheduler_extender_preemption_candidates_total",
                 "Candidate nodes sent to /preempt, by outcome (kept: as sent; extended: with "
                 "victims of lower priority added for the extender's filters; rejected: the pod "
                 "fits neither way, or the node is unknown).",
                 "outcome", preemptionCandidates_);
  appendHeader(out, "scheduler_extender_in_flight_waits_total", "counter",
               "Requests held for pods in flight or for the victims of their pod's preemption, "
               "by endpoint and outcome (settled: everything waited for was placed or gone; "
               "timeout: --in-flight-wait ran out).");
  for (const auto& [key, count] : inFlightWaits_) {
    out.append("scheduler_extender_in_flight_waits_total{endpoint=\"").append(key.first);
    out.append("\",outcome=\"").append(key.second).append("\"} ");
    out.append(std::to_string(count)).append("\n");
  }
  appendHeader(out, "scheduler_extender_in_flight_wait_duration_seconds", "histogram",
               "How long a request was held for pods in flight or victims, by endpoint.");
  for (const auto& [endpoint, histogram] : inFlightWaitDurations_) {
    histogram->render(out, "scheduler_extender_in_flight_wait_duration_seconds",
                      "endpoint=\"" + endpoint + "\"");
  }
  appendCounters(out, "scheduler_extender_preemption_waits_total",
                 "/filter requests of a preemptor held while the victims /preempt named were "
                 "still on the nodes sent, by outcome (evicted: those of one node left; timeout: "
                 "--in-flight-wait ran out); each is in in_flight_waits_total too.",
                 "outcome", preemptionWaits_);
  return out;
}

}  // namespace server
