// The extender wire codecs: what kube-scheduler (and older senders) put on the wire, the
// JSON-path errors of bad input, and byte-exact answers.
#include "scheduling/api/json/extender_codec.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "scheduling/api/decode_error.hpp"
#include "test/testing/extender_args_decodes.hpp"

namespace scheduling::api::json {
namespace {

// The message of the DecodeError that decoding `body` throws, or "<decoded>".
std::string decodeError(const std::string& body) {
  try {
    decodeExtenderArgs(body);
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "<decoded>";
}

std::string preemptionDecodeError(const std::string& body) {
  try {
    decodeExtenderPreemptionArgs(body);
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "<decoded>";
}

// What RapidJSON's own Reader says about `text`, in the decoders' words.
std::string rapidjsonError(const std::string& text) {
  rapidjson::Reader reader;
  rapidjson::BaseReaderHandler<> handler;
  rapidjson::MemoryStream in(text.data(), text.size());
  const rapidjson::ParseResult result = reader.Parse(in, handler);
  if (!result.IsError()) return "<valid>";
  return "invalid JSON at offset " + std::to_string(result.Offset()) + ": " +
         rapidjson::GetParseError_En(result.Code());
}

std::string podWithSpec(const std::string& spec) {
  return R"({"Pod":{"metadata":{"name":"p"},"spec":)" + spec + "}}";
}

// A pod with every field the framework reads, in the given key spelling.
const std::string kFullPod = R"({
  "metadata": {
    "name": "web-1", "namespace": "shop", "uid": "uid-1", "resourceVersion": "7",
    "labels": {"app": "web", "App": "Web", "version": "v2", "empty": ""},
    "annotations": {"note": "{not an object}"},
    "deletionTimestamp": "2024-05-01T10:00:00Z",
    "managedFields": [{"manager": "kubectl", "fieldsV1": {"f:metadata": {"f:labels": {}}}}]
  },
  "spec": {
    "nodeName": "node-1", "schedulerName": "my-scheduler", "priority": -5,
    "containers": [{"name": "c", "image": "x", "args": ["a", "\"b\"", "\u00e9"]}],
    "affinity": {
      "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}},
      "podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
          {"labelSelector": {"matchLabels": {"tier": "cache"}},
           "namespaces": ["shop", "common"], "topologyKey": "zone"}
        ],
        "preferredDuringSchedulingIgnoredDuringExecution": [
          {"weight": 40, "podAffinityTerm": {
             "labelSelector": {"matchExpressions": [
                {"key": "team", "operator": "NotIn", "values": ["a", "b"]},
                {"key": "canary", "operator": "DoesNotExist"}]},
             "namespaceSelector": {}, "topologyKey": "region"}}
        ]
      },
      "podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
          {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname",
           "matchLabelKeys": ["version"], "mismatchLabelKeys": ["app", "absent"]}
        ]
      }
    }
  },
  "status": {"phase": "Running", "nominatedNodeName": "node-2",
             "conditions": [{"type": "Ready", "status": "True"}],
             "startTime": "2024-05-01T09:58:30Z"}
})";

void checkFullPod(const Pod& pod) {
  BOOST_TEST(pod.metadata.name == "web-1");
  BOOST_TEST(pod.metadata.ns == "shop");
  BOOST_TEST(pod.metadata.uid == "uid-1");
  // Label keys are data: case-sensitive.
  const Labels labels{{"app", "web"}, {"App", "Web"}, {"version", "v2"}, {"empty", ""}};
  BOOST_TEST((pod.metadata.labels == labels));
  BOOST_TEST_REQUIRE(pod.metadata.deletionTimestamp.has_value());
  BOOST_TEST(*pod.metadata.deletionTimestamp == "2024-05-01T10:00:00Z");
  BOOST_TEST(pod.isTerminating());
  BOOST_TEST(pod.spec.nodeName == "node-1");
  BOOST_TEST(pod.spec.schedulerName == "my-scheduler");
  BOOST_TEST(pod.spec.priority.value_or(0) == -5);
  BOOST_TEST(pod.status.phase == "Running");
  BOOST_TEST(pod.status.nominatedNodeName == "node-2");
  BOOST_TEST_REQUIRE(pod.status.startTime.has_value());
  BOOST_TEST(pod.status.startTime.unixSeconds() == 1714557510);

  BOOST_TEST_REQUIRE(pod.spec.affinity.has_value());
  const auto& affinity = *pod.spec.affinity;
  BOOST_TEST_REQUIRE(affinity.podAffinity.has_value());
  const auto& required = affinity.podAffinity->requiredDuringSchedulingIgnoredDuringExecution;
  BOOST_TEST_REQUIRE(required.size() == 1u);
  BOOST_TEST_REQUIRE(required[0].labelSelector.has_value());
  BOOST_TEST((required[0].labelSelector->matchLabels == Labels{{"tier", "cache"}}));
  BOOST_TEST(required[0].labelSelector->matchExpressions.empty());
  BOOST_TEST((required[0].namespaces == std::vector<std::string>{"shop", "common"}));
  BOOST_TEST(!required[0].namespaceSelector.has_value());  // nil: not the same as {}
  BOOST_TEST(required[0].topologyKey == "zone");

  const auto& preferred = affinity.podAffinity->preferredDuringSchedulingIgnoredDuringExecution;
  BOOST_TEST_REQUIRE(preferred.size() == 1u);
  BOOST_TEST(preferred[0].weight == 40);
  const auto& term = preferred[0].podAffinityTerm;
  BOOST_TEST_REQUIRE(term.labelSelector.has_value());
  const std::vector<LabelSelectorRequirement> expressions = {{"team", "NotIn", {"a", "b"}},
                                                             {"canary", "DoesNotExist", {}}};
  BOOST_TEST((term.labelSelector->matchExpressions == expressions));
  BOOST_TEST_REQUIRE(term.namespaceSelector.has_value());  // {}: every namespace
  BOOST_TEST((*term.namespaceSelector == LabelSelector{}));
  BOOST_TEST(term.topologyKey == "region");

  // The pod has a resourceVersion: stored by an API server, which merged matchLabelKeys /
  // mismatchLabelKeys when it created it; the selector is read as it is.
  BOOST_TEST(pod.metadata.storedByApiServer);
  BOOST_TEST_REQUIRE(affinity.podAntiAffinity.has_value());
  const auto& anti = affinity.podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution;
  BOOST_TEST_REQUIRE(anti.size() == 1u);
  BOOST_TEST((anti[0].matchLabelKeys == std::vector<std::string>{"version"}));
  BOOST_TEST((anti[0].mismatchLabelKeys == std::vector<std::string>{"app", "absent"}));
  BOOST_TEST_REQUIRE(anti[0].labelSelector.has_value());
  BOOST_TEST(anti[0].labelSelector->matchExpressions.empty());
  BOOST_TEST(anti[0].topologyKey == "kubernetes.io/hostname");
}

// matchLabelKeys and mismatchLabelKeys are merged into the selector as the API server merges
// them at creation, into a pod written by hand (no resourceVersion) only: a stored pod was
// merged with the labels it had when it was created, and keeps that selector when its
// labels change, as kube-scheduler reads it.
struct LabelKeysCase {
  const char* name;
  const char* metadata;
  bool carriesMerge;  // the selector has what the API server merged for version=v2, app=web
  bool wantMerge;     // the selector is expected to end with that merge
};
const LabelKeysCase kLabelKeysCases[] = {
    {"written by hand: merged", R"("name":"p","labels":{"app":"web","version":"v2"})", false,
     true},
    {"written by hand, merge already there: not merged twice",
     R"("name":"p","labels":{"app":"web","version":"v2"})", true, true},
    {"stored: as stored",
     R"("name":"p","resourceVersion":"7","labels":{"app":"web","version":"v2"})", false, false},
    {"stored, relabelled since: the merge keeps the values of its creation",
     R"("name":"p","resourceVersion":"9","labels":{"app":"api","version":"v3"})", true, true},
};
std::ostream& operator<<(std::ostream& os, const LabelKeysCase& c) { return os << c.name; }

std::string podWithLabelKeys(const LabelKeysCase& c) {
  const std::string merged =
      R"("matchExpressions":[{"key":"version","operator":"In","values":["v2"]},)"
      R"({"key":"app","operator":"NotIn","values":["web"]}],)";
  return R"({"Pod":{"metadata":{)" + std::string(c.metadata) +
         R"(},"spec":{"affinity":{"podAntiAffinity":{)"
         R"("requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{)" +
         (c.carriesMerge ? merged : "") +
         R"("matchLabels":{"tier":"db"}},"topologyKey":"zone","matchLabelKeys":["version"],)"
         R"("mismatchLabelKeys":["app"]}]}}}}})";
}

