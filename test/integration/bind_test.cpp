// The built binary registered with bindVerb, driven the way kube-scheduler drives it (filter →
// prioritize → choose → bind, the next pod started beside the binding), against the API-server
// double: bursts end with every pod bound where it was sent, no required anti-affinity broken
// and the ideal zone spread, whatever the order of /bind, the next /filter and the watch.
// Each burst is ordered by what the extender does (a stalled watch, a held request), not by
// sleeps, so it cannot pass by luck of timing.
#include <rapidjson/document.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <thread>

#include "test/testing/burst_cluster.hpp"
#include "test/testing/http_client.hpp"
#include "test/testing/wrappers.hpp"

namespace bind_test {

using namespace std::chrono_literals;
using ::testing::kHostname;
using ::testing::kZone;

// The Error of an ExtenderBindingResult.
std::string bindError(const std::string& body) {
  rapidjson::Document document;
  document.Parse(body.data(), body.size());
  BOOST_REQUIRE_MESSAGE(
      document.IsObject() && document.HasMember("Error") && document["Error"].IsString(),
      "not an ExtenderBindingResult: " << body);
  return document["Error"].GetString();
}

// kube-scheduler's ExtenderArgs for `pod` (as its scheduler `schedulerName` sends it) on one
// node, and its ExtenderBindingArgs; "" for `uid` sends none.
std::string filterArgs(const testing::LoopPod& pod, const std::string& schedulerName,
                       const std::string& node) {
  return R"({"Pod":)" + testing::renderPendingPod(pod, schedulerName) + R"(,"NodeNames":[")" +
         node + R"("]})";
}
std::string bindArgs(const std::string& name, const std::string& uid, const std::string& node) {
  return R"({"PodName":")" + name + R"(","PodNamespace":"shop",)" +
         (uid.empty() ? "" : R"("PodUID":")" + uid + R"(",)") + R"("Node":")" + node + R"("})";
}

using testing::eventually;
using testing::kWebAntiAffinity;
using testing::kWebNextToCache;
constexpr auto metric = &testing::metricValue;
using Cluster = testing::BurstCluster;
// The bursts assert that no request waited out its pod in flight: the wait is long so that a
// stalled loaded machine (a sanitized build beside another suite) cannot time out into a
// stale answer. Every wait still ends with the placement it waits for.
const std::string kLongInFlightWait = "--in-flight-wait=20s";

// Every pod bound, by /bind (or the API server itself: 201), to the node the loop chose: what
// the API server now says.
void checkAllBound(Cluster& cluster, const std::vector<testing::PodOutcome>& outcomes,
                   unsigned bindStatus = 200) {
  const auto pods = cluster.server.objects("pods");
  for (const auto& outcome : outcomes) {
    BOOST_TEST_CONTEXT(outcome.name) {
      BOOST_TEST(outcome.scheduleError == "");
      BOOST_TEST(outcome.node != "");
      BOOST_TEST(outcome.bindStatus == bindStatus);
      BOOST_TEST(outcome.bindError == "");
      BOOST_TEST(pods.at(outcome.name).nodeName == outcome.node);
    }
  }
}

struct BurstCase {
  std::string name;
  testing::BindOrder order;
  bool stallWatch;  // the extender learns placements from /bind alone
  std::chrono::milliseconds watchDelayMax{0};
  std::chrono::milliseconds bindingDelay{0};
};
std::ostream& operator<<(std::ostream& out, const BurstCase& c) { return out << c.name; }

const std::vector<BurstCase> kBurstCases = {
    {"binds before the next filter, the watch silent", testing::BindOrder::BeforeNextFilter, true},
    {"binds after the next filter, the watch silent", testing::BindOrder::AfterNextFilter, true},
    {"either order, the watch 0-50 ms late, bindings 5 ms", testing::BindOrder::Alternate, false,
     50ms, 5ms},
};

}  // namespace bind_test

using namespace bind_test;

BOOST_AUTO_TEST_SUITE(bind_binary)

