#include "scheduling/preemption/victim_order.hpp"

namespace scheduling::preemption {

std::int64_t podStartTime(const api::Pod& pod, std::int64_t now) {
  return pod.status.startTime.has_value() ? pod.status.startTime.unixSeconds() : now;
}

bool moreImportantPod(const api::Pod& a, const api::Pod& b, std::int64_t now) {
  if (a.priority() != b.priority()) return a.priority() > b.priority();
  return podStartTime(a, now) < podStartTime(b, now);
}

}  // namespace scheduling::preemption
