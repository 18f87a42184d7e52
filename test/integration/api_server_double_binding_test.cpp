// The API-server double's pod bindings, GET of one pod, held bindings and delayed watch
// delivery: the behaviour of kube-apiserver that the /bind tests rely on.
#include <rapidjson/document.h>

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <thread>

#include "test/testing/api_server_double.hpp"
#include "test/testing/http_client.hpp"

namespace api_server_double_binding_test {

using namespace std::chrono_literals;
using testing::ApiObject;
using testing::ApiServerDouble;
using testing::HttpClient;
using testing::HttpReply;

ApiObject pod(const std::string& name, const std::string& nodeName = "") {
  ApiObject object;
  object.name = name;
  object.ns = "default";
  object.labels = {{"app", "db"}};
  object.nodeName = nodeName;
  object.phase = "Pending";
  return object;
}

ApiObject node(const std::string& name) {
  ApiObject object;
  object.name = name;
  return object;
}

std::string binding(const std::string& name, const std::string& uid, const std::string& node) {
  return R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":")" + name +
         R"(","namespace":"default")" + (uid.empty() ? "" : R"(,"uid":")" + uid + "\"") +
         R"(},"target":{"apiVersion":"v1","kind":"Node","name":")" + node + R"("}})";
}

HttpReply postBinding(const ApiServerDouble& server, const std::string& name,
                      const std::string& body, const std::string& token = "") {
  namespace http = boost::beast::http;
  http::request<http::string_body> request{
      http::verb::post, "/api/v1/namespaces/default/pods/" + name + "/binding", 11};
  request.set(http::field::host, "127.0.0.1");
  request.set(http::field::content_type, "application/json");
  if (!token.empty()) request.set(http::field::authorization, "Bearer " + token);
  request.body() = body;
  request.prepare_payload();
  return HttpClient(server.port()).send(std::move(request));
}

std::string field(const std::string& json, const char* name) {
  rapidjson::Document document;
  document.Parse(json.c_str());
  if (!document.IsObject() || !document.HasMember(name)) return "<none>";
  const auto& value = document[name];
  return value.IsString() ? value.GetString()
         : value.IsInt()  ? std::to_string(value.GetInt())
                          : "?";
}

// The events a watch from `from` sends before its one-second timeout ends it.
std::string watchFrom(const ApiServerDouble& server, std::uint64_t from) {
  return HttpClient(server.port())
      .get("/api/v1/pods?watch=true&timeoutSeconds=1&resourceVersion=" + std::to_string(from))
      .body;
}

// Polls a state the double reaches on another thread's request; false after 20 s.
template <typename Predicate>
bool eventually(Predicate predicate) {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (!predicate()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

}  // namespace api_server_double_binding_test

using namespace api_server_double_binding_test;

BOOST_AUTO_TEST_SUITE(api_server_double_binding)

BOOST_AUTO_TEST_CASE(a_binding_sets_the_node_and_is_watched_as_modified) {
  ApiServerDouble server({});
  server.put("pods", pod("p"));
  const std::uint64_t before = server.resourceVersion();

  const auto reply =
      postBinding(server, "p", binding("p", server.uid("pods", "default/p"), "node-1"));
  BOOST_TEST(reply.status == 201u);
  BOOST_TEST(reply.body ==
             R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201})");
  BOOST_TEST(server.objects("pods").at("default/p").nodeName == "node-1");
  BOOST_TEST(server.resourceVersion() == before + 1);
  BOOST_TEST(server.requests().back() == "BIND default/p");

  const std::string events = watchFrom(server, before);
  BOOST_TEST(events.find(R"({"type":"MODIFIED","object":{"kind":"Pod")") != std::string::npos,
             events);
  BOOST_TEST(events.find(R"("nodeName":"node-1")") != std::string::npos, events);
  BOOST_TEST(events.find(R"("resourceVersion":")" + std::to_string(before + 1) + "\"") !=
                 std::string::npos,
             events);
}

BOOST_AUTO_TEST_CASE(a_binding_without_a_uid_is_not_a_precondition) {
  ApiServerDouble server({});
  server.put("pods", pod("p"));
  BOOST_TEST(postBinding(server, "p", binding("p", "", "node-1")).status == 201u);
}

