#include "scheduling/api/json/api_server_codec.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "scheduling/api/decode_error.hpp"
#include "scheduling/api/json/decoder.hpp"
#include "scheduling/api/json/input.hpp"
#include "scheduling/api/json/object_schemas.hpp"
#include "scheduling/api/json/schema.hpp"

namespace scheduling::api::json {

namespace {

using schema::field;
using schema::kCapture;
using schema::kInt32;
using schema::kString;

void noReset(void*) {}

template <typename T>
const Schema& objectSchema();
template <>
const Schema& objectSchema<Pod>() {
  return kPodSchema;
}
template <>
const Schema& objectSchema<Node>() {
  return kNodeSchema;
}
template <>
const Schema& objectSchema<Namespace>() {
  return kNamespaceSchema;
}
template <>
const Schema& objectSchema<PodDisruptionBudget>() {
  return kPodDisruptionBudgetSchema;
}

// An object and its metadata.resourceVersion. The object's own schema has no place for the
// version (requests never need it), so decoding goes through routes that send
// metadata.resourceVersion here and every other member to the object's own fields.
template <typename T>
struct Versioned {
  T object;
  std::string resourceVersion;
};

template <typename T>
const Field& metadataField() {
  static const Field* const metadata = findField(objectSchema<T>().fields, "metadata");
  return *metadata;
}

template <typename T>
Route routeMetadataMember(void* target, std::string_view key) {
  static constexpr Field kResourceVersion =
      field<&Versioned<T>::resourceVersion>("resourceVersion", kString);
  auto& versioned = *static_cast<Versioned<T>*>(target);
  if (equalsIgnoreCase(key, kResourceVersion.name)) return {&kResourceVersion, &versioned};
  const Field& metadata = metadataField<T>();
  return {findField(metadata.schema->fields, key), metadata.access(&versioned.object)};
}

template <typename T>
constexpr Schema kVersionedMetadata{
    .type = SchemaType::Object, .expected = "an object", .route = &routeMetadataMember<T>};

template <typename T>
Route routeObjectMember(void* target, std::string_view key) {
  static constexpr Field kMetadata{"metadata", &kVersionedMetadata<T>, &schema::self, &noReset};
  auto& versioned = *static_cast<Versioned<T>*>(target);
  if (equalsIgnoreCase(key, kMetadata.name)) return {&kMetadata, &versioned};
  return {findField(objectSchema<T>().fields, key), &versioned.object};
}

template <typename T>
void finishObject(Decoder& decoder, void* target) {
  auto& object = static_cast<Versioned<T>*>(target)->object;
  // Routing took metadata.resourceVersion away from the object's metadata; what the API
  // server sends it has stored.
  if constexpr (requires { object.metadata.storedByApiServer; }) {
    object.metadata.storedByApiServer = true;
  }
  // The object's own finishing step, which routing bypassed.
  if (const auto finish = objectSchema<T>().finish) finish(decoder, &object);
}

template <typename T>
constexpr Schema kVersionedObject{.type = SchemaType::Object,
                                  .expected = "an object",
                                  .route = &routeObjectMember<T>,
                                  .finish = &finishObject<T>};

// --- list answers: the envelope's metadata; the items come one by one ---

constexpr Field kListMetaFields[] = {
    field<&ListMeta::resourceVersion>("resourceVersion", kString),
    field<&ListMeta::continueToken>("continue", kString),
};
constexpr Schema kListMeta{
    .type = SchemaType::Object, .expected = "an object", .fields = kListMetaFields};

constexpr Field kListEnvelopeFields[] = {
    {"metadata", &kListMeta, &schema::self, &noReset},
};
constexpr Schema kListEnvelope{
    .type = SchemaType::Object, .expected = "an object", .fields = kListEnvelopeFields};

// --- watch events and statuses ---

constexpr Field kStatusFields[] = {
    field<&Status::code>("code", kInt32),
    field<&Status::reason>("reason", kString),
    field<&Status::message>("message", kString),
};
constexpr Schema kStatus{
    .type = SchemaType::Object, .expected = "an object", .fields = kStatusFields};

// The envelope, with the object kept as text: its shape depends on `type`, which may come
// after it.
struct Envelope {
  std::string type;
  std::string object;
};
constexpr Field kEnvelopeFields[] = {
    field<&Envelope::type>("type", kString),
    field<&Envelope::object>("object", kCapture),
};
constexpr Schema kEnvelope{
    .type = SchemaType::Object, .expected = "an object", .fields = kEnvelopeFields};

WatchEventType eventType(const std::string& type) {
  if (type == "ADDED") return WatchEventType::Added;
  if (type == "MODIFIED") return WatchEventType::Modified;
  if (type == "DELETED") return WatchEventType::Deleted;
  if (type == "BOOKMARK") return WatchEventType::Bookmark;
  if (type == "ERROR") return WatchEventType::Error;
  throw DecodeError("type", "unknown watch event type \"" + type + "\"");
}

template <typename Target>
void decodeInto(std::string_view text, const Schema& schema, Target& target,
                std::string rootPath = {}) {
  const Field root{"", &schema, &schema::self, &noReset};
  Input in(text);
  Decoder(in, {}, std::move(rootPath)).decode(root, &target);
}

}  // namespace

template <typename T>
T decodeListItem(std::string_view text, std::size_t index) {
  T object;
  decodeInto(text, objectSchema<T>(), object, "items[" + std::to_string(index) + "]");
  return object;
}

template <typename T>
T decodeObject(std::string_view text) {
  T object;
  decodeInto(text, objectSchema<T>(), object, "");
  return object;
}

ListMeta decodeListMeta(std::string_view envelope) {
  ListMeta meta;
  decodeInto(envelope, kListEnvelope, meta);
  return meta;
}

template <typename T>
WatchEvent<T> decodeWatchEvent(std::string_view text) {
  Envelope envelope;
  decodeInto(text, kEnvelope, envelope);
  WatchEvent<T> event;
  event.type = eventType(envelope.type);
  if (envelope.object.empty()) throw DecodeError("object", "missing");
  if (event.type == WatchEventType::Error) {
    decodeInto(envelope.object, kStatus, event.status, "object");
  } else {
    Versioned<T> versioned;
    decodeInto(envelope.object, kVersionedObject<T>, versioned, "object");
    event.object = std::move(versioned.object);
    event.resourceVersion = std::move(versioned.resourceVersion);
  }
  return event;
}

Status decodeStatus(std::string_view body) {
  Status status;
  decodeInto(body, kStatus, status);
  return status;
}

std::string encodeBinding(std::string_view ns, std::string_view name, std::string_view uid,
                          std::string_view node) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  const auto string = [&w](std::string_view s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartObject();
  w.Key("apiVersion");
  w.String("v1");
  w.Key("kind");
  w.String("Binding");
  w.Key("metadata");
  w.StartObject();
  w.Key("name");
  string(name);
  w.Key("namespace");
  string(ns);
  if (!uid.empty()) {
    w.Key("uid");
    string(uid);
  }
  w.EndObject();
  w.Key("target");
  w.StartObject();
  w.Key("apiVersion");
  w.String("v1");
  w.Key("kind");
  w.String("Node");
  w.Key("name");
  string(node);
  w.EndObject();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

template Pod decodeListItem<Pod>(std::string_view, std::size_t);
template Node decodeListItem<Node>(std::string_view, std::size_t);
template Namespace decodeListItem<Namespace>(std::string_view, std::size_t);
template PodDisruptionBudget decodeListItem<PodDisruptionBudget>(std::string_view, std::size_t);
template Pod decodeObject<Pod>(std::string_view);
template WatchEvent<Pod> decodeWatchEvent<Pod>(std::string_view);
template WatchEvent<Node> decodeWatchEvent<Node>(std::string_view);
template WatchEvent<Namespace> decodeWatchEvent<Namespace>(std::string_view);
template WatchEvent<PodDisruptionBudget> decodeWatchEvent<PodDisruptionBudget>(std::string_view);

}  // namespace scheduling::api::json
