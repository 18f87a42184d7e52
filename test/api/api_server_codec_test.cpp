#include "scheduling/api/json/api_server_codec.hpp"

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include "scheduling/api/decode_error.hpp"

namespace api_server_codec_test {

using namespace scheduling::api;
using namespace scheduling::api::json;

struct BadEvent {
  const char* name;
  const char* text;
  const char* error;
};

std::ostream& operator<<(std::ostream& out, const BadEvent& c) { return out << c.name; }

const BadEvent kBadEvents[] = {
    {"unknown type", R"({"type":"PATCHED","object":{}})",
     "type: unknown watch event type \"PATCHED\""},
    {"no object", R"({"type":"ADDED"})", "object: missing"},
    {"wrong member type", R"({"type":"ADDED","object":{"metadata":{"name":7}}})",
     "object.metadata.name"},
    {"not an object", R"([])", "an object"},
};

}  // namespace api_server_codec_test

using namespace api_server_codec_test;

BOOST_AUTO_TEST_SUITE(api_server_codec)

// Items of a typed list carry no kind; the list's metadata says where to continue.
BOOST_AUTO_TEST_CASE(a_list_page_hands_over_its_items_and_its_metadata) {
  const std::string body = R"({"kind":"PodList","apiVersion":"v1",
    "metadata":{"resourceVersion":"812","continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ=="},
    "items":[
      {"metadata":{"name":"a","namespace":"ns","uid":"u1","resourceVersion":"800",
                   "labels":{"app":"web"},"managedFields":[{"manager":"x"}]},
       "spec":{"nodeName":"n1","affinity":{"podAntiAffinity":{
         "requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"zone",
           "labelSelector":{"matchLabels":{"app":"web"}},"matchLabelKeys":["app"]}]}}},
       "status":{"phase":"Running"}},
      {"metadata":{"name":"b","namespace":"ns","uid":"u2"},"status":{"nominatedNodeName":"n2"}}
    ]})";
  std::vector<Pod> pods;
  const auto meta = decodeListPage<Pod>(body, [&](Pod&& pod) { pods.push_back(std::move(pod)); });
  BOOST_TEST(meta.resourceVersion == "812");
  BOOST_TEST(meta.continueToken == "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ==");
  BOOST_REQUIRE(pods.size() == 2u);
  BOOST_TEST(pods[0].metadata.uid == "u1");
  BOOST_TEST(pods[0].spec.nodeName == "n1");
  BOOST_TEST(*pods[0].metadata.labels.get("app") == "web");
  // matchLabelKeys merged into the selector, as for pods in requests.
  const auto& term =
      pods[0].spec.affinity->podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution[0];
  BOOST_TEST(term.labelSelector->matchExpressions.size() == 1u);
  BOOST_TEST(pods[1].status.nominatedNodeName == "n2");
  BOOST_TEST(pods[1].spec.nodeName.empty());  // the holder is reset between items
}

BOOST_AUTO_TEST_CASE(watch_events_carry_the_object_and_its_resource_version) {
  const auto added = decodeWatchEvent<Node>(
      R"({"object":{"kind":"Node","metadata":{"name":"n1","resourceVersion":"42",
          "labels":{"zone":"a"}},"status":{"images":[{"names":["x"]}]}},"type":"ADDED"})");
  BOOST_TEST((added.type == WatchEventType::Added));
  BOOST_TEST(added.resourceVersion == "42");
  BOOST_TEST(added.object.name == "n1");
  BOOST_TEST(*added.object.labels.get("zone") == "a");

  const auto bookmark = decodeWatchEvent<Pod>(
      R"({"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"99",
          "annotations":{"k8s.io/initial-events-end":"true"}}}})");
  BOOST_TEST((bookmark.type == WatchEventType::Bookmark));
  BOOST_TEST(bookmark.resourceVersion == "99");

  const auto error = decodeWatchEvent<Namespace>(
      R"j({"type":"ERROR","object":{"kind":"Status","status":"Failure","code":410,
          "reason":"Expired","message":"too old resource version: 1 (5)"}})j");
  BOOST_TEST((error.type == WatchEventType::Error));
  BOOST_TEST(error.status.code == 410);
  BOOST_TEST(error.status.reason == "Expired");
  BOOST_TEST(error.status.message == "too old resource version: 1 (5)");
}

BOOST_DATA_TEST_CASE(bad_watch_events_name_what_was_wrong, boost::unit_test::data::make(kBadEvents),
                     c) {
  try {
    decodeWatchEvent<Pod>(c.text);
    BOOST_FAIL("decoded");
  } catch (const DecodeError& e) {
    BOOST_TEST(std::string(e.what()).find(c.error) != std::string::npos, e.what());
  }
}

BOOST_AUTO_TEST_SUITE_END()