// Every ASCII letter of the member names of `json` in lower case; data (label keys and
// values, names) must not contain capitals for this to keep them.
std::string lowerKeys(std::string json) {
  for (char& c : json) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return json;
}

// The names of NodeNames as strings, to compare with what a test wants.
std::vector<std::string> nodeNamesOf(const ExtenderArgs& args) {
  return {args.nodeNames->begin(), args.nodeNames->end()};
}

bool inBody(std::string_view name, std::string_view body) {
  const std::less<const char*> before;
  return !before(name.data(), body.data()) &&
         !before(body.data() + body.size(), name.data() + name.size());
}

// Why the decode with the fast paths and the one event by event differ on `body`;
// empty when they give the same arguments (each Node's raw bytes at the same place) or the
// same error.
std::string fastPathDifference(std::string_view body) {
  return ::testing::decodeDifference(
      ::testing::decodeArgs([body] { return decodeExtenderArgs(body); }),
      ::testing::decodeArgs([body] { return decodeExtenderArgsEventByEvent(body); }));
}

struct BadInput {
  std::string name;
  std::string body;
  std::string want;
};

std::ostream& operator<<(std::ostream& os, const BadInput& c) { return os << c.name; }

const BadInput kBadInputs[] = {
    // Not JSON.
    {"empty body", "", "invalid JSON at offset 0: The document is empty."},
    {"not JSON", "hello", "invalid JSON at offset 0: Invalid value."},
    {"truncated", R"({"Pod":{"metadata":)", "invalid JSON at offset 19: Invalid value."},
    {"truncated in a skipped value", R"({"Pod":{"spec":{"containers":[{"name":"a")",
     "invalid JSON at offset 41: Missing a comma or '}' after an object member."},
    {"trailing garbage", R"({"Pod":{}} x)",
     "invalid JSON at offset 11: The document root must not be followed by other values."},
    {"missing colon before a skipped value", R"({"Pod":{},"x" 1})",
     "invalid JSON at offset 14: Missing a colon after a name of object member."},
    {"kept number too big for a double", podWithSpec(R"({"priority":1e400})"),
     "invalid JSON at offset 51: Number too big to be stored in double."},
    // The document's shape.
    {"top level not an object", "[1]", "expected an object at the top level"},
    {"top level a string", R"("Pod")", "expected an object at the top level"},
    {"missing Pod", R"({"NodeNames":["n1"]})", "Pod: missing"},
    {"null Pod", R"({"Pod":null,"NodeNames":["n1"]})", "Pod: missing"},
    {"null document", "null", "Pod: missing"},
    {"Pod not an object", R"({"Pod":[]})", "Pod: expected an object"},
    {"labels not an object", R"({"Pod":{"metadata":{"labels":5}}})",
     "Pod.metadata.labels: expected an object of strings"},
    {"labels an array", R"({"Pod":{"metadata":{"labels":["a"]}}})",
     "Pod.metadata.labels: expected an object of strings"},
    {"label value not a string", R"({"Pod":{"metadata":{"labels":{"app":5}}}})",
     "Pod.metadata.labels[app]: expected a string"},
    {"deeply nested where labels go", R"({"Pod":{"metadata":{"labels":[[[[[[[[[[)",
     "Pod.metadata.labels: expected an object of strings"},
    {"name not a string", R"({"Pod":{"metadata":{"name":true}}})",
     "Pod.metadata.name: expected a string"},
    {"name an object", R"({"Pod":{"metadata":{"name":{}}}})",
     "Pod.metadata.name: expected a string"},
    {"priority a string", podWithSpec(R"({"priority":"x"})"),
     "Pod.spec.priority: expected a 32-bit integer"},
    {"priority a fraction", podWithSpec(R"({"priority":1.5})"),
     "Pod.spec.priority: expected a 32-bit integer"},
    {"priority with an exponent", podWithSpec(R"({"priority":1e3})"),
     "Pod.spec.priority: expected a 32-bit integer"},
    {"priority above int32", podWithSpec(R"({"priority":2147483648})"),
     "Pod.spec.priority: expected a 32-bit integer, got 2147483648"},
    {"priority below int32", podWithSpec(R"({"priority":-2147483649})"),
     "Pod.spec.priority: expected a 32-bit integer, got -2147483649"},
    {"priority above int64", podWithSpec(R"({"priority":99999999999999999999})"),
     "Pod.spec.priority: expected a 32-bit integer, got 99999999999999999999"},
    {"startTime not a time", R"({"Pod":{"status":{"startTime":"yesterday"}}})",
     "Pod.status.startTime: expected an RFC 3339 time"},
    {"startTime a number", R"({"Pod":{"status":{"startTime":1714557510}}})",
     "Pod.status.startTime: expected an RFC 3339 time"},
    {"startTime without a zone", R"({"Pod":{"status":{"startTime":"2024-05-01T09:58:30"}}})",
     "Pod.status.startTime: expected an RFC 3339 time"},
    {"affinity not an object", podWithSpec(R"({"affinity":[]})"),
     "Pod.spec.affinity: expected an object"},
    {"terms not an array",
     podWithSpec(
         R"({"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{}}}})"),
     "Pod.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution: expected an "
     "array"},
    {"weight not an integer",
     podWithSpec(
         R"({"affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":"1"}]}}})"),
     "Pod.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
     "weight: expected a 32-bit integer"},
    {"selector value not a string",
     podWithSpec(
         R"({"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{},{"labelSelector":{"matchExpressions":[{"key":"a","operator":"In","values":["x",1]}]}}]}}})"),
     "Pod.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[1]."
     "labelSelector.matchExpressions[0].values[1]: expected a string"},
    {"namespaces not an array",
     podWithSpec(
         R"({"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"namespaces":"shop"}]}}})"),
     "Pod.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
     "namespaces: expected an array"},
    {"NodeNames an object", R"({"Pod":{},"NodeNames":{}})", "NodeNames: expected an array"},
    {"NodeNames with a number", R"({"Pod":{},"NodeNames":["a",2]})",
     "NodeNames[1]: expected a string"},
    {"Nodes an array", R"({"Pod":{},"Nodes":[]})", "Nodes: expected an object"},
    {"Nodes.items an object", R"({"Pod":{},"Nodes":{"items":{}}})",
     "Nodes.items: expected an array"},
    {"node not an object", R"({"Pod":{},"Nodes":{"items":[{},{},"n"]}})",
     "Nodes.items[2]: expected an object"},
    {"node name not a string",
     R"({"Pod":{},"Nodes":{"items":[{},{},{},{"metadata":{"name":["n"]}}]}})",
     "Nodes.items[3].metadata.name: expected a string"},
    // Strings that are kept must be UTF-8.
    {"invalid UTF-8 in a kept string", "{\"Pod\":{\"metadata\":{\"name\":\"a\xff\"}}}",
     "Pod.metadata.name: invalid UTF-8 in string"},
    {"truncated UTF-8 in a kept string", "{\"Pod\":{\"metadata\":{\"name\":\"\xc3\"}}}",
     "Pod.metadata.name: invalid UTF-8 in string"},
    {"overlong UTF-8 in a label key", "{\"Pod\":{\"metadata\":{\"labels\":{\"\xc0\xaf\":\"\"}}}}",
     "Pod.metadata.labels[\xc0\xaf]: invalid UTF-8 in string"},
    {"encoded surrogate in a label value",
     "{\"Pod\":{\"metadata\":{\"labels\":{\"a\":\"\xed\xa0\x80\"}}}}",
     "Pod.metadata.labels[a]: invalid UTF-8 in string"},
    // Nesting.
    {"nesting deeper than 10000 in a skipped value",
     podWithSpec(R"({"x":)" + std::string(10001, '[') + std::string(10001, ']') + "}"),
     "invalid JSON at offset 10044: Nesting deeper than 10000."},
};

// Malformed JSON inside a value the decoder skips: its own scanner must fail exactly where
// and as RapidJSON would.
const std::vector<std::string> kMalformedValues = {
    R"([{"name":"a",}])",
    "[1,]",
    "[1 2]",
    "[,1]",
    R"({"a" 1})",
    R"({"a":1 "b":2})",
    R"({"a":1,})",
    R"({1:2})",
    "{",
    "[[[",
    R"(["abc)",
    R"("a\qb")",
    R"("a\u12G4")",
    R"("a\u12")",
    R"("\ud800")",
    R"("\ud800\u0041")",
    R"("\ud800x")",
    "\"a\tb\"",
    "\"a\nb\"",
    std::string("\"a\0b\"", 5),
    "01",
    "1.",
    "1.e5",
    "1e",
    "1e+",
    "-",
    "-a",
    "+1",
    ".5",
    "nul",
    "tru",
    "falsy",
    "NaN",
    "Infinity",
    "'a'",
    "[true false]",
    R"({"a":{"b":[1,{"c":"d"}]})",
};

