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
// The scheduler then only reads the selector. A pod written by hand (a cluster-state file,
// a request body) may carry the keys without the merge, and is merged here; an expression
// identical to one the selector already has is not appended again, so merging is
// idempotent.
void applyMatchLabelKeysAndMismatchLabelKeys(Pod& pod);

// The merge for a pod just read: none for one an API server stored (metadata.resourceVersion
// set), which was merged once, at creation, with the labels it had then. Labels changed
// since do not move the stored selector, and kube-scheduler reads it as it is.
void mergeLabelKeysUnlessStored(Pod& pod);

}  // namespace scheduling::api
