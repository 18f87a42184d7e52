#include "scheduling/api/json/extender_codec.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "scheduling/api/decode_error.hpp"
#include "scheduling/api/json/decoder.hpp"
#include "scheduling/api/json/input.hpp"
#include "scheduling/api/json/object_schemas.hpp"
#include "scheduling/api/json/schema.hpp"

namespace scheduling::api::json {

namespace {

using schema::arrayOf;
using schema::field;
using schema::kInt64;
using schema::kString;
using schema::kStrings;

// A request and whether its Pod was there: a missing (or null) Pod is bad input.
template <typename Args>
struct Request {
  Args args;
  bool hasPod = false;
};

template <typename Args>
void* requestPod(void* owner) {
  auto* request = static_cast<Request<Args>*>(owner);
  request->hasPod = true;
  return &request->args.pod;
}

template <typename Args>
void resetRequestPod(void* owner) {
  auto* request = static_cast<Request<Args>*>(owner);
  request->hasPod = false;
  request->args.pod = Pod{};
}

template <typename Args, auto M>
void* requestMember(void* owner) {
  return schema::member<M>(&static_cast<Request<Args>*>(owner)->args);
}

template <typename Args, auto M>
void resetRequestMember(void* owner) {
  schema::resetMember<M>(&static_cast<Request<Args>*>(owner)->args);
}

template <typename Args, auto M>
constexpr Field requestField(std::string_view name, const Schema& schema) {
  return Field{name, &schema, &requestMember<Args, M>, &resetRequestMember<Args, M>};
}

template <typename Args>
constexpr Field podField() {
  return Field{"Pod", &kPodSchema, &requestPod<Args>, &resetRequestPod<Args>};
}

template <typename Args>
Args decodeRequest(std::string_view body, const Schema& argsSchema) {
  Request<Args> request;
  // The whole document is the root member of its Request.
  const Field document{"", &argsSchema, &schema::self, &schema::resetSelf<Request<Args>>};
  Input in(body);
  Decoder(in, {}).decode(document, &request);
  if (!request.hasPod) throw DecodeError("Pod", "missing");
  return std::move(request.args);
}

// --- ExtenderArgs ---

void sentNodeRaw(void* node, std::string_view bytes) { static_cast<SentNode*>(node)->raw = bytes; }

constexpr Field kSentNodeFields[] = {
    field<&SentNode::node>("metadata", kNodeMetadataSchema),
};
constexpr Schema kSentNode{.type = SchemaType::Object,
                           .expected = "an object",
                           .fields = kSentNodeFields,
                           .raw = &sentNodeRaw};
constexpr Schema kSentNodes = arrayOf<SentNode>(kSentNode);

// A NodeList whose C++ side is just its items.
constexpr Field kNodeListFields[] = {
    {"items", &kSentNodes, &schema::self, &schema::resetSelf<std::vector<SentNode>>},
};
constexpr Schema kNodeList{
    .type = SchemaType::Object, .expected = "an object", .fields = kNodeListFields};

constexpr Field kExtenderArgsFields[] = {
    podField<ExtenderArgs>(),
    requestField<ExtenderArgs, &ExtenderArgs::nodes>("Nodes", kNodeList),
    requestField<ExtenderArgs, &ExtenderArgs::nodeNames>("NodeNames", kStrings),
};
constexpr Schema kExtenderArgs{
    .type = SchemaType::Object, .expected = "an object", .fields = kExtenderArgsFields};

// --- ExtenderPreemptionArgs ---

template <typename V>
void* addToWireMap(void* map, std::string_view key) {
  return &static_cast<WireMap<V>*>(map)->emplace_back(std::string(key), V{}).second;
}

constexpr Schema kPods = arrayOf<Pod>(kPodSchema);
constexpr Field kVictimsFields[] = {
    field<&Victims::pods>("Pods", kPods),
    field<&Victims::numPDBViolations>("NumPDBViolations", kInt64),
};
constexpr Schema kVictims{
    .type = SchemaType::Object, .expected = "an object", .fields = kVictimsFields};
constexpr Schema kVictimsMap{.type = SchemaType::Map,
                             .expected = "an object",
                             .element = &kVictims,
                             .add = &addToWireMap<Victims>};

// A MetaPod ({"UID": ...}) whose C++ side is just the UID.
constexpr Field kMetaPodFields[] = {
    {"UID", &kString, &schema::self, &schema::resetSelf<std::string>},
};
constexpr Schema kMetaPod{
    .type = SchemaType::Object, .expected = "an object", .fields = kMetaPodFields};
constexpr Schema kMetaPods = arrayOf<std::string>(kMetaPod);
constexpr Field kMetaVictimsFields[] = {
    field<&MetaVictims::podUIDs>("Pods", kMetaPods),
    field<&MetaVictims::numPDBViolations>("NumPDBViolations", kInt64),
};
constexpr Schema kMetaVictims{
    .type = SchemaType::Object, .expected = "an object", .fields = kMetaVictimsFields};
constexpr Schema kMetaVictimsMap{.type = SchemaType::Map,
                                 .expected = "an object",
                                 .element = &kMetaVictims,
                                 .add = &addToWireMap<MetaVictims>};

constexpr Field kPreemptionArgsFields[] = {
    podField<ExtenderPreemptionArgs>(),
    requestField<ExtenderPreemptionArgs, &ExtenderPreemptionArgs::nodeNameToVictims>(
        "NodeNameToVictims", kVictimsMap),
    requestField<ExtenderPreemptionArgs, &ExtenderPreemptionArgs::nodeNameToMetaVictims>(
        "NodeNameToMetaVictims", kMetaVictimsMap),
};
constexpr Schema kPreemptionArgs{
    .type = SchemaType::Object, .expected = "an object", .fields = kPreemptionArgsFields};

// --- encoding ---

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void writeString(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void writeFailedNodes(Writer& w, const char* name, const WireMap<std::string>& failed) {
  w.Key(name);
  w.StartObject();
  for (const auto& [node, reason] : failed) {
    writeString(w, node);
    writeString(w, reason);
  }
  w.EndObject();
}

std::string take(rapidjson::StringBuffer& buffer) {
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

ExtenderArgs decodeExtenderArgs(std::string_view body) {
  return decodeRequest<ExtenderArgs>(body, kExtenderArgs);
}

ExtenderPreemptionArgs decodeExtenderPreemptionArgs(std::string_view body) {
  return decodeRequest<ExtenderPreemptionArgs>(body, kPreemptionArgs);
}

std::string encode(const ExtenderFilterResult& result) {
  // Everything but the echoed Node objects, as one object: {"NodeNames":...,"Error":...}.
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("NodeNames");
  if (result.nodeNames) {
    w.StartArray();
    for (const auto& name : *result.nodeNames) writeString(w, name);
    w.EndArray();
  } else {
    w.Null();
  }
  writeFailedNodes(w, "FailedNodes", result.failedNodes);
  writeFailedNodes(w, "FailedAndUnresolvableNodes", result.failedAndUnresolvableNodes);
  w.Key("Error");
  writeString(w, result.error);
  w.EndObject();
  const std::string_view rest(buffer.GetString() + 1, buffer.GetSize() - 1);  // without '{'

  // The Node objects go in exactly as they were sent, copied with memcpy into one buffer
  // sized up front: a 5000-node NodeList is ~50 MB, which RapidJSON's byte-wise RawValue
  // and its growing buffer would copy several times over.
  if (!result.nodes) return "{\"Nodes\":null," + std::string(rest);
  std::size_t size = rest.size() + 64;
  for (std::string_view raw : *result.nodes) size += raw.size() + 1;
  std::string out;
  out.reserve(size);
  out += R"({"Nodes":{"metadata":{},"items":[)";
  for (std::size_t i = 0; i < result.nodes->size(); ++i) {
    if (i > 0) out += ',';
    out += (*result.nodes)[i];
  }
  out += "]},";
  out += rest;
  return out;
}

std::string encode(const HostPriorityList& priorities) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartArray();
  for (const auto& p : priorities) {
    w.StartObject();
    w.Key("Host");
    writeString(w, p.host);
    w.Key("Score");
    w.Int64(p.score);
    w.EndObject();
  }
  w.EndArray();
  return take(buffer);
}

std::string encode(const ExtenderPreemptionResult& result) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("NodeNameToMetaVictims");
  w.StartObject();
  for (const auto& [node, victims] : result.nodeNameToMetaVictims) {
    writeString(w, node);
    w.StartObject();
    w.Key("Pods");
    w.StartArray();
    for (const auto& uid : victims.podUIDs) {
      w.StartObject();
      w.Key("UID");
      writeString(w, uid);
      w.EndObject();
    }
    w.EndArray();
    w.Key("NumPDBViolations");
    w.Int64(victims.numPDBViolations);
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return take(buffer);
}

}  // namespace scheduling::api::json
