#pragma once

#include "scheduling/api/pod.hpp"

namespace scheduling::api {

// What the API server does to a pod at creation (pkg/registry/core/pod/strategy.go,
// mutatePodAffinity → applyMatchLabelKeysAndMismatchLabelKeys): for every required and
// preferred term of podAffinity and podAntiAffinity with a labelSelector, each
// matchLabelKeys key that the pod's own labels carry becomes `key In (value)` and each
// mismatchLabelKeys key `key NotIn (value)`, appended to the selector's matchExpressions.
// Keys the pod does not carry are ignored, and a nil labelSelector stays nil.
//
// The scheduler then only reads the selector. Pods read here usually come from the API
// server, already merged, so an expression identical to one the selector already has is
// not appended again: merging is idempotent.
void applyMatchLabelKeysAndMismatchLabelKeys(Pod& pod);

}  // namespace scheduling::api