const std::vector<std::string> kWellFormedValues = {
    "0",
    "-0",
    "-12.5e-3",
    "1E+2",
    "1e400",  // out of a double's range: not checked where nobody reads it
    "123456789012345678901234567890",
    "true",
    "false",
    "null",
    R"("")",
    R"("\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00")",
    R"("\udc00")",  // a lone low surrogate: RapidJSON lets it pass too
    "\"\xff\xfe not UTF-8, not read\"",
    R"({"a":[1,{"b":null}],"c":{},"d":[]})",
    " [ 1 , { \"a\" : \"b\" } ] ",
    std::string(5000, '[') + std::string(5000, ']'),
};

// --- NodeNames: the fast path against the decode event by event ---

struct NamedBody {
  std::string name;
  std::string body;
};

std::ostream& operator<<(std::ostream& os, const NamedBody& c) { return os << c.name; }

std::string withNodeNames(const std::string& value) {
  return R"({"Pod":{"metadata":{"name":"p"}},"NodeNames":)" + value + "}";
}

const NamedBody kNodeNamesBodies[] = {
    // Taken by the fast path.
    {"plain", withNodeNames(R"(["node-a1","ip-10-16-19-137.ec2.internal",""])")},
    {"empty", withNodeNames("[]")},
    {"empty with whitespace", withNodeNames("[ \n\t\r]")},
    {"null", withNodeNames("null")},
    {"whitespace everywhere",
     " { \"Pod\" : { } , \"NodeNames\" \t:\r\n [ \"a\" ,\n\"b\"\t, \"c\" ] \n} "},
    {"names longer than a step", withNodeNames(R"(["0123456789abcdef0123456789abcdef0","x"])")},
    {"non-ASCII names", withNodeNames("[\"n\xc3\xa9\",\"\xf0\x9f\x98\x80\",\"\x7f\"]")},
    {"names before the pod", R"({"NodeNames":["a","b"],"Pod":{"metadata":{"name":"p"}}})"},
    {"names and nodes",
     R"({"Pod":{},"Nodes":{"items":[{"metadata":{"name":"x"}}]},"NodeNames":["a"]})"},
    {"nodes after the names",
     R"({"NodeNames":["a"],"Pod":{},"Nodes":{"items":[{"metadata":{"name":"x"}}]}})"},
    {"an escaped key", R"({"Pod":{},"N\u006fdeNames":["a"]})"},
    {"twice, any case", R"({"Pod":{},"NodeNames":["a"],"nodenames":["b","c"]})"},
    {"twice, null last", R"({"Pod":{},"NODENAMES":["a"],"NodeNames":null})"},
    {"twice, null first", R"({"Pod":{},"NodeNames":null,"nodeNAMES":["a"]})"},
    {"twice, the first one escaped", R"({"Pod":{},"NodeNames":["a\n"],"NodeNames":["b"]})"},
    {"twice, the last one escaped", R"({"Pod":{},"NodeNames":["a"],"NodeNames":["b\n"]})"},
    // Left to the decode event by event.
    {"an escape", withNodeNames(R"(["a","b\"c","d"])")},
    {"escapes of every kind", withNodeNames(R"(["\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"])")},
    {"an escaped NUL", withNodeNames(R"(["a\u0000b"])")},
    {"a lone high surrogate", withNodeNames(R"(["\ud800"])")},
    {"a lone low surrogate", withNodeNames(R"(["\udc00"])")},
    {"a high surrogate and no low one", withNodeNames(R"(["\ud800\u0041"])")},
    {"an invalid escape", withNodeNames(R"(["a\qb"])")},
    {"a short hex escape", withNodeNames(R"(["\u12"])")},
    {"a raw control character", withNodeNames("[\"a\x01\"]")},
    {"a raw tab", withNodeNames("[\"a\tb\"]")},
    {"a raw NUL", withNodeNames(std::string("[\"a\0b\"]", 7))},
    {"a NUL between names", withNodeNames(std::string("[\"a\",\0\"b\"]", 10))},
    {"invalid UTF-8", withNodeNames("[\"a\",\"b\xff\"]")},
    {"truncated UTF-8", withNodeNames("[\"\xc3\"]")},
    {"overlong UTF-8", withNodeNames("[\"\xc0\xaf\"]")},
    {"an encoded surrogate", withNodeNames("[\"\xed\xa0\x80\"]")},
    {"above U+10FFFF", withNodeNames("[\"\xf4\x90\x80\x80\"]")},
    {"a string", withNodeNames(R"("a")")},
    {"a number", withNodeNames("5")},
    {"true", withNodeNames("true")},
    {"an object", withNodeNames(R"({"a":["b"]})")},
    {"an array in the array", withNodeNames(R"([["a"]])")},
    {"an object in the array", withNodeNames(R"(["a",{"b":"c"}])")},
    {"a number in the array", withNodeNames(R"(["a",2])")},
    {"a null in the array", withNodeNames(R"(["a",null,"c"])")},
    {"only a null in the array", withNodeNames("[null]")},
    {"false in the array", withNodeNames("[false]")},
    {"no comma", withNodeNames(R"(["a" "b"])")},
    {"a trailing comma", withNodeNames(R"(["a",])")},
    {"a leading comma", withNodeNames(R"([,"a"])")},
    {"two commas", withNodeNames(R"(["a",,"b"])")},
    {"a brace for a bracket", withNodeNames(R"(["a"})")},
    {"junk after a name", withNodeNames(R"(["a"x])")},
    {"junk after the array", withNodeNames(R"(["a"] x)")},
    {"a string after the array", withNodeNames(R"(["a"]"b")")},
    {"two closing brackets", withNodeNames(R"(["a"]])")},
    {"nul", withNodeNames("nul")},
    {"NULL", withNodeNames("NULL")},
    {"nullx", withNodeNames("nullx")},
    {"null]", withNodeNames("null]")},
    {"no colon", R"({"Pod":{},"NodeNames" ["a"]})"},
    {"no colon before null", R"({"Pod":{},"NodeNames" null})"},
    {"a comma for a colon", R"({"Pod":{},"NodeNames",["a"]})"},
    {"nothing after the colon", R"({"Pod":{},"NodeNames":)"},
    {"the document ends in the array", R"({"Pod":{},"NodeNames":["a",)"},
    {"the document ends in a name", R"({"Pod":{},"NodeNames":["a","b)"},
    {"the document ends after the array", R"({"Pod":{},"NodeNames":["a"])"},
    {"the document ends after null", R"({"Pod":{},"NodeNames":null)"},
    {"a trailing comma in the object", R"({"Pod":{},"NodeNames":["a"],})"},
    {"a bad pod after the names", R"({"NodeNames":["a"],"Pod":{"metadata":{"name":5}}})"},
    {"no pod", R"({"NodeNames":["a"]})"},
    {"names at the top level", R"(["a","b"])"},
    {"NodeNames inside the pod", R"({"Pod":{"NodeNames":["a"]},"NodeNames":["b"]})"},
};

// --- label maps: the fast path against the decode event by event ---

// A label map as the Pod's labels and as a sent Node's: the two label schemas.
std::string withLabels(const std::string& value) {
  return R"({"Pod":{"metadata":{"name":"p","labels":)" + value +
         R"(}},"Nodes":{"items":[{"metadata":{"labels":)" + value + R"(,"name":"n"}}]}})";
}

const NamedBody kLabelsBodies[] = {
    // Taken by the fast path.
    {"plain", withLabels(R"({"app":"web","topology.kubernetes.io/zone":"us-east-1a","e":""})")},
    {"empty", withLabels("{}")},
    {"whitespace everywhere", withLabels(" { \"a\" :\n\"1\" ,\t\"b\":\"2\" } ")},
    {"a duplicate key", withLabels(R"({"a":"1","b":"2","a":"3"})")},
    {"non-ASCII", withLabels("{\"k\xc3\xa9\":\"\xf0\x9f\x98\x80\"}")},
    // Decoded event by event, or refused alike.
    {"null", withLabels("null")},
    {"an escape in a key", withLabels(R"({"a":"1","b\"c":"2"})")},
    {"an escape in a value", withLabels(R"({"a":"1","b":"\u00e9"})")},
    {"a lone surrogate", withLabels(R"({"a":"\ud800"})")},
    {"invalid UTF-8 in a key", withLabels("{\"\xff\":\"1\"}")},
    {"invalid UTF-8 in a value", withLabels("{\"a\":\"\xc3\"}")},
    {"a raw control character", withLabels("{\"a\":\"\x01\"}")},
    {"a null value", withLabels(R"({"a":"1","b":null})")},
    {"a number value", withLabels(R"({"a":1})")},
    {"an object value", withLabels(R"({"a":{"b":"c"}})")},
    {"an array", withLabels(R"(["a"])")},
    {"a string", withLabels(R"("a")")},
    {"no colon", withLabels(R"({"a" "1"})")},
    {"a trailing comma", withLabels(R"({"a":"1",})")},
    {"a bracket for a brace", withLabels(R"({"a":"1"])")},
    {"two commas", withLabels(R"({"a":"1",,"b":"2"})")},
    {"the document ends in the map", R"({"Pod":{"metadata":{"labels":{"a":"1",)"},
    {"labels twice, merged", R"({"Pod":{"metadata":{"labels":{"a":"1","b":"2"},)"
                             R"("Labels":{"b":"3"}}}})"},
    {"null, then labels", R"({"Pod":{"metadata":{"labels":null,"labels":{"a":"1"}}}})"},
};

