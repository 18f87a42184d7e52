#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scheduling/api/boxed_optional.hpp"
#include "scheduling/api/label_selector.hpp"
#include "scheduling/api/labels.hpp"
#include "scheduling/api/time.hpp"

namespace scheduling::api {

// The subset of core/v1 objects the scheduling framework reads. Everything else in the
// JSON (containers, volumes, managedFields, status.conditions, ...) is skipped while
// decoding, so a cached pod costs a few hundred bytes instead of kilobytes.

struct ObjectMeta {
  std::string name;
  std::string ns;  // metadata.namespace
  std::string uid;
  Labels labels;
  BoxedOptional<std::string> deletionTimestamp;
  // metadata.resourceVersion was set: the object is as an API server stored it, so the
  // API server's mutations at creation (matchLabelKeys merged) are already in it.
  bool storedByApiServer = false;
  bool operator==(const ObjectMeta&) const = default;
};

struct PodAffinityTerm {
  std::optional<LabelSelector> labelSelector;
  std::vector<std::string> namespaces;
  std::optional<LabelSelector> namespaceSelector;
  std::string topologyKey;
  std::vector<std::string> matchLabelKeys;
  std::vector<std::string> mismatchLabelKeys;
  bool operator==(const PodAffinityTerm&) const = default;
};

struct WeightedPodAffinityTerm {
  std::int32_t weight = 0;
  PodAffinityTerm podAffinityTerm;
  bool operator==(const WeightedPodAffinityTerm&) const = default;
};

// v1.PodAffinity and v1.PodAntiAffinity share this shape.
struct PodAffinity {
  std::vector<PodAffinityTerm> requiredDuringSchedulingIgnoredDuringExecution;
  std::vector<WeightedPodAffinityTerm> preferredDuringSchedulingIgnoredDuringExecution;
  bool operator==(const PodAffinity&) const = default;
};

struct Affinity {
  std::optional<PodAffinity> podAffinity;
  std::optional<PodAffinity> podAntiAffinity;
  bool operator==(const Affinity&) const = default;
};

struct PodSpec {
  std::string nodeName;
  std::string schedulerName;
  std::optional<std::int32_t> priority;
  BoxedOptional<Affinity> affinity;
  bool operator==(const PodSpec&) const = default;
};

struct PodStatus {
  std::string phase;
  std::string nominatedNodeName;
  // When the kubelet started the pod; preemption spares the pods that started first.
  OptionalTime startTime;
  bool operator==(const PodStatus&) const = default;
};

struct Pod {
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;

  // The priority kube-scheduler compares (corev1helpers.PodPriority): unset means 0.
  std::int32_t priority() const { return spec.priority.value_or(0); }
  bool isTerminating() const { return metadata.deletionTimestamp.has_value(); }
  bool isTerminal() const { return status.phase == "Succeeded" || status.phase == "Failed"; }
  // The key the cache holds the pod under: its UID, which the API server always sets, or
  // namespace/name for a pod that came without one (a hand-written file), unique as well.
  std::string cacheKey() const {
    return metadata.uid.empty() ? metadata.ns + "/" + metadata.name : metadata.uid;
  }
  bool operator==(const Pod&) const = default;
};

}  // namespace scheduling::api
