#include "scheduling/informers/backoff.hpp"

#include <algorithm>

namespace scheduling::informers {

Backoff::Backoff(Duration initial, Duration max, unsigned seed)
    : initial_(initial), max_(max), current_(initial), random_(seed) {}

Backoff::Duration Backoff::next() {
  const Duration delay = current_;
  current_ = std::min(max_, current_ * 2);
  std::uniform_int_distribution<Duration::rep> jitter(delay.count() / 2, delay.count());
  return Duration(jitter(random_));
}

}  // namespace scheduling::informers
