// Decoding an ExtenderArgs body while it arrives must give exactly what decoding it whole
// gives, answer or error, whatever the body and wherever the network cuts it; and it must
// really decode the items early when the body is regular.
#include "scheduling/api/json/extender_args_stream.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "scheduling/api/decode_error.hpp"
#include "scheduling/api/json/extender_codec.hpp"
#include "test/testing/http_client.hpp"

namespace scheduling::api::json {
namespace {

// What a decode gave: the arguments, or the error's message.
struct Outcome {
  std::optional<ExtenderArgs> args;
  std::string error;
};

Outcome decodeWhole(std::string_view body) {
  try {
    return {decodeExtenderArgs(body), {}};
  } catch (const DecodeError& e) {
    return {std::nullopt, e.what()};
  }
}

// Feeds `body` as received up to each of `cuts` (ascending), then whole.
Outcome decodeStreamed(std::string_view body, const std::vector<std::size_t>& cuts,
                       std::size_t* streamedNodes = nullptr) {
  ExtenderArgsStreamDecoder decoder;
  for (const std::size_t cut : cuts) decoder.receive(body.substr(0, cut));
  Outcome outcome;
  try {
    outcome.args = decoder.finish(body);
  } catch (const DecodeError& e) {
    outcome.error = e.what();
  }
  if (streamedNodes != nullptr) *streamedNodes = decoder.streamedNodes();
  return outcome;
}

// Equal arguments, with every SentNode::raw at the same place in the body.
bool sameOutcome(const Outcome& a, const Outcome& b, std::string& why) {
  if (a.error != b.error) {
    why = "errors differ: \"" + a.error + "\" vs \"" + b.error + "\"";
    return false;
  }
  if (!a.args || !b.args) return true;
  if (!(a.args->pod == b.args->pod)) why = "pods differ";
  if (a.args->nodeNames != b.args->nodeNames) why = "NodeNames differ";
  if (a.args->nodes.has_value() != b.args->nodes.has_value()) {
    why = "Nodes present in one only";
  } else if (a.args->nodes) {
    const auto& x = *a.args->nodes;
    const auto& y = *b.args->nodes;
    if (x.size() != y.size()) why = "Nodes counts differ";
    for (std::size_t i = 0; why.empty() && i < x.size(); ++i) {
      if (x[i].name != y[i].name || !(x[i].labels == y[i].labels)) {
        why = "Nodes.items[" + std::to_string(i) + "] differ";
      }
      if (x[i].raw.data() != y[i].raw.data() || x[i].raw.size() != y[i].raw.size()) {
        why = "Nodes.items[" + std::to_string(i) + "] raw bytes differ";
      }
    }
  }
  return why.empty();
}

// Checks the streamed decode of `body` against the whole one: fed whole, cut in two at every
// byte, one byte at a time, and cut at seeded random places.
void checkEveryCut(const std::string& body) {
  const Outcome want = decodeWhole(body);
  std::string why;
  BOOST_TEST_REQUIRE(sameOutcome(want, decodeStreamed(body, {}), why), "fed whole: " << why);
  BOOST_TEST_REQUIRE(sameOutcome(want, decodeStreamed(body, {body.size()}), why),
                     "received whole: " << why);
  for (std::size_t cut = 0; cut <= body.size(); ++cut) {
    BOOST_TEST_REQUIRE(sameOutcome(want, decodeStreamed(body, {cut, body.size()}), why),
                       "cut at " << cut << ": " << why);
  }
  std::vector<std::size_t> bytes(body.size());
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = i + 1;
  BOOST_TEST_REQUIRE(sameOutcome(want, decodeStreamed(body, bytes), why), "byte by byte: " << why);
  std::mt19937 random(42);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::size_t> cuts;
    for (std::size_t at = 0; at < body.size();) cuts.push_back(at += 1 + random() % 97);
    BOOST_TEST_REQUIRE(sameOutcome(want, decodeStreamed(body, cuts), why),
                       "random round " << round << ": " << why);
  }
}

const std::string kPod =
    R"({"metadata":{"name":"web-1","namespace":"shop","labels":{"app":"web","Nodes":"x"}},)"
    R"("spec":{"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":)"
    R"([{"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"zone"}]}}}})";
