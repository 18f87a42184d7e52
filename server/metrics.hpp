#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

// The extender's Prometheus metrics (CONTRACT §4a), declared once here and rendered in the
// text exposition format by /metrics.
namespace server {

// Request latency buckets, in seconds: sub-millisecond answers for small clusters up to
// multi-second full-Node requests on very large ones.
inline constexpr std::array<double, 15> kDurationBuckets = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};

class Histogram {
 public:
  void observe(double seconds);
  void render(std::string& out, std::string_view name, std::string_view labels) const;

 private:
  std::array<std::uint64_t, kDurationBuckets.size()> buckets_{};  // non-cumulative
  std::uint64_t count_ = 0;
  double sum_ = 0;
};

// What the cache holds when /metrics is scraped.
struct CacheSizes {
  std::size_t nodes = 0;
  std::size_t pods = 0;  // assigned and not terminal (CONTRACT §4)
};

class Metrics {
 public:
  // `endpoint` is the route's name ("filter", "healthz", ...) or "other" for unknown paths,
  // so a scanner cannot blow up the label cardinality.
  void observeRequest(std::string_view endpoint, unsigned code, double seconds);

  std::string render(const CacheSizes& cache) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, unsigned>, std::uint64_t> requests_;
  std::map<std::string, Histogram, std::less<>> durations_;
};

}  // namespace server