BOOST_AUTO_TEST_CASE(refusals_as_kube_apiserver_words_them) {
  struct Case {
    std::string name;
    ApiObject stored;
    std::string uid;   // "" for the stored pod's
    std::string body;  // "" for a Binding of "p" to node-1
    unsigned wantStatus;
    std::string wantReason;
    std::string wantMessage;
  };
  ApiObject terminating = pod("p");
  terminating.terminating = true;
  const std::vector<Case> cases = {
      {"missing pod", pod("q"), "", "", 404, "NotFound", R"(pods "p" not found)"},
      {"uid mismatch", pod("p"), "other-uid", "", 409, "Conflict",
       R"(Operation cannot be fulfilled on pods "p": Precondition failed: UID in precondition: )"
       "other-uid, UID in object meta: uid-pods-default/p-1"},
      {"already assigned", pod("p", "node-2"), "", "", 409, "Conflict",
       R"(Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node )"
       R"("node-2")"},
      {"being deleted", terminating, "", "", 409, "Conflict",
       R"(Operation cannot be fulfilled on pods/binding "p": pod p is being deleted, cannot be )"
       "assigned to a host"},
      {"no target", pod("p"), "", binding("p", "", ""), 422, "Invalid",
       R"(Binding.core "p" is invalid: target.name: Required value)"},
      {"name differs from the URL", pod("p"), "", binding("q", "", "node-1"), 400, "BadRequest",
       "name in URL does not match name in Binding object"},
      {"not JSON", pod("p"), "", "{", 400, "BadRequest",
       "the body of the request was in an unknown format"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      ApiServerDouble server({});
      server.put("pods", c.stored);
      const std::uint64_t before = server.resourceVersion();
      const std::string uid =
          c.uid.empty() && c.stored.name == "p" ? server.uid("pods", "default/p") : c.uid;
      const auto reply =
          postBinding(server, "p", c.body.empty() ? binding("p", uid, "node-1") : c.body);
      BOOST_TEST(reply.status == c.wantStatus);
      BOOST_TEST(field(reply.body, "kind") == "Status");
      BOOST_TEST(field(reply.body, "status") == "Failure");
      BOOST_TEST(field(reply.body, "reason") == c.wantReason);
      BOOST_TEST(field(reply.body, "message") == c.wantMessage);
      BOOST_TEST(field(reply.body, "code") == std::to_string(c.wantStatus));
      BOOST_TEST(server.resourceVersion() == before);  // nothing changed
      BOOST_TEST((server.objects("pods").begin()->second == c.stored));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_recreated_pod_has_a_new_uid) {
  ApiServerDouble server({});
  server.put("pods", pod("p"));
  const std::string first = server.uid("pods", "default/p");
  server.remove("pods", "default/p");
  server.put("pods", pod("p"));
  BOOST_TEST(server.uid("pods", "default/p") != first);
  BOOST_TEST(postBinding(server, "p", binding("p", first, "node-1")).status == 409u);
  BOOST_CHECK_THROW(server.uid("pods", "default/none"), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(bindings_need_the_token_and_take_injected_failures) {
  ApiServerDouble::Options options;
  options.token = "t0ken";
  ApiServerDouble server(options);
  server.put("pods", pod("p"));
  BOOST_TEST(postBinding(server, "p", binding("p", "", "node-1")).status == 401u);
  server.failNextRequests(1, 503);
  BOOST_TEST(postBinding(server, "p", binding("p", "", "node-1"), "t0ken").status == 503u);
  BOOST_TEST(server.objects("pods").at("default/p").nodeName == "");
  BOOST_TEST(postBinding(server, "p", binding("p", "", "node-1"), "t0ken").status == 201u);
}

BOOST_AUTO_TEST_CASE(get_of_one_pod) {
  ApiServerDouble server({});
  server.put("pods", pod("p", "node-1"));
  HttpClient client(server.port());
  const auto found = client.get("/api/v1/namespaces/default/pods/p");
  BOOST_TEST(found.status == 200u);
  BOOST_TEST(field(found.body, "kind") == "Pod");
  BOOST_TEST(found.body.find(R"("uid":")" + server.uid("pods", "default/p") + "\"") !=
             std::string::npos);
  BOOST_TEST(found.body.find(R"("nodeName":"node-1")") != std::string::npos);
  // The same rendering as the item of a list.
  const auto list = client.get("/api/v1/pods");
  BOOST_TEST(list.body.find(found.body) != std::string::npos, list.body);

  const auto missing = client.get("/api/v1/namespaces/default/pods/q");
  BOOST_TEST(missing.status == 404u);
  BOOST_TEST(field(missing.body, "message") == R"(pods "q" not found)");
  BOOST_TEST(client.post("/api/v1/namespaces/default/pods/p", "{}").status == 405u);
  const auto requests = server.requests();
  BOOST_TEST(requests.at(0) == "GET pods default/p");
  BOOST_TEST(requests.at(2) == "GET pods default/q");
}

BOOST_AUTO_TEST_CASE(held_bindings_wait_and_go_oldest_first) {
  ApiServerDouble server({});
  server.put("pods", pod("p1"));
  server.put("pods", pod("p2"));
  server.put("pods", pod("p3"));
  server.holdBindings(true);
  HttpReply first, second, third;
  std::thread one([&] { first = postBinding(server, "p1", binding("p1", "", "node-1")); });
  BOOST_TEST(eventually([&] { return server.heldBindings() == 1; }));
  std::thread two([&] { second = postBinding(server, "p2", binding("p2", "", "node-2")); });
  BOOST_TEST(eventually([&] { return server.heldBindings() == 2; }));
  BOOST_TEST(server.objects("pods").at("default/p1").nodeName == "");

  server.releaseBindings(1);
  one.join();
  BOOST_TEST(first.status == 201u);
  BOOST_TEST(server.heldBindings() == 1u);
  BOOST_TEST(server.objects("pods").at("default/p1").nodeName == "node-1");
  BOOST_TEST(server.objects("pods").at("default/p2").nodeName == "");

  // A held binding is judged when it goes: p2 was bound meanwhile by someone else.
  server.put("pods", pod("p2", "node-3"));
  server.holdBindings(false);
  two.join();
  BOOST_TEST(second.status == 409u);
  BOOST_TEST(field(second.body, "message") ==
             R"(Operation cannot be fulfilled on pods/binding "p2": pod p2 is already assigned )"
             R"(to node "node-3")");

  // Released ones do not count against the next hold.
  server.holdBindings(true);
  std::thread three([&] { third = postBinding(server, "p3", binding("p3", "", "node-1")); });
  BOOST_TEST(eventually([&] { return server.heldBindings() == 1; }));
  server.releaseBindings(5);
  three.join();
  BOOST_TEST(third.status == 201u);
  BOOST_TEST(server.heldBindings() == 0u);
}

BOOST_AUTO_TEST_CASE(a_destroyed_double_lets_held_bindings_go) {
  HttpReply reply;
  std::thread binder;
  {
    ApiServerDouble server({});
    server.put("pods", pod("p"));
    server.holdBindings(true);
    binder = std::thread([&] {
      try {
        reply = postBinding(server, "p", binding("p", "", "node-1"));
      } catch (const std::exception&) {
        reply.status = 0;  // the connection closed without an answer, as expected
      }
    });
    BOOST_TEST(eventually([&] { return server.heldBindings() == 1; }));
  }
  binder.join();
  BOOST_TEST(reply.status == 0u);
}

BOOST_AUTO_TEST_CASE(a_binding_delay_still_binds) {
  ApiServerDouble::Options options;
  options.bindingDelay = 20ms;
  ApiServerDouble server(options);
  server.put("pods", pod("p"));
  BOOST_TEST(postBinding(server, "p", binding("p", "", "node-1")).status == 201u);
  BOOST_TEST(server.objects("pods").at("default/p").nodeName == "node-1");
}

BOOST_AUTO_TEST_CASE(delayed_watch_events_keep_their_order) {
  ApiServerDouble server({});
  server.put("nodes", node("node-1"));
  const std::uint64_t from = server.resourceVersion();
  server.setWatchDelay(0ms, 40ms, 7);
  constexpr int kChanges = 30;
  for (int i = 0; i < kChanges; ++i) {
    server.put("pods", pod("p" + std::to_string(i % 4), i % 3 == 0 ? "node-1" : ""));
    // Events of another resource, delayed too, between them.
    if (i % 5 == 0) server.put("nodes", node("node-1"));
  }
  // Every event comes, pods' in resourceVersion order.
  const std::string events = watchFrom(server, from);
  std::uint64_t last = from;
  int seen = 0;
  for (std::size_t at = events.find(R"("resourceVersion":")"); at != std::string::npos;
       at = events.find(R"("resourceVersion":")", at + 1)) {
    const std::uint64_t version = std::stoull(events.substr(at + 19));
    BOOST_TEST(version > last);
    last = version;
    ++seen;
  }
  BOOST_TEST(seen == kChanges);
}

BOOST_AUTO_TEST_CASE(a_delayed_event_is_not_sent_before_its_time) {
  ApiServerDouble server({});
  const std::uint64_t from = server.resourceVersion();
  server.setWatchDelay(60s, 60s, 1);
  server.put("pods", pod("p"));
  BOOST_TEST(watchFrom(server, from).find("ADDED") == std::string::npos);
  // Lists read storage, which is not delayed.
  BOOST_TEST(HttpClient(server.port()).get("/api/v1/pods").body.find(R"("name":"p")") !=
             std::string::npos);
  server.setWatchDelay(0ms, 0ms, 1);
  server.put("pods", pod("q"));
  // The earlier event still holds the later one back.
  BOOST_TEST(watchFrom(server, from).find("ADDED") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