// Items with what a cutter could trip on: braces, brackets and quotes in strings, escapes,
// nulls, numbers, empty containers, and whitespace everywhere.
const std::string kNode1 =
    R"({"metadata":{"name":"n1","labels":{"zone":"a","kubernetes.io/hostname":"n1"},)"
    R"("annotations":{"x":"}]{[\"\\"}},"status":{"images":[{"names":["a{","b]"],)"
    R"("sizeBytes":123456789012345678901234567890}],"conditions":null}})";
const std::string kNode2 =
    "{ \"metadata\" : {\n \"name\" : \"n\\u00e9\" , \"labels\" : {\"k\":\"\\ud83d\\ude00\","
    " \"z\" : \"\\\\\"}\t} , \"spec\" : { \"taints\" : [ ] } }";
const std::string kNode3 = "{}";
const std::string kItems = "[" + kNode1 + "," + kNode2 + "," + kNode3 + "]";

std::string withPod(const std::string& members) {
  return R"({"Pod":)" + kPod + "," + members + "}";
}

struct Case {
  std::string name;
  std::string body;
  bool streamed;  // the items are decoded while arriving (there are some, and it is certain)
};
std::ostream& operator<<(std::ostream& out, const Case& c) { return out << c.name; }

const std::vector<Case> kCases = {
    // Regular: the items are decoded as they arrive.
    {"plain", withPod(R"("Nodes":{"items":)" + kItems + "}"), true},
    {"lower case", withPod(R"("nodes":{"items":)" + kItems + "}"), true},
    {"upper case", withPod(R"("NODES":{"Items":)" + kItems + "}"), true},
    {"mixed case", withPod(R"("nOdEs":{"ITEMS":[)" + kNode1 + "]}"), true},
    {"whitespace everywhere",
     " \n{ \t\"Pod\" : " + kPod + " ,\r\n \"Nodes\" :\n { \"metadata\" : { } , \"items\" :\n[\n " +
         kNode1 + " \n,\n\t" + kNode2 + " , " + kNode3 + "\r\n]\n} \n}\n ",
     true},
    {"nodes first, names too, list metadata after the items",
     R"({"Nodes":{"items":[)" + kNode1 + R"(],"metadata":{"resourceVersion":"1"}},)" +
         R"("NodeNames":["a"],"Pod":)" + kPod + "}",
     true},
    {"look-alikes elsewhere",
     withPod(R"("a":"\"Nodes\":{\"items\":[","y":{"Nodes":{"items":[7]}},"Nodes2":null,)"
             R"("Nodes":{"itemsX":[7],"items":[)" +
             kNode2 + "]}"),
     true},
    {"look-alikes in strings longer than a scanner step",
     withPod(R"("NodeNames":["a-name-longer-than-sixteen-bytes\"],\"Nodes\":{\"items\":[{",)"
             R"("}]\\"],"Nodes":{"items":[)" +
             kNode1 + "]}"),
     true},
    {"an escaped name deeper down",
     withPod(R"("x":{"N\u006fdes":1},"Nodes":{"items":[{"metadata":{"labels":{"\u0069tems":)"
             R"("v"}}}]})"),
     true},
    {"empty items", withPod(R"("Nodes":{"items":[ ]})"), false},
    // Certain only once decoded whole: each goes the ordinary way, to the same result.
    {"null nodes", withPod(R"("Nodes":null)"), false},
    {"null items", withPod(R"("Nodes":{"items":null})"), false},
    {"no items", withPod(R"("Nodes":{})"), false},
    {"nodes twice",
     withPod(R"("Nodes":{"items":[)" + kNode1 + R"(]},"nodes":{"items":[)" + kNode2 + "]}"), false},
    {"nodes twice, first null", withPod(R"("Nodes":null,"NODES":{"items":)" + kItems + "}"), false},
    {"nodes twice, last null", withPod(R"("Nodes":{"items":)" + kItems + R"(},"Nodes":null)"),
     false},
    {"items twice", withPod(R"("Nodes":{"items":[)" + kNode1 + R"(],"Items":[)" + kNode2 + "]}"),
     false},
    {"items twice, first null", withPod(R"("Nodes":{"items":null,"items":)" + kItems + "}"), false},
    {"escaped nodes", withPod(R"("N\u006fdes":{"items":)" + kItems + "}"), false},
    {"escaped items", withPod(R"("Nodes":{"\u0069tems":)" + kItems + "}"), false},
    {"escaped pod beside nodes", R"({"P\u006fd":)" + kPod + R"(,"Nodes":{"items":)" + kItems + "}}",
     false},
    {"escaped name beside items", withPod(R"("Nodes":{"items":)" + kItems + R"(,"\"":1})"), false},
    {"null element", withPod(R"("Nodes":{"items":[)" + kNode1 + ",null," + kNode2 + "]}"), false},
    {"number element", withPod(R"("Nodes":{"items":[)" + kNode1 + ",7]}"), false},
    {"string element", withPod(R"("Nodes":{"items":["x"]})"), false},
    {"array element", withPod(R"("Nodes":{"items":[[]]})"), false},
    {"items an object", withPod(R"("Nodes":{"items":{}})"), false},
    {"items a string", withPod(R"("Nodes":{"items":"x"})"), false},
    {"nodes an array", withPod(R"("Nodes":[)" + kNode1 + "]"), false},
    {"nodes a number", withPod(R"("Nodes":7)"), false},
    {"trailing comma", withPod(R"("Nodes":{"items":[)" + kNode1 + ",]}"), false},
    {"missing comma", withPod(R"("Nodes":{"items":[)" + kNode1 + " " + kNode3 + "]}"), false},
    {"double comma", withPod(R"("Nodes":{"items":[)" + kNode1 + ",," + kNode3 + "]}"), false},
    {"leading comma", withPod(R"("Nodes":{"items":[,)" + kNode1 + "]}"), false},
    {"trailing garbage", withPod(R"("Nodes":{"items":)" + kItems + "}") + " x", false},
    {"a second document", withPod(R"("Nodes":{"items":)" + kItems + "}") + "{}", false},
    {"a stray bracket", withPod(R"("Nodes":{"items":)" + kItems + "}") + "]", false},
    {"invalid UTF-8 in a label",
     withPod(R"("Nodes":{"items":[{"metadata":{"name":"n","labels":{"k":")"
             "\xff"
             R"("}}}]})"),
     false},
    {"invalid UTF-8 in a skipped string",
     withPod(R"("Nodes":{"items":[{"metadata":{"name":"n"},"status":{"a":")"
             "\xc3\x28"
             R"("}}]})"),
     true},
    {"a name of the wrong type", withPod(R"("Nodes":{"items":[{"metadata":{"name":7}}]})"), false},
    {"metadata an array", withPod(R"("Nodes":{"items":[{"metadata":[]}]})"), false},
    {"a bad literal in an item", withPod(R"("Nodes":{"items":[{"status":{"a":tru}}]})"), false},
    {"a bad number in an item", withPod(R"("Nodes":{"items":[{"status":{"a":1.}}]})"), false},
    {"a control character in an item", withPod("\"Nodes\":{\"items\":[{\"a\":\"\t\"}]}"), false},
    {"an unclosed item", withPod(R"("Nodes":{"items":[{"metadata":{"name":"n"})"), false},
    {"deep nesting in an item",
     withPod(R"("Nodes":{"items":[{"status":)" + std::string(300, '[') + std::string(300, ']') +
             "}]}"),
     true},
    {"too deep in an item",
     withPod(R"("Nodes":{"items":[{"status":)" + std::string(10001, '[') + std::string(10001, ']') +
             "}]}"),
     false},
    {"no pod", R"({"Nodes":{"items":)" + kItems + "}}", false},
    {"a bad pod after the items",
     R"({"Nodes":{"items":)" + kItems + R"(},"Pod":{"metadata":{"name":7}}})", false},
    {"a top-level array", "[" + withPod(R"("Nodes":{"items":)" + kItems + "}") + "]", false},
    {"a top-level number", "7", false},
    {"empty", "", false},
    {"whitespace", " \n ", false},
};