// `s` as RapidJSON's Writer writes a string.
std::string writerQuoted(std::string_view s) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  return std::string(buffer.GetString(), buffer.GetSize());
}

// The answers RapidJSON's Writer would write for these names, as encode writes them.
std::string writerPriorities(const HostPriorityList& priorities) {
  std::string out = "[";
  for (const auto& p : priorities) {
    if (out.size() > 1) out += ',';
    out += R"({"Host":)" + writerQuoted(p.host) + R"(,"Score":)" + std::to_string(p.score) + "}";
  }
  return out + "]";
}

std::string writerFilterResult(const std::vector<std::string_view>& names,
                               const FailedNodes& failed) {
  std::string out = R"({"Nodes":null,"NodeNames":[)";
  for (std::size_t i = 0; i < names.size(); ++i) out += (i > 0 ? "," : "") + writerQuoted(names[i]);
  out += R"(],"FailedNodes":{)";
  for (std::size_t i = 0; i < failed.size(); ++i) {
    out +=
        (i > 0 ? "," : "") + writerQuoted(failed[i].first) + ":" + writerQuoted(failed[i].second);
  }
  return out + R"(},"FailedAndUnresolvableNodes":{},"Error":""})";
}

BOOST_AUTO_TEST_SUITE(api_extender_codec)

BOOST_AUTO_TEST_CASE(DecodesPascalCaseExtenderArgs) {
  const std::string body =
      R"({"Pod":)" + kFullPod + R"(,"Nodes":null,"NodeNames":["node-1","node-2"]})";
  const ExtenderArgs args = decodeExtenderArgs(body);
  checkFullPod(args.pod);
  BOOST_TEST(!args.nodes.has_value());
  BOOST_TEST_REQUIRE(args.nodeNames.has_value());
  BOOST_TEST((nodeNamesOf(args) == std::vector<std::string>{"node-1", "node-2"}));
}

BOOST_AUTO_TEST_CASE(DecodesLowerCaseKeys) {
  // The whole document lower-cased, as types_test.go's TestCompatibility does.
  std::string pod = kFullPod;
  const std::string body = lowerKeys(R"({"POD":{"METADATA":{"NAME":"p","LABELS":{"a":"b"}}},)"
                                     R"("NODES":null,"NODENAMES":["n1"]})");
  const ExtenderArgs args = decodeExtenderArgs(body);
  BOOST_TEST(args.pod.metadata.name == "p");
  BOOST_TEST((args.pod.metadata.labels == Labels{{"a", "b"}}));
  BOOST_TEST((nodeNamesOf(args) == std::vector<std::string>{"n1"}));

  // Any mix of cases in member names; label keys stay as written.
  const ExtenderArgs mixed = decodeExtenderArgs(
      R"({"pOD":{"Metadata":{"Name":"p","LaBeLs":{"App":"x"}},"SPEC":{"Priority":3}},)"
      R"("nodeNames":["n1"]})");
  BOOST_TEST(mixed.pod.metadata.name == "p");
  BOOST_TEST((mixed.pod.metadata.labels == Labels{{"App", "x"}}));
  BOOST_TEST(mixed.pod.spec.priority.value_or(0) == 3);
}

// status.startTime is kept as seconds, whatever offset it was written with; null and a missing
// member both leave it absent.
BOOST_AUTO_TEST_CASE(StartTimeIsKeptAsSeconds) {
  const auto startTime = [](const std::string& status) {
    return decodeExtenderArgs(R"({"Pod":{"status":)" + status + "}}").pod.status.startTime;
  };
  BOOST_TEST(startTime(R"({"startTime":"2024-05-01T11:58:30+02:00"})").unixSeconds() == 1714557510);
  BOOST_TEST(!startTime(R"({"startTime":null})").has_value());
  BOOST_TEST(!startTime(R"({"phase":"Pending"})").has_value());
}

BOOST_AUTO_TEST_CASE(NullStandsForAbsentEverywhere) {
  const ExtenderArgs args = decodeExtenderArgs(R"({
    "Pod": {
      "metadata": {"name": "p", "namespace": null, "labels": null, "deletionTimestamp": null,
                   "annotations": null},
      "spec": {"nodeName": null, "priority": null, "containers": null, "affinity": {
        "podAffinity": null,
        "podAntiAffinity": {
          "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": null, "namespaces": null, "namespaceSelector": null,
             "topologyKey": "zone", "matchLabelKeys": null, "mismatchLabelKeys": null},
            {"labelSelector": {"matchLabels": null, "matchExpressions": null},
             "namespaceSelector": {"matchExpressions": [{"key": "k", "operator": "Exists",
                                                         "values": null}]},
             "topologyKey": "zone"}
          ],
          "preferredDuringSchedulingIgnoredDuringExecution": null
        }}},
      "status": null
    },
    "Nodes": null,
    "NodeNames": null
  })");
  const Pod& pod = args.pod;
  BOOST_TEST(pod.metadata.name == "p");
  BOOST_TEST(pod.metadata.ns.empty());
  BOOST_TEST(pod.metadata.labels.empty());
  BOOST_TEST(!pod.isTerminating());
  BOOST_TEST(!pod.spec.priority.has_value());
  BOOST_TEST(pod.priority() == 0);
  BOOST_TEST(pod.status.phase.empty());
  BOOST_TEST(!args.nodes.has_value());
  BOOST_TEST(!args.nodeNames.has_value());
  BOOST_TEST_REQUIRE(pod.spec.affinity.has_value());
  BOOST_TEST(!pod.spec.affinity->podAffinity.has_value());
  BOOST_TEST_REQUIRE(pod.spec.affinity->podAntiAffinity.has_value());
  const auto& anti = *pod.spec.affinity->podAntiAffinity;
  BOOST_TEST(anti.preferredDuringSchedulingIgnoredDuringExecution.empty());
  const auto& terms = anti.requiredDuringSchedulingIgnoredDuringExecution;
  BOOST_TEST_REQUIRE(terms.size() == 2u);
  BOOST_TEST(!terms[0].labelSelector.has_value());
  BOOST_TEST(!terms[0].namespaceSelector.has_value());
  BOOST_TEST(terms[0].namespaces.empty());
  BOOST_TEST_REQUIRE(terms[1].labelSelector.has_value());  // {} with null members: everything
  BOOST_TEST((*terms[1].labelSelector == LabelSelector{}));
  BOOST_TEST_REQUIRE(terms[1].namespaceSelector.has_value());
  BOOST_TEST((terms[1].namespaceSelector->matchExpressions ==
              std::vector<LabelSelectorRequirement>{{"k", "Exists", {}}}));
}

BOOST_AUTO_TEST_CASE(NullItemsAndEmptyLists) {
  const ExtenderArgs nullItems = decodeExtenderArgs(R"({"Pod":{},"Nodes":{"items":null}})");
  BOOST_TEST_REQUIRE(nullItems.nodes.has_value());  // a NodeList, without items
  BOOST_TEST(nullItems.nodes->empty());
  const ExtenderArgs empty = decodeExtenderArgs(R"({"Pod":{},"NodeNames":[]})");
  BOOST_TEST_REQUIRE(empty.nodeNames.has_value());
  BOOST_TEST(empty.nodeNames->empty());
  const ExtenderArgs neither = decodeExtenderArgs(R"({"Pod":{}})");
  BOOST_TEST(!neither.nodes.has_value());
  BOOST_TEST(!neither.nodeNames.has_value());
}

