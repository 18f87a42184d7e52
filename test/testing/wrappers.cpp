#include "test/testing/wrappers.hpp"

#include <stdexcept>

namespace testing {

MakeLabelSelector& MakeLabelSelector::label(std::string key, std::string value) {
  selector_.matchLabels.set(std::move(key), std::move(value));
  return *this;
}

MakeLabelSelector& MakeLabelSelector::expression(std::string key, std::string op,
                                                 std::vector<std::string> values) {
  selector_.matchExpressions.push_back({std::move(key), std::move(op), std::move(values)});
  return *this;
}

MakeLabelSelector& MakeLabelSelector::in(std::string key, std::vector<std::string> values) {
  return expression(std::move(key), "In", std::move(values));
}

MakeLabelSelector& MakeLabelSelector::notIn(std::string key, std::vector<std::string> values) {
  return expression(std::move(key), "NotIn", std::move(values));
}

MakeLabelSelector& MakeLabelSelector::exists(std::string key) {
  return expression(std::move(key), "Exists", {});
}

MakeLabelSelector& MakeLabelSelector::notExist(std::string key) {
  return expression(std::move(key), "DoesNotExist", {});
}

api::PodAffinityTerm affinityTerm(std::optional<api::LabelSelector> labelSelector,
                                  std::string topologyKey, std::vector<std::string> namespaces,
                                  std::optional<api::LabelSelector> namespaceSelector) {
  api::PodAffinityTerm term;
  term.labelSelector = std::move(labelSelector);
  term.namespaces = std::move(namespaces);
  term.namespaceSelector = std::move(namespaceSelector);
  term.topologyKey = std::move(topologyKey);
  return term;
}

MakePod& MakePod::name(std::string name) {
  pod_.metadata.name = std::move(name);
  return *this;
}

MakePod& MakePod::ns(std::string ns) {
  pod_.metadata.ns = std::move(ns);
  return *this;
}

MakePod& MakePod::uid(std::string uid) {
  pod_.metadata.uid = std::move(uid);
  return *this;
}

MakePod& MakePod::label(std::string key, std::string value) {
  pod_.metadata.labels.set(std::move(key), std::move(value));
  return *this;
}

MakePod& MakePod::labels(std::initializer_list<api::Labels::Entry> labels) {
  for (const auto& [k, v] : labels) pod_.metadata.labels.set(k, v);
  return *this;
}

MakePod& MakePod::labels(const api::Labels& labels) {
  for (const auto& [k, v] : labels) pod_.metadata.labels.set(k, v);
  return *this;
}

MakePod& MakePod::node(std::string nodeName) {
  pod_.spec.nodeName = std::move(nodeName);
  return *this;
}

MakePod& MakePod::nominatedNodeName(std::string nodeName) {
  pod_.status.nominatedNodeName = std::move(nodeName);
  return *this;
}

MakePod& MakePod::priority(std::int32_t priority) {
  pod_.spec.priority = priority;
  return *this;
}

MakePod& MakePod::phase(std::string phase) {
  pod_.status.phase = std::move(phase);
  return *this;
}

MakePod& MakePod::startTime(std::string_view rfc3339) {
  const auto seconds = api::parseRfc3339(rfc3339);
  if (!seconds) throw std::invalid_argument("not an RFC 3339 time: " + std::string(rfc3339));
  pod_.status.startTime = api::OptionalTime::fromUnixSeconds(*seconds);
  return *this;
}

MakePod& MakePod::schedulerName(std::string name) {
  pod_.spec.schedulerName = std::move(name);
  return *this;
}

MakePod& MakePod::terminating(std::string deletionTimestamp) {
  pod_.metadata.deletionTimestamp = std::move(deletionTimestamp);
  return *this;
}

MakePod& MakePod::affinity(api::Affinity affinity) {
  pod_.spec.affinity = std::move(affinity);
  return *this;
}

api::PodAffinity& MakePod::podAffinityStruct() {
  if (!pod_.spec.affinity) pod_.spec.affinity.emplace();
  if (!pod_.spec.affinity->podAffinity) pod_.spec.affinity->podAffinity.emplace();
  return *pod_.spec.affinity->podAffinity;
}

api::PodAffinity& MakePod::podAntiAffinityStruct() {
  if (!pod_.spec.affinity) pod_.spec.affinity.emplace();
  if (!pod_.spec.affinity->podAntiAffinity) pod_.spec.affinity->podAntiAffinity.emplace();
  return *pod_.spec.affinity->podAntiAffinity;
}

MakePod& MakePod::emptyPodAffinity() {
  podAffinityStruct();
  return *this;
}

MakePod& MakePod::emptyPodAntiAffinity() {
  podAntiAffinityStruct();
  return *this;
}

namespace {

void appendTerm(api::PodAffinity& target, api::PodAffinityTerm term, PodAffinityKind kind,
                std::int32_t weight) {
  if (kind == PodAffinityKind::Required) {
    target.requiredDuringSchedulingIgnoredDuringExecution.push_back(std::move(term));
  } else {
    target.preferredDuringSchedulingIgnoredDuringExecution.push_back({weight, std::move(term)});
  }
}

}  // namespace

MakePod& MakePod::podAffinity(api::PodAffinityTerm term, PodAffinityKind kind,
                              std::int32_t weight) {
  appendTerm(podAffinityStruct(), std::move(term), kind, weight);
  return *this;
}

MakePod& MakePod::podAntiAffinity(api::PodAffinityTerm term, PodAffinityKind kind,
                                  std::int32_t weight) {
  appendTerm(podAntiAffinityStruct(), std::move(term), kind, weight);
  return *this;
}

MakePod& MakePod::podAffinityIn(std::string labelKey, std::string topologyKey,
                                std::vector<std::string> values, PodAffinityKind kind) {
  return podAffinity(
      affinityTerm(MakeLabelSelector().in(std::move(labelKey), std::move(values)).obj(),
                   std::move(topologyKey)),
      kind);
}

MakePod& MakePod::podAffinityNotIn(std::string labelKey, std::string topologyKey,
                                   std::vector<std::string> values, PodAffinityKind kind) {
  return podAffinity(
      affinityTerm(MakeLabelSelector().notIn(std::move(labelKey), std::move(values)).obj(),
                   std::move(topologyKey)),
      kind);
}

MakePod& MakePod::podAffinityExists(std::string labelKey, std::string topologyKey,
                                    PodAffinityKind kind) {
  return podAffinity(
      affinityTerm(MakeLabelSelector().exists(std::move(labelKey)).obj(), std::move(topologyKey)),
      kind);
}

MakePod& MakePod::podAffinityNotExists(std::string labelKey, std::string topologyKey,
                                       PodAffinityKind kind) {
  return podAffinity(
      affinityTerm(MakeLabelSelector().notExist(std::move(labelKey)).obj(), std::move(topologyKey)),
      kind);
}

MakePod& MakePod::podAntiAffinityIn(std::string labelKey, std::string topologyKey,
                                    std::vector<std::string> values, PodAffinityKind kind) {
  return podAntiAffinity(
      affinityTerm(MakeLabelSelector().in(std::move(labelKey), std::move(values)).obj(),
                   std::move(topologyKey)),
      kind);
}

MakePod& MakePod::podAntiAffinityNotIn(std::string labelKey, std::string topologyKey,
                                       std::vector<std::string> values, PodAffinityKind kind) {
  return podAntiAffinity(
      affinityTerm(MakeLabelSelector().notIn(std::move(labelKey), std::move(values)).obj(),
                   std::move(topologyKey)),
      kind);
}

MakePod& MakePod::podAntiAffinityExists(std::string labelKey, std::string topologyKey,
                                        PodAffinityKind kind) {
  return podAntiAffinity(
      affinityTerm(MakeLabelSelector().exists(std::move(labelKey)).obj(), std::move(topologyKey)),
      kind);
}

MakePod& MakePod::podAntiAffinityNotExists(std::string labelKey, std::string topologyKey,
                                           PodAffinityKind kind) {
  return podAntiAffinity(
      affinityTerm(MakeLabelSelector().notExist(std::move(labelKey)).obj(), std::move(topologyKey)),
      kind);
}

MakeNode& MakeNode::name(std::string name) {
  node_.name = std::move(name);
  return *this;
}

MakeNode& MakeNode::label(std::string key, std::string value) {
  node_.labels.set(std::move(key), std::move(value));
  return *this;
}

MakeNode& MakeNode::labels(std::initializer_list<api::Labels::Entry> labels) {
  for (const auto& [k, v] : labels) node_.labels.set(k, v);
  return *this;
}

MakeNode& MakeNode::labels(const api::Labels& labels) {
  for (const auto& [k, v] : labels) node_.labels.set(k, v);
  return *this;
}

MakePodDisruptionBudget& MakePodDisruptionBudget::name(std::string name) {
  pdb_.metadata.name = std::move(name);
  return *this;
}

MakePodDisruptionBudget& MakePodDisruptionBudget::ns(std::string ns) {
  pdb_.metadata.ns = std::move(ns);
  return *this;
}

MakePodDisruptionBudget& MakePodDisruptionBudget::selector(
    std::optional<api::LabelSelector> selector) {
  pdb_.spec.selector = std::move(selector);
  return *this;
}

MakePodDisruptionBudget& MakePodDisruptionBudget::matchLabel(std::string key, std::string value) {
  if (!pdb_.spec.selector) pdb_.spec.selector.emplace();
  pdb_.spec.selector->matchLabels.set(std::move(key), std::move(value));
  return *this;
}

MakePodDisruptionBudget& MakePodDisruptionBudget::disruptionsAllowed(std::int32_t allowed) {
  pdb_.status.disruptionsAllowed = allowed;
  return *this;
}

MakePodDisruptionBudget& MakePodDisruptionBudget::disruptedPod(std::string podName) {
  pdb_.status.disruptedPods.push_back(std::move(podName));
  return *this;
}

}  // namespace testing