BOOST_AUTO_TEST_SUITE(extender_args_stream)

BOOST_DATA_TEST_CASE(decodes_as_the_whole_body_does_wherever_it_is_cut,
                     boost::unit_test::data::make(kCases), c) {
  checkEveryCut(c.body);
  std::size_t streamed = 0;
  const Outcome outcome = decodeStreamed(c.body, {c.body.size() / 2}, &streamed);
  if (c.streamed) {
    BOOST_TEST_REQUIRE(outcome.args.has_value());
    BOOST_TEST(streamed == outcome.args->nodes->size());
    BOOST_TEST(streamed > 0u);
  } else {
    BOOST_TEST(streamed == 0u);
  }
}

// A body cut short anywhere fails exactly as it fails whole.
BOOST_AUTO_TEST_CASE(truncated_bodies_fail_as_they_do_whole) {
  const std::string body = withPod(R"("Nodes":{"items":)" + kItems + "}");
  for (std::size_t size = 0; size < body.size(); ++size) {
    const std::string truncated = body.substr(0, size);
    const Outcome want = decodeWhole(truncated);
    BOOST_TEST_REQUIRE(!want.error.empty());
    std::string why;
    BOOST_TEST_REQUIRE(sameOutcome(want, decodeStreamed(truncated, {size / 2, size}), why),
                       "at " << size << ": " << why);
  }
}