BOOST_AUTO_TEST_CASE(KeepsSentNodesByteForByte) {
  const std::string node1 =
      R"({"metadata":{"name":"n1","labels":{"zone":"a","kubernetes.io/hostname":"n1"},)"
      R"("managedFields":[{"f":{"}":"{"}}]},"status":{"images":[{"names":["x{]}\"\\"],)"
      R"("sizeBytes":123456789012345678901234567890}],"conditions":null}})";
  const std::string node2 =
      "{ \"metadata\" : {\n  \"name\" : \"n\\u00e9\" ,\"labels\":{\"k\":\"\\ud83d\\ude00\"}\t} "
      ", \"spec\" : { \"taints\" : [ ] } }";
  const std::string node3 = "{}";
  const std::string body = R"({"Pod":{"metadata":{"name":"p"}},"Nodes":{"metadata":)"
                           R"({"resourceVersion":"9"},"items":[)" +
                           node1 + " , " + node2 + ",\n" + node3 + R"(]},"NodeNames":null})";
  const ExtenderArgs args = decodeExtenderArgs(body);
  BOOST_TEST_REQUIRE(args.nodes.has_value());
  BOOST_TEST_REQUIRE(args.nodes->size() == 3u);
  const auto& nodes = *args.nodes;
  BOOST_TEST(nodes[0].raw == node1);
  BOOST_TEST(nodes[1].raw == node2);
  BOOST_TEST(nodes[2].raw == node3);
  // The views point into the body itself.
  BOOST_TEST(nodes[0].raw.data() == body.data() + body.find(node1));
  BOOST_TEST(nodes[0].name == "n1");
  BOOST_TEST((nodes[0].labels == Labels{{"zone", "a"}, {"kubernetes.io/hostname", "n1"}}));
  BOOST_TEST(nodes[1].name == "n\xc3\xa9");
  BOOST_TEST((nodes[1].labels == Labels{{"k", "\xf0\x9f\x98\x80"}}));
  BOOST_TEST(nodes[2].name.empty());

  // /filter echoes them as they came.
  ExtenderFilterResult result;
  result.nodes.emplace();
  for (const auto& n : nodes) result.nodes->push_back(n.raw);
  BOOST_TEST(encode(result) == R"({"Nodes":{"metadata":{},"items":[)" + node1 + "," + node2 + "," +
                                   node3 +
                                   R"(]},"NodeNames":null,"FailedNodes":{},)"
                                   R"("FailedAndUnresolvableNodes":{},"Error":""})");
}

// The answer that echoes from the request's bytes: consecutive feasible items form one run,
// with the request's separators; a failed item between two splits them.
BOOST_AUTO_TEST_CASE(EchoingAnswerJoinsItemsThatFollowEachOther) {
  const std::vector<std::string> items = {
      R"({"metadata":{"name":"n1"}})", R"({"metadata":{"name":"n2","labels":{"a":","}}})",
      R"({"metadata":{"name":"n3"}})", "{}", R"({"metadata":{"name":"n5"}})"};
  const std::vector<std::string> separators = {" , ", ",", ",\n  ", "\t,"};
  std::string body = R"({"Pod":{"metadata":{"name":"p"}},"Nodes":{"items":[)";
  for (std::size_t i = 0; i < items.size(); ++i) {
    body += items[i] + (i < separators.size() ? separators[i] : "");
  }
  body += R"(]}})";
  const ExtenderArgs args = decodeExtenderArgs(body);
  BOOST_TEST_REQUIRE(args.nodes->size() == items.size());

  ExtenderFilterResult result;
  result.nodes.emplace();
  for (std::size_t i : {0, 1, 3, 4}) result.nodes->push_back((*args.nodes)[i].raw);  // n3 failed
  result.failedNodes = {{"n3", "no"}};
  const FilterAnswerParts parts = encodeEchoing(result);

  ExtenderFilterResult none = result;
  none.nodes->clear();
  BOOST_TEST(parts.text == encode(none));
  BOOST_TEST(parts.text.substr(0, parts.itemsAt) == R"({"Nodes":{"metadata":{},"items":[)");
  BOOST_TEST_REQUIRE(parts.runs.size() == 2U);
  BOOST_TEST(parts.runs[0] == items[0] + " , " + items[1]);
  BOOST_TEST(parts.runs[1] == items[3] + "\t," + items[4]);
  BOOST_TEST(parts.runs[0].data() == body.data() + body.find(items[0]));  // views, not copies

  // Items the request did not send side by side are runs of their own, whatever the order.
  ExtenderFilterResult reordered;
  reordered.nodes = std::vector<std::string_view>{(*args.nodes)[1].raw, (*args.nodes)[0].raw,
                                                  (*args.nodes)[0].raw};
  BOOST_TEST(encodeEchoing(reordered).runs.size() == 3U);
}

BOOST_AUTO_TEST_CASE(SkipsWhatTheFrameworkDoesNotRead) {
  // Unknown members anywhere, of every JSON type, in both cases.
  const ExtenderArgs args = decodeExtenderArgs(R"({
    "apiVersion": "v1", "Kind": 7, "extra": [null, true, {"Pod": "not this one"}],
    "Pod": {"metadata": {"name": "p", "generateName": "p-", "finalizers": ["a"]},
            "spec": {"volumes": [{"name": "v", "secret": {"secretName": "s"}}],
                     "priorityClassName": "high", "tolerations": [], "overhead": {}}},
    "nodenames": ["n1"],
    "trailer": {"deep": [[[[[["x"]]]]]]}
  })");
  BOOST_TEST(args.pod.metadata.name == "p");
  BOOST_TEST((nodeNamesOf(args) == std::vector<std::string>{"n1"}));
}

BOOST_AUTO_TEST_CASE(DecodesEscapesInKeptStrings) {
  const ExtenderArgs args = decodeExtenderArgs(
      R"({"Pod":{"metadata":{"name":"a\"b\\c\/d\u00e9\ud83d\ude00","n\u0061mespace":"ns"}}})");
  BOOST_TEST(args.pod.metadata.name == "a\"b\\c/d\xc3\xa9\xf0\x9f\x98\x80");
  BOOST_TEST(args.pod.metadata.ns == "ns");  // member names are unescaped before matching
}

BOOST_AUTO_TEST_CASE(LaterDuplicatesWin) {
  const ExtenderArgs args = decodeExtenderArgs(
      R"({"Pod":{"metadata":{"name":"a","name":"b","labels":{"k":"1"},"labels":{"j":"2","k":"3"}}},)"
      R"("NodeNames":["x","y"],"nodeNames":["z"]})");
  BOOST_TEST(args.pod.metadata.name == "b");
  // encoding/json merges maps and replaces arrays.
  BOOST_TEST((args.pod.metadata.labels == Labels{{"j", "2"}, {"k", "3"}}));
  BOOST_TEST((nodeNamesOf(args) == std::vector<std::string>{"z"}));
}

BOOST_AUTO_TEST_CASE(LargeNumbersWhereNobodyReads) {
  const ExtenderArgs args = decodeExtenderArgs(
      R"({"Pod":{"metadata":{"name":"p","generation":1e999},"spec":{"priority":2147483647,)"
      R"("x":-123456789012345678901234567890.5e-7}},"NodeNames":[]})");
  BOOST_TEST(args.pod.spec.priority.value_or(0) == 2147483647);
}

BOOST_DATA_TEST_CASE(RejectsBadInputNamingWhere, boost::unit_test::data::make(kBadInputs), c) {
  BOOST_TEST(decodeError(c.body) == c.want);
}

BOOST_AUTO_TEST_CASE(ErrorsCarryTheirPath) {
  try {
    decodeExtenderArgs(R"({"Pod":{},"Nodes":{"items":[{"metadata":{"labels":{"a":[]}}}]}})");
    BOOST_FAIL("decoded");
  } catch (const DecodeError& e) {
    BOOST_TEST(e.path() == "Nodes.items[0].metadata.labels[a]");
  }
  try {
    decodeExtenderArgs("{");
    BOOST_FAIL("decoded");
  } catch (const DecodeError& e) {
    BOOST_TEST(e.path().empty());
  }
}

BOOST_DATA_TEST_CASE(SkippedValuesFailAsRapidJson, boost::unit_test::data::make(kMalformedValues),
                     value) {
  const std::string body = podWithSpec(R"({"containers":)" + value + "}");
  const std::string want = rapidjsonError(body);
  BOOST_TEST_REQUIRE(want != "<valid>");
  BOOST_TEST(decodeError(body) == want);
  // The same bytes where they are read fail in RapidJSON itself, identically.
  const std::string kept = R"({"Pod":{"metadata":{"name":)" + value + "}}}";
  if (value.front() == '"') BOOST_TEST(decodeError(kept) == rapidjsonError(kept));
}

BOOST_DATA_TEST_CASE(SkipsWellFormedValues, boost::unit_test::data::make(kWellFormedValues),
                     value) {
  BOOST_TEST(decodeError(podWithSpec(R"({"containers":)" + value + R"(,"nodeName":"n"})")) ==
             "<decoded>");
  BOOST_TEST(decodeError(podWithSpec(R"({"containers":)" + value + "}")) == "<decoded>");
}

