// The informers against the API-server double: lists, watches and every fault the double
// can inject, checking afterwards that the cache holds exactly what the double holds.
#include <unistd.h>

#include <atomic>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "scheduling/cache/cache.hpp"
#include "scheduling/sources/api_source.hpp"
#include "test/testing/api_server_double.hpp"
#include "test/testing/wrappers.hpp"

// Named rather than anonymous: data-driven test cases are templates, and GCC warns when
// their lambdas capture types with internal linkage.
namespace informer_test {

using namespace std::chrono_literals;
using scheduling::informers::ClientConfig;
using testing::ApiObject;
using testing::ApiServerDouble;

// Counts what the informers report.
struct RecordingObserver final : scheduling::informers::InformerObserver {
  void watchEvent(std::string_view resource, std::string_view type) override {
    std::lock_guard lock(mutex);
    ++events[std::string(resource) + " " + std::string(type)];
  }
  void watchRestart(std::string_view resource, std::string_view reason, bool,
                    const std::string&) override {
    std::lock_guard lock(mutex);
    ++restarts[std::string(resource) + " " + std::string(reason)];
  }
  void listed(std::string_view resource, const scheduling::informers::ListSummary&) override {
    std::lock_guard lock(mutex);
    ++lists[std::string(resource)];
  }
  int restartsFor(const std::string& key) {
    std::lock_guard lock(mutex);
    return restarts[key];
  }
  // For faults that hit whichever informer asks next.
  int restartsOfAnyFor(const std::string& reason) {
    return restartsFor("namespaces " + reason) + restartsFor("nodes " + reason) +
           restartsFor("pods " + reason) + restartsFor("poddisruptionbudgets " + reason);
  }
  int listsOf(const std::string& resource) {
    std::lock_guard lock(mutex);
    return lists[resource];
  }
  int listsOfAny() {
    return listsOf("namespaces") + listsOf("nodes") + listsOf("pods") +
           listsOf("poddisruptionbudgets");
  }
  int eventsOf(const std::string& key) {
    std::lock_guard lock(mutex);
    return events[key];
  }

  std::mutex mutex;
  std::map<std::string, int> events;
  std::map<std::string, int> restarts;
  std::map<std::string, int> lists;
};

scheduling::informers::ReflectorOptions fastOptions() {
  scheduling::informers::ReflectorOptions options;
  options.pageSize = 3;  // several pages for every list
  options.idleTimeout = 1s;
  options.minWatchTimeout = 2s;
  options.initialBackoff = std::chrono::milliseconds(10);
  options.maxBackoff = std::chrono::milliseconds(200);
  return options;
}

ClientConfig configFor(const ApiServerDouble& server) {
  ClientConfig config;
  config.host = "127.0.0.1";
  config.port = std::to_string(server.port());
  config.https = false;
  config.origin = "test";
  return config;
}

// What the cache shows requests, in the double's terms.
struct View {
  std::map<std::string, std::map<std::string, std::string>> nodes;       // name → labels
  std::map<std::string, std::map<std::string, std::string>> namespaces;  // name → labels
  std::map<std::string, std::string> assigned;                           // ns/name → node
  std::map<std::string, std::string> nominated;                          // ns/name → node
  std::set<std::string> terminating;
  std::map<std::string, std::map<std::string, std::string>> podLabels;

  bool operator==(const View&) const = default;
};

std::map<std::string, std::string> labelsOf(const scheduling::api::Labels& labels) {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : labels) out.emplace(key, value);
  return out;
}

View viewOf(const scheduling::cache::Snapshot& snapshot, const std::set<std::string>& nodeNames) {
  View view;
  for (const auto* info : snapshot.nodeInfoList()) {
    view.nodes[info->node()->name] = labelsOf(info->node()->labels);
    for (const auto& podInfo : info->pods()) {
      const auto& pod = podInfo->pod();
      const std::string key = pod.metadata.ns + "/" + pod.metadata.name;
      view.assigned[key] = info->node()->name;
      view.podLabels[key] = labelsOf(pod.metadata.labels);
      if (pod.isTerminating()) view.terminating.insert(key);
    }
  }
  snapshot.forEachNamespace([&](const std::string& name, const scheduling::api::Labels& labels) {
    view.namespaces[name] = labelsOf(labels);
  });
  for (const auto& node : nodeNames) {
    for (const auto& nominated : snapshot.nominatedPodsForNode(node)) {
      const auto& pod = nominated.info->pod();
      view.nominated[pod.metadata.ns + "/" + pod.metadata.name] = node;
    }
  }
  return view;
}

