#include "scheduling/api/json/object_schemas.hpp"

#include "scheduling/api/extender_types.hpp"
#include "scheduling/api/json/plain_strings.hpp"
#include "scheduling/api/match_label_keys.hpp"
#include "scheduling/api/namespace.hpp"
#include "scheduling/api/node.hpp"
#include "scheduling/api/pod.hpp"
#include "scheduling/api/pod_disruption_budget.hpp"

namespace scheduling::api::json {

namespace {

using schema::arrayOf;
using schema::field;
using schema::kInt32;
using schema::kString;
using schema::kStrings;
using schema::kTime;

void putLabel(void* labels, std::string_view key, std::string_view value) {
  static_cast<Labels*>(labels)->set(key, value);
}

void finishLabels(Decoder& /*decoder*/, void* labels) {
  static_cast<Labels*>(labels)->shrinkToFit();
}

// The fast path: labels that need no unescaping (nearly all) are read straight from the bytes.
std::size_t takePlainLabels(std::string_view bytes, void* labels) {
  return readPlainStringMap(bytes, labels, &putLabel);
}

struct LabelsSize {
  std::size_t labels = 0;
  std::size_t bytes = 0;
};

void countLabel(void* size, std::string_view key, std::string_view value) {
  auto& s = *static_cast<LabelsSize*>(size);
  ++s.labels;
  s.bytes += key.size() + value.size();
}

// Kept labels: measured first, so that they are stored at their size (no growing, no shrinking
// after) and so that a map cut short (by a file's read window, an escape) is left untouched
// for the decode event by event.
std::size_t takeLabels(std::string_view bytes, void* target) {
  LabelsSize size;
  if (readPlainStringMap(bytes, &size, &countLabel) == 0) return 0;
  auto& labels = *static_cast<Labels*>(target);
  if (size.labels > 0) labels.reserve(size.labels, size.bytes);
  const std::size_t taken = takePlainLabels(bytes, target);
  // Room is left only by a key repeated in the map, or a map merged into a set already read.
  labels.shrinkToFit();
  return taken;
}

constexpr Schema kLabels{.type = SchemaType::Map,
                         .expected = "an object of strings",
                         .finish = &finishLabels,
                         .element = &kString,
                         .put = &putLabel,
                         .take = &takeLabels};

// --- label selectors ---

constexpr Field kRequirementFields[] = {
    field<&LabelSelectorRequirement::key>("key", kString),
    field<&LabelSelectorRequirement::op>("operator", kString),
    field<&LabelSelectorRequirement::values>("values", kStrings),
};
constexpr Schema kRequirement{
    .type = SchemaType::Object, .expected = "an object", .fields = kRequirementFields};
constexpr Schema kRequirements = arrayOf<LabelSelectorRequirement>(kRequirement);

constexpr Field kLabelSelectorFields[] = {
    field<&LabelSelector::matchLabels>("matchLabels", kLabels),
    field<&LabelSelector::matchExpressions>("matchExpressions", kRequirements),
};
constexpr Schema kLabelSelector{
    .type = SchemaType::Object, .expected = "an object", .fields = kLabelSelectorFields};

// --- pod (anti-)affinity ---

constexpr Field kTermFields[] = {
    field<&PodAffinityTerm::labelSelector>("labelSelector", kLabelSelector),
    field<&PodAffinityTerm::namespaces>("namespaces", kStrings),
    field<&PodAffinityTerm::namespaceSelector>("namespaceSelector", kLabelSelector),
    field<&PodAffinityTerm::topologyKey>("topologyKey", kString),
    field<&PodAffinityTerm::matchLabelKeys>("matchLabelKeys", kStrings),
    field<&PodAffinityTerm::mismatchLabelKeys>("mismatchLabelKeys", kStrings),
};
constexpr Schema kTerm{.type = SchemaType::Object, .expected = "an object", .fields = kTermFields};
constexpr Schema kTerms = arrayOf<PodAffinityTerm>(kTerm);

constexpr Field kWeightedTermFields[] = {
    field<&WeightedPodAffinityTerm::weight>("weight", kInt32),
    field<&WeightedPodAffinityTerm::podAffinityTerm>("podAffinityTerm", kTerm),
};
constexpr Schema kWeightedTerm{
    .type = SchemaType::Object, .expected = "an object", .fields = kWeightedTermFields};
constexpr Schema kWeightedTerms = arrayOf<WeightedPodAffinityTerm>(kWeightedTerm);

constexpr Field kPodAffinityFields[] = {
    field<&PodAffinity::requiredDuringSchedulingIgnoredDuringExecution>(
        "requiredDuringSchedulingIgnoredDuringExecution", kTerms),
    field<&PodAffinity::preferredDuringSchedulingIgnoredDuringExecution>(
        "preferredDuringSchedulingIgnoredDuringExecution", kWeightedTerms),
};
constexpr Schema kPodAffinity{
    .type = SchemaType::Object, .expected = "an object", .fields = kPodAffinityFields};

constexpr Field kAffinityFields[] = {
    field<&Affinity::podAffinity>("podAffinity", kPodAffinity),
    field<&Affinity::podAntiAffinity>("podAntiAffinity", kPodAffinity),
};
constexpr Schema kAffinity{
    .type = SchemaType::Object, .expected = "an object", .fields = kAffinityFields};

// --- pod ---

// metadata.resourceVersion says only that an API server stored the object: its value goes
// to a per-thread sink, not into the object, which keeps the mark alone.
void* markStored(void* meta) {
  static_cast<ObjectMeta*>(meta)->storedByApiServer = true;
  thread_local std::string resourceVersion;
  return &resourceVersion;
}
void unmarkStored(void* meta) { static_cast<ObjectMeta*>(meta)->storedByApiServer = false; }

constexpr Field kObjectMetaFields[] = {
    field<&ObjectMeta::name>("name", kString),
    field<&ObjectMeta::ns>("namespace", kString),
    field<&ObjectMeta::uid>("uid", kString),
    field<&ObjectMeta::labels>("labels", kLabels),
    field<&ObjectMeta::deletionTimestamp>("deletionTimestamp", kString),
    {"resourceVersion", &kString, &markStored, &unmarkStored},
};
constexpr Schema kObjectMeta{
    .type = SchemaType::Object, .expected = "an object", .fields = kObjectMetaFields};

constexpr Field kPodSpecFields[] = {
    field<&PodSpec::nodeName>("nodeName", kString),
    field<&PodSpec::schedulerName>("schedulerName", kString),
    field<&PodSpec::priority>("priority", kInt32),
    field<&PodSpec::affinity>("affinity", kAffinity),
};
constexpr Schema kPodSpec{
    .type = SchemaType::Object, .expected = "an object", .fields = kPodSpecFields};

constexpr Field kPodStatusFields[] = {
    field<&PodStatus::phase>("phase", kString),
    field<&PodStatus::nominatedNodeName>("nominatedNodeName", kString),
    field<&PodStatus::startTime>("startTime", kTime),
};
constexpr Schema kPodStatus{
    .type = SchemaType::Object, .expected = "an object", .fields = kPodStatusFields};

constexpr Field kPodFields[] = {
    field<&Pod::metadata>("metadata", kObjectMeta),
    field<&Pod::spec>("spec", kPodSpec),
    field<&Pod::status>("status", kPodStatus),
};

void finishPod(Decoder&, void* pod) { mergeLabelKeysUnlessStored(*static_cast<Pod*>(pod)); }

// --- node and namespace: the name and labels of their metadata ---

template <typename T, const Schema& LabelsSchema>
constexpr Field kNameAndLabelsFields[] = {
    field<&T::name>("name", kString),
    field<&T::labels>("labels", LabelsSchema),
};

constexpr Schema kNodeMetadata{.type = SchemaType::Object,
                               .expected = "an object",
                               .fields = kNameAndLabelsFields<Node, kLabels>};
constexpr Field kNodeFields[] = {
    {"metadata", &kNodeMetadata, &schema::self, &schema::resetSelf<Node>},
};

constexpr Schema kNamespaceMetadata{.type = SchemaType::Object,
                                    .expected = "an object",
                                    .fields = kNameAndLabelsFields<Namespace, kLabels>};
constexpr Field kNamespaceFields[] = {
    {"metadata", &kNamespaceMetadata, &schema::self, &schema::resetSelf<Namespace>},
};

// --- pod disruption budget ---

constexpr Field kPodDisruptionBudgetSpecFields[] = {
    field<&PodDisruptionBudgetSpec::selector>("selector", kLabelSelector),
};
constexpr Schema kPodDisruptionBudgetSpec{
    .type = SchemaType::Object, .expected = "an object", .fields = kPodDisruptionBudgetSpecFields};

// status.disruptedPods maps a pod's name to when its eviction was admitted: only the names
// are kept.
void putDisruptedPod(void* names, std::string_view name, std::string_view /*admittedAt*/) {
  static_cast<std::vector<std::string>*>(names)->emplace_back(name);
}
constexpr Schema kDisruptedPods{.type = SchemaType::Map,
                                .expected = "an object of strings",
                                .element = &kString,
                                .put = &putDisruptedPod};

constexpr Field kPodDisruptionBudgetStatusFields[] = {
    field<&PodDisruptionBudgetStatus::disruptionsAllowed>("disruptionsAllowed", kInt32),
    field<&PodDisruptionBudgetStatus::disruptedPods>("disruptedPods", kDisruptedPods),
};
constexpr Schema kPodDisruptionBudgetStatus{.type = SchemaType::Object,
                                            .expected = "an object",
                                            .fields = kPodDisruptionBudgetStatusFields};

constexpr Field kPodDisruptionBudgetFields[] = {
    field<&PodDisruptionBudget::metadata>("metadata", kObjectMeta),
    field<&PodDisruptionBudget::spec>("spec", kPodDisruptionBudgetSpec),
    field<&PodDisruptionBudget::status>("status", kPodDisruptionBudgetStatus),
};

// The labels of a Node sent in ExtenderArgs live only as long as the request: not worth
// shrinking.
constexpr Schema kSentLabels{.type = SchemaType::Map,
                             .expected = "an object of strings",
                             .element = &kString,
                             .put = &putLabel,
                             .take = &takePlainLabels};

}  // namespace

constinit const Schema kPodSchema{.type = SchemaType::Object,
                                  .expected = "an object",
                                  .fields = kPodFields,
                                  .finish = &finishPod};

constinit const Schema kSentNodeMetadataSchema{
    .type = SchemaType::Object,
    .expected = "an object",
    .fields = kNameAndLabelsFields<SentNode, kSentLabels>};

constinit const Schema kNodeSchema{
    .type = SchemaType::Object, .expected = "an object", .fields = kNodeFields};

constinit const Schema kNamespaceSchema{
    .type = SchemaType::Object, .expected = "an object", .fields = kNamespaceFields};

constinit const Schema kPodDisruptionBudgetSchema{
    .type = SchemaType::Object, .expected = "an object", .fields = kPodDisruptionBudgetFields};

}  // namespace scheduling::api::json
