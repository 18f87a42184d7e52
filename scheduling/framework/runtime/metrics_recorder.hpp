#pragma once

#include <chrono>
#include <string_view>

// How the framework reports the time its plugins take (framework/runtime's metrics recorder,
// scheduler_plugin_execution_duration_seconds upstream), without knowing where it goes.
namespace scheduling::framework::runtime {

// Takes one duration. Called from many workers at once: implementations must be lock-free
// or close to it, since Filter and Score report once per node.
class DurationObserver {
 public:
  virtual ~DurationObserver() = default;
  virtual void observe(double seconds) = 0;
};

class MetricsRecorder {
 public:
  virtual ~MetricsRecorder() = default;
  // The observer for one plugin at one extension point ("PreFilter", "Filter", "PreScore",
  // "Score", "NormalizeScore"); asked once per pair when the recorder is attached, and kept.
  virtual DurationObserver& pluginDuration(std::string_view plugin,
                                           std::string_view extensionPoint) = 0;
};

// Times a scope into an observer, or does nothing without one.
class ScopedDuration {
 public:
  explicit ScopedDuration(DurationObserver* observer)
      : observer_(observer),
        start_(observer != nullptr ? std::chrono::steady_clock::now()
                                   : std::chrono::steady_clock::time_point{}) {}
  ~ScopedDuration() {
    if (observer_ == nullptr) return;
    observer_->observe(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
  }
  ScopedDuration(const ScopedDuration&) = delete;
  ScopedDuration& operator=(const ScopedDuration&) = delete;

 private:
  DurationObserver* observer_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace scheduling::framework::runtime