// What the cache should show for the double's objects (CONTRACT §4): pods on a node that
// exists count when not terminal; unbound pods with a nomination are nominated.
View truthOf(const ApiServerDouble& server) {
  View view;
  for (const auto& [name, node] : server.objects("nodes")) view.nodes[name] = node.labels;
  for (const auto& [name, ns] : server.objects("namespaces")) view.namespaces[name] = ns.labels;
  for (const auto& [key, pod] : server.objects("pods")) {
    if (pod.phase == "Succeeded" || pod.phase == "Failed") continue;
    if (!pod.nodeName.empty()) {
      if (!view.nodes.contains(pod.nodeName)) continue;  // a ghost's pods are not shown
      view.assigned[key] = pod.nodeName;
      view.podLabels[key] = pod.labels;
      if (pod.terminating) view.terminating.insert(key);
    } else if (!pod.nominatedNodeName.empty()) {
      view.nominated[key] = pod.nominatedNodeName;
    }
  }
  return view;
}

std::set<std::string> nodeNamesIn(const ApiServerDouble& server) {
  std::set<std::string> names;
  for (const auto& [name, node] : server.objects("nodes")) names.insert(name);
  for (const auto& [key, pod] : server.objects("pods")) {
    if (!pod.nominatedNodeName.empty()) names.insert(pod.nominatedNodeName);
  }
  return names;
}

// Polls until the cache shows what the double holds (the informers are asynchronous by
// nature); false after `limit`.
bool converges(const ApiServerDouble& server, const scheduling::cache::Cache& cache,
               std::chrono::seconds limit = 20s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    const View truth = truthOf(server);
    if (viewOf(*cache.snapshot(), nodeNamesIn(server)) == truth) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
}

template <typename Predicate>
bool eventually(Predicate predicate, std::chrono::seconds limit = 20s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!predicate()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

ApiObject node(const std::string& name, const std::string& zone) {
  ApiObject object;
  object.name = name;
  object.labels = {{"kubernetes.io/hostname", name}, {"topology.kubernetes.io/zone", zone}};
  return object;
}
ApiObject ns(const std::string& name, const std::string& team) {
  ApiObject object;
  object.name = name;
  object.labels = {{"team", team}};
  return object;
}
ApiObject pod(const std::string& name, const std::string& nodeName, const std::string& app) {
  ApiObject object;
  object.name = name;
  object.ns = "default";
  object.labels = {{"app", app}};
  object.nodeName = nodeName;
  return object;
}

// A PodDisruptionBudget of namespace "default" over the pods labelled app=<app>, whose
// spec.selector is `selector` (JSON) when given.
ApiObject pdb(const std::string& name, const std::string& app, int disruptionsAllowed,
              const std::string& selector = "") {
  ApiObject object;
  object.name = name;
  object.ns = "default";
  object.specBulk = R"("minAvailable":1,"selector":)" +
                    (selector.empty() ? R"({"matchLabels":{"app":")" + app + R"("}})" : selector);
  object.statusBulk = R"("currentHealthy":2,"disruptionsAllowed":)" +
                      std::to_string(disruptionsAllowed) +
                      R"(,"disruptedPods":{"pod-0":"2024-05-01T10:00:00Z"})";
  return object;
}

// "name:disruptionsAllowed" for each budget the cache's latest snapshot holds in "default".
std::vector<std::string> budgetsIn(const scheduling::cache::Cache& cache) {
  std::vector<std::string> out;
  // Held for the loop: a range-for keeps only the range alive, not the snapshot it lies in,
  // and a publish may drop the cache's own reference meanwhile.
  const auto snapshot = cache.snapshot();
  for (const auto& budget : snapshot->podDisruptionBudgets("default")) {
    out.push_back(budget.name + ":" + std::to_string(budget.disruptionsAllowed));
  }
  return out;
}

ApiServerDouble::Options doubleOptions(bool tls, std::string token, bool goneAsErrorEvent) {
  ApiServerDouble::Options options;
  options.tls = tls;
  options.token = std::move(token);
  options.goneAsErrorEvent = goneAsErrorEvent;
  return options;
}

void seed(ApiServerDouble& server, int nodes, int pods) {
  server.put("namespaces", ns("default", "a"));
  server.put("namespaces", ns("batch", "b"));
  for (int i = 0; i < nodes; ++i) {
    server.put("nodes", node("node-" + std::to_string(i), "zone-" + std::to_string(i % 3)));
  }
  for (int i = 0; i < pods; ++i) {
    server.put("pods", pod("pod-" + std::to_string(i), "node-" + std::to_string(i % nodes), "web"));
  }
}

struct Fixture {
  explicit Fixture(ApiServerDouble::Options options = {},
                   scheduling::informers::ReflectorOptions reflector = fastOptions())
      : server(std::move(options)), source(configFor(server), cache, observer, reflector) {}

  ApiServerDouble server;
  scheduling::cache::Cache cache;
  RecordingObserver observer;
  scheduling::sources::ApiSource source;
};

// When the informer of `resource` last heard from the API server.
std::chrono::steady_clock::time_point lastHeard(const scheduling::sources::ApiSource& source,
                                                std::string_view resource) {
  for (const auto& watch : source.watchStatus()) {
    if (watch.resource == resource) return watch.lastHeard;
  }
  BOOST_FAIL("no informer for " << resource);
  return {};
}

// Something the API server sends on the nodes watch after a stall, and the idle timeout the
// informers run with: the idle age must grow while the watch is silent and reset once the
// server is heard again.
struct HearingCase {
  std::string name;
  std::chrono::seconds idleTimeout;
  std::function<void(Fixture&)> speak;  // called until the age resets
  std::string wantEvent;                // what the informer saw, or ""
  std::string wantRestart;              // why it started over, or ""
};
std::ostream& operator<<(std::ostream& out, const HearingCase& c) { return out << c.name; }

const std::vector<HearingCase> kHearingCases = {
    {"a bookmark", 30s,
     [](Fixture& f) {
       f.server.stallWatches(false);
       f.server.sendBookmarks();
     },
     "nodes BOOKMARK", ""},
    {"a watch event", 30s,
     [](Fixture& f) {
       f.server.stallWatches(false);
       f.server.put("nodes", node("node-late", "zone-0"));
     },
     "nodes ADDED", ""},
    // The stall goes on: the informer gives up on the silent watch and opens a new one, whose
    // answer is the server speaking.
    {"a watch re-opened after the idle timeout", 1s, [](Fixture&) {}, "", "nodes idle"},
};

int count(const std::vector<std::string>& requests, const std::string& what) {
  return static_cast<int>(std::count(requests.begin(), requests.end(), what));
}

}  // namespace informer_test

