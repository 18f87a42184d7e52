#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scheduling/framework/runtime/metrics_recorder.hpp"
#include "scheduling/preemption/outcome.hpp"

// The extender's Prometheus metrics (CONTRACT §4a), declared once here and rendered in the
// text exposition format by /metrics.
namespace server {

// Latency buckets, in seconds: from a plugin's microseconds on one node to multi-second
// full-Node requests on very large clusters.
inline constexpr std::array<double, 18> kDurationBuckets = {
    0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
    0.01,    0.025,    0.05,    0.1,    0.25,    0.5,    1,     2.5,    5};

// Candidate nodes in one request: from a handful to kube-scheduler's whole sample at 50,000
// nodes (adaptive sampling sends about 2,500) or every node of the largest clusters.
inline constexpr std::array<double, 13> kNodeCountBuckets = {
    1, 10, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000};

// A Prometheus histogram that many threads observe without locking: of durations in seconds
// (the default) or of counts.
class Histogram final : public scheduling::framework::runtime::DurationObserver {
 public:
  Histogram() = default;
  // `bounds` ascending, at most kMaxBuckets of them, outliving the histogram.
  explicit Histogram(std::span<const double> bounds, double sumScale)
      : bounds_(bounds), sumScale_(sumScale) {
    if (bounds.size() > kMaxBuckets) throw std::invalid_argument("too many histogram buckets");
  }

  void observe(double value) override;
  void render(std::string& out, std::string_view name, std::string_view labels) const;

 private:
  static constexpr std::size_t kMaxBuckets = kDurationBuckets.size();
  std::span<const double> bounds_ = kDurationBuckets;
  double sumScale_ = 1e9;  // sum_'s units per observed unit: nanoseconds by default
  std::array<std::atomic<std::uint64_t>, kMaxBuckets> buckets_{};  // non-cumulative
  std::atomic<std::uint64_t> count_{0};
  std::atomic<std::uint64_t> sum_{0};  // an integer, so that adding is atomic
};

// What the cache holds when /metrics is scraped, and the pods and requests in flight.
struct CacheSizes {
  std::size_t nodes = 0;
  std::size_t pods = 0;  // assigned and not terminal (CONTRACT §4), assumed ones included
  std::size_t assumedPods = 0;
  double oldestAssumedPodSeconds = 0;  // age of the oldest unconfirmed assumption; 0 when none
  std::size_t inFlightPods = 0;
  std::size_t waitingRequests = 0;
  std::size_t preemptionsInProgress = 0;  // preemptors whose victims are remembered
  std::size_t bindRequests = 0;           // /binds not answered yet
  // Per resource the informers follow, seconds since the API server last sent anything on
  // its list or watch, and the bytes it had sent that were still unread at the last read;
  // empty with a cluster-state file.
  struct Watch {
    std::string resource;
    double idleSeconds = 0;
    std::size_t backlogBytes = 0;
  };
  std::vector<Watch> watches{};
};

class Metrics final : public scheduling::framework::runtime::MetricsRecorder {
 public:
  // `endpoint` is the route's name ("filter", "healthz", ...) or "other" for unknown paths,
  // so a scanner cannot blow up the label cardinality.
  void observeRequest(std::string_view endpoint, unsigned code, double seconds);
  // The candidate nodes a /filter or /prioritize was sent (Nodes or NodeNames).
  void observeRequestNodes(std::string_view endpoint, std::size_t nodes);

  scheduling::framework::runtime::DurationObserver& pluginDuration(
      std::string_view plugin, std::string_view extensionPoint) override;

  // Informers: an event applied, a watch or list started over.
  void countWatchEvent(std::string_view resource, std::string_view type);
  void countWatchRestart(std::string_view resource, std::string_view reason);

  // /bind: a binding by result (binding::resultName, or "no_api_server"); a refusal by reason
  // (binding::reasonName).
  void countBinding(std::string_view result);
  void countBindRefusal(std::string_view reason);
  // What one /preempt made of the candidates it was sent.
  void countPreemptionCandidates(std::span<const scheduling::preemption::Outcome> outcomes);
  // A request that asked about pods in flight and was held; `outcome` is "settled" (every pod
  // it waited for was placed) or "timeout".
  void observeInFlightWait(std::string_view endpoint, std::string_view outcome, double seconds);
  // A /filter of a preemptor held while its victims were still on the nodes sent; `outcome` is
  // "evicted" (those of one node left) or "timeout".
  void countPreemptionWait(std::string_view outcome);

  // For Cache::setPublishObserver: how long each publish of the cache took.
  scheduling::framework::runtime::DurationObserver& publishDuration() { return publishDurations_; }

  std::string render(const CacheSizes& cache) const;

 private:
  mutable std::mutex mutex_;  // guards the maps' shapes, not the histograms
  std::map<std::pair<std::string, unsigned>, std::uint64_t> requests_;
  std::map<std::string, std::unique_ptr<Histogram>, std::less<>> requestDurations_;
  std::map<std::string, std::unique_ptr<Histogram>, std::less<>> requestNodes_;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<Histogram>> pluginDurations_;
  // Labels come from small fixed sets (three resources, five event types, a dozen reasons).
  std::map<std::pair<std::string, std::string>, std::uint64_t, std::less<>> watchEvents_;
  std::map<std::pair<std::string, std::string>, std::uint64_t, std::less<>> watchRestarts_;
  std::map<std::string, std::uint64_t, std::less<>> bindings_;
  std::map<std::string, std::uint64_t, std::less<>> bindRefusals_;
  std::map<std::string, std::uint64_t, std::less<>> preemptionCandidates_;
  std::map<std::pair<std::string, std::string>, std::uint64_t, std::less<>> inFlightWaits_;
  std::map<std::string, std::unique_ptr<Histogram>, std::less<>> inFlightWaitDurations_;
  std::map<std::string, std::uint64_t, std::less<>> preemptionWaits_;
  Histogram publishDurations_;
};

}  // namespace server