BOOST_DATA_TEST_CASE(a_burst_keeps_anti_affinity_and_spreads_zones,
                     boost::unit_test::data::make(kBurstCases), c) {
  testing::ApiServerDouble::Options options;
  options.bindingDelay = c.bindingDelay;
  Cluster cluster(options, {kLongInFlightWait});
  auto pods = cluster.pending("web-", 40, "web", kWebAntiAffinity);
  cluster.server.setWatchDelay(0ms, c.watchDelayMax, 7);
  if (c.stallWatch) cluster.server.stallWatches(true);

  const auto outcomes = cluster.schedule(pods, c.order);
  checkAllBound(cluster, outcomes);
  const auto placed = cluster.server.objects("pods");
  BOOST_TEST(testing::antiAffinityViolations(placed, cluster.nodeLabels, {{"app", "web"}},
                                             kHostname) == 0u);
  BOOST_TEST(testing::topologySkew(placed, cluster.nodeLabels, {{"app", "web"}}, kZone) <= 1u);

  const std::string during = cluster.metrics();
  BOOST_TEST(metric(during, R"(scheduler_extender_bindings_total{result="bound"})") == 40);
  BOOST_TEST(
      metric(during,
             R"(scheduler_extender_in_flight_waits_total{endpoint="filter",outcome="timeout"})") <=
      0);
  if (c.stallWatch) {
    BOOST_TEST(metric(during, "scheduler_extender_assumed_pods") == 40);
    BOOST_TEST(metric(during, "scheduler_extender_assumed_pods_oldest_age_seconds") > 0);
  }
  // Holding on, nothing kube-scheduler asks is refused: every /filter saw the placements before.
  BOOST_TEST(metric(during, R"(scheduler_extender_bindings_total{result="refused"})") <= 0);
  if (c.order == testing::BindOrder::AfterNextFilter) {
    // Each /filter after the first waited for the previous pod's /bind.
    BOOST_TEST(
        metric(
            during,
            R"(scheduler_extender_in_flight_waits_total{endpoint="filter",outcome="settled"})") >=
        39);
  }
  // The watch catches up and confirms every assumption.
  cluster.server.stallWatches(false);
  BOOST_TEST(eventually(
      [&] { return metric(cluster.metrics(), "scheduler_extender_assumed_pods") == 0; }));
  BOOST_TEST(metric(cluster.metrics(), "scheduler_extender_cache_pods") == 40);
  BOOST_TEST(metric(cluster.metrics(), "scheduler_extender_assumed_pods_oldest_age_seconds") == 0);
}

// Pods that must join the first one: each /filter needs the previous placements to know the
// cache's zone and which nodes already hold a replica.
BOOST_AUTO_TEST_CASE(pods_join_a_pod_placed_just_before) {
  Cluster cluster({}, {kLongInFlightWait});
  auto pods = cluster.pending("cache-", 1, "cache", "");
  const auto web = cluster.pending("web-", 15, "web", kWebNextToCache);
  pods.insert(pods.end(), web.begin(), web.end());
  cluster.server.stallWatches(true);

  const auto outcomes = cluster.schedule(pods, testing::BindOrder::Alternate);
  checkAllBound(cluster, outcomes);
  const auto placed = cluster.server.objects("pods");
  const auto zone = cluster.nodeLabels.at(placed.at("shop/cache-00").nodeName).at(kZone);
  for (const auto& pod : web) {
    BOOST_TEST(cluster.nodeLabels.at(placed.at("shop/" + pod.object.name).nodeName).at(kZone) ==
               zone);
  }
  BOOST_TEST(testing::antiAffinityViolations(placed, cluster.nodeLabels, {{"app", "web"}},
                                             kHostname) == 0u);
}

// Without bindVerb kube-scheduler binds, and the extender learns the placement from the watch
// alone: a request that depends on the previous pod waits for the watch to show it.
BOOST_AUTO_TEST_CASE(without_bind_verb_dependent_requests_wait_for_the_watch) {
  Cluster cluster({}, {kLongInFlightWait});
  const auto pods = cluster.pending("web-", 40, "web", kWebAntiAffinity);
  cluster.server.setWatchDelay(0ms, 30ms, 11);
  const auto outcomes =
      cluster.schedule(pods, testing::BindOrder::BeforeNextFilter, /*apiBinds=*/true);
  checkAllBound(cluster, outcomes, 201);
  const auto placed = cluster.server.objects("pods");
  BOOST_TEST(testing::antiAffinityViolations(placed, cluster.nodeLabels, {{"app", "web"}},
                                             kHostname) == 0u);
  BOOST_TEST(testing::topologySkew(placed, cluster.nodeLabels, {{"app", "web"}}, kZone) <= 1u);
  const std::string text = cluster.metrics();
  BOOST_TEST(
      metric(text,
             R"(scheduler_extender_in_flight_waits_total{endpoint="filter",outcome="timeout"})") <=
      0);
  BOOST_TEST(metric(text, "scheduler_extender_assumed_pods") == 0);
}