using namespace informer_test;

BOOST_AUTO_TEST_SUITE(informers)

BOOST_AUTO_TEST_CASE(the_first_list_is_paginated_and_syncs_the_cache) {
  Fixture f;
  seed(f.server, 7, 20);
  BOOST_TEST(!f.source.synced());
  f.source.start();
  BOOST_TEST(eventually([&] { return f.source.synced(); }));
  BOOST_TEST(converges(f.server, f.cache));
  // 20 pods in pages of 3: 7 LISTs; 7 nodes: 3.
  BOOST_TEST(count(f.server.requests(), "LIST pods") == 7);
  BOOST_TEST(count(f.server.requests(), "LIST nodes") == 3);
  BOOST_TEST(f.cache.numNodes() == 7u);
  BOOST_TEST(f.cache.numAssignedPods() == 20u);
}

// A server that ignores `limit` answers the whole list at once; the informer reads it item by
// item all the same.
BOOST_AUTO_TEST_CASE(a_list_answered_whole_is_read_item_by_item) {
  ApiServerDouble::Options options;
  options.ignoreLimit = true;
  Fixture f(options);
  seed(f.server, 7, 200);
  f.source.start();
  BOOST_TEST(eventually([&] { return f.source.synced(); }));
  BOOST_TEST(converges(f.server, f.cache));
  BOOST_TEST(count(f.server.requests(), "LIST pods") == 1);
  BOOST_TEST(f.cache.numAssignedPods() == 200u);
}

