#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "scheduling/api/namespace.hpp"
#include "scheduling/api/node.hpp"
#include "scheduling/api/pod.hpp"
#include "scheduling/api/pod_disruption_budget.hpp"

// Decoders of what the Kubernetes API server answers the informers: the items and metadata of
// a typed list (PodList, NodeList, NamespaceList, PodDisruptionBudgetList), one watch event,
// and a metav1.Status. They share the object schemas of the extender codecs, so a pod from a
// watch is read exactly as a pod in a request or in the cluster-state file. They throw
// api::DecodeError naming the JSON path.
namespace scheduling::api::json {

// metav1.ListMeta: where a list stands, and how to ask for the next page.
struct ListMeta {
  std::string resourceVersion;
  std::string continueToken;  // metadata.continue; empty on the last page
};

// metav1.Status, as the API server sends it with an error code or in an ERROR event.
struct Status {
  std::int32_t code = 0;
  std::string reason;  // e.g. "Expired", "Gone"
  std::string message;
};

enum class WatchEventType { Added, Modified, Deleted, Bookmark, Error };

// One event of a watch stream of T (api::Pod, api::Node, api::Namespace or
// api::PodDisruptionBudget).
template <typename T>
struct WatchEvent {
  WatchEventType type = WatchEventType::Added;
  // metadata.resourceVersion of the object; for a BOOKMARK, how far the watch has got.
  std::string resourceVersion;
  T object;       // empty for ERROR
  Status status;  // ERROR only
};

// Decodes one item of a list answer, as informers::ListStreamSplitter cuts them out;
// `index` names it in errors (`items[12].metadata.name`).
template <typename T>
T decodeListItem(std::string_view text, std::size_t index);

// Decodes the answer to a GET of one object (GET /api/v1/namespaces/{ns}/pods/{name}).
template <typename T>
T decodeObject(std::string_view text);

// Decodes the metadata of a list answer; its items, if any, are not read.
ListMeta decodeListMeta(std::string_view envelope);

// Decodes one watch event: {"type": ..., "object": ...}. An unknown type is an error.
template <typename T>
WatchEvent<T> decodeWatchEvent(std::string_view text);

Status decodeStatus(std::string_view body);

// The v1 Binding of a pod to a node, as kube-scheduler's DefaultBinder creates it
// (POST /api/v1/namespaces/{ns}/pods/{name}/binding); a non-empty `uid` is the API server's
// precondition that the pod was not recreated under the same name.
std::string encodeBinding(std::string_view ns, std::string_view name, std::string_view uid,
                          std::string_view node);

}  // namespace scheduling::api::json
