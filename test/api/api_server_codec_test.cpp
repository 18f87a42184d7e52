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

const BadEvent kBadBudgetEvents[] = {
    {"selector not an object", R"({"type":"ADDED","object":{"spec":{"selector":"app=web"}}})",
     "object.spec.selector: expected an object"},
    {"expression values not an array",
     R"({"type":"ADDED","object":{"spec":{"selector":{"matchExpressions":[{"values":"x"}]}}}})",
     "object.spec.selector.matchExpressions[0].values: expected an array"},
    {"disruptionsAllowed beyond int32",
     R"({"type":"MODIFIED","object":{"status":{"disruptionsAllowed":4294967296}}})",
     "object.status.disruptionsAllowed: expected a 32-bit integer, got 4294967296"},
    {"disruptedPods not a map",
     R"({"type":"MODIFIED","object":{"status":{"disruptedPods":["web-1"]}}})",
     "object.status.disruptedPods: expected an object of strings"},
    {"disrupted pod's time not a string",
     R"({"type":"MODIFIED","object":{"status":{"disruptedPods":{"web-1":7}}}})",
     "object.status.disruptedPods[web-1]: expected a string"},
};

}  // namespace api_server_codec_test

using namespace api_server_codec_test;

BOOST_AUTO_TEST_SUITE(api_server_codec)

// Items of a typed list carry no kind: each is read as its list's type says.
BOOST_AUTO_TEST_CASE(a_list_item_is_read_as_its_type) {
  const auto pod = decodeListItem<Pod>(
      R"({"metadata":{"name":"a","namespace":"ns","uid":"u1","resourceVersion":"800",
          "labels":{"app":"web"},"managedFields":[{"manager":"x"}]},
          "spec":{"nodeName":"n1","affinity":{"podAntiAffinity":{
          "requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"zone",
          "labelSelector":{"matchLabels":{"app":"web"}},"matchLabelKeys":["app"]}]}}},
          "status":{"phase":"Running"}})",
      0);
  BOOST_TEST(pod.metadata.uid == "u1");
  BOOST_TEST(pod.spec.nodeName == "n1");
  BOOST_TEST(*pod.metadata.labels.get("app") == "web");
  // The API server merged matchLabelKeys when it created the pod (here, with a label the
  // pod no longer has): the selector is read as stored, not merged again.
  BOOST_TEST(pod.metadata.storedByApiServer);
  const auto& term =
      pod.spec.affinity->podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution[0];
  BOOST_TEST(term.labelSelector->matchExpressions.empty());

  const auto node = decodeListItem<Node>(R"({"metadata":{"name":"n1","labels":{"z":"a"}}})", 3);
  BOOST_TEST(node.name == "n1");
  BOOST_TEST(*node.labels.get("z") == "a");
}

BOOST_AUTO_TEST_CASE(a_pod_disruption_budget_is_read_from_a_list_and_a_watch) {
  const std::string object =
      R"({"metadata":{"name":"web","namespace":"shop","resourceVersion":"71"},)"
      R"("spec":{"maxUnavailable":1,"selector":{"matchExpressions":[{"key":"app",)"
      R"("operator":"In","values":["web"]}]}},"status":{"disruptionsAllowed":2,)"
      R"("disruptedPods":{"web-3":"2024-05-01T10:00:00Z"},"currentHealthy":4}})";
  const auto listed = decodeListItem<PodDisruptionBudget>(object, 0);
  BOOST_TEST(listed.cacheKey() == "shop/web");
  BOOST_TEST_REQUIRE(listed.spec.selector.has_value());
  BOOST_TEST((listed.spec.selector->matchExpressions ==
              std::vector<LabelSelectorRequirement>{{"app", "In", {"web"}}}));
  BOOST_TEST(listed.status.disruptionsAllowed == 2);
  BOOST_TEST((listed.status.disruptedPods == std::vector<std::string>{"web-3"}));

  const auto modified =
      decodeWatchEvent<PodDisruptionBudget>(R"({"type":"MODIFIED","object":)" + object + "}");
  BOOST_TEST((modified.type == WatchEventType::Modified));
  BOOST_TEST(modified.resourceVersion == "71");
  BOOST_TEST((modified.object == listed));
}

// A pod's startTime, from a watch as from a list.
BOOST_AUTO_TEST_CASE(a_watched_pod_keeps_its_start_time) {
  const auto added = decodeWatchEvent<Pod>(
      R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"5"},)"
      R"("status":{"phase":"Running","startTime":"2024-05-01T09:58:30Z"}}})");
  BOOST_TEST(added.object.status.startTime.unixSeconds() == 1714557510);
}

BOOST_AUTO_TEST_CASE(a_bad_list_item_is_named_by_its_index) {
  try {
    decodeListItem<Pod>(R"({"metadata":{"name":7}})", 12);
    BOOST_FAIL("decoded");
  } catch (const DecodeError& e) {
    BOOST_TEST(e.path() == "items[12].metadata.name");
  }
}

// The list's metadata says where the list stands and where to continue.
BOOST_AUTO_TEST_CASE(list_metadata_is_read_whatever_surrounds_it) {
  const auto meta = decodeListMeta(
      R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"812",
          "continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ==","remainingItemCount":3},"items":[]})");
  BOOST_TEST(meta.resourceVersion == "812");
  BOOST_TEST(meta.continueToken == "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ==");
  const auto last = decodeListMeta(R"({"items":[],"metadata":{"resourceVersion":"9"}})");
  BOOST_TEST(last.resourceVersion == "9");
  BOOST_TEST(last.continueToken.empty());
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

BOOST_DATA_TEST_CASE(bad_pod_disruption_budget_events_name_what_was_wrong,
                     boost::unit_test::data::make(kBadBudgetEvents), c) {
  try {
    decodeWatchEvent<PodDisruptionBudget>(c.text);
    BOOST_FAIL("decoded");
  } catch (const DecodeError& e) {
    BOOST_TEST(std::string(e.what()) == c.error);
  }
}

BOOST_AUTO_TEST_CASE(EncodesABindingWithItsUidPrecondition) {
  BOOST_TEST(encodeBinding("shop", "web-1", "u-1", "node-a2") ==
             R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"web-1","namespace":"shop",)"
             R"("uid":"u-1"},"target":{"apiVersion":"v1","kind":"Node","name":"node-a2"}})");
  // No UID: no precondition, rather than one that no pod can meet.
  BOOST_TEST(encodeBinding("shop", "web-1", "", "node-a2").find("uid") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