BOOST_DATA_TEST_CASE(NodeNamesFastPathAgreesWithEventByEvent,
                     boost::unit_test::data::make(kNodeNamesBodies), c) {
  BOOST_TEST(fastPathDifference(c.body) == "", c.name);
}

// One thing to put into a string, and whether the string is still plain (a fast path takes
// it) with it.
const std::pair<std::string, bool> kStringInserts[] = {
    {R"(\n)", false},
    {R"(\")", false},
    {R"(\\)", false},
    {R"(\/)", false},
    {R"(\u00e9)", false},
    {R"(\ud83d\ude00)", false},
    {R"(\ud800)", false},
    {R"(\udc00)", false},
    {R"(\u0000)", false},
    {R"(\x)", false},
    {"\\", false},
    {"\x01", false},
    {"\t", false},
    {std::string(1, '\0'), false},
    {"\"", false},
    {"\xff", false},
    {"\xc3", false},
    {"\xed\xa0\x80", false},
    {"\xf4\x90\x80\x80", false},
    {"\x7f", true},
    {" ", true},
    {"\xc3\xa9", true},
    {"\xf0\x9f\x98\x80", true},
};

// Calls check(text, plain) for every run of 0 to 40 'a's with one of kStringInserts at each
// position, around the 8- and 16-byte steps of the scans.
template <typename Check>
void forEachStringWithAnInsert(Check&& check) {
  for (std::size_t size = 0; size <= 40; ++size) {
    for (std::size_t at = 0; at <= size; ++at) {
      for (const auto& [insert, plain] : kStringInserts) {
        std::string text(size, 'a');
        text.insert(at, insert);
        check(text, plain);
      }
    }
  }
}

// A name with anything in it: the fast path takes it when it is plain, else the decode event
// by event does, and the two agree.
BOOST_AUTO_TEST_CASE(NodeNamesWithAnythingAtEveryPosition) {
  forEachStringWithAnInsert([](const std::string& name, bool plain) {
    const std::string body = withNodeNames(R"(["n1",")" + name + R"(","n3"])");
    BOOST_TEST_REQUIRE(fastPathDifference(body) == "", body);
    if (!plain) return;
    // Taken by the fast path: the names view the body.
    const ExtenderArgs args = decodeExtenderArgs(body);
    BOOST_TEST_REQUIRE(args.nodeNames->size() == 3u);
    BOOST_TEST_REQUIRE((*args.nodeNames)[1] == name);
    BOOST_TEST_REQUIRE(inBody((*args.nodeNames)[1], body));
  });
}

BOOST_AUTO_TEST_CASE(NodeNamesInBodiesCutAtEveryByte) {
  const std::string bodies[] = {
      R"({"Pod":{"metadata":{"name":"p"}}, "NodeNames" : [ "n1", "n\u00e9" ,"n3" ] })",
      "{\"NodeNames\":[\"a\",\"\xc3\xa9\"],\"Pod\":{\"metadata\":{\"name\":\"p\"}}}",
      R"({"Pod":{},"NodeNames":null,"nodenames":["x"]})",
  };
  for (const std::string& body : bodies) {
    for (std::size_t size = 0; size <= body.size(); ++size) {
      BOOST_TEST_REQUIRE(fastPathDifference(std::string_view(body).substr(0, size)) == "",
                         "cut at " << size << ": " << body);
    }
  }
}

// Runs of members the decoder does not keep, which it steps over without the reader's events
// while they follow at once with plain names; what is kept, and every error, as event by event.
const std::string kPodWithUnknownMembers =
    R"({"Pod":{"metadata":{"generateName":"g-","name":"p","resourceVersion":"1","uid":"u",)"
    R"("annotations":{"a":"b"},"labels":{"app":"web"},"ownerReferences":[{"kind":"RS"}],)"
    R"("namespace":"ns"},"spec":{"volumes":[{"name":"v","hostPath":{"path":"/"}}],)"
    R"("nodeName":"n1","containers":[{"name":"c","args":["a","b"]}],"priority":5,)"
    R"("tolerations":[]},"status":{"conditions":[{"type":"Ready"}],"phase":"Running",)"
    R"("hostIP":"10.0.0.1"}},"x":1,"NodeNames":["n1"],"y":[]})";