BOOST_AUTO_TEST_CASE(watch_events_follow_every_kind_of_change) {
  Fixture f;
  seed(f.server, 4, 6);
  f.source.start();
  BOOST_TEST(eventually([&] { return f.source.synced(); }));

  auto moved = pod("pod-0", "node-3", "web");  // a pod moving between nodes
  f.server.put("pods", moved);
  auto relabelled = pod("pod-1", "node-1", "api");
  f.server.put("pods", relabelled);
  auto nominated = pod("pending", "", "web");
  nominated.nominatedNodeName = "node-2";
  f.server.put("pods", nominated);
  auto terminating = pod("pod-2", "node-2", "web");
  terminating.terminating = true;
  f.server.put("pods", terminating);
  auto finished = pod("pod-3", "node-3", "web");
  finished.phase = "Succeeded";  // leaves the field selector: DELETED for the watch
  f.server.put("pods", finished);
  f.server.put("nodes", node("node-1", "zone-9"));  // relabelled node
  f.server.put("namespaces", ns("batch", "c"));
  f.server.remove("namespaces", "default");
  BOOST_TEST(converges(f.server, f.cache));

  // A node deleted while pods remain on it, then the pods after it.
  f.server.remove("nodes", "node-2");
  BOOST_TEST(converges(f.server, f.cache));
  f.server.remove("pods", "default/pod-2");
  f.server.remove("pods", "default/pod-5");
  BOOST_TEST(converges(f.server, f.cache));
  // The node comes back: empty.
  f.server.put("nodes", node("node-2", "zone-2"));
  BOOST_TEST(converges(f.server, f.cache));
  BOOST_TEST(f.observer.events["pods DELETED"] >= 1);
}

BOOST_AUTO_TEST_CASE(a_dropped_watch_resumes_from_the_last_resource_version) {
  Fixture f;
  seed(f.server, 3, 6);
  f.source.start();
  BOOST_TEST(eventually([&] { return f.source.synced(); }));
  f.server.put("pods", pod("before-drop", "node-1", "web"));
  BOOST_TEST(converges(f.server, f.cache));
  const int podLists = count(f.server.requests(), "LIST pods");

  f.server.dropWatches();
  f.server.put("pods", pod("after-drop", "node-2", "web"));
  f.server.remove("pods", "default/pod-0");
  BOOST_TEST(converges(f.server, f.cache));
  BOOST_TEST(f.observer.restartsFor("pods connection") >= 1);
  BOOST_TEST(count(f.server.requests(), "LIST pods") == podLists);  // no relist needed
}

BOOST_AUTO_TEST_CASE(a_stalled_watch_is_abandoned_and_resumed) {
  Fixture f;
  seed(f.server, 3, 3);
  f.source.start();
  BOOST_TEST(eventually([&] { return f.source.synced(); }));
  const int podLists = count(f.server.requests(), "LIST pods");
  const int podWatches = count(f.server.requests(), "WATCH pods");

  f.server.stallWatches(true);
  f.server.put("pods", pod("during-stall", "node-0", "web"));
  // The informer gives up on the silent connection and watches again (and again).
  BOOST_TEST(eventually([&] { return f.observer.restartsFor("pods idle") >= 1; }));
  BOOST_TEST(eventually([&] { return count(f.server.requests(), "WATCH pods") > podWatches; }));
  f.server.stallWatches(false);
  BOOST_TEST(converges(f.server, f.cache));
  BOOST_TEST(count(f.server.requests(), "LIST pods") == podLists);
}

// 410 for a watch from a compacted resourceVersion: as a status, and as an ERROR event.
BOOST_DATA_TEST_CASE(gone_relists_and_deletes_what_the_watch_missed,
                     boost::unit_test::data::make({false, true}), goneAsErrorEvent) {
  Fixture f(doubleOptions(false, "", goneAsErrorEvent));
  seed(f.server, 3, 6);
  f.source.start();
  BOOST_TEST(eventually([&] { return f.source.synced(); }));
  const int podLists = f.observer.listsOf("pods");

  // Changes while the watch is stalled, then history compacted and the connection cut:
  // the resumed watch is too old and only a relist can bring the deletes.
  f.server.stallWatches(true);
  f.server.remove("pods", "default/pod-1");
  f.server.remove("nodes", "node-0");
  f.server.put("pods", pod("new", "node-1", "web"));
  f.server.compact();
  f.server.dropWatches();
  f.server.stallWatches(false);
  BOOST_TEST(converges(f.server, f.cache));
  BOOST_TEST(f.observer.listsOf("pods") > podLists);
  BOOST_TEST(f.observer.restartsFor("pods gone") >= 1);
}

