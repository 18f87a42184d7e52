#include "server/router.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <ostream>

#include "test/testing/example_cluster.hpp"
#include "test/testing/http_client.hpp"

namespace {

namespace http = boost::beast::http;

// The router over the example cluster, with no sockets.
struct ExampleRouter {
  testing::ExampleCluster cluster;
  server::Router router{cluster.routerContext()};

  server::Response handle(http::verb method, std::string_view target, std::string body = "") {
    server::Request request{method, target, 11};
    request.body() = std::move(body);
    request.prepare_payload();
    return router.handle(request);
  }
};

struct RouteCase {
  std::string name;
  http::verb method;
  std::string target;
  std::string body;
  unsigned wantStatus;
  std::string wantBody;  // exact
};
std::ostream& operator<<(std::ostream& out, const RouteCase& c) { return out << c.name; }

const std::vector<RouteCase> kRouteCases = {
    {"healthz", http::verb::get, "/healthz", "", 200, "ok"},
    {"readyz", http::verb::get, "/readyz", "", 200, "ok"},
    {"query string ignored", http::verb::get, "/healthz?verbose=1", "", 200, "ok"},
    {"unknown path", http::verb::get, "/filters", "", 404,
     R"({"error":"no such endpoint: /filters"})"},
    {"GET on a POST endpoint", http::verb::get, "/filter", "", 405,
     R"({"error":"/filter accepts POST only"})"},
    {"POST on a GET endpoint", http::verb::post, "/healthz", "{}", 405,
     R"({"error":"/healthz accepts GET only"})"},
    {"not JSON", http::verb::post, "/filter", "hello", 400,
     R"({"error":"invalid JSON at offset 0: Invalid value."})"},
    {"empty body", http::verb::post, "/prioritize", "", 400,
     R"({"error":"invalid JSON at offset 0: The document is empty."})"},
    {"missing Pod", http::verb::post, "/filter", R"({"NodeNames":["node-a1"]})", 400,
     R"({"error":"Pod: missing"})"},
    {"wrong type names the path", http::verb::post, "/explain",
     R"({"Pod":{"metadata":{"name":"p","labels":{"app":7}}}})", 400,
     R"({"error":"Pod.metadata.labels[app]: expected a string"})"},
    {"preemption args with a bad victim list", http::verb::post, "/preempt",
     R"({"Pod":{"metadata":{"name":"p"}},"NodeNameToMetaVictims":{"node-a1":{"Pods":7}}})", 400,
     R"({"error":"NodeNameToMetaVictims[node-a1].Pods: expected an array"})"},
    {"filter by names", http::verb::post, "/filter",
     R"({"Pod":{"metadata":{"name":"p","namespace":"default"}},"NodeNames":["node-a1","ghost"]})",
     200,
     R"({"Nodes":null,"NodeNames":["node-a1"],"FailedNodes":{"ghost":"node \"ghost\" not found in cluster state"},"FailedAndUnresolvableNodes":{},"Error":""})"},
    {"bind without an API server", http::verb::post, "/bind",
     R"({"PodName":"web-3","PodNamespace":"shop","PodUID":"u-1","Node":"node-a2"})", 200,
     R"x({"Error":"binding pod shop/web-3 to node node-a2: no API server to bind through (the extender was started with --cluster-state)"})x"},
    {"bind naming no node", http::verb::post, "/bind",
     R"({"PodName":"web-3","PodNamespace":"shop","PodUID":"u-1"})", 400,
     R"({"error":"Node: missing or empty"})"},
    {"GET on bind", http::verb::get, "/bind", "", 405, R"({"error":"/bind accepts POST only"})"},
    {"prioritize by names", http::verb::post, "/prioritize",
     R"({"pod":{"metadata":{"name":"p","namespace":"default"}},"nodenames":["node-a1","node-b3"]})",
     200, R"([{"Host":"node-a1","Score":0},{"Host":"node-b3","Score":3}])"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(router)

BOOST_DATA_TEST_CASE(answers, boost::unit_test::data::make(kRouteCases), c) {
  ExampleRouter example;
  const auto response = example.handle(c.method, c.target, c.body);
  BOOST_TEST(response.result_int() == c.wantStatus);
  BOOST_TEST(response.body().flat() == c.wantBody);
  BOOST_TEST(response[http::field::content_length] == std::to_string(c.wantBody.size()));
}

BOOST_AUTO_TEST_CASE(not_ready_refuses_scheduling_but_stays_healthy) {
  ExampleRouter example;
  example.cluster.synced = false;
  const auto filter = example.handle(
      http::verb::post, "/filter", testing::readSourceFile("examples/requests/filter-names.json"));
  BOOST_TEST(filter.result_int() == 503u);
  BOOST_TEST(filter[http::field::retry_after] == "1");
  BOOST_TEST(example.handle(http::verb::get, "/readyz").result_int() == 503u);
  BOOST_TEST(example.handle(http::verb::get, "/healthz").result_int() == 200u);
}

// A list the API server refused keeps the cache unsynced: /readyz says which, with the
// API server's words (the permission a service account lacks).
BOOST_AUTO_TEST_CASE(not_ready_says_why_the_informers_failed) {
  ExampleRouter example;
  example.cluster.synced = false;
  BOOST_TEST(example.handle(http::verb::get, "/readyz").body().flat() ==
             R"({"error":"cache not synced"})");
  example.cluster.unsyncedReason = "pods: LIST 403 Forbidden: pods is forbidden";
  BOOST_TEST(example.handle(http::verb::get, "/readyz").body().flat() ==
             R"({"error":"cache not synced: pods: LIST 403 Forbidden: pods is forbidden"})");
}

// A drain takes the extender out of rotation but still answers what arrives.
BOOST_AUTO_TEST_CASE(draining_fails_readiness_but_keeps_scheduling) {
  ExampleRouter example;
  example.cluster.draining = true;
  const auto readyz = example.handle(http::verb::get, "/readyz");
  BOOST_TEST(readyz.result_int() == 503u);
  BOOST_TEST(readyz.body().flat() == R"({"error":"shutting down"})");
  const auto filter = example.handle(
      http::verb::post, "/filter", testing::readSourceFile("examples/requests/filter-names.json"));
  BOOST_TEST(filter.result_int() == 200u);
}

// The session decodes an ExtenderArgs body while it arrives only where the route will
// decode it: not for other endpoints or methods, nor before a 503 or a 401.
BOOST_AUTO_TEST_CASE(extender_args_are_decoded_early_only_where_the_route_decodes_them) {
  ExampleRouter example;
  const auto decodes = [&](http::verb method, std::string_view target, server::Caller caller = {}) {
    return example.router.decodesExtenderArgs(server::Request{method, target, 11}, caller);
  };
  BOOST_TEST(decodes(http::verb::post, "/filter"));
  BOOST_TEST(decodes(http::verb::post, "/prioritize?x=1"));
  BOOST_TEST(decodes(http::verb::post, "/explain"));
  BOOST_TEST(!decodes(http::verb::post, "/preempt"));
  BOOST_TEST(!decodes(http::verb::get, "/filter"));
  BOOST_TEST(!decodes(http::verb::post, "/metrics"));
  example.cluster.synced = false;
  BOOST_TEST(!decodes(http::verb::post, "/filter"));

  testing::ExampleCluster cluster;
  const server::Router mutualTls(cluster.routerContext(), server::Served::All,
                                 server::CallerPolicy(true, {"kube-scheduler"}));
  const server::Request filter{http::verb::post, "/filter", 11};
  BOOST_TEST(!mutualTls.decodesExtenderArgs(filter, {}));
  const auto presenting = [](std::string name) {
    server::Caller caller;
    caller.certificate =
        std::make_shared<server::ClientCertificate>(server::ClientCertificate{std::move(name), {}});
    return caller;
  };
  BOOST_TEST(mutualTls.decodesExtenderArgs(filter, presenting("kube-scheduler")));
  BOOST_TEST(!mutualTls.decodesExtenderArgs(filter, presenting("other-workload")));
}

struct ServedCase {
  std::string name;
  server::Served served;
  http::verb method;
  std::string target;
  unsigned wantStatus;
  std::string wantBody;  // exact, for the 404s
};
std::ostream& operator<<(std::ostream& out, const ServedCase& c) { return out << c.name; }

const std::vector<ServedCase> kServedCases = {
    {"the scheduling port filters", server::Served::SchedulingVerbs, http::verb::post, "/filter",
     200, ""},
    {"the scheduling port binds", server::Served::SchedulingVerbs, http::verb::post, "/bind", 200,
     ""},
    {"the scheduling port sends probes elsewhere", server::Served::SchedulingVerbs, http::verb::get,
     "/healthz", 404,
     R"({"error":"/healthz is served on the --metrics-listen address, not on this one"})"},
    {"the scheduling port sends scrapes elsewhere", server::Served::SchedulingVerbs,
     http::verb::get, "/metrics?x=1", 404,
     R"({"error":"/metrics is served on the --metrics-listen address, not on this one"})"},
    {"the metrics port answers probes", server::Served::HealthAndMetrics, http::verb::get,
     "/readyz", 200, ""},
    {"the metrics port answers scrapes", server::Served::HealthAndMetrics, http::verb::get,
     "/metrics", 200, ""},
    {"the metrics port never binds", server::Served::HealthAndMetrics, http::verb::post, "/bind",
     404, R"({"error":"/bind is served on the --listen address, not on this one"})"},
    {"the metrics port never explains", server::Served::HealthAndMetrics, http::verb::post,
     "/explain", 404, R"({"error":"/explain is served on the --listen address, not on this one"})"},
    {"an unknown path is unknown on either", server::Served::HealthAndMetrics, http::verb::get,
     "/nope", 404, R"({"error":"no such endpoint: /nope"})"},
};

// --metrics-listen splits the endpoints between two listeners, each with a router of its own.
BOOST_DATA_TEST_CASE(each_listener_serves_its_own_endpoints,
                     boost::unit_test::data::make(kServedCases), c) {
  testing::ExampleCluster cluster;
  const server::Router router(cluster.routerContext(), c.served);
  server::Request request{c.method, c.target, 11};
  if (c.method == http::verb::post) {
    request.body() = c.target == "/bind"
                         ? R"({"PodName":"p","PodNamespace":"d","PodUID":"u","Node":"n"})"
                         : testing::readSourceFile("examples/requests/filter-names.json");
    request.prepare_payload();
  }
  const auto response = router.handle(request);
  BOOST_TEST(response.result_int() == c.wantStatus);
  if (!c.wantBody.empty()) BOOST_TEST(response.body().flat() == c.wantBody);
}

BOOST_AUTO_TEST_CASE(method_not_allowed_names_the_method) {
  ExampleRouter example;
  BOOST_TEST(example.handle(http::verb::put, "/prioritize")[http::field::allow] == "POST");
}

BOOST_AUTO_TEST_CASE(metrics_count_requests_by_endpoint_and_code) {
  ExampleRouter example;
  example.handle(http::verb::get, "/healthz");
  example.handle(http::verb::post, "/filter", "not json");
  example.handle(http::verb::post, "/filter", "not json");
  example.handle(http::verb::get, "/secret/path");
  const std::string text = example.handle(http::verb::get, "/metrics").body().flat();
  BOOST_TEST(text.find("scheduler_extender_requests_total{endpoint=\"filter\",code=\"400\"} 2\n") !=
             std::string::npos);
  BOOST_TEST(text.find("scheduler_extender_requests_total{endpoint=\"other\",code=\"404\"} 1\n") !=
             std::string::npos);
  BOOST_TEST(text.find("scheduler_extender_cache_nodes 12\n") != std::string::npos);
  BOOST_TEST(text.find("scheduler_extender_cache_pods 19\n") != std::string::npos);
  BOOST_TEST(
      text.find("scheduler_extender_request_duration_seconds_count{endpoint=\"filter\"} 2\n") !=
      std::string::npos);
  BOOST_TEST(text.find("# TYPE scheduler_extender_watch_events_total counter\n") !=
             std::string::npos);
  // No informers (a cluster-state file): the idle gauge is declared, with no series.
  BOOST_TEST(text.find("# TYPE scheduler_extender_watch_idle_seconds gauge\n") !=
             std::string::npos);
  BOOST_TEST(text.find("scheduler_extender_watch_idle_seconds{") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(request_ids_are_echoed_or_generated) {
  ExampleRouter example;
  server::Request given{http::verb::get, "/healthz", 11};
  given.set("X-Request-Id", "sched-42");
  BOOST_TEST(example.router.handle(given)["X-Request-Id"] == "sched-42");

  server::Request hostile{http::verb::get, "/healthz", 11};
  hostile.set("X-Request-Id", "a\"b");
  const std::string first(example.router.handle(hostile)["X-Request-Id"]);
  const std::string second(example.handle(http::verb::get, "/healthz")["X-Request-Id"]);
  BOOST_TEST(!first.empty());
  BOOST_TEST(first.find('"') == std::string::npos);
  BOOST_TEST(second != first);
}

// PreFilter reports once per cycle; Filter once per node sampled (of the example's 12
// nodes, the one at slot 0); Score never ran.
BOOST_AUTO_TEST_CASE(metrics_time_sampled_plugin_calls) {
  ExampleRouter example;
  example.handle(http::verb::post, "/filter",
                 testing::readSourceFile("examples/requests/filter-names.json"));
  const std::string text = example.handle(http::verb::get, "/metrics").body().flat();
  const std::string series =
      "scheduler_extender_plugin_duration_seconds_count{plugin=\"InterPodAffinity\",";
  BOOST_TEST(text.find(series + "extension_point=\"PreFilter\"} 1\n") != std::string::npos);
  BOOST_TEST(text.find(series + "extension_point=\"Filter\"} 1\n") != std::string::npos);
  BOOST_TEST(text.find(series + "extension_point=\"Score\"} 0\n") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