const NamedBody kUnknownMembersBodies[] = {
    {"between kept ones", kPodWithUnknownMembers},
    {"a kept one named in another case", podWithSpec(R"({"x":1,"y":2,"NODENAME":"n1"})")},
    {"a kept one with an escaped name", podWithSpec(R"({"x":1,"node\u004eame":"n1","y":2})")},
    {"an unknown one with an escaped name", podWithSpec(R"({"x":1,"y\"z":2,"nodeName":"n1"})")},
    {"a space after the comma", podWithSpec(R"({"x":1, "y":2,"nodeName":"n1"})")},
    {"a space before the colon", podWithSpec(R"({"x":1,"y" :2,"nodeName":"n1"})")},
    {"last in the object", podWithSpec(R"({"nodeName":"n1","x":1,"y":{"z":[]}})")},
    {"a kept one repeated after them", podWithSpec(R"({"nodeName":"a","x":1,"nodeName":"b"})")},
    {"a kept one of the wrong type after them", podWithSpec(R"({"x":1,"y":2,"priority":"5"})")},
    {"a malformed value in a later one", podWithSpec(R"({"x":1,"y":[1,],"nodeName":"n1"})")},
    {"no colon after a later name", podWithSpec(R"({"x":1,"y" 2})")},
    {"a later name not closed", podWithSpec(R"({"x":1,"y)")},
    {"the body ends after a comma", podWithSpec(R"({"x":1,)")},
    {"a control character in a later name", podWithSpec("{\"x\":1,\"y\x01\":2}")},
    {"a NUL in a later name", podWithSpec(std::string("{\"x\":1,\"y") + '\0' + "\":2}")},
};

BOOST_DATA_TEST_CASE(UnknownMembersSteppedOverAgreeWithEventByEvent,
                     boost::unit_test::data::make(kUnknownMembersBodies), c) {
  BOOST_TEST(fastPathDifference(c.body) == "", c.name);
}

BOOST_AUTO_TEST_CASE(UnknownMembersSteppedOverKeepWhatFollows) {
  const ExtenderArgs args = decodeExtenderArgs(kPodWithUnknownMembers);
  BOOST_TEST(args.pod.metadata.name == "p");
  BOOST_TEST(args.pod.metadata.uid == "u");
  BOOST_TEST(args.pod.metadata.ns == "ns");
  BOOST_TEST((args.pod.metadata.labels.get("app") == std::optional<std::string_view>("web")));
  BOOST_TEST(args.pod.spec.nodeName == "n1");
  BOOST_TEST(args.pod.priority() == 5);
  BOOST_TEST(args.pod.status.phase == "Running");
  BOOST_TEST((nodeNamesOf(args) == std::vector<std::string>{"n1"}));
  BOOST_TEST(
      decodeExtenderArgs(podWithSpec(R"({"x":1,"y":2,"NODENAME":"n1"})")).pod.spec.nodeName ==
      "n1");
}

// Bodies changed at seeded random places by bytes that matter to the scans.
BOOST_AUTO_TEST_CASE(FastPathsInMutatedBodies) {
  const std::string bases[] = {
      R"({"Pod":{"metadata":{"name":"p"}},"NodeNames":["node-a1", "n\u00e9","ip-10-16-19-137.ec2.internal"] ,"nodenames":null})",
      R"({"NodeNames":["a","0123456789abcdef0123456789"],"Pod":{},"Nodes":{"items":[{"metadata":{"name":"x"}}]}})",
      withLabels(R"({"app":"web","topology.kubernetes.io/zone":"us-east-1a", "x" : "\u00e9"})"),
      kPodWithUnknownMembers,
  };
  const std::string bytes = std::string("\"\\,[]{}: \n\tnul0aA\x01\x7f\x80\xc3\xa9\xff") + '\0';
  std::mt19937 random(3);
  for (int round = 0; round < 20000; ++round) {
    std::string body = bases[random() % std::size(bases)];
    for (unsigned edits = 1 + random() % 3; edits > 0; --edits) {
      const std::size_t at = random() % body.size();
      const char byte = bytes[random() % bytes.size()];
      switch (random() % 3) {
        case 0:
          body[at] = byte;
          break;
        case 1:
          body.insert(at, 1, byte);
          break;
        default:
          body.erase(at, 1);
          break;
      }
    }
    BOOST_TEST_REQUIRE(fastPathDifference(body) == "", "round " << round << ": " << body);
  }
}

BOOST_DATA_TEST_CASE(LabelsFastPathAgreesWithEventByEvent,
                     boost::unit_test::data::make(kLabelsBodies), c) {
  BOOST_TEST(fastPathDifference(c.body) == "", c.name);
}

BOOST_DATA_TEST_CASE(MergesLabelKeysIntoHandWrittenPodsOnly,
                     boost::unit_test::data::make(kLabelKeysCases), c) {
  const auto args = decodeExtenderArgs(podWithLabelKeys(c));
  const auto& term =
      args.pod.spec.affinity->podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution[0];
  const std::vector<LabelSelectorRequirement> merge = {{"version", "In", {"v2"}},
                                                       {"app", "NotIn", {"web"}}};
  BOOST_TEST((term.labelSelector->matchExpressions ==
              (c.wantMerge ? merge : std::vector<LabelSelectorRequirement>{})));
}

// A label key or value with anything in it: the same decode by either path, and a plain one
// is there.
BOOST_AUTO_TEST_CASE(LabelsWithAnythingAtEveryPosition) {
  forEachStringWithAnInsert([](const std::string& text, bool plain) {
    for (const bool inKey : {true, false}) {
      const std::string key = inKey ? text : "k";
      const std::string value = inKey ? "v" : text;
      const std::string body =
          withLabels(R"({"x":"1",")" + key + R"(":")" + value + R"(","z":"3"})");
      BOOST_TEST_REQUIRE(fastPathDifference(body) == "", body);
      if (!plain) continue;
      const ExtenderArgs args = decodeExtenderArgs(body);
      BOOST_TEST_REQUIRE(
          (args.pod.metadata.labels.get(key) == std::optional<std::string_view>(value)));
      BOOST_TEST_REQUIRE(args.pod.metadata.labels.size() == 3u);
      BOOST_TEST_REQUIRE((args.nodes->front().labels == args.pod.metadata.labels));
    }
  });
}

BOOST_AUTO_TEST_CASE(NodeNamesViewTheBodyUnlessEscaped) {
  const std::string plain = withNodeNames(R"(["n1", "n2"])");
  const ExtenderArgs viewed = decodeExtenderArgs(plain);
  BOOST_TEST(viewed.nodeNameCopies.empty());
  for (const std::string_view name : *viewed.nodeNames) BOOST_TEST(inBody(name, plain));

  // One escape sends the whole list the ordinary way: every name is then a copy.
  const std::string escaped = withNodeNames(R"(["n1", "n\u0032"])");
  const ExtenderArgs copied = decodeExtenderArgs(escaped);
  BOOST_TEST((nodeNamesOf(copied) == std::vector<std::string>{"n1", "n2"}));
  for (const std::string_view name : *copied.nodeNames) BOOST_TEST(!inBody(name, escaped));
}

// Copied names are short strings, whose bytes are inside the string object itself: moving or
// copying the arguments must move none of them.
BOOST_AUTO_TEST_CASE(CopiedNodeNamesSurviveMovesAndCopies) {
  const std::vector<std::string> want = {"a", "b\n", "c", ""};
  std::optional<ExtenderArgs> copy;
  {
    std::vector<ExtenderArgs> moved;
    moved.push_back(decodeExtenderArgs(withNodeNames(R"(["a","b\n","c",""])")));
    moved.reserve(moved.capacity() + 16);  // moves it again
    BOOST_TEST((nodeNamesOf(moved[0]) == want));
    ExtenderArgs assigned;
    assigned = std::move(moved[0]);
    BOOST_TEST((nodeNamesOf(assigned) == want));
    copy = assigned;
    assigned.copyNodeName("d");
    BOOST_TEST(assigned.nodeNames->size() == 5u);
  }
  BOOST_TEST((nodeNamesOf(*copy) == want));
}

BOOST_AUTO_TEST_CASE(DecodesPreemptionArgsWithFullPods) {
  const ExtenderPreemptionArgs args = decodeExtenderPreemptionArgs(R"({
    "Pod": {"metadata": {"name": "preemptor"}, "spec": {"priority": 100}},
    "NodeNameToVictims": {
      "node-b": {"Pods": [)" + kFullPod + R"(, {"metadata": {"name": "v2", "uid": "u2"}}],
                 "NumPDBViolations": 2},
      "node-a": {"Pods": [], "NumPDBViolations": 0},
      "node-c": {"Pods": null}
    },
    "NodeNameToMetaVictims": null
  })");
  BOOST_TEST(args.pod.metadata.name == "preemptor");
  BOOST_TEST(args.pod.priority() == 100);
  BOOST_TEST(!args.nodeNameToMetaVictims.has_value());
  BOOST_TEST_REQUIRE(args.nodeNameToVictims.has_value());
  const auto& victims = *args.nodeNameToVictims;
  BOOST_TEST_REQUIRE(victims.size() == 3u);
  // In wire order.
  BOOST_TEST(victims[0].first == "node-b");
  BOOST_TEST(victims[1].first == "node-a");
  BOOST_TEST(victims[2].first == "node-c");
  BOOST_TEST_REQUIRE(victims[0].second.pods.size() == 2u);
  checkFullPod(victims[0].second.pods[0]);
  BOOST_TEST(victims[0].second.pods[1].metadata.uid == "u2");
  BOOST_TEST(victims[0].second.numPDBViolations == 2);
  BOOST_TEST(victims[1].second.pods.empty());
  BOOST_TEST(victims[2].second.pods.empty());
}

BOOST_AUTO_TEST_CASE(DecodesPreemptionArgsWithMetaVictims) {
  const ExtenderPreemptionArgs args = decodeExtenderPreemptionArgs(
      R"({"pod":{"metadata":{"name":"p"}},"nodeNameToVictims":null,"nodenametometavictims":)"
      R"({"n2":{"pods":[{"uid":"u1"},{"UID":"u2","extra":1}],"numpdbviolations":1},)"
      R"("n1":{"Pods":[],"NumPDBViolations":0},"n3":{}}})");
  BOOST_TEST(!args.nodeNameToVictims.has_value());
  BOOST_TEST_REQUIRE(args.nodeNameToMetaVictims.has_value());
  const auto& meta = *args.nodeNameToMetaVictims;
  BOOST_TEST_REQUIRE(meta.size() == 3u);
  BOOST_TEST(meta[0].first == "n2");
  BOOST_TEST((meta[0].second.podUIDs == std::vector<std::string>{"u1", "u2"}));
  BOOST_TEST(meta[0].second.numPDBViolations == 1);
  BOOST_TEST(meta[1].first == "n1");
  BOOST_TEST(meta[1].second.podUIDs.empty());
  BOOST_TEST(meta[2].first == "n3");
}

BOOST_AUTO_TEST_CASE(RejectsBadPreemptionArgs) {
  BOOST_TEST(preemptionDecodeError(R"({"NodeNameToMetaVictims":{}})") == "Pod: missing");
  BOOST_TEST(preemptionDecodeError(R"({"Pod":{},"NodeNameToMetaVictims":[]})") ==
             "NodeNameToMetaVictims: expected an object");
  BOOST_TEST(
      preemptionDecodeError(R"({"Pod":{},"NodeNameToMetaVictims":{"n1":{"Pods":[{"UID":5}]}}})") ==
      "NodeNameToMetaVictims[n1].Pods[0].UID: expected a string");
  BOOST_TEST(
      preemptionDecodeError(R"({"Pod":{},"NodeNameToVictims":{"n1":{"NumPDBViolations":"2"}}})") ==
      "NodeNameToVictims[n1].NumPDBViolations: expected a 64-bit integer");
  BOOST_TEST(preemptionDecodeError(
                 R"({"Pod":{},"NodeNameToVictims":{"n1":{"Pods":[{"metadata":{"labels":1}}]}}})") ==
             "NodeNameToVictims[n1].Pods[0].metadata.labels: expected an object of strings");
  BOOST_TEST(preemptionDecodeError(R"({"Pod":{},"NodeNameToVictims":{"n1":null}})") == "<decoded>");
}

BOOST_AUTO_TEST_CASE(DecodesBindingArgsInAnyCase) {
  const ExtenderBindingArgs args = decodeExtenderBindingArgs(
      R"({"PodName":"web-3","podnamespace":"shop","PODUID":"u-1","node":"node-a2","Extra":1})");
  BOOST_TEST(args.podName == "web-3");
  BOOST_TEST(args.podNamespace == "shop");
  BOOST_TEST(args.podUID == "u-1");
  BOOST_TEST(args.node == "node-a2");
}

