#include "server/metrics.hpp"

#include <cstdio>

namespace server {
namespace {

// Shortest round-trip form is not needed: %g keeps bucket bounds readable (0.00025, not
// 0.00025000000000000001) and sums precise to the microsecond.
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

}  // namespace

void Histogram::observe(double seconds) {
  for (std::size_t i = 0; i < kDurationBuckets.size(); ++i) {
    if (seconds <= kDurationBuckets[i]) {
      ++buckets_[i];
      break;
    }
  }
  ++count_;
  sum_ += seconds;
}

void Histogram::render(std::string& out, std::string_view name, std::string_view labels) const {
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < kDurationBuckets.size(); ++i) {
    cumulative += buckets_[i];
    out.append(name).append("_bucket{").append(labels).append(",le=\"");
    appendNumber(out, kDurationBuckets[i]);
    out.append("\"} ").append(std::to_string(cumulative)).append("\n");
  }
  out.append(name).append("_bucket{").append(labels).append(",le=\"+Inf\"} ");
  out.append(std::to_string(count_)).append("\n");
  out.append(name).append("_sum{").append(labels).append("} ");
  appendNumber(out, sum_);
  out.append("\n");
  out.append(name).append("_count{").append(labels).append("} ");
  out.append(std::to_string(count_)).append("\n");
}

void Metrics::observeRequest(std::string_view endpoint, unsigned code, double seconds) {
  std::lock_guard lock(mutex_);
  ++requests_[{std::string(endpoint), code}];
  auto it = durations_.find(endpoint);
  if (it == durations_.end()) it = durations_.emplace(std::string(endpoint), Histogram{}).first;
  it->second.observe(seconds);
}

std::string Metrics::render(const CacheSizes& cache) const {
  std::string out;
  appendHeader(out, "scheduler_extender_build_info", "gauge",
               "A metric with a constant '1' value labeled by the extender's version.");
  out.append("scheduler_extender_build_info{version=\"" SX_VERSION "\"} 1\n");

  appendHeader(out, "scheduler_extender_cache_nodes", "gauge", "Nodes in the cache.");
  out.append("scheduler_extender_cache_nodes ").append(std::to_string(cache.nodes)).append("\n");
  appendHeader(out, "scheduler_extender_cache_pods", "gauge",
               "Pods that count on a node: assigned and neither Succeeded nor Failed.");
  out.append("scheduler_extender_cache_pods ").append(std::to_string(cache.pods)).append("\n");

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
  for (const auto& [endpoint, histogram] : durations_) {
    histogram.render(out, "scheduler_extender_request_duration_seconds",
                     "endpoint=\"" + endpoint + "\"");
  }
  return out;
}

}  // namespace server
