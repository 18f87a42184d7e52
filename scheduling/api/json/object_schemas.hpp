#pragma once

#include "scheduling/api/json/schema.hpp"

// Schemas of the core/v1 objects the framework reads, shared by the extender codecs and the
// List reader. Each decodes into the type of the same name in scheduling/api.
namespace scheduling::api::json {

extern const Schema kPodSchema;        // api::Pod; merges matchLabelKeys when done
extern const Schema kNodeSchema;       // api::Node (metadata.name, metadata.labels)
extern const Schema kNamespaceSchema;  // api::Namespace (metadata.name, metadata.labels)
// api::PodDisruptionBudget (metadata, spec.selector, status.disruptionsAllowed and the keys of
// status.disruptedPods)
extern const Schema kPodDisruptionBudgetSchema;
// The metadata object of a Node sent in ExtenderArgs, decoded into the api::SentNode itself.
extern const Schema kSentNodeMetadataSchema;

}  // namespace scheduling::api::json