BOOST_AUTO_TEST_CASE(RejectsBindingArgsThatNameNoPodOrNode) {
  const auto error = [](const std::string& body) -> std::string {
    try {
      decodeExtenderBindingArgs(body);
    } catch (const DecodeError& e) {
      return e.what();
    }
    return "<decoded>";
  };
  BOOST_TEST(error(R"({"PodNamespace":"s","PodUID":"u","Node":"n"})") ==
             "PodName: missing or empty");
  BOOST_TEST(error(R"({"PodName":"p","PodNamespace":"s","PodUID":"u","Node":""})") ==
             "Node: missing or empty");
  BOOST_TEST(error(R"({"PodName":"p","PodNamespace":"s","PodUID":null,"Node":"n"})") ==
             "<decoded>");  // no UID precondition then
  BOOST_TEST(error(R"({"PodName":7,"PodNamespace":"s","PodUID":"u","Node":"n"})") ==
             "PodName: expected a string");
  BOOST_TEST(error(R"({"PodName":"../../nodes","PodNamespace":"s","PodUID":"u","Node":"n"})") ==
             "PodName: not a valid object name (lower-case letters, digits, '-' and '.')");
  BOOST_TEST(error("null") == "PodName: missing or empty");
  BOOST_TEST(error("[]") == "expected an object at the top level");
}

BOOST_AUTO_TEST_CASE(EncodesBindingResult) {
  BOOST_TEST(encode(ExtenderBindingResult{}) == R"({"Error":""})");
  BOOST_TEST(encode(ExtenderBindingResult{"pod \"p\" not found"}) ==
             R"({"Error":"pod \"p\" not found"})");
}

BOOST_AUTO_TEST_CASE(EncodesFilterResultWithNodeNames) {
  ExtenderFilterResult result;
  result.nodeNames = std::vector<std::string_view>{"n1", "n\xc3\xa9"};
  result.failedNodes = {{"n3", "node(s) didn't match pod affinity rules"}};
  result.failedAndUnresolvableNodes = {{"n4", "a \"quoted\"\nreason\\"}, {"n5", "x"}};
  result.error = "";
  BOOST_TEST(encode(result) ==
             R"({"Nodes":null,"NodeNames":["n1","n)"
             "\xc3\xa9"
             R"("],"FailedNodes":{"n3":"node(s) didn't match pod affinity rules"},)"
             R"("FailedAndUnresolvableNodes":{"n4":"a \"quoted\"\nreason\\","n5":"x"},)"
             R"("Error":""})");
}

BOOST_AUTO_TEST_CASE(EncodesEmptyFilterResults) {
  ExtenderFilterResult names;
  names.nodeNames.emplace();
  BOOST_TEST(encode(names) ==
             R"({"Nodes":null,"NodeNames":[],"FailedNodes":{},"FailedAndUnresolvableNodes":{},)"
             R"("Error":""})");
  ExtenderFilterResult nodes;
  nodes.nodes.emplace();
  nodes.error = "framework failed: \x01";
  BOOST_TEST(encode(nodes) == R"({"Nodes":{"metadata":{},"items":[]},"NodeNames":null,)"
                              R"("FailedNodes":{},"FailedAndUnresolvableNodes":{},)"
                              R"("Error":"framework failed: \u0001"})");
}

BOOST_AUTO_TEST_CASE(EncodesHostPriorityList) {
  BOOST_TEST(encode(HostPriorityList{{"n1", 7}, {"n2", 0}, {"n3", -1}}) ==
             R"([{"Host":"n1","Score":7},{"Host":"n2","Score":0},{"Host":"n3","Score":-1}])");
  BOOST_TEST(encode(HostPriorityList{}) == "[]");
}

// The /filter and /prioritize encoders escape strings themselves; they must write the bytes
// RapidJSON's Writer writes, for every byte value, on seeded random strings.
BOOST_AUTO_TEST_CASE(EscapesNamesAsRapidJsonWriterDoes) {
  std::mt19937 random(7);
  for (int round = 0; round < 200; ++round) {
    std::string host(random() % 40, ' ');
    for (char& c : host) c = static_cast<char>(random() % 256);
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
    w.StartArray();
    w.StartObject();
    w.Key("Host");
    w.String(host.data(), static_cast<rapidjson::SizeType>(host.size()));
    w.Key("Score");
    w.Int64(-round);
    w.EndObject();
    w.EndArray();
    BOOST_TEST_REQUIRE(encode(HostPriorityList{{host, -round}}) ==
                       std::string(buffer.GetString(), buffer.GetSize()));

    ExtenderFilterResult result;
    result.nodeNames = {host};
    result.failedNodes = {{host, host}};
    rapidjson::StringBuffer alone;
    rapidjson::Writer<rapidjson::StringBuffer> a(alone);
    a.StartArray();
    a.String(host.data(), static_cast<rapidjson::SizeType>(host.size()));
    a.EndArray();
    const std::string quoted(alone.GetString() + 1, alone.GetSize() - 2);  // without [ ]
    BOOST_TEST_REQUIRE(encode(result) == R"({"Nodes":null,"NodeNames":[)" + quoted +
                                             R"(],"FailedNodes":{)" + quoted + ":" + quoted +
                                             R"(},"FailedAndUnresolvableNodes":{},"Error":""})");
  }
}

// Every byte that is escaped, and non-ASCII ones that are not, at every position of names
// around the 8- and 16-byte steps of the scan for them, first, between and last in the list.
BOOST_AUTO_TEST_CASE(EscapesAnyByteAtAnyPositionAsRapidJsonWriterDoes) {
  std::string bytes = "\"\\/\b\f\n\r\t\x01\x1f\x7f \xc3\xa9\xff";
  bytes += '\0';
  for (std::size_t size = 1; size <= 40; ++size) {
    for (std::size_t at = 0; at < size; ++at) {
      for (const char byte : bytes) {
        std::string name(size, 'n');
        name[at] = byte;
        const HostPriorityList priorities = {{name, 0}, {"plain", 10}, {name, 7}};
        BOOST_TEST_REQUIRE(encode(priorities) == writerPriorities(priorities),
                           "size " << size << ", at " << at << ", byte " << int(byte));
        ExtenderFilterResult result;
        result.nodeNames = {name, "plain", name};
        result.failedNodes = {{name, name}, {"plain", name}};
        BOOST_TEST_REQUIRE(
            encode(result) == writerFilterResult(*result.nodeNames, result.failedNodes),
            "size " << size << ", at " << at << ", byte " << int(byte));
      }
    }
  }
}

// The answers are sized for names without escapes and scores of two digits at most: past
// that, the writer grows, to the same bytes.
BOOST_AUTO_TEST_CASE(EncodesAnswersLargerThanExpected) {
  const std::string escapes(300, '\x01');  // six bytes each once escaped
  HostPriorityList priorities;
  std::vector<std::string_view> names;
  for (int i = 0; i < 200; ++i) {
    const std::string_view name = i % 7 == 0 ? std::string_view(escapes) : "node";
    priorities.push_back({name, i % 2 == 0 ? std::numeric_limits<std::int64_t>::min()
                                           : std::numeric_limits<std::int64_t>::max()});
    names.push_back(name);
  }
  BOOST_TEST(encode(priorities) == writerPriorities(priorities));
  ExtenderFilterResult result;
  result.nodeNames = names;
  BOOST_TEST(encode(result) == writerFilterResult(names, {}));
}

BOOST_AUTO_TEST_CASE(EncodesPreemptionResult) {
  ExtenderPreemptionResult result;
  result.nodeNameToMetaVictims = {{"n2", {{"u1", "u2"}, 1}}, {"n1", {{}, 0}}};
  BOOST_TEST(encode(result) ==
             R"({"NodeNameToMetaVictims":{"n2":{"Pods":[{"UID":"u1"},{"UID":"u2"}],)"
             R"("NumPDBViolations":1},"n1":{"Pods":[],"NumPDBViolations":0}}})");
  BOOST_TEST(encode(ExtenderPreemptionResult{}) == R"({"NodeNameToMetaVictims":{}})");
}

BOOST_AUTO_TEST_CASE(DecodesTheExampleRequests) {
  for (const char* name : {"filter-nodes.json", "filter-names.json", "prioritize-nodes.json",
                           "prioritize-names.json"}) {
    BOOST_TEST_CONTEXT(name) {
      std::ifstream file(std::string(SX_SOURCE_DIR) + "/examples/requests/" + name);
      BOOST_TEST_REQUIRE(file.good());
      std::stringstream body;
      body << file.rdbuf();
      const std::string text = body.str();
      const ExtenderArgs args = decodeExtenderArgs(text);
      BOOST_TEST(!args.pod.metadata.name.empty());
      BOOST_TEST((args.nodes.has_value() || args.nodeNames.has_value()));
      if (args.nodes) {
        for (const auto& n : *args.nodes) {
          BOOST_TEST(!n.name.empty());
          BOOST_TEST(n.raw.front() == '{');
          BOOST_TEST(n.raw.back() == '}');
        }
      }
    }
  }
  std::ifstream file(std::string(SX_SOURCE_DIR) + "/examples/requests/preempt-meta.json");
  std::stringstream body;
  body << file.rdbuf();
  BOOST_TEST(decodeExtenderPreemptionArgs(body.str()).nodeNameToMetaVictims.has_value());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::api::json