// Pods bound through /bind while the watch was away: the store never saw them, so only the
// cache knows them, as assumptions. A relist begun after their bindings confirms the one still
// there and forgets the one deleted meanwhile, so an assumption that never expires never leaks.
BOOST_AUTO_TEST_CASE(a_relist_confirms_or_forgets_assumptions_the_watch_never_showed) {
  Fixture f;
  seed(f.server, 3, 0);
  f.source.start();
  BOOST_TEST(eventually([&] { return f.source.synced(); }));

  f.server.stallWatches(true);
  for (const auto& [name, node] : {std::pair{"kept", "node-1"}, std::pair{"deleted", "node-2"}}) {
    f.server.put("pods", pod(name, "", "web"));
    const std::string uid = f.server.uid("pods", std::string("default/") + name);
    // What the binder does: assume, the API server binds, the binding finishes.
    f.cache.assumePod(
        testing::MakePod().name(name).ns("default").uid(uid).label("app", "web").obj(), node);
    f.server.put("pods", pod(name, node, "web"));
    f.cache.finishBinding(uid, std::chrono::steady_clock::now());
  }
  f.cache.publish();
  f.server.remove("pods", "default/deleted");
  BOOST_TEST(f.cache.numAssumedPods() == 2u);

  f.server.compact();
  f.server.dropWatches();
  f.server.stallWatches(false);
  BOOST_TEST(eventually([&] { return f.cache.numAssumedPods() == 0; }));
  BOOST_TEST(converges(f.server, f.cache));
  BOOST_TEST(f.cache.assignedNode(f.server.uid("pods", "default/kept")).value_or("") == "node-1");
  BOOST_TEST(f.cache.numAssignedPods() == 1u);
  BOOST_TEST(f.observer.restartsFor("pods gone") >= 1);
}