struct BindErrorCase {
  std::string name;
  std::string pod;  // the PodName sent
  std::string uid;  // "" for the pod's own
  bool assignFirst = false;
  int failures = 0;  // the double answers this many requests with 500 first
  std::string wantError;
  std::string wantResult;
};
std::ostream& operator<<(std::ostream& out, const BindErrorCase& c) { return out << c.name; }

const std::vector<BindErrorCase> kBindErrorCases = {
    {"no such pod", "ghost", "u-ghost", false, 0,
     "binding pod shop/ghost to node node-a0: reading the pod: API server answered 404 Not "
     "Found: pods \"ghost\" not found",
     "not_found"},
    {"another UID under that name", "p00", "u-old", false, 0,
     "binding pod shop/p00 to node node-a0: PodUID u-old is pod shop/p00 with UID", "conflict"},
    {"the API server already bound it, the watch too late to say", "p00", "", true, 0,
     "binding pod shop/p00 to node node-a0: API server answered 409 Conflict: Operation cannot be "
     "fulfilled on pods/binding \"p00\": pod p00 is already assigned to node \"node-b0\"",
     "conflict"},
    {"the API server fails", "p00", "", false, 1,
     "binding pod shop/p00 to node node-a0: reading the pod: API server answered 500 Internal "
     "Server Error",
     "rejected"},
};

BOOST_DATA_TEST_CASE(a_failed_binding_answers_why_and_assumes_nothing,
                     boost::unit_test::data::make(kBindErrorCases), c) {
  Cluster cluster;
  auto pod = cluster.pending("p", 1, "web", kWebAntiAffinity).front();
  if (c.assignFirst) {
    // Another binder got there first and the watch has not said so: the pod kube-scheduler
    // filtered is all the extender knows, and only the API server can refuse.
    const auto filtered = testing::HttpClient(cluster.process->port())
                              .post("/filter", filterArgs(pod, "default-scheduler", "node-a0"));
    BOOST_TEST(filtered.body.find(R"("NodeNames":["node-a0"])") != std::string::npos);
    cluster.server.stallWatches(true);
    pod.object.nodeName = "node-b0";
    cluster.server.put("pods", pod.object);
  }
  // The informers are watching: the next request to the API server is the binder's.
  BOOST_TEST(eventually([&] { return cluster.server.openWatches() == 4; }));
  cluster.server.failNextRequests(c.failures, 500);
  testing::HttpClient client(cluster.process->port());
  const auto reply =
      client.post("/bind", bindArgs(c.pod, c.uid.empty() ? pod.uid : c.uid, "node-a0"));
  BOOST_TEST(reply.status == 200u);
  BOOST_TEST(bindError(reply.body).rfind(c.wantError, 0) == 0u, reply.body);
  const std::string text = cluster.metrics();
  BOOST_TEST(metric(text, "scheduler_extender_assumed_pods") == 0);
  BOOST_TEST(metric(text, R"(scheduler_extender_bindings_total{result=")" + c.wantResult + "\"}") ==
             1);
}

BOOST_AUTO_TEST_CASE(two_binds_of_one_pod_at_once_bind_it_once) {
  Cluster cluster;
  const auto pod = cluster.pending("p", 1, "web", "").front();
  cluster.server.holdBindings(true);
  const std::string body = bindArgs("p00", pod.uid, "node-a0");
  testing::HttpReply first, second;
  std::thread one(
      [&] { first = testing::HttpClient(cluster.process->port()).post("/bind", body); });
  BOOST_TEST(eventually([&] { return cluster.server.heldBindings() == 1; }));
  std::thread two(
      [&] { second = testing::HttpClient(cluster.process->port()).post("/bind", body); });
  // The binding is let go only once the second /bind waits beside the first.
  BOOST_TEST(eventually([&] {
    return metric(cluster.metrics(), "scheduler_extender_bind_requests_in_flight") == 2;
  }));
  BOOST_TEST(cluster.server.heldBindings() == 1u);
  cluster.server.holdBindings(false);
  one.join();
  two.join();
  BOOST_TEST(first.body == R"({"Error":""})");
  BOOST_TEST(second.body == R"({"Error":""})");
  const auto requests = cluster.server.requests();
  BOOST_TEST(std::count(requests.begin(), requests.end(), "BIND shop/p00") == 1);
  BOOST_TEST(cluster.server.objects("pods").at("shop/p00").nodeName == "node-a0");
}

