#include "scheduling/api/json/extender_codec.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <charconv>

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
    {"metadata", &kSentNodeMetadataSchema, &schema::self, &schema::resetSelf<SentNode>},
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

// --- ExtenderBindingArgs ---

constexpr Field kBindingArgsFields[] = {
    field<&ExtenderBindingArgs::podName>("PodName", kString),
    field<&ExtenderBindingArgs::podNamespace>("PodNamespace", kString),
    field<&ExtenderBindingArgs::podUID>("PodUID", kString),
    field<&ExtenderBindingArgs::node>("Node", kString),
};
constexpr Schema kBindingArgs{
    .type = SchemaType::Object, .expected = "an object", .fields = kBindingArgsFields};

// --- encoding ---

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void writeString(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

std::string take(rapidjson::StringBuffer& buffer) {
  return std::string(buffer.GetString(), buffer.GetSize());
}

// The answers of /filter and /prioritize list thousands of node names: they are appended
// straight into one string reserved up front, escaped exactly as RapidJSON's Writer does
// (the same bytes as the Writer-built answers of /preempt), rather than through the Writer,
// whose per-character stream and growing buffer cost more than the scheduling at 5k nodes.
void appendString(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out += '"';
  std::size_t run = 0;  // start of the bytes not yet appended
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

void appendInt(std::string& out, std::int64_t value) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, end);
}

void appendFailedNodes(std::string& out, std::string_view key, const WireMap<std::string>& failed) {
  out += key;
  out += '{';
  for (std::size_t i = 0; i < failed.size(); ++i) {
    if (i > 0) out += ',';
    appendString(out, failed[i].first);
    out += ':';
    appendString(out, failed[i].second);
  }
  out += '}';
}

// Room for a string of n bytes once quoted, most often enough (escapes only grow it).
std::size_t quotedSize(std::string_view s) { return s.size() + 2; }

}  // namespace

ExtenderArgs decodeExtenderArgs(std::string_view body) {
  return decodeRequest<ExtenderArgs>(body, kExtenderArgs);
}

ExtenderPreemptionArgs decodeExtenderPreemptionArgs(std::string_view body) {
  return decodeRequest<ExtenderPreemptionArgs>(body, kPreemptionArgs);
}

ExtenderBindingArgs decodeExtenderBindingArgs(std::string_view body) {
  ExtenderBindingArgs args;
  const Field document{"", &kBindingArgs, &schema::self, &schema::resetSelf<ExtenderBindingArgs>};
  Input in(body);
  Decoder(in, {}).decode(document, &args);
  // PodUID may be left out (kube-scheduler always sends it): the binding then has no UID
  // precondition. The others go into an API server path: only what a Kubernetes object name
  // may hold (a DNS subdomain: lower-case letters, digits, '-' and '.').
  const std::pair<std::string_view, const std::string*> required[] = {
      {"PodName", &args.podName}, {"PodNamespace", &args.podNamespace}, {"Node", &args.node}};
  for (const auto& [name, value] : required) {
    if (value->empty()) throw DecodeError(std::string(name), "missing or empty");
    const bool valid =
        value->size() <= 253 && std::all_of(value->begin(), value->end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
        });
    if (!valid) {
      throw DecodeError(std::string(name),
                        "not a valid object name (lower-case letters, digits, '-' and '.')");
    }
  }
  return args;
}

std::optional<SentNode> decodeSentNode(std::string_view text) {
  SentNode node;
  const Field root{"", &kSentNode, &schema::self, &schema::resetSelf<SentNode>};
  Input in(text);
  try {
    Decoder(in, {}).decodeFirst(root, &node);
  } catch (const DecodeError&) {
    // Read to the end: more bytes could have completed it, or shown another fault.
    if (in.exhausted()) return std::nullopt;
    throw;
  }
  return node;
}

std::string encode(const ExtenderFilterResult& result) {
  // One buffer sized up front. The Node objects go in exactly as they were sent, one memcpy
  // each: a 5000-node NodeList is ~50 MB.
  std::size_t size = 128 + quotedSize(result.error);
  if (result.nodes) {
    for (std::string_view raw : *result.nodes) size += raw.size() + 1;
  }
  if (result.nodeNames) {
    for (const auto& name : *result.nodeNames) size += quotedSize(name) + 1;
  }
  for (const auto* failed : {&result.failedNodes, &result.failedAndUnresolvableNodes}) {
    for (const auto& [node, reason] : *failed) size += quotedSize(node) + quotedSize(reason) + 2;
  }
  std::string out;
  out.reserve(size);
  if (result.nodes) {
    out += R"({"Nodes":{"metadata":{},"items":[)";
    for (std::size_t i = 0; i < result.nodes->size(); ++i) {
      if (i > 0) out += ',';
      out += (*result.nodes)[i];
    }
    out += "]},";
  } else {
    out += R"({"Nodes":null,)";
  }
  out += R"("NodeNames":)";
  if (result.nodeNames) {
    out += '[';
    for (std::size_t i = 0; i < result.nodeNames->size(); ++i) {
      if (i > 0) out += ',';
      appendString(out, (*result.nodeNames)[i]);
    }
    out += ']';
  } else {
    out += "null";
  }
  appendFailedNodes(out, R"(,"FailedNodes":)", result.failedNodes);
  appendFailedNodes(out, R"(,"FailedAndUnresolvableNodes":)", result.failedAndUnresolvableNodes);
  out += R"(,"Error":)";
  appendString(out, result.error);
  out += '}';
  return out;
}

std::string encode(const HostPriorityList& priorities) {
  std::size_t size = 2;
  for (const auto& p : priorities) size += quotedSize(p.host) + 32;
  std::string out;
  out.reserve(size);
  out += '[';
  for (std::size_t i = 0; i < priorities.size(); ++i) {
    if (i > 0) out += ',';
    out += R"({"Host":)";
    appendString(out, priorities[i].host);
    out += R"(,"Score":)";
    appendInt(out, priorities[i].score);
    out += '}';
  }
  out += ']';
  return out;
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

std::string encode(const ExtenderBindingResult& result) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("Error");
  writeString(w, result.error);
  w.EndObject();
  return take(buffer);
}

}  // namespace scheduling::api::json