// Stopping reaches the reads in flight: a read whose bytes arrived just before the stop
// still runs its handler, which feeds them to the answer's parser, so the parser must outlive
// the close. Destroying it there called into a half-destroyed parser ("pure virtual method
// called"): this test fails by aborting. Events stream the whole time, and the stops land
// at different moments once they are flowing.
BOOST_AUTO_TEST_CASE(stopping_while_events_arrive_is_clean) {
  for (int round = 0; round < 12; ++round) {
    Fixture f;
    seed(f.server, 2, 4);
    f.source.start();
    BOOST_TEST_REQUIRE(eventually([&] { return f.source.synced(); }));
    std::atomic<bool> done{false};
    std::thread churn([&] {
      for (int i = 0; !done; ++i) {
        f.server.put("pods", pod("churn-" + std::to_string(i % 20), "node-" + std::to_string(i % 2),
                                 "web-" + std::to_string(i)));
      }
    });
    BOOST_TEST(eventually([&] { return f.observer.eventsOf("pods MODIFIED") > 0; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(round % 4 * 3));
    f.source.stop();
    done = true;
    churn.join();
  }
}

// A server whose watch cache lags behind the informer's resourceVersion: only a relist helps.
BOOST_AUTO_TEST_CASE(too_large_resource_version_relists) {
  Fixture f;
  seed(f.server, 3, 6);
  f.source.start();
  BOOST_TEST(eventually([&] { return f.source.synced(); }));
  const int before = f.observer.listsOfAny();
  f.server.lagNextWatch();
  f.server.dropWatches();
  f.server.put("pods", pod("after-lag", "node-1", "web"));
  BOOST_TEST(converges(f.server, f.cache));
  BOOST_TEST(eventually([&] { return f.observer.listsOfAny() > before; }));
  BOOST_TEST(f.observer.restartsOfAnyFor("too_large") == 1);
}

BOOST_AUTO_TEST_CASE(an_error_event_is_followed_by_a_new_watch) {
  Fixture f;
  seed(f.server, 2, 2);
  f.source.start();
  BOOST_TEST(eventually([&] { return f.source.synced(); }));
  // The event reaches the watches open at that moment; idle watches are re-opened every
  // second here, so send until the pods watch has had one.
  BOOST_TEST(eventually([&] {
    f.server.sendErrorEvent(500, "InternalError");
    return f.observer.restartsFor("pods error_event") >= 1;
  }));
  f.server.put("pods", pod("after-error", "node-0", "web"));
  BOOST_TEST(converges(f.server, f.cache));
}

BOOST_AUTO_TEST_CASE(an_expired_continue_token_restarts_the_list) {
  Fixture f;
  seed(f.server, 2, 12);
  f.server.expireNextContinue();
  f.source.start();
  BOOST_TEST(eventually([&] { return f.source.synced(); }));
  BOOST_TEST(converges(f.server, f.cache));
  BOOST_TEST(f.observer.restartsOfAnyFor("expired") == 1);
}

// A listed pod that does not decode (a field of the wrong type) restarts the list: the
// informer never syncs without it, and syncs once the API server serves it mended.
BOOST_AUTO_TEST_CASE(a_listed_pod_that_does_not_decode_relists_until_mended) {
  Fixture f;
  seed(f.server, 3, 40);
  ApiObject broken = pod("pod-7", "node-1", "web");
  broken.affinityJson =
      R"({"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":5}]}})";
  f.server.put("pods", broken);
  f.source.start();
  BOOST_TEST(eventually([&] { return f.observer.restartsFor("pods decode") >= 2; }));
  BOOST_TEST(!f.source.synced());
  f.server.put("pods", pod("pod-7", "node-1", "web"));
  BOOST_TEST(eventually([&] { return f.source.synced(); }));
  BOOST_TEST(converges(f.server, f.cache));
}

// PodDisruptionBudgets are listed (readiness waits for them) and watched like the rest.
BOOST_AUTO_TEST_CASE(pod_disruption_budgets_are_listed_and_watched) {
  Fixture f;
  seed(f.server, 2, 2);
  f.server.put("poddisruptionbudgets", pdb("web", "web", 1));
  f.source.start();
  BOOST_TEST(eventually([&] { return f.source.synced(); }));
  BOOST_TEST((budgetsIn(f.cache) == std::vector<std::string>{"web:1"}));
  BOOST_TEST(count(f.server.requests(), "LIST poddisruptionbudgets") == 1);
  const auto budgets = f.cache.snapshot()->podDisruptionBudgets("default");
  BOOST_TEST(budgets[0].selects(scheduling::api::Labels{{"app", "web"}}));
  BOOST_TEST(budgets[0].disrupted("pod-0"));

  f.server.put("poddisruptionbudgets", pdb("web", "web", 0));
  f.server.put("poddisruptionbudgets", pdb("db", "db", 2));
  BOOST_TEST(eventually([&] {
    return budgetsIn(f.cache) == std::vector<std::string>{"db:2", "web:0"};
  }));
  f.server.remove("poddisruptionbudgets", "default/web");
  BOOST_TEST(eventually([&] { return budgetsIn(f.cache) == std::vector<std::string>{"db:2"}; }));
  BOOST_TEST(f.observer.eventsOf("poddisruptionbudgets DELETED") == 1);
}

// A budget that does not decode, from the watch and then from every relist, leaves the cache
// with what it had and the informer starting over until the API server serves it mended.
BOOST_AUTO_TEST_CASE(a_pod_disruption_budget_that_does_not_decode_leaves_the_cache_as_it_was) {
  Fixture f;
  seed(f.server, 2, 2);
  f.server.put("poddisruptionbudgets", pdb("web", "web", 1));
  f.source.start();
  BOOST_TEST(eventually([&] { return f.source.synced(); }));

  f.server.put("poddisruptionbudgets", pdb("web", "web", 0, R"("app=web")"));
  BOOST_TEST(
      eventually([&] { return f.observer.restartsFor("poddisruptionbudgets decode") >= 2; }));
  BOOST_TEST((budgetsIn(f.cache) == std::vector<std::string>{"web:1"}));
  f.server.put("pods", pod("meanwhile", "node-1", "web"));  // the other informers go on
  BOOST_TEST(converges(f.server, f.cache));

  f.server.put("poddisruptionbudgets", pdb("web", "web", 3));
  BOOST_TEST(eventually([&] { return budgetsIn(f.cache) == std::vector<std::string>{"web:3"}; }));
}

BOOST_AUTO_TEST_CASE(failing_requests_are_retried_with_backoff) {
  Fixture f;
  seed(f.server, 2, 4);
  f.server.failNextRequests(6, 500);
  f.source.start();
  BOOST_TEST(eventually([&] { return f.source.synced(); }));
  BOOST_TEST(converges(f.server, f.cache));
  BOOST_TEST(f.observer.restartsOfAnyFor("list_error") >= 1);
}

BOOST_AUTO_TEST_CASE(bookmarks_advance_without_changing_the_cache) {
  Fixture f;
  seed(f.server, 2, 2);
  f.source.start();
  BOOST_TEST(eventually([&] { return f.source.synced(); }));
  BOOST_TEST(eventually([&] {
    f.server.sendBookmarks();  // to the watches open at that moment, as above
    std::lock_guard lock(f.observer.mutex);
    return f.observer.events["pods BOOKMARK"] >= 1 && f.observer.events["nodes BOOKMARK"] >= 1;
  }));
  BOOST_TEST(converges(f.server, f.cache));
}

BOOST_DATA_TEST_CASE(the_idle_age_grows_in_a_stall_and_resets_when_the_server_speaks,
                     boost::unit_test::data::make(kHearingCases), c) {
  auto options = fastOptions();
  options.idleTimeout = c.idleTimeout;
  Fixture f({}, options);
  seed(f.server, 2, 2);
  f.source.start();
  BOOST_TEST(eventually([&] { return f.source.synced(); }));

  f.server.stallWatches(true);
  // Nothing arrives (a watch's answer in flight at the stall aside): the age grows.
  BOOST_TEST(eventually(
      [&] { return std::chrono::steady_clock::now() - lastHeard(f.source, "nodes") >= 300ms; }));
  const auto stalled = lastHeard(f.source, "nodes");

  BOOST_TEST(eventually([&] {
    c.speak(f);
    return lastHeard(f.source, "nodes") > stalled;
  }));
  if (!c.wantEvent.empty()) {
    // The age resets when bytes arrive, before they are decoded into the event (and the
    // bytes may be what the stall held back): the event follows.
    BOOST_TEST(eventually([&] { return f.observer.eventsOf(c.wantEvent) >= 1; }));
    BOOST_TEST(f.observer.restartsFor("nodes idle") == 0);  // not heard by re-watching
  }
  if (!c.wantRestart.empty()) BOOST_TEST(f.observer.restartsFor(c.wantRestart) >= 1);
  f.server.stallWatches(false);
}

// An error answer keeps nothing up to date: a watch that fails again and again is not the
// server being heard.
BOOST_AUTO_TEST_CASE(error_answers_do_not_reset_the_idle_age) {
  Fixture f;
  seed(f.server, 2, 2);
  f.source.start();
  BOOST_TEST(eventually([&] { return f.source.synced(); }));

  f.server.failNextRequests(1000000, 500);
  f.server.dropWatches();
  BOOST_TEST(eventually([&] { return f.observer.restartsFor("nodes watch_error") >= 3; }));
  const auto failing = lastHeard(f.source, "nodes");
  BOOST_TEST(eventually([&] { return f.observer.restartsFor("nodes watch_error") >= 5; }));
  BOOST_TEST((lastHeard(f.source, "nodes") == failing));

  f.server.failNextRequests(0, 500);
  BOOST_TEST(eventually([&] { return lastHeard(f.source, "nodes") > failing; }));
  BOOST_TEST(converges(f.server, f.cache));
}

BOOST_AUTO_TEST_CASE(tls_with_the_test_ca_and_a_bearer_token) {
  ApiServerDouble server(doubleOptions(true, "s3cret", false));
  seed(server, 2, 3);
  ClientConfig config = configFor(server);
  config.https = true;
  std::ifstream ca(std::string(SX_SOURCE_DIR) + "/test/data/pki/ca.crt");
  config.caPem.assign(std::istreambuf_iterator<char>(ca), {});
  config.bearerToken = "s3cret";
  scheduling::cache::Cache cache;
  RecordingObserver observer;
  scheduling::sources::ApiSource source(config, cache, observer, fastOptions());
  source.start();
  BOOST_TEST(eventually([&] { return source.synced(); }));
  BOOST_TEST(converges(server, cache));
}

// A bound service-account token rotated by the kubelet: the first 401 makes the informer
// read the token file again, well before the periodic refresh would.
BOOST_AUTO_TEST_CASE(a_rotated_token_file_is_read_again_on_401) {
  ApiServerDouble server(doubleOptions(false, "first", false));
  seed(server, 2, 3);
  const auto tokenFile =
      std::filesystem::temp_directory_path() / ("sx-informer-token-" + std::to_string(::getpid()));
  std::ofstream(tokenFile) << "first\n";
  ClientConfig config = configFor(server);
  config.tokenFile = tokenFile.string();
  scheduling::cache::Cache cache;
  RecordingObserver observer;
  scheduling::sources::ApiSource source(config, cache, observer, fastOptions());
  source.start();
  BOOST_TEST(eventually([&] { return source.synced(); }));

  server.setToken("second");
  std::ofstream(tokenFile) << "second\n";
  server.dropWatches();
  server.put("pods", pod("after-rotation", "node-0", "web"));
  BOOST_TEST(converges(server, cache));
  // At least one informer met the 401 (they share the token, so the others may not).
  BOOST_TEST(observer.restartsOfAnyFor("watch_error") >= 1);
  std::filesystem::remove(tokenFile);
}

BOOST_AUTO_TEST_CASE(a_wrong_token_never_syncs) {
  ApiServerDouble server(doubleOptions(false, "right", false));
  seed(server, 1, 1);
  ClientConfig config = configFor(server);
  config.bearerToken = "wrong";
  scheduling::cache::Cache cache;
  RecordingObserver observer;
  scheduling::sources::ApiSource source(config, cache, observer, fastOptions());
  source.start();
  BOOST_TEST(eventually([&] { return observer.restartsFor("pods list_error") >= 2; }));
  BOOST_TEST(!source.synced());
}

// Random changes interleaved with random faults, from fixed seeds: whatever happened, once
// the faults stop the cache equals the double. Meanwhile a reader checks that every snapshot
// it takes is consistent: no pod on two nodes, every pod on the node its spec names.
BOOST_DATA_TEST_CASE(random_churn_with_faults_converges, boost::unit_test::data::make({1, 2, 3}),
                     seedValue) {
  Fixture f(doubleOptions(false, "", seedValue % 2 == 0));
  seed(f.server, 6, 12);
  f.source.start();
  BOOST_TEST(eventually([&] { return f.source.synced(); }));

  std::atomic<bool> done{false};
  std::atomic<int> inconsistent{0};
  std::atomic<int> snapshots{0};
  std::thread reader([&] {
    while (!done.load()) {
      const auto snapshot = f.cache.snapshot();
      std::set<std::string> seen;
      for (const auto* info : snapshot->nodeInfoList()) {
        for (const auto& podInfo : info->pods()) {
          const auto& p = podInfo->pod();
          if (!seen.insert(p.metadata.uid).second) ++inconsistent;
          if (p.spec.nodeName != info->node()->name) ++inconsistent;
        }
      }
      ++snapshots;
    }
  });

  std::mt19937 random(static_cast<unsigned>(seedValue));
  const auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(random); };
  for (int step = 0; step < 300; ++step) {
    const int what = pick(100);
    const std::string nodeName = "node-" + std::to_string(pick(8));
    const std::string podName = "pod-" + std::to_string(pick(30));
    if (what < 45) {
      auto p = pod(podName, pick(5) == 0 ? "" : nodeName, pick(2) ? "web" : "db");
      if (p.nodeName.empty() && pick(2)) p.nominatedNodeName = nodeName;
      if (pick(10) == 0) p.terminating = true;
      if (pick(15) == 0) p.phase = pick(2) ? "Succeeded" : "Failed";
      f.server.put("pods", p);
    } else if (what < 60) {
      f.server.remove("pods", "default/" + podName);
    } else if (what < 70) {
      f.server.put("nodes", node(nodeName, "zone-" + std::to_string(pick(3))));
    } else if (what < 75) {
      f.server.remove("nodes", nodeName);
    } else if (what < 80) {
      f.server.put("namespaces", ns("ns-" + std::to_string(pick(4)), pick(2) ? "a" : "b"));
    } else if (what < 82) {
      f.server.remove("namespaces", "ns-" + std::to_string(pick(4)));
    } else if (what < 86) {
      f.server.dropWatches();
    } else if (what < 88) {
      f.server.compact();
      f.server.dropWatches();
    } else if (what < 90) {
      f.server.sendErrorEvent(pick(2) ? 410 : 500, "Injected");
    } else if (what < 92) {
      f.server.failNextRequests(pick(3) + 1, pick(2) ? 500 : 429);
    } else if (what < 94) {
      f.server.sendBookmarks();
    } else if (what < 96) {
      f.server.stallWatches(true);
    } else {
      f.server.stallWatches(false);
    }
    if (step % 25 == 0) std::this_thread::sleep_for(5ms);  // let some watches catch up
  }
  f.server.stallWatches(false);
  BOOST_TEST(converges(f.server, f.cache, 30s));
  done.store(true);
  reader.join();
  BOOST_TEST(inconsistent.load() == 0);
  BOOST_TEST(snapshots.load() > 0);
}

BOOST_AUTO_TEST_SUITE_END()