// kube-scheduler always sends PodUID; a caller that does not gets a binding without the UID
// precondition, of the pod its /filter named or, failing that, the API server's.
BOOST_AUTO_TEST_CASE(a_bind_without_a_uid_binds_the_pod_it_names) {
  Cluster cluster;
  const auto pods = cluster.pending("p", 2, "web", kWebAntiAffinity);
  testing::HttpClient client(cluster.process->port());
  const auto filtered = client.post("/filter", filterArgs(pods[0], "default-scheduler", "node-a0"));
  BOOST_TEST(filtered.body.find(R"("NodeNames":["node-a0"])") != std::string::npos, filtered.body);
  for (const auto& [name, node] : {std::pair{"p00", "node-a0"}, std::pair{"p01", "node-b0"}}) {
    const auto reply = client.post("/bind", bindArgs(name, "", node));
    BOOST_TEST(bindError(reply.body) == "");
    BOOST_TEST(cluster.server.objects("pods").at(std::string("shop/") + name).nodeName == node);
  }
  const auto requests = cluster.server.requests();
  BOOST_TEST(std::count(requests.begin(), requests.end(), "GET pods shop/p00") == 0);
  BOOST_TEST(std::count(requests.begin(), requests.end(), "GET pods shop/p01") == 1);
}

BOOST_AUTO_TEST_CASE(an_unreachable_api_server_is_named) {
  Cluster cluster;
  const auto pod = cluster.pending("p", 1, "web", "").front();
  BOOST_TEST(eventually([&] { return cluster.server.openWatches() == 4; }));
  // The GET of the pod, and a retry on a new connection if the client makes one, meet a
  // connection closed unanswered.
  cluster.server.failNextRequests(2, 0);
  const auto reply = testing::HttpClient(cluster.process->port())
                         .post("/bind", bindArgs("p00", pod.uid, "node-a0"));
  BOOST_TEST(reply.status == 200u);
  BOOST_TEST(bindError(reply.body)
                     .rfind("binding pod shop/p00 to node node-a0: reading the pod: API server "
                            "unreachable: ",
                            0) == 0u,
             reply.body);
  BOOST_TEST(
      metric(cluster.metrics(), R"(scheduler_extender_bindings_total{result="unreachable"})") == 1);
}

// --- What /bind refuses, whoever asks: before any API call, with Error naming why. ----------

struct RefusalCase {
  std::string name;
  std::string schedulerName;  // the pod's spec.schedulerName
  bool filterFirst;           // kube-scheduler's /filter before the /bind: the pod is in flight
  bool assignFirst;           // the cache has the pod on node-b0 already
  bool webOnNode;             // another web replica runs on the node (required anti-affinity)
  std::string node;           // the /bind's Node
  std::string wantError;      // after "binding pod shop/p00 to node <node>: "
  std::string wantReason;
};
std::ostream& operator<<(std::ostream& out, const RefusalCase& c) { return out << c.name; }

const std::vector<RefusalCase> kRefusalCases = {
    {"a pod of another scheduler, read from the API server", "other-scheduler", false, false, false,
     "node-a0",
     "the pod's spec.schedulerName is \"other-scheduler\", not one this extender binds for "
     "(--scheduler-names default-scheduler)",
     "scheduler_name"},
    {"a pod of another scheduler, as /filter had it", "other-scheduler", true, false, false,
     "node-a0",
     "the pod's spec.schedulerName is \"other-scheduler\", not one this extender binds for "
     "(--scheduler-names default-scheduler)",
     "scheduler_name"},
    {"a node no cache holds", "default-scheduler", true, false, false, "node-z9",
     "node \"node-z9\" is not in the extender's cache", "unknown_node"},
    {"a pod the cache holds as assigned", "default-scheduler", false, true, false, "node-a0",
     "the extender's cache has the pod on node \"node-b0\" already", "already_assigned"},
    {"a node the pod no longer fits", "default-scheduler", true, false, true, "node-a0",
     "node node-a0 no longer fits pod shop/p00: node(s) didn't match pod anti-affinity rules",
     "node_no_longer_fits"},
};

