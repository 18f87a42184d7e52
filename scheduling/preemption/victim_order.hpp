#pragma once

#include <cstdint>

#include "scheduling/api/pod.hpp"

// The order in which preemption weighs the pods it may evict, after pkg/scheduler/util
// (MoreImportantPod, GetPodStartTime) and preemption.MoreImportantVictim for victims that are
// single pods.
namespace scheduling::preemption {

// util.GetPodStartTime: status.startTime, or `now` for a pod without one (assumed, or bound and
// not started yet), in seconds since the Unix epoch.
std::int64_t podStartTime(const api::Pod& pod, std::int64_t now);

// Whether `a` is more important than `b`: higher priority, or at equal priority started
// earlier. Victims are reprieved from the most important down, and listed in that order.
bool moreImportantPod(const api::Pod& a, const api::Pod& b, std::int64_t now);

}  // namespace scheduling::preemption