// Many items, each read in several pieces.
BOOST_AUTO_TEST_CASE(many_items_in_random_reads) {
  std::string items;
  for (int i = 0; i < 200; ++i) {
    if (i > 0) items += i % 3 == 0 ? " ,\n" : ",";
    items += i % 2 == 0 ? kNode1 : kNode2;
  }
  const std::string body = withPod(R"("Nodes":{"items":[)" + items + "]}");
  const Outcome want = decodeWhole(body);
  std::mt19937 random(7);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::size_t> cuts;
    for (std::size_t at = 0; at < body.size();) cuts.push_back(at += 1 + random() % 700);
    std::size_t streamed = 0;
    std::string why;
    BOOST_TEST_REQUIRE(sameOutcome(want, decodeStreamed(body, cuts, &streamed), why),
                       "round " << round << ": " << why);
    BOOST_TEST(streamed == 200u);
  }
}

BOOST_AUTO_TEST_CASE(the_example_requests) {
  for (const char* name : {"filter-nodes", "prioritize-nodes", "filter-names"}) {
    BOOST_TEST_CONTEXT(name) {
      checkEveryCut(testing::readSourceFile("examples/requests/" + std::string(name) + ".json"));
    }
  }
}

// The rest of a streamed body is decoded from a copy without its items, gone once finish()
// returns: NodeNames, before the items or after them, must view the body itself.
BOOST_AUTO_TEST_CASE(node_names_beside_streamed_items_view_the_body) {
  const std::string bodies[] = {
      R"({"NodeNames":["node-x", "bb"],"Pod":)" + kPod + R"(,"Nodes":{"items":)" + kItems + "}}",
      withPod(R"("Nodes":{"items":)" + kItems + R"(},"nodenames":[ "node-x","bb"])"),
  };
  for (const std::string& body : bodies) {
    BOOST_TEST_CONTEXT(body) {
      std::size_t streamed = 0;
      const Outcome outcome = decodeStreamed(body, {body.size() / 2}, &streamed);
      BOOST_TEST_REQUIRE(outcome.args.has_value());
      BOOST_TEST(streamed == 3u);
      const auto& names = *outcome.args->nodeNames;
      BOOST_TEST_REQUIRE(names.size() == 2u);
      BOOST_TEST((names[0].data() == body.data() + body.find(R"("node-x")") + 1));
      BOOST_TEST((names[1].data() == body.data() + body.find(R"("bb")") + 1));
      BOOST_TEST(names[1] == "bb");
    }
  }
}

// The items point into the buffer they arrived in: if the whole body comes in another one,
// it is decoded again from there.
BOOST_AUTO_TEST_CASE(a_body_that_moved_is_decoded_again) {
  const std::string body = withPod(R"("Nodes":{"items":)" + kItems + "}");
  const std::string moved = body;
  ExtenderArgsStreamDecoder decoder;
  decoder.receive(body);
  const ExtenderArgs args = decoder.finish(moved);
  BOOST_TEST(decoder.streamedNodes() == 0u);
  std::string why;
  BOOST_TEST(sameOutcome(decodeWhole(moved), {args, {}}, why), why);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace scheduling::api::json