// Each refusal writes no Binding (the double sees no BIND), assumes nothing, leaves the node
// as feasible for the next pod as it was, and is counted and logged with its reason.
BOOST_DATA_TEST_CASE(a_refused_binding_writes_nothing_and_says_why,
                     boost::unit_test::data::make(kRefusalCases), c) {
  Cluster cluster;
  auto pod = cluster.pending("p", 1, "web", kWebAntiAffinity).front();
  pod.object.schedulerName = c.schedulerName;
  if (c.assignFirst) pod.object.nodeName = "node-b0";
  cluster.server.put("pods", pod.object);
  const auto cachedPods = [&](double want) {
    return eventually(
        [&] { return metric(cluster.metrics(), "scheduler_extender_cache_pods") == want; });
  };
  BOOST_TEST(cachedPods(c.assignFirst ? 1 : 0));
  testing::HttpClient client(cluster.process->port());
  if (c.filterFirst) client.post("/filter", filterArgs(pod, c.schedulerName, "node-a0"));
  if (c.webOnNode) {
    // Placed after kube-scheduler's /filter found the node feasible, by someone else.
    testing::ApiObject running = pod.object;
    running.name = "running";
    running.nodeName = c.node;
    running.phase = "Running";
    running.affinityJson.clear();
    cluster.server.put("pods", running);
    BOOST_TEST(cachedPods(1));
  }
  const double wantCached = (c.assignFirst ? 1 : 0) + (c.webOnNode ? 1 : 0);

  const auto reply = client.post("/bind", bindArgs("p00", pod.uid, c.node));
  BOOST_TEST(reply.status == 200u);
  BOOST_TEST(bindError(reply.body) ==
             "binding pod shop/p00 to node " + c.node + ": " + c.wantError);

  const auto requests = cluster.server.requests();
  BOOST_TEST(std::count_if(requests.begin(), requests.end(),
                           [](const std::string& r) { return r.starts_with("BIND "); }) == 0);
  // The pod is read from the API server only when kube-scheduler's copy is not at hand and the
  // cheap checks passed.
  const bool wantRead = !c.filterFirst && !c.assignFirst;
  BOOST_TEST(std::count(requests.begin(), requests.end(), "GET pods shop/p00") ==
             (wantRead ? 1 : 0));
  const std::string text = cluster.metrics();
  BOOST_TEST(metric(text, "scheduler_extender_assumed_pods") == 0);
  BOOST_TEST(metric(text, "scheduler_extender_cache_pods") == wantCached);
  BOOST_TEST(metric(text, R"(scheduler_extender_bindings_total{result="refused"})") == 1);
  BOOST_TEST(metric(text, R"(scheduler_extender_bind_refusals_total{reason=")" + c.wantReason +
                              "\"}") == 1);
  if (!c.webOnNode) {
    // Nothing counts on node-a0: the next replica may go there.
    auto next = cluster.pending("next-", 1, "web", kWebAntiAffinity).front();
    const auto filtered = client.post("/filter", filterArgs(next, "default-scheduler", "node-a0"));
    BOOST_TEST(filtered.body.find(R"("NodeNames":["node-a0"])") != std::string::npos,
               filtered.body);
  }
  BOOST_TEST(cluster.process->stop(SIGTERM) == 0);
  BOOST_TEST(cluster.process->log().find("refused: binding pod shop/p00 to node " + c.node + ": " +
                                         c.wantError) != std::string::npos);
}

// --scheduler-names: the profiles the extender binds for, and no other.
BOOST_AUTO_TEST_CASE(scheduler_names_say_whose_pods_bind) {
  Cluster cluster({}, {"--scheduler-names=web-scheduler,batch-scheduler"});
  auto pods = cluster.pending("p", 2, "web", "");
  pods[0].object.schedulerName = "batch-scheduler";
  pods[1].object.schedulerName = "";  // the API server's default: default-scheduler
  for (const auto& pod : pods) cluster.server.put("pods", pod.object);
  testing::HttpClient client(cluster.process->port());
  const auto bind = [&](const testing::LoopPod& pod) {
    return bindError(client.post("/bind", bindArgs(pod.object.name, pod.uid, "node-a0")).body);
  };
  BOOST_TEST(bind(pods[0]) == "");
  BOOST_TEST(bind(pods[1]) ==
             "binding pod shop/p01 to node node-a0: the pod's spec.schedulerName is "
             "\"default-scheduler\", not one this extender binds for (--scheduler-names "
             "web-scheduler,batch-scheduler)");
  BOOST_TEST(cluster.server.objects("pods").at("shop/p00").nodeName == "node-a0");
  BOOST_TEST(cluster.server.objects("pods").at("shop/p01").nodeName == "");
}

