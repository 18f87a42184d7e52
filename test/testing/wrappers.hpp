#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scheduling/api/label_selector.hpp"
#include "scheduling/api/labels.hpp"
#include "scheduling/api/namespace.hpp"
#include "scheduling/api/node.hpp"
#include "scheduling/api/pod.hpp"
#include "scheduling/api/pod_disruption_budget.hpp"

// Fixture builders after upstream's pkg/scheduler/testing/wrappers.go (st.MakePod(),
// st.MakeNode(), st.MakeLabelSelector()), so ported test tables read like the Go ones:
//
//   testing::MakePod().name("p").ns("default").label("k", "v").node("n1")
//       .podAffinityIn("service", "region", {"securityscan"}, testing::kRequiredReq).obj();
namespace testing {

namespace api = scheduling::api;

// st.PodAffinityWithRequiredReq / st.PodAffinityWithPreferredReq.
enum class PodAffinityKind { Required, Preferred };
inline constexpr PodAffinityKind kRequiredReq = PodAffinityKind::Required;
inline constexpr PodAffinityKind kPreferredReq = PodAffinityKind::Preferred;

class MakeLabelSelector {
 public:
  MakeLabelSelector& label(std::string key, std::string value);
  MakeLabelSelector& in(std::string key, std::vector<std::string> values);
  MakeLabelSelector& notIn(std::string key, std::vector<std::string> values);
  MakeLabelSelector& exists(std::string key);
  MakeLabelSelector& notExist(std::string key);
  // Any operator, also an invalid one (for parse-error cases).
  MakeLabelSelector& expression(std::string key, std::string op, std::vector<std::string> values);
  api::LabelSelector obj() const { return selector_; }

 private:
  api::LabelSelector selector_;
};

// A v1.PodAffinityTerm: {labelSelector, namespaces, namespaceSelector, topologyKey}.
api::PodAffinityTerm affinityTerm(std::optional<api::LabelSelector> labelSelector,
                                  std::string topologyKey, std::vector<std::string> namespaces = {},
                                  std::optional<api::LabelSelector> namespaceSelector = {});

class MakePod {
 public:
  MakePod& name(std::string name);
  MakePod& ns(std::string ns);
  MakePod& uid(std::string uid);
  MakePod& label(std::string key, std::string value);
  MakePod& labels(std::initializer_list<api::Labels::Entry> labels);
  MakePod& labels(const api::Labels& labels);
  MakePod& node(std::string nodeName);
  MakePod& nominatedNodeName(std::string nodeName);
  MakePod& priority(std::int32_t priority);
  MakePod& phase(std::string phase);
  // Sets status.startTime, written as the API server writes it ("2024-05-01T10:00:00Z").
  MakePod& startTime(std::string_view rfc3339);
  MakePod& schedulerName(std::string name);
  // Sets metadata.deletionTimestamp.
  MakePod& terminating(std::string deletionTimestamp = "2024-01-01T00:00:00Z");

  // Replaces spec.affinity wholesale.
  MakePod& affinity(api::Affinity affinity);
  // Makes spec.affinity.podAffinity / .podAntiAffinity non-nil even without terms (such pods
  // still count in NodeInfo.PodsWithAffinity).
  MakePod& emptyPodAffinity();
  MakePod& emptyPodAntiAffinity();

  // Appends a term; a preferred one gets `weight`.
  MakePod& podAffinity(api::PodAffinityTerm term, PodAffinityKind kind, std::int32_t weight = 1);
  MakePod& podAntiAffinity(api::PodAffinityTerm term, PodAffinityKind kind,
                           std::int32_t weight = 1);

  // st.PodAffinityIn & co: one term whose selector has a single requirement on labelKey.
  MakePod& podAffinityIn(std::string labelKey, std::string topologyKey,
                         std::vector<std::string> values, PodAffinityKind kind);
  MakePod& podAffinityNotIn(std::string labelKey, std::string topologyKey,
                            std::vector<std::string> values, PodAffinityKind kind);
  MakePod& podAffinityExists(std::string labelKey, std::string topologyKey, PodAffinityKind kind);
  MakePod& podAffinityNotExists(std::string labelKey, std::string topologyKey,
                                PodAffinityKind kind);
  MakePod& podAntiAffinityIn(std::string labelKey, std::string topologyKey,
                             std::vector<std::string> values, PodAffinityKind kind);
  MakePod& podAntiAffinityNotIn(std::string labelKey, std::string topologyKey,
                                std::vector<std::string> values, PodAffinityKind kind);
  MakePod& podAntiAffinityExists(std::string labelKey, std::string topologyKey,
                                 PodAffinityKind kind);
  MakePod& podAntiAffinityNotExists(std::string labelKey, std::string topologyKey,
                                    PodAffinityKind kind);

  api::Pod obj() const { return pod_; }

 private:
  api::PodAffinity& podAffinityStruct();
  api::PodAffinity& podAntiAffinityStruct();

  api::Pod pod_;
};

class MakeNode {
 public:
  MakeNode& name(std::string name);
  MakeNode& label(std::string key, std::string value);
  MakeNode& labels(std::initializer_list<api::Labels::Entry> labels);
  MakeNode& labels(const api::Labels& labels);
  api::Node obj() const { return node_; }

 private:
  api::Node node_;
};

// A policy/v1 PodDisruptionBudget, as st.MakePDB builds one upstream.
class MakePodDisruptionBudget {
 public:
  MakePodDisruptionBudget& name(std::string name);
  MakePodDisruptionBudget& ns(std::string ns);
  MakePodDisruptionBudget& selector(std::optional<api::LabelSelector> selector);
  // spec.selector with one matchLabels entry.
  MakePodDisruptionBudget& matchLabel(std::string key, std::string value);
  MakePodDisruptionBudget& disruptionsAllowed(std::int32_t allowed);
  MakePodDisruptionBudget& disruptedPod(std::string podName);
  api::PodDisruptionBudget obj() const { return pdb_; }

 private:
  api::PodDisruptionBudget pdb_;
};

// The well-known topology labels (v1.LabelHostname, v1.LabelTopologyZone) the suites spread
// pods over.
inline constexpr const char* kHostname = "kubernetes.io/hostname";
inline constexpr const char* kZone = "topology.kubernetes.io/zone";

inline api::Namespace makeNamespace(std::string name, api::Labels labels = {}) {
  return api::Namespace{std::move(name), std::move(labels)};
}

}  // namespace testing
