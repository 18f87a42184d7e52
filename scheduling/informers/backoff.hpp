#pragma once

#include <chrono>
#include <random>

namespace scheduling::informers {

// Jittered exponential backoff between attempts to reach the API server. Each failure
// doubles the delay up to `max`; the delay actually waited is drawn from [delay/2, delay], so
// replicas that lost the API server together do not come back in step. reset() once a
// request succeeded again, so the next transient fault is healed within `initial`.
class Backoff {
 public:
  using Duration = std::chrono::milliseconds;

  Backoff(Duration initial, Duration max, unsigned seed);

  Duration next();
  void reset() { current_ = initial_; }

 private:
  Duration initial_;
  Duration max_;
  Duration current_;
  std::minstd_rand random_;
};

}  // namespace scheduling::informers