// Holding off, each /filter is answered before the previous pod's /bind (the watch silent): it
// cannot see that placement and often picks the same node. The re-check at /bind refuses the
// one that comes second, kube-scheduler schedules it again on a snapshot with the first, and the
// API server never receives a Binding that breaks the anti-affinity.
// How often one pod collides depends on whether its /prioritize or the previous pod's /bind
// reaches the extender first: on a loaded CI machine a pod was still refused at its 10th attempt.
// kube-scheduler retries without limit; the loop gives each pod as many attempts as there are
// replicas, which is enough whatever the timing: each refusal means another replica took the
// node, every later attempt sees it there (assumed until the watch speaks), and only 39 others
// exist.
BOOST_AUTO_TEST_CASE(holding_off_refused_bindings_are_retried_into_a_clean_burst) {
  Cluster cluster({}, {"--in-flight-wait=0s"});
  constexpr int kReplicas = 40;
  const auto pods = cluster.pending("web-", kReplicas, "web", kWebAntiAffinity);
  cluster.server.stallWatches(true);
  const auto outcomes = cluster.schedule(pods, testing::BindOrder::AfterNextFilter,
                                         /*apiBinds=*/false, /*maxAttempts=*/kReplicas);
  checkAllBound(cluster, outcomes);
  const auto placed = cluster.server.objects("pods");
  BOOST_TEST(testing::antiAffinityViolations(placed, cluster.nodeLabels, {{"app", "web"}},
                                             kHostname) == 0u);
  std::size_t retried = 0;
  for (const auto& outcome : outcomes) {
    for (const auto& error : outcome.retriedBindErrors) {
      ++retried;
      BOOST_TEST(error.find(" no longer fits pod " + outcome.name +
                            ": node(s) didn't match pod anti-affinity rules") != std::string::npos,
                 error);
    }
  }
  // The race was run, not dodged: without holding, placements collided and were refused.
  BOOST_TEST(retried > 0u);
  const std::string text = cluster.metrics();
  BOOST_TEST(
      metric(text, R"(scheduler_extender_bind_refusals_total{reason="node_no_longer_fits"})") ==
      static_cast<double>(retried));
  BOOST_TEST(metric(text, R"(scheduler_extender_bindings_total{result="bound"})") == kReplicas);
  // Every Binding the API server received was created: one per pod.
  const auto requests = cluster.server.requests();
  BOOST_TEST(std::count_if(requests.begin(), requests.end(), [](const std::string& r) {
               return r.starts_with("BIND ");
             }) == kReplicas);
}

// A watch silent for longer than the assumed-pod TTL of old (30 s): the first 20 replicas'
// assumptions outlive it, so the next 20 still see them and avoid their nodes. With the expiry,
// they were dropped at 30 s and the second burst doubled up on their nodes.
BOOST_AUTO_TEST_CASE(a_watch_silent_past_the_old_ttl_forgets_no_placement) {
  Cluster cluster({}, {kLongInFlightWait});
  const auto pods = cluster.pending("web-", 40, "web", kWebAntiAffinity);
  cluster.server.stallWatches(true);
  const std::vector<testing::LoopPod> first(pods.begin(), pods.begin() + 20);
  const std::vector<testing::LoopPod> second(pods.begin() + 20, pods.end());
  auto outcomes = cluster.schedule(first, testing::BindOrder::Alternate);
  BOOST_TEST(eventually(
      [&] {
        return metric(cluster.metrics(), "scheduler_extender_assumed_pods_oldest_age_seconds") > 31;
      },
      std::chrono::seconds(60)));
  BOOST_TEST(metric(cluster.metrics(), "scheduler_extender_assumed_pods") == 20);

  const auto later = cluster.schedule(second, testing::BindOrder::Alternate);
  outcomes.insert(outcomes.end(), later.begin(), later.end());
  checkAllBound(cluster, outcomes);
  const auto placed = cluster.server.objects("pods");
  BOOST_TEST(testing::antiAffinityViolations(placed, cluster.nodeLabels, {{"app", "web"}},
                                             kHostname) == 0u);
  BOOST_TEST(metric(cluster.metrics(), "scheduler_extender_assumed_pods") == 40);

  cluster.server.stallWatches(false);
  BOOST_TEST(eventually(
      [&] { return metric(cluster.metrics(), "scheduler_extender_assumed_pods") == 0; }));
  BOOST_TEST(metric(cluster.metrics(), "scheduler_extender_cache_pods") == 40);
}

BOOST_AUTO_TEST_SUITE_END()
