#include "scheduling/api/json/extender_codec.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>

#include "scheduling/api/decode_error.hpp"
#include "scheduling/api/json/answer_writer.hpp"
#include "scheduling/api/json/decoder.hpp"
#include "scheduling/api/json/input.hpp"
#include "scheduling/api/json/object_schemas.hpp"
#include "scheduling/api/json/plain_strings.hpp"
#include "scheduling/api/json/schema.hpp"

namespace scheduling::api::json {

namespace {

using schema::arrayOf;
using schema::field;
using schema::kInt64;
using schema::kString;

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
Args decodeRequest(std::string_view body, const Schema& argsSchema,
                   Decoder::FastPaths fastPaths = Decoder::FastPaths::On) {
  Request<Args> request;
  // The whole document is the root member of its Request.
  const Field document{"", &argsSchema, &schema::self, &schema::resetSelf<Request<Args>>};
  Input in(body);
  Decoder(in, {}, {}, fastPaths).decode(document, &request);
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

// NodeNames decodes into the ExtenderArgs itself, which holds the names' views and the copies
// of those that cannot view the body.
void* nodeNamesArgs(void* owner) { return &static_cast<Request<ExtenderArgs>*>(owner)->args; }

void resetNodeNames(void* owner) {
  static_cast<Request<ExtenderArgs>*>(owner)->args.nodeNames.reset();
}

void clearNodeNames(void* args) { static_cast<ExtenderArgs*>(args)->nodeNames.emplace(); }

// A null element: as in Go, the string is left empty. There is nothing more to fill.
void* addNullNodeName(void* args, std::string_view) {
  static_cast<ExtenderArgs*>(args)->nodeNames->emplace_back();
  return nullptr;
}

// A name decoded event by event arrives unescaped in RapidJSON's buffer: it is copied.
void putNodeName(void* args, std::string_view, std::string_view name) {
  static_cast<ExtenderArgs*>(args)->copyNodeName(name);
}

// The fast path: names that need no unescaping (all of them, nearly always) view the body.
std::size_t takeNodeNames(std::string_view bytes, void* args) {
  PlainStrings read = readPlainStrings(bytes);
  if (read.length > 0) static_cast<ExtenderArgs*>(args)->nodeNames = std::move(read.strings);
  return read.length;
}

constexpr Schema kNodeNames{.type = SchemaType::Array,
                            .expected = "an array",
                            .element = &kString,
                            .add = &addNullNodeName,
                            .clear = &clearNodeNames,
                            .put = &putNodeName,
                            .take = &takeNodeNames,
                            .takeViews = true};

constexpr Field kExtenderArgsFields[] = {
    podField<ExtenderArgs>(),
    requestField<ExtenderArgs, &ExtenderArgs::nodes>("Nodes", kNodeList),
    {"NodeNames", &kNodeNames, &nodeNamesArgs, &resetNodeNames},
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

void writeFailedNodes(AnswerWriter& out, std::string_view key, const FailedNodes& failed) {
  out.raw(key);
  out.raw("{");
  for (std::size_t i = 0; i < failed.size(); ++i) {
    out.string(failed[i].first, i > 0 ? ',' : '\0');
    out.string(failed[i].second, ':');
  }
  out.raw("}");
}

// Room for a string of n bytes once quoted, most often enough (escapes only grow it).
std::size_t quotedSize(std::string_view s) { return s.size() + 2; }

}  // namespace

ExtenderArgs decodeExtenderArgs(std::string_view body) {
  return decodeRequest<ExtenderArgs>(body, kExtenderArgs);
}

ExtenderArgs decodeExtenderArgsEventByEvent(std::string_view body) {
  return decodeRequest<ExtenderArgs>(body, kExtenderArgs, Decoder::FastPaths::Off);
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

namespace {

constexpr std::string_view kItemsStart = R"({"Nodes":{"metadata":{},"items":[)";

// The /filter answer, with the Node objects in it (the copying encode) or not (encodeEchoing).
std::string encodeFilterResult(const ExtenderFilterResult& result, bool withItems) {
  // The Node objects go in exactly as they were sent, one memcpy each: a 5000-node NodeList
  // is ~50 MB.
  std::size_t size = 128 + quotedSize(result.error);
  if (result.nodes && withItems) {
    for (std::string_view raw : *result.nodes) size += raw.size() + 1;
  }
  if (result.nodeNames) {
    for (std::string_view name : *result.nodeNames) size += quotedSize(name) + 1;
  }
  for (const auto* failed : {&result.failedNodes, &result.failedAndUnresolvableNodes}) {
    for (const auto& [node, reason] : *failed) size += quotedSize(node) + quotedSize(reason) + 2;
  }
  AnswerWriter out(size);
  if (result.nodes) {
    out.raw(kItemsStart);
    for (std::size_t i = 0; withItems && i < result.nodes->size(); ++i) {
      if (i > 0) out.raw(",");
      out.raw((*result.nodes)[i]);
    }
    out.raw("]},");
  } else {
    out.raw(R"({"Nodes":null,)");
  }
  out.raw(R"("NodeNames":)");
  if (result.nodeNames) {
    out.raw("[");
    const auto& names = *result.nodeNames;
    for (std::size_t i = 0; i < names.size(); ++i) out.string(names[i], i > 0 ? ',' : '\0');
    out.raw("]");
  } else {
    out.raw("null");
  }
  writeFailedNodes(out, R"(,"FailedNodes":)", result.failedNodes);
  writeFailedNodes(out, R"(,"FailedAndUnresolvableNodes":)", result.failedAndUnresolvableNodes);
  out.raw(R"(,"Error":)");
  out.string(result.error);
  out.raw("}");
  return std::move(out).take();
}

// `next` followed `raw` in the request's items array: only whitespace and one comma lie
// between them. A gap longer than any pretty-printer's indentation is taken for another
// item without looking, which at worst splits a run.
bool followsInArray(std::string_view raw, std::string_view next) {
  constexpr std::size_t kMaxGap = 256;
  const char* end = raw.data() + raw.size();
  if (next.data() < end || static_cast<std::size_t>(next.data() - end) > kMaxGap) return false;
  int commas = 0;
  for (const char* p = end; p < next.data(); ++p) {
    if (*p == ',') {
      ++commas;
    } else if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
      return false;
    }
  }
  return commas == 1;
}

}  // namespace

std::string encode(const ExtenderFilterResult& result) { return encodeFilterResult(result, true); }

FilterAnswerParts encodeEchoing(const ExtenderFilterResult& result) {
  FilterAnswerParts parts;
  parts.text = encodeFilterResult(result, false);
  if (!result.nodes) return parts;
  parts.itemsAt = kItemsStart.size();
  for (std::string_view raw : *result.nodes) {
    if (!parts.runs.empty() && followsInArray(parts.runs.back(), raw)) {
      const char* begin = parts.runs.back().data();
      parts.runs.back() = {begin, static_cast<std::size_t>(raw.data() + raw.size() - begin)};
    } else {
      parts.runs.push_back(raw);
    }
  }
  return parts;
}

std::string encode(const HostPriorityList& priorities) {
  // An item is {"Host":"<host>","Score":<score>}, its comma included; extender scores are
  // 0..10, so two digits are counted for each (a longer one makes the writer grow).
  constexpr std::string_view kHost = R"({"Host":")";
  constexpr std::string_view kScore = R"(","Score":)";
  constexpr std::size_t kItem = 1 + kHost.size() + kScore.size() + 2 + 1;
  constexpr std::size_t kItemRoom = kItem + AnswerWriter::kMaxIntegerSize;
  std::size_t size = 2 + kItemRoom;  // the last item's room beyond what it writes
  for (const auto& p : priorities) size += kItem + p.host.size();
  AnswerWriter out(size);
  out.raw("[");
  for (std::size_t i = 0; i < priorities.size(); ++i) {
    const HostPriority& p = priorities[i];
    if (AnswerWriter::needsEscapes(p.host)) [[unlikely]] {
      out.raw(i > 0 ? R"(,{"Host":)" : R"({"Host":)");
      out.string(p.host);
      out.raw(R"(,"Score":)");
      out.integer(p.score);
      out.raw("}");
      continue;
    }
    // The whole item in one room: a memcpy for the host, a few stores for the rest.
    char* at = out.room(kItemRoom + p.host.size());
    if (i > 0) *at++ = ',';
    at = AnswerWriter::put(at, kHost);
    at = AnswerWriter::put(at, p.host);
    at = AnswerWriter::put(at, kScore);
    at = AnswerWriter::putInteger(at, p.score);
    *at++ = '}';
    out.advance(at);
  }
  out.raw("]");
  return std::move(out).take();
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
